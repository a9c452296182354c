use xla_aot::xla;

xla! {
    fn f(x: f32[3, 5, 2], i: s32[3, 4]) -> f32[3, 4, 2] {
        Gather(x, i, offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0],
            start_indices_batching_dims = [2], start_index_map = [1], index_vector_dim = 2,
            slice_sizes = [1, 1, 2])
    }
}

fn main() {}
