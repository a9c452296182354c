use xla_aot::xla;

xla! {
    fn f(x: c64[8]) -> c64[5] {
        Fft(x, fft_type = RFFT, fft_length = [8])
    }
}

fn main() {}
