use xla_aot::xla;

xla! {
    fn f(x: f32[1, 5, 5, 3], w: f64[3, 3, 3, 8]) -> f32[1, 5, 5, 8] {
        ConvGeneralDilated(
            x, w, window_strides = [1, 1], padding = [[1, 1], [1, 1]],
            dimension_numbers = [NHWC, HWIO, NHWC],
        )
    }
}

fn main() {}
