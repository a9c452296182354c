use xla_aot::xla;

xla! {
    // The seed: (2,3) + (3) with broadcast_dimensions (0): 3 vs 2.
    fn f(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [0])
    }
}

fn main() {}
