use xla_aot::xla;

xla! {
    fn f(x: f32[]) -> (f32[1], s32[1]) {
        TopK(x, k = 1)
    }
}

fn main() {}
