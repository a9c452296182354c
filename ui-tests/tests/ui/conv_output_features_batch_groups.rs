use xla_aot::xla;

xla! {
    fn f(x: f32[4, 5, 5, 3], w: f32[3, 3, 3, 7]) -> f32[2, 5, 5, 7] {
        ConvGeneralDilated(
            x, w, window_strides = [1, 1], padding = [[1, 1], [1, 1]],
            dimension_numbers = [NHWC, HWIO, NHWC],
            batch_group_count = 2,
        )
    }
}

fn main() {}
