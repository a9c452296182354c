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
    fn mul_add(self, a: V, b: V, c: V) -> V {
        VFloat::mul_add(a, b, c)
    }
}
