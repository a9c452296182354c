use xla_aot::xla;

xla! {
    fn f(x: f32[8]) -> c64[8] {
        Fft(x, fft_type = FFT, fft_length = [8])
    }
}

fn main() {}
