use xla_aot::xla;

xla! {
    fn f(k: f32[4], v: s32[5]) -> (f32[4], s32[5]) {
        Sort(k, v, |a, b, i, j| Lt(a, b))
    }
}

fn main() {}
