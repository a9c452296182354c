use xla_aot::xla;

xla! {
    fn f(lo: f64[]) -> f32[2] {
        RngUniform(lo, 1.0, f32[2])
    }
}

fn main() {}
