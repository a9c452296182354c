use xla_aot::xla;

xla! {
    fn f(x: f64[16]) -> c64[9] {
        Fft(x, fft_type = RFFT, fft_length = [16])
    }
}

fn main() {}
