use xla_aot::xla;

xla! {
    fn f(s: u64[2]) -> (u64[2], u32[4]) {
        RngBitGenerator(s, u32[4], algorithm = MERSENNE)
    }
}

fn main() {}
