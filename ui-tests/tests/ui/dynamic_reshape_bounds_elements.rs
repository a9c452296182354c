use xla_aot::xla;

xla! {
    fn f(x: f32[<=12], rows: s32[], cols: s32[]) -> f32[<=4, 4] {
        DynamicReshape(x, rows, cols, new_size_bounds = [4, 4], dims_are_dynamic = [true, false])
    }
}

fn main() {}
