use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3, 2]) -> f32[8, 3] {
        Collapse(x, dimensions = [0, 2])
    }
}

fn main() {}
