use xla_aot::xla;

xla! {
    fn f(x: f32[1, 1, 1, 1, 1, 1, 1, 1, 1]) -> f32[1, 1, 1, 1, 1, 1, 1, 1, 1] {
        x
    }
}

fn main() {}
