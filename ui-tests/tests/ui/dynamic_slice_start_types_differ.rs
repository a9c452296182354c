use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3], i: s32[], j: u8[]) -> f32[2, 2] {
        DynamicSlice(x, i, j, slice_sizes = [2, 2])
    }
}

fn main() {}
