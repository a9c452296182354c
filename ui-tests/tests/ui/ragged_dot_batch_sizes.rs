use xla_aot::xla;

xla! {
    fn f(lhs: f32[2, 7, 4], rhs: f32[3, 5, 4, 6], gs: s32[3]) -> f32[2, 7, 6] {
        RaggedDot(lhs, rhs, gs, lhs_batch_dimensions = [0], rhs_batch_dimensions = [1],
                  lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2],
                  lhs_ragged_dimensions = [1])
    }
}

fn main() {}
