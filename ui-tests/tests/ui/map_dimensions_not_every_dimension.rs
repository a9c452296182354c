use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3]) -> f32[2, 3] {
        Map(x, |a| a + 1.0, dimensions = [0])
    }
}

fn main() {}
