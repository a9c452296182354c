use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3], s: f32[2], o: f32[2], m: f32[2], v: f32[3]) -> f32[2, 3] {
        BatchNormInference(x, s, o, m, v, epsilon = 0.001, feature_index = 0)
    }
}

fn main() {}
