use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        Sort(x, |a, b| Lt(a, b), is_stable = 1)
    }
}

fn main() {}
