use xla_aot::xla;

xla! {
    fn f(x: f32[4, 6], i: f32[2]) -> f32[3, 5] {
        ReduceWindow(x, i, |a, b| a + b, window_dimensions = [2, 2])
    }
}

fn main() {}
