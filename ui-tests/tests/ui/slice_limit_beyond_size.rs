use xla_aot::xla;

xla! {
    fn f(x: f32[4, 6]) -> f32[2, 6] {
        Slice(x, start_indices = [0, 0], limit_indices = [2, 7])
    }
}

fn main() {}
