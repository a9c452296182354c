use xla_aot::xla;

xla! {
    fn f(p: s32[], x: f32[4]) -> f32[4] {
        Conditional(p, x, |a| a, x, |b| -b)
    }
}

fn main() {}
