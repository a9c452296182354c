use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3]) -> f32[2, 3] {
        Pad(x, 0.0, padding_config = [[0, 0, 0], [0, 0, -1]])
    }
}

fn main() {}
