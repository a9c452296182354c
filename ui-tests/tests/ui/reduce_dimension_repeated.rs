use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3]) -> f32[] {
        Reduce(x, 0.0, dimensions = [1, 1], |a, b| a + b)
    }
}

fn main() {}
