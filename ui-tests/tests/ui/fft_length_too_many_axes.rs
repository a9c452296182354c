use xla_aot::xla;

xla! {
    fn f(x: c64[2, 2, 2, 2]) -> c64[2, 2, 2, 2] {
        Fft(x, fft_type = FFT, fft_length = [2, 2, 2, 2])
    }
}

fn main() {}
