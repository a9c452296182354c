use xla_aot::xla;

xla! {
    fn f(x: f32[4, 3], u: f32[2, 2], i: s32[]) -> f32[4, 3] {
        DynamicUpdateSlice(x, u, i, i, i)
    }
}

fn main() {}
