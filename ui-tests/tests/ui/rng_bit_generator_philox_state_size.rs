use xla_aot::xla;

xla! {
    fn f(s: u64[4]) -> (u64[4], u32[4]) {
        RngBitGenerator(s, u32[4], algorithm = DEFAULT)
    }
}

fn main() {}
