use xla_aot::xla;

xla! {
    fn f(k: f32[4], v: s32[4]) -> (f32[4], s32[4]) {
        Sort(k, v, |a, b| Lt(a, b))
    }
}

fn main() {}
