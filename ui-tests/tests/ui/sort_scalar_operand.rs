use xla_aot::xla;

xla! {
    fn f(x: f32[]) -> f32[] {
        Sort(x, |a, b| Lt(a, b))
    }
}

fn main() {}
