use xla_aot::xla;

xla! {
    fn f(lhs: f32[3, 7, 4], rhs: f32[3, 4, 5], gs: s32[3]) -> f32[3, 7, 5] {
        RaggedDot(lhs, rhs, gs, lhs_batch_dimensions = [0], rhs_batch_dimensions = [0],
                  lhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1],
                  rhs_group_dimensions = [0])
    }
}

fn main() {}
