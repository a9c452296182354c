use xla_aot::xla;

xla! {
    fn f(x: f32[4, 2]) -> f32[4, 2] {
        AllToAll(x, split_dimension = 0, concat_dimension = 1, split_count = 0)
    }
}

fn main() {}
