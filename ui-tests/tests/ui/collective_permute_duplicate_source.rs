use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        CollectivePermute(x, source_target_pairs = [[0, 1], [0, 2]])
    }
}

fn main() {}
