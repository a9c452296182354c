use xla_aot::xla;

xla! {
    fn f(x: f32[3, 8]) -> (f32[3, 9], s32[3, 9]) {
        TopK(x, k = 9)
    }
}

fn main() {}
