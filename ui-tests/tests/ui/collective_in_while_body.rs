use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        While(|s| Lt(Reduce(s, 0.0, dimensions = [0], |a, b| a + b), 10.0), |s| CrossReplicaSum(s), x)
    }
}

fn main() {}
