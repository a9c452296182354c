use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3], init: s32[]) -> f32[4] {
        Reduce(x, init, dimensions = [1], |a, b| a + b)
    }
}

fn main() {}
