use xla_aot::xla;

xla! {
    fn less(a: f32[], b: f32[]) -> pred[] {
        Lt(a, b)
    }
    fn f(k: f32[4], v: s32[4]) -> (f32[4], s32[4]) {
        Sort(k, v, less)
    }
}

fn main() {}
