//! The x86-64 instruction sets of the GEMM kernels beyond the build's baseline: AVX2 + FMA
//! (`__m256` / `__m256d`) and AVX-512F (`__m512` / `__m512d`), as [`Isa`] tokens.
//!
//! A token is made only by [`Avx2::new`] / [`Avx512::new`], which check the CPU
//! ([`crate::cpu::supported`], not the `XLA_KERNELS_MAX_ISA` cap: the cap chooses a level, the
//! token proves the instructions run). Every intrinsic below is therefore called on a CPU
//! that has it; the closures passed to [`Isa::vectorize`] run inside a `#[target_feature]`
//! function, where these `#[inline(always)]` wrappers inline to single instructions.

use core::arch::x86_64::*;
use core::marker::PhantomData;

use super::isa::Isa;
use crate::cpu::{self, run_avx2, run_avx512, IsaLevel};

/// AVX2 + FMA for element type `E` (a proof that the CPU has both).
#[derive(Clone, Copy)]
pub(crate) struct Avx2<E>(PhantomData<E>);

/// AVX-512F for element type `E` (a proof that the CPU has it, and AVX2 + FMA).
#[derive(Clone, Copy)]
pub(crate) struct Avx512<E>(PhantomData<E>);

impl<E> Avx2<E> {
    /// The token, if this CPU runs AVX2 and FMA.
    pub(crate) fn new() -> Option<Self> {
        (cpu::supported() >= IsaLevel::Avx2).then_some(Avx2(PhantomData))
    }
}

impl<E> Avx512<E> {
    /// The token, if this CPU runs AVX-512F (and AVX2 + FMA).
    pub(crate) fn new() -> Option<Self> {
        (cpu::supported() >= IsaLevel::Avx512).then_some(Avx512(PhantomData))
    }
}

/// One [`Isa`] impl: token, runner, element, register, lanes, then the intrinsics
/// (`set1`, `loadu`, `storeu`, `add`, `sub`, `fmadd`).
macro_rules! isa_impl {
    ($tok:ident, $run:ident, $e:ty, $v:ty, $lanes:literal,
     $set1:ident, $loadu:ident, $storeu:ident, $add:ident, $sub:ident, $fmadd:ident) => {
        impl Isa for $tok<$e> {
            type E = $e;
            type V = $v;
            const LANES: usize = $lanes;

            #[inline(always)]
            fn vectorize<R>(self, f: impl FnOnce() -> R) -> R {
                // SAFETY: this token exists, so `new` found the CPU runs the features `$run`
                // enables.
                unsafe { $run(f) }
            }
            #[inline(always)]
            fn splat(self, x: $e) -> $v {
                // SAFETY: the token proves the CPU has the instruction; no memory is accessed.
                unsafe { $set1(x) }
            }
            #[inline(always)]
            fn load(self, s: &[$e]) -> $v {
                let s = &s[..$lanes];
                // SAFETY: `s` holds exactly LANES elements (the slice above panics otherwise),
                // which is what the unaligned load reads; the token proves the instruction.
                unsafe { $loadu(s.as_ptr()) }
            }
            #[inline(always)]
            fn store(self, v: $v, out: &mut [$e]) {
                let out = &mut out[..$lanes];
                // SAFETY: `out` holds exactly LANES writable elements (sliced above), which is
                // what the unaligned store writes; the token proves the instruction.
                unsafe { $storeu(out.as_mut_ptr(), v) }
            }
            #[inline(always)]
            fn add(self, a: $v, b: $v) -> $v {
                // SAFETY: the token proves the CPU has the instruction; no memory is accessed.
                unsafe { $add(a, b) }
            }
            #[inline(always)]
            fn sub(self, a: $v, b: $v) -> $v {
                // SAFETY: the token proves the CPU has the instruction; no memory is accessed.
                unsafe { $sub(a, b) }
            }
            #[inline(always)]
            fn mul_add(self, a: $v, b: $v, c: $v) -> $v {
                // SAFETY: the token proves the CPU has FMA (and AVX-512F for the 512-bit form);
                // no memory is accessed.
                unsafe { $fmadd(a, b, c) }
            }
        }
    };
}

isa_impl!(
    Avx2,
    run_avx2,
    f32,
    __m256,
    8,
    _mm256_set1_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_add_ps,
    _mm256_sub_ps,
    _mm256_fmadd_ps
);
isa_impl!(
    Avx2,
    run_avx2,
    f64,
    __m256d,
    4,
    _mm256_set1_pd,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_add_pd,
    _mm256_sub_pd,
    _mm256_fmadd_pd
);
isa_impl!(
    Avx512,
    run_avx512,
    f32,
    __m512,
    16,
    _mm512_set1_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_add_ps,
    _mm512_sub_ps,
    _mm512_fmadd_ps
);
isa_impl!(
    Avx512,
    run_avx512,
    f64,
    __m512d,
    8,
    _mm512_set1_pd,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_add_pd,
    _mm512_sub_pd,
    _mm512_fmadd_pd
);

/// `out[k][j] = rows[j][k]`: an 8 x 8 f32 block transposed in eight 256-bit registers (unpack,
/// shuffle, cross-lane permute: 24 shuffles), for callers holding an AVX2 or AVX-512 token
/// inside its `vectorize` (where these intrinsics inline to instructions).
///
/// # Safety
/// The CPU must run AVX (every AVX2 or AVX-512 token proves it).
#[inline(always)]
unsafe fn transpose8_ps(rows: &[[f32; 8]; 8]) -> [[f32; 8]; 8] {
    // SAFETY (all intrinsics): AVX is present (the caller's contract); each load reads and
    // each store writes exactly the 8 f32 of one `[f32; 8]` row.
    unsafe {
        // Written out: no closure returning vectors (nor `array::from_fn`'s shim), which LLVM
        // may compile apart without AVX, leaving each intrinsic a call (see conv::winograd).
        let r = [
            _mm256_loadu_ps(rows[0].as_ptr()),
            _mm256_loadu_ps(rows[1].as_ptr()),
            _mm256_loadu_ps(rows[2].as_ptr()),
            _mm256_loadu_ps(rows[3].as_ptr()),
            _mm256_loadu_ps(rows[4].as_ptr()),
            _mm256_loadu_ps(rows[5].as_ptr()),
            _mm256_loadu_ps(rows[6].as_ptr()),
            _mm256_loadu_ps(rows[7].as_ptr()),
        ];
        // Pairs of rows interleaved, then pairs of pairs, then the 128-bit halves swapped.
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        let o = [
            _mm256_permute2f128_ps::<0x20>(s0, s4),
            _mm256_permute2f128_ps::<0x20>(s1, s5),
            _mm256_permute2f128_ps::<0x20>(s2, s6),
            _mm256_permute2f128_ps::<0x20>(s3, s7),
            _mm256_permute2f128_ps::<0x31>(s0, s4),
            _mm256_permute2f128_ps::<0x31>(s1, s5),
            _mm256_permute2f128_ps::<0x31>(s2, s6),
            _mm256_permute2f128_ps::<0x31>(s3, s7),
        ];
        let mut out = [[0f32; 8]; 8];
        for (dst, v) in out.iter_mut().zip(o) {
            _mm256_storeu_ps(dst.as_mut_ptr(), v);
        }
        out
    }
}

impl Avx2<f32> {
    /// [`transpose8_ps`]: `out[k][j] = rows[j][k]`.
    #[inline(always)]
    pub(crate) fn transpose8(self, rows: &[[f32; 8]; 8]) -> [[f32; 8]; 8] {
        // SAFETY: this token proves AVX2, hence AVX.
        unsafe { transpose8_ps(rows) }
    }
}

impl Avx512<f32> {
    /// [`transpose8_ps`]: `out[k][j] = rows[j][k]`.
    #[inline(always)]
    pub(crate) fn transpose8(self, rows: &[[f32; 8]; 8]) -> [[f32; 8]; 8] {
        // SAFETY: this token proves AVX-512F and AVX2, hence AVX.
        unsafe { transpose8_ps(rows) }
    }
}
