use xla_aot::xla;

xla! {
    fn f(x: f32[6, 4], i: s32[8], u: f32[8, 4]) -> f32[6, 4] {
        Scatter(x, i, u, add_s32, update_window_dims = [1], inserted_window_dims = [0],
            scatter_dims_to_operand_dims = [0], index_vector_dim = 1)
    }
    fn add_s32(a: s32[], b: s32[]) -> s32[] {
        Add(a, b)
    }
}

fn main() {}
