use xla_aot::xla;

xla! {
    fn f(x: f32[8], n: s32[]) -> f32[8] {
        let s = While(
            |s| Lt(s.0, 2i32),
            |s| {
                let total = Reduce(SetDimensionSize(s.1, s.2, dimension = 0), 0.0, dimensions = [0], |a, b| a + b);
                Tuple(Add(s.0, 1i32), Add(s.1, total), s.2)
            },
            Tuple(0i32, x, n),
        );
        s.1
    }
}

fn main() {}
