use xla_aot::xla;

xla! {
    fn f(n: s32[], x: f32[]) -> (s32[], f32[]) {
        While(|i, x| Lt(i, 10), |s| Tuple(s.0 + 1, s.1), Tuple(n, x))
    }
}

fn main() {}
