//! The vector operations the f32/f64 GEMM kernels are written against, as a token type per
//! instruction set and element type ([`Isa`]): the micro-kernel, the matrix-vector paths and
//! the tile stores are generic over it, and each level instantiates them once.
//!
//! Why tokens: a `#[target_feature]` function is only sound to call on a CPU that has the
//! feature. A token value exists only where its instructions may run ([`Portable`] always;
//! the x86 ones only after run-time detection, see `x86`), every operation takes it by value,
//! and [`Isa::vectorize`] runs a closure inside a function compiled with the token's features,
//! so the `#[inline(always)]` operations inlined into that closure become those instructions.
//! (The `wide` vectors cannot do this: their implementation is chosen by `cfg` at compile
//! time.)

use super::kernel::FloatElem;
use crate::simd::VFloat;

/// One instruction set for one element type `E`, as a proof that its instructions may run.
pub(crate) trait Isa: Copy + Send + Sync + 'static {
    /// The element type (`f32` or `f64`).
    type E: FloatElem;
    /// One vector register of `LANES` elements.
    type V: Copy;
    /// Elements per vector (at most 16).
    const LANES: usize;

    /// `f()`, compiled with this instruction set's target features: `f` should be an
    /// `#[inline(always)]` closure whose operations are this token's.
    fn vectorize<R>(self, f: impl FnOnce() -> R) -> R;
    /// Every lane `x`.
    fn splat(self, x: Self::E) -> Self::V;
    /// Lane `i` = `s[i]` for `i < LANES`; panics if `s.len() < LANES`.
    fn load(self, s: &[Self::E]) -> Self::V;
    /// `out[i]` = lane `i` for `i < LANES`; panics if `out.len() < LANES`.
    fn store(self, v: Self::V, out: &mut [Self::E]);
    /// `a + b` lane by lane.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a - b` lane by lane.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a * b + c` lane by lane (fused where the instruction set has FMA).
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;

    /// Lane `i` = `s[i]` for `i < min(s.len(), LANES)`, zero beyond (loop tails).
    #[inline(always)]
    fn load_partial(self, s: &[Self::E]) -> Self::V {
        if s.len() >= Self::LANES {
            return self.load(s);
        }
        let mut t = [Self::E::default(); 16];
        t[..s.len()].copy_from_slice(s);
        self.load(&t)
    }
}

/// The build's own vectors (`wide`, through [`VFloat`]): SSE2 in a default x86-64 build,
/// whatever the target has elsewhere. Always available.
#[derive(Clone, Copy, Default)]
pub(crate) struct Portable<V>(core::marker::PhantomData<V>);

impl<V: VFloat> Isa for Portable<V>
where
    V::Elem: FloatElem,
{
    type E = V::Elem;
    type V = V;
    const LANES: usize = V::LANES;

    #[inline(always)]
    fn vectorize<R>(self, f: impl FnOnce() -> R) -> R {
        f()
    }
    #[inline(always)]
    fn splat(self, x: V::Elem) -> V {
        V::splat(x)
    }
    #[inline(always)]
    fn load(self, s: &[V::Elem]) -> V {
        V::load(s)
    }
    #[inline(always)]
    fn store(self, v: V, out: &mut [V::Elem]) {
        v.store(out)
    }
    #[inline(always)]
    fn add(self, a: V, b: V) -> V {
        a + b
    }
    #[inline(always)]
    fn sub(self, a: V, b: V) -> V {
        a - b
    }
    #[inline(always)]
    fn mul_add(self, a: V, b: V, c: V) -> V {
        VFloat::mul_add(a, b, c)
    }
}

/// The f32 token of [`crate::cpu::level`] (AVX-512, AVX2 + FMA, or the build's own `wide`
/// vectors), for f32 kernels outside the GEMM that run on its tokens (the Winograd
/// convolution's point products, the depthwise loop, [`fma_chains`]): a default build runs
/// them as wide as the CPU allows (on the Intel Xeon the SSE2 point products of a default
/// build made a 3x3 convolution 2.7x slower than a native build).
#[derive(Clone, Copy)]
pub(crate) enum F32Isa {
    Portable(Portable<crate::simd::F32V>),
    #[cfg(target_arch = "x86_64")]
    Avx2(super::x86::Avx2<f32>),
    #[cfg(target_arch = "x86_64")]
    Avx512(super::x86::Avx512<f32>),
}

/// `$body` with `$s` bound to the token inside the [`F32Isa`] `$isa`, compiled once per level:
/// the one match over the f32 levels that the token-generic kernels go through (the body
/// still runs its vector code inside `$s.vectorize`).
macro_rules! with_f32_isa {
    ($isa:expr, |$s:ident| $body:expr) => {
        match $isa {
            $crate::gemm::F32Isa::Portable($s) => $body,
            #[cfg(target_arch = "x86_64")]
            $crate::gemm::F32Isa::Avx2($s) => $body,
            #[cfg(target_arch = "x86_64")]
            $crate::gemm::F32Isa::Avx512($s) => $body,
        }
    };
}
pub(crate) use with_f32_isa;

impl F32Isa {
    /// The token of [`crate::cpu::level`], or of the widest level below it this CPU runs.
    pub(crate) fn new() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            use super::x86::{Avx2, Avx512};
            use crate::cpu::{level, IsaLevel};
            let level = level();
            if let Some(t) = Avx512::new().filter(|_| level >= IsaLevel::Avx512) {
                return F32Isa::Avx512(t);
            }
            if let Some(t) = Avx2::new().filter(|_| level >= IsaLevel::Avx2) {
                return F32Isa::Avx2(t);
            }
        }
        F32Isa::Portable(Portable::default())
    }

    /// `out[k][j] = rows[j][k]` for an 8 x 8 block: AVX shuffles at the AVX2 and AVX-512
    /// levels (inline into their `vectorize`), `wide`'s transpose of the build otherwise.
    #[inline(always)]
    pub(crate) fn transpose8(self, rows: &[[f32; 8]; 8]) -> [[f32; 8]; 8] {
        match self {
            F32Isa::Portable(_) => {
                wide::f32x8::transpose(rows.map(wide::f32x8::new)).map(|v| v.to_array())
            }
            #[cfg(target_arch = "x86_64")]
            F32Isa::Avx2(t) => t.transpose8(rows),
            #[cfg(target_arch = "x86_64")]
            F32Isa::Avx512(t) => t.transpose8(rows),
        }
    }

    /// f32 lanes of one vector (the token's [`Isa::LANES`]).
    pub(crate) fn lanes(self) -> usize {
        fn of<S: Isa>(_: S) -> usize {
            S::LANES
        }
        with_f32_isa!(self, |s| of(s))
    }
}

/// Independent multiply-add chains in [`fma_chains`]: enough to cover a 4-cycle FMA latency on
/// two pipes, with room to spare.
pub const PEAK_CHAINS: usize = 12;

/// The f32 multiply-add peak the GEMM kernels can reach, to be timed by the caller: `iters`
/// steps of [`PEAK_CHAINS`] independent chains `a = a * x + y` on the calling thread, with the
/// vectors of the kernels' level ([`crate::cpu::level`]; fused at AVX2 and AVX-512). Returns
/// the flops done (2 per lane per step) and a value derived from every chain (so nothing is
/// optimised away).
pub fn fma_chains(iters: usize) -> (u64, f32) {
    with_f32_isa!(F32Isa::new(), |s| chains(s, iters))
}

/// [`fma_chains`] with token `s`, inside its instruction set's function.
fn chains<S: Isa<E = f32>>(s: S, iters: usize) -> (u64, f32) {
    s.vectorize(
        #[inline(always)]
        move || {
            let x = s.splat(core::hint::black_box(0.999_999));
            let y = s.splat(core::hint::black_box(1e-7));
            let mut acc = [s.splat(1.0); PEAK_CHAINS];
            for _ in 0..iters {
                for a in acc.iter_mut() {
                    *a = s.mul_add(*a, x, y);
                }
            }
            let sum = acc.iter().fold(s.splat(0.0), |t, &a| s.add(t, a));
            let mut lanes = [0.0f32; 16];
            s.store(sum, &mut lanes);
            let flops = (iters * PEAK_CHAINS * 2 * S::LANES) as u64;
            (flops, lanes[..S::LANES].iter().sum())
        },
    )
}
