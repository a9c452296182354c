use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        Sort(|a, b| Lt(a, b))
    }
}

fn main() {}
