use xla_aot::xla;

xla! {
    fn f(x: f32[5]) -> f32[2] {
        ReduceScatter(x, |a, b| a + b, scatter_dimension = 0, replica_groups = [[0, 1]])
    }
}

fn main() {}
