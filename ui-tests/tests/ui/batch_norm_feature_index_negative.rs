use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3], s: f32[3], m: f32[3], v: f32[3], dy: f32[2, 3]) -> (f32[2, 3], f32[3], f32[3]) {
        BatchNormGrad(x, s, m, v, dy, epsilon = 0.001, feature_index = -1)
    }
}

fn main() {}
