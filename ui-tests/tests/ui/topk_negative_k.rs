use xla_aot::xla;

xla! {
    fn f(x: f32[3, 8]) -> (f32[3, 2], s32[3, 2]) {
        TopK(x, k = -2)
    }
}

fn main() {}
