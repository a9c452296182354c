use xla_aot::xla;

xla! {
    fn f(x: f32[5]) -> f32[8] {
        Fft(x, fft_type = IRFFT, fft_length = [8])
    }
}

fn main() {}
