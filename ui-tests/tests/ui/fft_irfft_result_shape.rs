use xla_aot::xla;

xla! {
    fn f(x: c64[3, 5]) -> f32[3, 9] {
        Fft(x, fft_type = IRFFT, fft_length = [8])
    }
}

fn main() {}
