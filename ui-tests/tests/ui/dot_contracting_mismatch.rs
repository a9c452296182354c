use xla_aot::xla;

xla! {
    fn f(a: f32[4, 3], b: f32[4, 5]) -> f32[4, 5] {
        Dot(a, b)
    }
}

fn main() {}
