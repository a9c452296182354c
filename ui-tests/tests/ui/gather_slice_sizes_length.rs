use xla_aot::xla;

xla! {
    fn f(x: f32[6, 4], i: s32[5]) -> f32[5, 4] {
        Gather(x, i, offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0],
            index_vector_dim = 1, slice_sizes = [1, 4, 1])
    }
}

fn main() {}
