//! The SIMD layer generated code is written against: one trait, [`VFloat`], over `wide`'s float
//! vectors, with XLA's element semantics (the same as `xla_core::scalar::Scalar` for f32/f64).
//!
//! [`F32V`] / [`F64V`] are the widest vectors the build target has (`f32x16` / `f64x8` with
//! AVX-512, `f32x8` / `f64x4` otherwise); `wide` falls back to narrower instructions when a
//! feature is missing, so code is correct on any x86-64 and fast with `-C target-cpu=native`.
//!
//! Call the trait's methods fully qualified (`VFloat::exp(x)`, `<F32V as VFloat>::floor(x)`):
//! `wide` has inherent methods of the same names (`exp`, `tanh`, `floor`, `round`,
//! `reduce_add`, `select`, ...) which method-call syntax would pick first, with other
//! semantics (lower precision, unspecified summation order, lost signs of zero).
//!
//! Exactness: arithmetic, `sqrt`, rounding, `abs`, `sign`, comparisons, `max_xla`/`min_xla` and
//! `rem` are bit-identical to the scalar ops. Transcendental functions come from
//! [`crate::math`]; its module docs list their measured error in ulp.

use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use wide::{f32x16, f32x8, f64x4, f64x8};

use crate::math::Transcendental;

/// The widest f32 vector of the build target: `f32x16` with AVX-512F, else `f32x8`.
#[cfg(target_feature = "avx512f")]
pub type F32V = f32x16;
/// The widest f32 vector of the build target: `f32x16` with AVX-512F, else `f32x8`.
#[cfg(not(target_feature = "avx512f"))]
pub type F32V = f32x8;
/// The widest f64 vector of the build target: `f64x8` with AVX-512F, else `f64x4`.
#[cfg(target_feature = "avx512f")]
pub type F64V = f64x8;
/// The widest f64 vector of the build target: `f64x8` with AVX-512F, else `f64x4`.
#[cfg(not(target_feature = "avx512f"))]
pub type F64V = f64x4;

/// A vector of `LANES` floats with XLA's elementwise semantics.
///
/// Masks (results of `cmp_*`, inputs of [`VFloat::select`]) have every bit of a lane set
/// (true) or clear (false).
pub trait VFloat:
    Copy
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The lane type (`f32` or `f64`).
    type Elem: Copy + Send + Sync + 'static;
    /// Number of lanes.
    const LANES: usize;
    /// Whether [`VFloat::mul_add`] rounds once (an FMA).
    const FUSED: bool;

    /// Every lane `x`.
    fn splat(x: Self::Elem) -> Self;
    /// Lane `i` = `s[i]` for `i < LANES`; panics if `s.len() < LANES`.
    fn load(s: &[Self::Elem]) -> Self;
    /// `out[i]` = lane `i` for `i < LANES`; panics if `out.len() < LANES`.
    fn store(self, out: &mut [Self::Elem]);
    /// Lane `i` = `s[i]` for `i < min(len, LANES)`, `fill` beyond (loop tails).
    fn load_partial(s: &[Self::Elem], fill: Self::Elem) -> Self;
    /// `out[i]` = lane `i` for `i < min(out.len(), LANES)` (loop tails).
    fn store_partial(self, out: &mut [Self::Elem]);
    /// Lane `i` = `f(i)` (strided or gathered reads).
    fn from_fn(f: impl FnMut(usize) -> Self::Elem) -> Self;
    /// Lane `i`; panics if `i >= LANES`.
    fn lane(self, i: usize) -> Self::Elem;

    /// XLA max: NaN propagates (first NaN operand), otherwise the larger with `-0 < +0`.
    fn max_xla(self, o: Self) -> Self;
    /// XLA min: NaN propagates (first NaN operand), otherwise the smaller with `-0 < +0`.
    fn min_xla(self, o: Self) -> Self;
    /// `|x|` (clears the sign bit).
    fn abs(self) -> Self;
    /// `sqrt(x)`, correctly rounded.
    fn sqrt(self) -> Self;
    /// `1 / sqrt(x)`.
    fn rsqrt(self) -> Self;
    /// Round toward -inf.
    fn floor(self) -> Self;
    /// Round toward +inf.
    fn ceil(self) -> Self;
    /// Round to nearest, ties to even.
    fn round_even(self) -> Self;
    /// Round to nearest, ties away from zero.
    fn round_afz(self) -> Self;
    /// `sign(x)`: ±1, with ±0 and NaN returned unchanged.
    fn sign(self) -> Self;
    /// `e^x`.
    fn exp(self) -> Self;
    /// `e^x - 1`.
    fn expm1(self) -> Self;
    /// `ln x`.
    fn log(self) -> Self;
    /// `ln(1 + x)`.
    fn log1p(self) -> Self;
    /// `1 / (1 + e^-x)`.
    fn logistic(self) -> Self;
    /// `tanh x`.
    fn tanh(self) -> Self;
    /// `erf x = 2/sqrt(pi) * integral_0^x e^{-t^2} dt`.
    fn erf(self) -> Self;
    /// `sin x`.
    fn sin(self) -> Self;
    /// `cos x`.
    fn cos(self) -> Self;
    /// `tan x`.
    fn tan(self) -> Self;
    /// `x^(1/3)`.
    fn cbrt(self) -> Self;
    /// `self^o`.
    fn pow(self, o: Self) -> Self;
    /// `atan2(self, o)`: the angle of the point `(o, self)`.
    fn atan2(self, o: Self) -> Self;
    /// C `fmod(self, o)`: exact, with the sign of `self`.
    fn rem(self, o: Self) -> Self;
    /// `self * b + c` (fused when the target has FMA).
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// Sum of the lanes in a fixed pairwise tree (lane `i` + lane `i + LANES/2`, recursively).
    fn reduce_add(self) -> Self::Elem;
    /// [`VFloat::max_xla`] over the lanes, in the same fixed tree as [`VFloat::reduce_add`].
    fn reduce_max_xla(self) -> Self::Elem;
    /// [`VFloat::min_xla`] over the lanes, in the same fixed tree as [`VFloat::reduce_add`].
    fn reduce_min_xla(self) -> Self::Elem;
    /// Lane `i` = `t[i]` where `mask_from[i]` is all ones, else `f[i]`.
    fn select(mask_from: Self, t: Self, f: Self) -> Self;
    /// Mask of `self == o` (IEEE: NaN is unequal to everything).
    fn cmp_eq(self, o: Self) -> Self;
    /// Mask of `self != o` (true when either is NaN).
    fn cmp_ne(self, o: Self) -> Self;
    /// Mask of `self < o` (false when either is NaN).
    fn cmp_lt(self, o: Self) -> Self;
    /// Mask of `self <= o` (false when either is NaN).
    fn cmp_le(self, o: Self) -> Self;
    /// Mask of `self > o` (false when either is NaN).
    fn cmp_gt(self, o: Self) -> Self;
    /// Mask of `self >= o` (false when either is NaN).
    fn cmp_ge(self, o: Self) -> Self;
    /// Mask of NaN lanes.
    fn is_nan(self) -> Self;
    /// `out[i]` = mask lane `i` is set, for `i < min(out.len(), LANES)`.
    fn mask_to_bools(self, out: &mut [bool]);
    /// Mask with lane `i` set iff `s[i]` (lanes past `s.len()` are false).
    fn from_bools(s: &[bool]) -> Self;
}

macro_rules! impl_vfloat {
    ($v:ident, $t:ident, $lanes:literal) => {
        impl VFloat for $v {
            type Elem = $t;
            const LANES: usize = $lanes;
            const FUSED: bool = cfg!(target_feature = "fma");

            #[inline(always)]
            fn splat(x: $t) -> Self {
                $v::splat(x)
            }
            #[inline(always)]
            fn load(s: &[$t]) -> Self {
                let a: [$t; $lanes] = s[..$lanes].try_into().expect("slice of LANES elements");
                $v::new(a)
            }
            #[inline(always)]
            fn store(self, out: &mut [$t]) {
                out[..$lanes].copy_from_slice(self.as_array());
            }
            #[inline(always)]
            fn load_partial(s: &[$t], fill: $t) -> Self {
                if s.len() >= $lanes {
                    return Self::load(s);
                }
                let mut a = [fill; $lanes];
                a[..s.len()].copy_from_slice(s);
                $v::new(a)
            }
            #[inline(always)]
            fn store_partial(self, out: &mut [$t]) {
                let n = out.len().min($lanes);
                out[..n].copy_from_slice(&self.as_array()[..n]);
            }
            #[inline(always)]
            fn from_fn(f: impl FnMut(usize) -> $t) -> Self {
                $v::new(core::array::from_fn(f))
            }
            #[inline(always)]
            fn lane(self, i: usize) -> $t {
                self.as_array()[i]
            }

            #[inline(always)]
            fn max_xla(self, o: Self) -> Self {
                // Equal lanes differ only for ±0, where the bitwise and picks +0.
                let ordered = self
                    .simd_lt(o)
                    .select(o, self.simd_eq(o).select(self & o, self));
                self.is_nan().select(self, o.is_nan().select(o, ordered))
            }
            #[inline(always)]
            fn min_xla(self, o: Self) -> Self {
                // Equal lanes differ only for ±0, where the bitwise or picks -0.
                let ordered = o
                    .simd_lt(self)
                    .select(o, self.simd_eq(o).select(self | o, self));
                self.is_nan().select(self, o.is_nan().select(o, ordered))
            }
            #[inline(always)]
            fn abs(self) -> Self {
                $v::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                $v::sqrt(self)
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                Transcendental::rsqrt(self)
            }
            #[inline(always)]
            fn floor(self) -> Self {
                // The result has the sign of the input (-0.3 -> -0); wide's SSE2 fallback
                // can lose it, so copy it back.
                copysign_v($v::floor(self), self, $v::splat(-0.0))
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                // The result has the sign of the input (-0.3 -> -0); wide's SSE2 fallback
                // can lose it, so copy it back.
                copysign_v($v::ceil(self), self, $v::splat(-0.0))
            }
            #[inline(always)]
            fn round_even(self) -> Self {
                // The result has the sign of the input (-0.3 -> -0); wide's SSE2 fallback
                // can lose it, so copy it back.
                copysign_v($v::round_ties_even(self), self, $v::splat(-0.0))
            }
            #[inline(always)]
            fn round_afz(self) -> Self {
                // The result has the sign of the input (-0.3 -> -0); wide's SSE2 fallback
                // can lose it, so copy it back.
                copysign_v($v::round(self), self, $v::splat(-0.0))
            }
            #[inline(always)]
            fn sign(self) -> Self {
                let keep = self.simd_eq($v::ZERO) | self.is_nan();
                let one = (self & $v::splat(-0.0)) | $v::ONE;
                keep.select(self, one)
            }
            #[inline(always)]
            fn exp(self) -> Self {
                Transcendental::exp(self)
            }
            #[inline(always)]
            fn expm1(self) -> Self {
                Transcendental::expm1(self)
            }
            #[inline(always)]
            fn log(self) -> Self {
                Transcendental::log(self)
            }
            #[inline(always)]
            fn log1p(self) -> Self {
                Transcendental::log1p(self)
            }
            #[inline(always)]
            fn logistic(self) -> Self {
                Transcendental::logistic(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                Transcendental::tanh(self)
            }
            #[inline(always)]
            fn erf(self) -> Self {
                Transcendental::erf(self)
            }
            #[inline(always)]
            fn sin(self) -> Self {
                Transcendental::sin(self)
            }
            #[inline(always)]
            fn cos(self) -> Self {
                Transcendental::cos(self)
            }
            #[inline(always)]
            fn tan(self) -> Self {
                Transcendental::tan(self)
            }
            #[inline(always)]
            fn cbrt(self) -> Self {
                Transcendental::cbrt(self)
            }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                Transcendental::pow(self, o)
            }
            #[inline(always)]
            fn atan2(self, o: Self) -> Self {
                Transcendental::atan2(self, o)
            }
            #[inline(always)]
            fn rem(self, o: Self) -> Self {
                // Rust's float `%` is C fmod (exact); no SIMD instruction computes it.
                let (a, b) = (self.as_array(), o.as_array());
                $v::new(core::array::from_fn(|i| a[i] % b[i]))
            }
            #[inline(always)]
            fn mul_add(self, b: Self, c: Self) -> Self {
                $v::mul_add(self, b, c)
            }
            #[inline(always)]
            fn reduce_add(self) -> $t {
                tree_reduce(self.to_array(), |a, b| a + b)
            }
            #[inline(always)]
            fn reduce_max_xla(self) -> $t {
                tree_reduce(self.to_array(), |a, b| {
                    VFloat::max_xla($v::splat(a), $v::splat(b)).as_array()[0]
                })
            }
            #[inline(always)]
            fn reduce_min_xla(self) -> $t {
                tree_reduce(self.to_array(), |a, b| {
                    VFloat::min_xla($v::splat(a), $v::splat(b)).as_array()[0]
                })
            }
            #[inline(always)]
            fn select(mask_from: Self, t: Self, f: Self) -> Self {
                mask_from.select(t, f)
            }
            #[inline(always)]
            fn cmp_eq(self, o: Self) -> Self {
                self.simd_eq(o)
            }
            #[inline(always)]
            fn cmp_ne(self, o: Self) -> Self {
                self.simd_ne(o)
            }
            #[inline(always)]
            fn cmp_lt(self, o: Self) -> Self {
                self.simd_lt(o)
            }
            #[inline(always)]
            fn cmp_le(self, o: Self) -> Self {
                self.simd_le(o)
            }
            #[inline(always)]
            fn cmp_gt(self, o: Self) -> Self {
                self.simd_gt(o)
            }
            #[inline(always)]
            fn cmp_ge(self, o: Self) -> Self {
                self.simd_ge(o)
            }
            #[inline(always)]
            fn is_nan(self) -> Self {
                $v::is_nan(self)
            }
            #[inline(always)]
            fn mask_to_bools(self, out: &mut [bool]) {
                let a = self.as_array();
                for (o, x) in out.iter_mut().zip(a.iter()) {
                    *o = x.to_bits() != 0;
                }
            }
            #[inline(always)]
            fn from_bools(s: &[bool]) -> Self {
                $v::new(core::array::from_fn(|i| {
                    <$t>::from_bits(if s.get(i).copied().unwrap_or(false) {
                        !0
                    } else {
                        0
                    })
                }))
            }
        }
    };
}

impl_vfloat!(f32x8, f32, 8);
impl_vfloat!(f32x16, f32, 16);
impl_vfloat!(f64x4, f64, 4);
impl_vfloat!(f64x8, f64, 8);

/// `|x|` with the sign bit of `s` (`neg_zero` = -0.0 in every lane: the sign-bit mask).
#[inline(always)]
fn copysign_v<V: Copy + BitAnd<Output = V> + BitOr<Output = V> + Not<Output = V>>(
    x: V,
    s: V,
    neg_zero: V,
) -> V {
    (x & !neg_zero) | (s & neg_zero)
}

/// Pairwise tree over the lanes: `a[i] = f(a[i], a[i + n/2])` halving `n` until one is left.
/// The order depends only on the lane count.
#[inline(always)]
fn tree_reduce<T: Copy, const N: usize>(mut a: [T; N], f: impl Fn(T, T) -> T) -> T {
    let mut n = N;
    while n > 1 {
        let h = n / 2;
        for i in 0..h {
            a[i] = f(a[i], a[i + h]);
        }
        n = h;
    }
    a[0]
}

/// Where vector `jv` of a row of `n >= lanes` elements runs, as `(start, skip)`: the full
/// vector at `jv·lanes` (`skip` 0), or for the last, partial one the window ending at the row's
/// end, `n - lanes`, whose first `skip` lanes the previous vector already covered. Running the
/// partial vector as a full one at that window keeps one copy of a loop body and gives every
/// element the same code (one result per element, whatever its position).
#[inline(always)]
pub fn window(jv: usize, lanes: usize, n: usize) -> (usize, usize) {
    let j = jv * lanes;
    if j + lanes <= n {
        (j, 0)
    } else {
        (n - lanes, j + lanes - n)
    }
}

/// [`window`] for a run `[start, start + len)` of a row of `row >= lanes` elements: the window
/// of vector `jv` of the run inside the row, `(row_index, skip)`; lanes from `skip` on are the
/// run's elements from `jv·lanes` on.
#[inline(always)]
pub fn run_window(jv: usize, lanes: usize, start: usize, len: usize, row: usize) -> (usize, usize) {
    let j = jv * lanes;
    if j + lanes <= len {
        (start + j, 0)
    } else {
        let w = (start + j).min(row - lanes);
        (w, start + j - w)
    }
}

mod lanes;

pub use lanes::{Lanes, L16F32, L4F64, L8F32, L8F64};

#[cfg(test)]
mod tests;
