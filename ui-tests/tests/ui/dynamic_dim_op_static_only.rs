use xla_aot::xla;

xla! {
    fn f(x: f32[<=8, 3]) -> f32[<=8, 3] {
        Sort(x, |a, b| Lt(a, b), dimension = 0)
    }
}

fn main() {}
