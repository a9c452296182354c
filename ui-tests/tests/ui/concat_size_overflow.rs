use xla_aot::xla;

xla! {
    fn f(x: pred[4611686018427387904], y: pred[4611686018427387904]) -> pred[2] {
        ConcatInDim(x, y, dimension = 0)
    }
}

fn main() {}
