use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        CollectivePermute(x, source_target_pairs = [[-1, 1]])
    }
}

fn main() {}
