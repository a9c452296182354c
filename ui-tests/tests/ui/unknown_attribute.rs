use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3], v: f32[3]) -> f32[2, 3] {
        Add(x, v, broadcast_dimension = [1])
    }
}

fn main() {}
