use xla_aot::xla;

xla! {
    fn f(x: f32[], y: f32[]) -> f32[2] {
        ConcatInDim(x, y, dimension = 0)
    }
}

fn main() {}
