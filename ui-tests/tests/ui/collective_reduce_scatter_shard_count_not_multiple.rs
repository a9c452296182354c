use xla_aot::xla;

xla! {
    fn f(x: f32[6]) -> f32[2] {
        ReduceScatter(x, |a, b| a + b, scatter_dimension = 0, replica_groups = [[0, 1]], channel_id = 1, shard_count = 3)
    }
}

fn main() {}
