use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        g(x)
    }
    fn g(x: f32[4]) -> f32[4] {
        f(x) + 1.0
    }
}

fn main() {}
