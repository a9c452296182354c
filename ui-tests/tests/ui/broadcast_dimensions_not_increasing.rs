use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3, 4], v: f32[3, 4]) -> f32[2, 3, 4] {
        Add(x, v, broadcast_dimensions = [2, 1])
    }
}

fn main() {}
