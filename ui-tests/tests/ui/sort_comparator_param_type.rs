use xla_aot::xla;

xla! {
    fn f(x: f32[4]) -> f32[4] {
        Sort(x, |a: f64[], b: f64[]| Lt(a, b))
    }
}

fn main() {}
