use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3], i: s32[]) -> f32[2] {
        DynamicSlice(Tuple(x, x), i, slice_sizes = [2])
    }
}

fn main() {}
