use xla_aot::xla;

xla! {
    fn f(x: u8[4]) -> u8[4] {
        x + 256
    }
}

fn main() {}
