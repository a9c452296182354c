use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3], u: f32[2, 2], i: s32[], j: s32[1]) -> f32[4, 3] {
        DynamicUpdateSlice(x, u, i, j)
    }
}

fn main() {}
