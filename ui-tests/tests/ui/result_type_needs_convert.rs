use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3]) -> f64[2, 3] {
        Exp(x)
    }
}

fn main() {}
