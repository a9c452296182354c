//! Oracle test of Fft: generated code (calls of `xla_kernels::fft`) and the evaluator against
//! XLA:CPU, for FFT, IFFT, RFFT and IRFFT on c64 and c128 (f32/f64 real sides): lengths 1, 2,
//! primes (7, 97), powers of two, mixed (12, 360), over 1, 2 and 3 axes, with and without
//! batch dims, batches large enough to run on rayon; IRFFT on spectra that are not Hermitian
//! (XLA drops the imaginary parts of bins 0 and n/2). Proof programs: a spectrogram (Hann
//! window, RFFT over overlapping frames, Abs) and a 2-D FFT round trip.
//!
//! Tolerance: an FFT promises `|computed - exact| <= c * eps * log2(N) * ||x||` normwise
//! (each of the `log2 N` butterfly levels rounds once, with well-conditioned twiddles), so
//! each result is compared normwise: the largest difference from XLA within
//! `4 * eps * (log2(N) + 1)` of the largest XLA magnitude (`N` the product of fft_length,
//! `eps` of the real type). Special values (NaN, inf) are not drawn: one NaN in a line makes
//! every output of the line NaN in any FFT, which says nothing about the transform.
//!
//! Run: `cargo test -p xla-aot --test oracle_fft`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::{ElementType, Literal, Shape};
use xla_oracle::Dist;

/// The normwise bound of a transform of `n` points in `ty` (see the module doc).
fn tol(ty: ElementType, n: usize) -> Tol {
    let eps = match ty {
        ElementType::F32 | ElementType::C64 => f64::from(f32::EPSILON),
        _ => f64::EPSILON,
    };
    Tol::Normwise(4.0 * eps * ((n.max(1) as f64).log2() + 1.0))
}

macro_rules! per_type {
    ($(($c:ident, $r:ident, $cty:ident)),+) => {
        mod typed {
            $(
                pub mod $c {
                    xla_aot::xla! {
                        pub fn fft_1(x: $c[3, 1]) -> $c[3, 1] { Fft(x, fft_type = FFT, fft_length = [1]) }
                        pub fn fft_2(x: $c[4, 2]) -> $c[4, 2] { Fft(x, fft_type = FFT, fft_length = [2]) }
                        pub fn fft_7(x: $c[5, 7]) -> $c[5, 7] { Fft(x, fft_type = FFT, fft_length = [7]) }
                        pub fn fft_97(x: $c[3, 97]) -> $c[3, 97] { Fft(x, fft_type = FFT, fft_length = [97]) }
                        pub fn fft_64(x: $c[2, 64]) -> $c[2, 64] { Fft(x, fft_type = FFT, fft_length = [64]) }
                        pub fn fft_360(x: $c[2, 360]) -> $c[2, 360] { Fft(x, fft_type = FFT, fft_length = [360]) }
                        pub fn ifft_12(x: $c[4, 12]) -> $c[4, 12] { Fft(x, fft_type = IFFT, fft_length = [12]) }
                        pub fn ifft_97(x: $c[97]) -> $c[97] { Fft(x, fft_type = IFFT, fft_length = [97]) }
                        pub fn fft_2d(x: $c[3, 8, 12]) -> $c[3, 8, 12] { Fft(x, fft_type = FFT, fft_length = [8, 12]) }
                        pub fn ifft_2d(x: $c[2, 7, 16]) -> $c[2, 7, 16] { Fft(x, fft_type = IFFT, fft_length = [7, 16]) }
                        pub fn fft_3d(x: $c[2, 4, 6, 5]) -> $c[2, 4, 6, 5] { Fft(x, fft_type = FFT, fft_length = [4, 6, 5]) }
                        pub fn ifft_3d(x: $c[3, 5, 2]) -> $c[3, 5, 2] { Fft(x, fft_type = IFFT, fft_length = [3, 5, 2]) }
                        /// 32768 elements: the rows split over rayon tasks.
                        pub fn fft_batch(x: $c[64, 512]) -> $c[64, 512] { Fft(x, fft_type = FFT, fft_length = [512]) }
                        /// The column pass of a 2-D transform on rayon.
                        pub fn fft_2d_batch(x: $c[4, 96, 128]) -> $c[4, 96, 128] { Fft(x, fft_type = FFT, fft_length = [96, 128]) }
                        pub fn rfft_1(x: $r[4, 1]) -> $c[4, 1] { Fft(x, fft_type = RFFT, fft_length = [1]) }
                        pub fn rfft_2(x: $r[2]) -> $c[2] { Fft(x, fft_type = RFFT, fft_length = [2]) }
                        pub fn rfft_7(x: $r[3, 7]) -> $c[3, 4] { Fft(x, fft_type = RFFT, fft_length = [7]) }
                        pub fn rfft_360(x: $r[2, 360]) -> $c[2, 181] { Fft(x, fft_type = RFFT, fft_length = [360]) }
                        pub fn rfft_2d(x: $r[2, 9, 8]) -> $c[2, 9, 5] { Fft(x, fft_type = RFFT, fft_length = [9, 8]) }
                        pub fn rfft_3d(x: $r[3, 4, 5, 6]) -> $c[3, 4, 5, 4] { Fft(x, fft_type = RFFT, fft_length = [4, 5, 6]) }
                        pub fn rfft_batch(x: $r[128, 256]) -> $c[128, 129] { Fft(x, fft_type = RFFT, fft_length = [256]) }
                        pub fn irfft_1(x: $c[4, 1]) -> $r[4, 1] { Fft(x, fft_type = IRFFT, fft_length = [1]) }
                        pub fn irfft_8(x: $c[3, 5]) -> $r[3, 8] { Fft(x, fft_type = IRFFT, fft_length = [8]) }
                        pub fn irfft_9(x: $c[3, 5]) -> $r[3, 9] { Fft(x, fft_type = IRFFT, fft_length = [9]) }
                        pub fn irfft_97(x: $c[2, 49]) -> $r[2, 97] { Fft(x, fft_type = IRFFT, fft_length = [97]) }
                        pub fn irfft_2d(x: $c[2, 6, 5]) -> $r[2, 6, 8] { Fft(x, fft_type = IRFFT, fft_length = [6, 8]) }
                        pub fn irfft_3d(x: $c[3, 4, 4]) -> $r[3, 4, 7] { Fft(x, fft_type = IRFFT, fft_length = [3, 4, 7]) }
                        pub fn irfft_batch(x: $c[128, 129]) -> $r[128, 256] { Fft(x, fft_type = IRFFT, fft_length = [256]) }
                    }
                }
            )+
        }

        fn typed_cases() -> Vec<Case> {
            let mut v = Vec::new();
            $(
                {
                    let c = ElementType::$cty.to_string();
                    let mut push = |name: &str, g: common::Gen, n: usize| {
                        let mut g = g;
                        g.name = Box::leak(format!("{name}/{c}").into_boxed_str());
                        for seed in [1u64, 2] {
                            let args = common::args_with(g, |i, a| {
                                common::random_arg(
                                    &Shape::Array(a.clone()),
                                    seed * 10 + i as u64,
                                    Dist::Range(-1.0, 1.0),
                                )
                            });
                            v.push(Case::new(g, &format!("seed {seed}"), args, tol(ElementType::$cty, n)));
                        }
                    };
                    push("fft_1", gen!("", typed::$c::fft_1), 1);
                    push("fft_2", gen!("", typed::$c::fft_2), 2);
                    push("fft_7", gen!("", typed::$c::fft_7), 7);
                    push("fft_97", gen!("", typed::$c::fft_97), 97);
                    push("fft_64", gen!("", typed::$c::fft_64), 64);
                    push("fft_360", gen!("", typed::$c::fft_360), 360);
                    push("ifft_12", gen!("", typed::$c::ifft_12), 12);
                    push("ifft_97", gen!("", typed::$c::ifft_97), 97);
                    push("fft_2d", gen!("", typed::$c::fft_2d), 96);
                    push("ifft_2d", gen!("", typed::$c::ifft_2d), 112);
                    push("fft_3d", gen!("", typed::$c::fft_3d), 120);
                    push("ifft_3d", gen!("", typed::$c::ifft_3d), 30);
                    push("fft_batch", gen!("", typed::$c::fft_batch), 512);
                    push("fft_2d_batch", gen!("", typed::$c::fft_2d_batch), 96 * 128);
                    push("rfft_1", gen!("", typed::$c::rfft_1), 1);
                    push("rfft_2", gen!("", typed::$c::rfft_2), 2);
                    push("rfft_7", gen!("", typed::$c::rfft_7), 7);
                    push("rfft_360", gen!("", typed::$c::rfft_360), 360);
                    push("rfft_2d", gen!("", typed::$c::rfft_2d), 72);
                    push("rfft_3d", gen!("", typed::$c::rfft_3d), 120);
                    push("rfft_batch", gen!("", typed::$c::rfft_batch), 256);
                    push("irfft_1", gen!("", typed::$c::irfft_1), 1);
                    push("irfft_8", gen!("", typed::$c::irfft_8), 8);
                    push("irfft_9", gen!("", typed::$c::irfft_9), 9);
                    push("irfft_97", gen!("", typed::$c::irfft_97), 97);
                    push("irfft_2d", gen!("", typed::$c::irfft_2d), 48);
                    push("irfft_3d", gen!("", typed::$c::irfft_3d), 84);
                    push("irfft_batch", gen!("", typed::$c::irfft_batch), 256);
                }
            )+
            v
        }
    };
}

per_type!((c64, f32, C64), (c128, f64, C128));

#[test]
fn fft_types_lengths_and_axes_agree_with_xla() {
    check_all("oracle_fft", typed_cases());
}

xla_aot::xla! {
    /// A spectrogram: 63 frames of 128 samples hopping by 64 (the 32 even frames, then the 31
    /// odd ones), a Hann window, RFFT, magnitudes.
    pub fn spectrogram(x: f32[4096]) -> f32[63, 65] {
        let even = Reshape(x, new_sizes = [32, 128]);
        let odd = Reshape(Slice(x, start_indices = [64], limit_indices = [4032], strides = [1]),
            new_sizes = [31, 128]);
        let frames = ConcatInDim(even, odd, dimension = 0);
        let i = ConvertElementType(Iota(s32[128], iota_dimension = 0), new_element_type = f32);
        let hann = 0.5 - 0.5 * Cos(i * 0.04908738521234052);
        let windowed = Mul(frames, hann, broadcast_dimensions = [1]);
        Abs(Fft(windowed, fft_type = RFFT, fft_length = [128]))
    }

    /// A 2-D FFT and its inverse: the spectrum and the signal back.
    pub fn round_trip_2d(x: c64[32, 48]) -> (c64[32, 48], c64[32, 48]) {
        let y = Fft(x, fft_type = FFT, fft_length = [32, 48]);
        Tuple(y, Fft(y, fft_type = IFFT, fft_length = [32, 48]))
    }
}

#[test]
fn spectrogram_and_2d_round_trip_agree_with_xla() {
    let sg = gen!("spectrogram", spectrogram);
    let rt = gen!("round_trip_2d", round_trip_2d);
    let arg = |g: common::Gen, seed: u64| {
        common::args_with(g, |_, a| {
            common::random_arg(&Shape::Array(a.clone()), seed, Dist::Range(-1.0, 1.0))
        })
    };
    let cases = vec![
        Case::new(sg, "uniform", arg(sg, 7), tol(ElementType::F32, 128)),
        Case::new(rt, "uniform", arg(rt, 8), tol(ElementType::C64, 32 * 48)),
    ];
    check_all("oracle_fft programs", cases);
    // The round trip gives the signal back within the same bound.
    let x = arg(rt, 9);
    let out = round_trip_2d::run_literals(&x).unwrap();
    let Literal::Tuple(parts) = out else {
        panic!("round_trip_2d returns a pair")
    };
    common::compare(
        "round trip",
        &parts[1],
        &x[0],
        tol(ElementType::C64, 32 * 48),
    )
    .unwrap();
}
