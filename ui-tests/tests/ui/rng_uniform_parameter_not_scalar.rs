use xla_aot::xla;

xla! {
    fn f(a: f32[2]) -> f32[2] {
        RngUniform(a, 1.0, f32[2])
    }
}

fn main() {}
