use xla_aot::xla;

xla! {
    fn f(x: c64[4]) -> c64[4] {
        Fft(x, fft_type = FFT, fft_length = [-4])
    }
}

fn main() {}
