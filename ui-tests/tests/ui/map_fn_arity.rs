use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3], y: f32[2, 3]) -> f32[2, 3] {
        Map(x, y, g)
    }
    fn g(a: f32[]) -> f32[] {
        a
    }
}

fn main() {}
