use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[12] {
        AllGather(x, all_gather_dim = 0, replica_groups = [[0, 1]], shard_count = 3)
    }
}

fn main() {}
