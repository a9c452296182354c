use xla_aot::xla;

xla! {
    fn f(x: c64[8]) -> (c64[2], s32[2]) {
        TopK(x, k = 2)
    }
}

fn main() {}
