//! [`Complexes`] for the GEMM's x86-64 tokens: the shuffles of the real transforms'
//! butterflies on interleaved `(re, im)` lanes.
//!
//! Each method runs only with a token, which exists only on a CPU with its instructions
//! (see `gemm::x86`), inside the token's `vectorize` where these `#[inline(always)]`
//! wrappers inline to single instructions. None touches memory.

use core::arch::x86_64::*;

use super::real::Complexes;
use crate::gemm::{Avx2, Avx512};

/// One impl: token type, element, then the multiply, complex-reverse and swap bodies (each a
/// closure-free expression of `v` / `a`, `b`).
macro_rules! complexes {
    ($tok:ty, $v:ty, |$a:ident, $b:ident| $mul:expr, |$r:ident| $rev:expr, |$w:ident| $swap:expr) => {
        impl Complexes for $tok {
            #[inline(always)]
            fn mul(self, $a: $v, $b: $v) -> $v {
                // SAFETY: the token proves the CPU has the instruction; no memory is accessed.
                unsafe { $mul }
            }
            #[inline(always)]
            fn reverse(self, $r: $v) -> $v {
                // SAFETY: as above.
                unsafe { $rev }
            }
            #[inline(always)]
            fn swap(self, $w: $v) -> $v {
                // SAFETY: as above.
                unsafe { $swap }
            }
        }
    };
}

// AVX2: a complex f32 is one 64-bit lane of four (reversed by a cross-lane permute), a complex
// f64 one 128-bit half of two.
complexes!(
    Avx2<f32>,
    __m256,
    |a, b| _mm256_mul_ps(a, b),
    |v| _mm256_castpd_ps(_mm256_permute4x64_pd::<0b00_01_10_11>(_mm256_castps_pd(v))),
    |v| _mm256_permute_ps::<0b10_11_00_01>(v)
);
complexes!(
    Avx2<f64>,
    __m256d,
    |a, b| _mm256_mul_pd(a, b),
    |v| _mm256_permute2f128_pd::<0x01>(v, v),
    |v| _mm256_permute_pd::<0b0101>(v)
);
// AVX-512F: eight 64-bit complex f32 (a full permute), four 128-bit complex f64.
complexes!(
    Avx512<f32>,
    __m512,
    |a, b| _mm512_mul_ps(a, b),
    |v| _mm512_castpd_ps(_mm512_permutexvar_pd(
        _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7),
        _mm512_castps_pd(v)
    )),
    |v| _mm512_permute_ps::<0b10_11_00_01>(v)
);
complexes!(
    Avx512<f64>,
    __m512d,
    |a, b| _mm512_mul_pd(a, b),
    |v| _mm512_shuffle_f64x2::<0b00_01_10_11>(v, v),
    |v| _mm512_permute_pd::<0b0101_0101>(v)
);
