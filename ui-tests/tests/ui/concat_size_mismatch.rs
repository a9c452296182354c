use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3], y: f32[3, 3]) -> f32[2, 6] {
        ConcatInDim(x, y, dimension = 1)
    }
}

fn main() {}
