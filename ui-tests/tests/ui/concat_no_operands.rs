use xla_aot::xla;

xla! {
    fn f(x: f32[2]) -> f32[2] {
        ConcatInDim(dimension = 0)
    }
}

fn main() {}
