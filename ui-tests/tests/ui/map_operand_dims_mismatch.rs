use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3], y: f32[3, 2]) -> f32[2, 3] {
        Map(x, y, |a, b| a + b)
    }
}

fn main() {}
