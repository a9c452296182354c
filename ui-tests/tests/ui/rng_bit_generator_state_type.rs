use xla_aot::xla;

xla! {
    fn f(s: s64[2]) -> (s64[2], u32[4]) {
        RngBitGenerator(s, u32[4], algorithm = PHILOX)
    }
}

fn main() {}
