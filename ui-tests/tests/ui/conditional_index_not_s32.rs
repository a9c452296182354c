use xla_aot::xla;

xla! {
    fn f(i: pred[], x: f32[4]) -> f32[4] {
        Conditional(i, [|a| a, |b| -b], [x, x])
    }
}

fn main() {}
