use xla_aot::xla;

xla! {
    // Ranks differ and no broadcast_dimensions were given.
    fn f(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v)
    }
}

fn main() {}
