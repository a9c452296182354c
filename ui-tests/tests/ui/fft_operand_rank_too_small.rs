use xla_aot::xla;

xla! {
    fn f(x: c64[8]) -> c64[8] {
        Fft(x, fft_type = FFT, fft_length = [2, 4])
    }
}

fn main() {}
