use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3]) -> f32[5, 2] {
        Reshape(x, new_sizes = [5, 2])
    }
}

fn main() {}
