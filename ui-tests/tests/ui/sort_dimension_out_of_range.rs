use xla_aot::xla;

xla! {
    fn f(x: f32[2, 4]) -> f32[2, 4] {
        Sort(x, |a, b| Lt(a, b), dimension = 2)
    }
}

fn main() {}
