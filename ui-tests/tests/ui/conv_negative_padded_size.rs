use xla_aot::xla;

xla! {
    fn f(x: f32[1, 5, 5, 3], w: f32[3, 3, 3, 8]) -> f32[1, 5, 5, 8] {
        ConvGeneral(
            x, w, window_strides = [1, 1], padding = [[0, 0], [-3, -3]],
            dimension_numbers = [NHWC, HWIO, NHWC],
        )
    }
}

fn main() {}
