use xla_aot::xla;

xla! {
    fn f(x: f32[3], y: f32[3]) -> pred[3] {
        Compare(x, y, direction = GT, comparison_type = SIGNED)
    }
}

fn main() {}
