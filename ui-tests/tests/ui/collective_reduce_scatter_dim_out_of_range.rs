use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[2] {
        ReduceScatter(x, |a, b| a + b, scatter_dimension = -1, replica_groups = [[0, 1]])
    }
}

fn main() {}
