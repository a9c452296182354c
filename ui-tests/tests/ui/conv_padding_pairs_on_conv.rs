use xla_aot::xla;

xla! {
    fn f(x: f32[1, 3, 5, 5], w: f32[8, 3, 3, 3]) -> f32[1, 8, 5, 5] {
        Conv(x, w, window_strides = [1, 1], padding = [[1, 1], [1, 1]])
    }
}

fn main() {}
