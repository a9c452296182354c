use xla_aot::xla;

xla! {
    fn f(x: f32[6, 4, 2], i: s32[8], u: f32[8, 2]) -> f32[6, 4, 2] {
        Scatter(x, i, u, |a, b| Add(a, b), update_window_dims = [1],
            inserted_window_dims = [0, 0], scatter_dims_to_operand_dims = [0],
            index_vector_dim = 1)
    }
}

fn main() {}
