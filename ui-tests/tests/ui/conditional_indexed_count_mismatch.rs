use xla_aot::xla;

xla! {
    fn f(i: s32[], x: f32[4]) -> f32[4] {
        Conditional(i, [|a| a, |b| -b], [x])
    }
}

fn main() {}
