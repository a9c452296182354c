use xla_aot::xla;

xla! {
    fn f(x: f32[3, 5], i: s32[3, 1]) -> f32[3] {
        Gather(x, i, offset_dims = [], collapsed_slice_dims = [], operand_batching_dims = [0],
            start_indices_batching_dims = [1], start_index_map = [1], index_vector_dim = 1,
            slice_sizes = [1, 1])
    }
}

fn main() {}
