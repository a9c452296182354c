use xla_aot::xla;

xla! {
    fn f(s: u64[2]) -> (u64[2], pred[4]) {
        RngBitGenerator(s, pred[4], algorithm = PHILOX)
    }
}

fn main() {}
