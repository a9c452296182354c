use xla_aot::xla;

xla! {
    fn f(x: c64[3, 8]) -> c64[3, 8] {
        Fft(x, fft_type = FFT, fft_length = [3, 4])
    }
}

fn main() {}
