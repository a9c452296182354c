use xla_aot::xla;

xla! {
    fn f(sigma: f32[3]) -> f32[3] {
        RngNormal(0.0, sigma, f32[3])
    }
}

fn main() {}
