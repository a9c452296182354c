use xla_aot::xla;

xla! {
    fn f(x: f32[4, 6], g: f32[2, 3]) -> f32[4, 6] {
        SelectAndScatter(x, |a, b| Ge(a, b), g, 0.0, |a, b| a + b,
            window_dimensions = [2, 0], window_strides = [2, 2])
    }
}

fn main() {}
