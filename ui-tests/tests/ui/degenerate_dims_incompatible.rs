use xla_aot::xla;

xla! {
    // (7,2,5) vs (7,2,6): the last dims differ and neither is 1.
    fn f(x: f32[7, 2, 5], y: f32[7, 2, 6]) -> f32[7, 2, 6] {
        Add(x, y)
    }
}

fn main() {}
