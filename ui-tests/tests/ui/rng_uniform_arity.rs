use xla_aot::xla;

xla! {
    fn f() -> f32[4] {
        RngUniform(0.0, f32[4])
    }
}

fn main() {}
