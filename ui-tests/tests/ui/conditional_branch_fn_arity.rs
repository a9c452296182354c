use xla_aot::xla;

xla! {
    fn twice(a: f32[4], b: f32[4]) -> f32[4] {
        a + b
    }
    fn f(p: pred[], x: f32[4]) -> f32[4] {
        Conditional(p, x, twice, x, |b| -b)
    }
}

fn main() {}
