use xla_aot::xla;

xla! {
    fn f(lhs: f32[7], rhs: f32[3, 7, 5], gs: s32[3]) -> f32[5] {
        RaggedDot(lhs, rhs, gs)
    }
}

fn main() {}
