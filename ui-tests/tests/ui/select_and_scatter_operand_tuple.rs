use xla_aot::xla;

xla! {
    fn ge(a: f32[], b: f32[]) -> pred[] {
        Ge(a, b)
    }
    fn add(a: f32[], b: f32[]) -> f32[] {
        Add(a, b)
    }
    fn f(x: f32[4, 6], g: f32[2, 3]) -> f32[4, 6] {
        SelectAndScatter(Tuple(x, x), ge, g, 0.0f32, add,
            window_dimensions = [2, 2], window_strides = [2, 2])
    }
}

fn main() {}
