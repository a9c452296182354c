use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3]) -> f32[4, 3] {
        Pad(x, 0.0, padding_config = [[1, 1, 0]])
    }
}

fn main() {}
