use xla_aot::xla;

xla! {
    fn f(x: f32[4], y: s32[4]) -> f32[4] {
        x + y
    }
}

fn main() {}
