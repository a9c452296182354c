use xla_aot::xla;

xla! {
    fn f(p: pred[], x: f32[4], y: f32[3]) -> f32[4] {
        Conditional(p, x, |a| a, y, |b: f32[4]| -b)
    }
}

fn main() {}
