use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3], u: f64[2, 2], i: s32[], j: s32[]) -> f32[4, 3] {
        DynamicUpdateSlice(x, u, i, j)
    }
}

fn main() {}
