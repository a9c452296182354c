use xla_aot::xla;

xla! {
    fn f(x: f32[2]) -> f32[2] {
        Map(x, g)
    }
    fn g(a: f32[]) -> f32[2] {
        Broadcast(a, broadcast_sizes = [2])
    }
}

fn main() {}
