use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3]) -> f32[2, 3] {
        Map(x)
    }
}

fn main() {}
