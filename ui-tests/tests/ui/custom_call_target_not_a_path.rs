use xla_aot::xla;

xla! {
    // call_target_name names a Rust fn by its path.
    fn f(x: f32[3]) -> f32[3] {
        CustomCall(x, call_target_name = "my-target.so", shape = f32[3])
    }
}

fn main() {}
