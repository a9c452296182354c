use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        Sort(x, |a, b| a - b)
    }
}

fn main() {}
