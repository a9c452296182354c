use xla_aot::xla;

xla! {
    fn f(x: c64[8]) -> c64[8] {
        Fft(x, fft_type = DCT, fft_length = [8])
    }
}

fn main() {}
