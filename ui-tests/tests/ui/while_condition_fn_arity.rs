use xla_aot::xla;

xla! {
    fn cond(i: s32[], x: f32[]) -> pred[] {
        Lt(i, 10)
    }
    fn f(n: s32[], x: f32[]) -> (s32[], f32[]) {
        While(cond, |s| Tuple(s.0 + 1, s.1), Tuple(n, x))
    }
}

fn main() {}
