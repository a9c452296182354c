use xla_aot::xla;

xla! {
    fn f(x: s32[2, 3], s: s32[3], o: s32[3]) -> (s32[2, 3], s32[3], s32[3]) {
        BatchNormTraining(x, s, o, epsilon = 0.001, feature_index = 1)
    }
}

fn main() {}
