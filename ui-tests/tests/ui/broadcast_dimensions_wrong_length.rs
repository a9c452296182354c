use xla_aot::xla;

xla! {
    // One entry per dimension of the lower-rank operand.
    fn f(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimensions = [0, 1])
    }
}

fn main() {}
