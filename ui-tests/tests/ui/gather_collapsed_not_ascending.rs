use xla_aot::xla;

xla! {
    fn f(x: f32[6, 4, 3], i: s32[5]) -> f32[5, 3] {
        Gather(x, i, offset_dims = [1], collapsed_slice_dims = [1, 0], start_index_map = [0],
            index_vector_dim = 1, slice_sizes = [1, 1, 3])
    }
}

fn main() {}
