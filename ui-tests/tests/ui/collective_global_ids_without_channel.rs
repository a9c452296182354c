use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        CrossReplicaSum(x, replica_groups = [[0, 1]], use_global_device_ids = true)
    }
}

fn main() {}
