use xla_aot::xla;

xla! {
    fn f(x: f32[], s: f32[1], o: f32[1], m: f32[1], v: f32[1]) -> f32[] {
        BatchNormInference(x, s, o, m, v, epsilon = 0.001, feature_index = 0)
    }
}

fn main() {}
