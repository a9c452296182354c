use xla_aot::xla;

xla! {
    fn f(lhs: f32[7, 4], rhs: f32[3, 4, 5], gs: s32[3]) -> f32[7, 5] {
        RaggedDot(lhs, rhs, gs, rhs_group_dimensions = [3])
    }
}

fn main() {}
