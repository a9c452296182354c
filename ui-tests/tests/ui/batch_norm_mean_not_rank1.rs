use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3], s: f32[3], o: f32[3], m: f32[], v: f32[3]) -> f32[2, 3] {
        BatchNormInference(x, s, o, m, v, epsilon = 0.001, feature_index = 1)
    }
}

fn main() {}
