use xla_aot::xla;

xla! {
    fn f(x: f32[4, 5], i: s32[3, 4], u: f32[3, 4]) -> f32[4, 5] {
        Scatter(x, i, u, |a, b| Add(a, b), update_window_dims = [], inserted_window_dims = [1],
            input_batching_dims = [0], scatter_indices_batching_dims = [0],
            scatter_dims_to_operand_dims = [1], index_vector_dim = 2)
    }
}

fn main() {}
