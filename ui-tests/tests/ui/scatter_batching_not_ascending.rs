use xla_aot::xla;

xla! {
    fn f(x: f32[3, 2, 5], i: s32[3, 2, 4], u: f32[3, 2, 4]) -> f32[3, 2, 5] {
        Scatter(x, i, u, |a, b| Add(a, b), update_window_dims = [], inserted_window_dims = [2],
            input_batching_dims = [1, 0], scatter_indices_batching_dims = [0, 1],
            scatter_dims_to_operand_dims = [2], index_vector_dim = 3)
    }
}

fn main() {}
