use xla_aot::xla;

xla! {
    fn f(x: f32[2, 12]) -> f32[24] {
        Reshape(x, new_sizes = [-1, 12])
    }
}

fn main() {}
