use xla_aot::xla;

xla! {
    fn f(p: pred[], x: f32[4]) -> f32[4] {
        Conditional(p, x, |a| a, x)
    }
}

fn main() {}
