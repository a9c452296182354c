use xla_aot::xla;

xla! {
    fn f(x: s32[1, 5, 5, 3], w: s32[3, 3, 3, 8]) -> s8[1, 5, 5, 8] {
        ConvGeneralDilated(
            x, w, window_strides = [1, 1], padding = [[1, 1], [1, 1]],
            dimension_numbers = [NHWC, HWIO, NHWC],
            preferred_element_type = s8,
        )
    }
}

fn main() {}
