use xla_aot::xla;

xla! {
    fn f(lhs: f32[5, 7], rhs: f32[7, 4], gs: s32[3]) -> f32[3, 5, 4] {
        RaggedDot(lhs, rhs, gs, rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0])
    }
}

fn main() {}
