use xla_aot::xla;

xla! {
    fn f(x: f32[2, 3], s: f32[1, 3], o: f32[3]) -> (f32[2, 3], f32[3], f32[3]) {
        BatchNormTraining(x, s, o, epsilon = 0.001, feature_index = 1)
    }
}

fn main() {}
