use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3]) -> f32[4] {
        Reduce(x, 0.0, dimensions = [1], |a: f64[], b: f64[]| a + b)
    }
}

fn main() {}
