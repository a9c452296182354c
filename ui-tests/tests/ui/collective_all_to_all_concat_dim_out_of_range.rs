use xla_aot::xla;

xla! {
    fn f(x: f32[4, 2]) -> f32[2, 4] {
        AllToAll(x, split_dimension = 0, concat_dimension = 2, split_count = 2)
    }
}

fn main() {}
