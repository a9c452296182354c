use xla_aot::xla;

xla! {
    // The target must be a Rust fn in scope: rustc reports the missing fn at its name.
    fn f(x: f32[3]) -> f32[3] {
        CustomCall(x, call_target_name = "no_such_fn", shape = f32[3])
    }
}

fn main() {}
