use xla_aot::xla;

xla! {
    fn f(s: u64[3]) -> (u64[3], u32[4]) {
        RngBitGenerator(s, u32[4], algorithm = THREE_FRY)
    }
}

fn main() {}
