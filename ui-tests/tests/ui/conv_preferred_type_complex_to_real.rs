use xla_aot::xla;

xla! {
    fn f(x: c64[1, 5, 5, 3], w: c64[3, 3, 3, 8]) -> f32[1, 5, 5, 8] {
        ConvGeneralDilated(
            x, w, window_strides = [1, 1], padding = [[1, 1], [1, 1]],
            dimension_numbers = [NHWC, HWIO, NHWC],
            preferred_element_type = f32,
        )
    }
}

fn main() {}
