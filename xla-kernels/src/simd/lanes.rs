//! [`Lanes`]: vectors written as plain arrays, lane by lane, for code compiled under
//! `#[target_feature]` at run time (see [`crate::fused::isa`]).
//!
//! `wide` picks its vectors' instructions when it is built: in a default x86-64 build its
//! `f32x16` is four SSE2 registers, and no `#[target_feature]` around it changes that. A
//! [`Lanes`] value is an array whose every operation is a loop over the lanes with the scalar
//! op's semantics; inlined into a function compiled with AVX2 + FMA or AVX-512, LLVM's
//! vectorizers turn each loop into one instruction of that width (the vectorizers run after
//! inlining). Outside such a function they are still correct, only slower (`mul_add` becomes a
//! call to `fma`).
//!
//! Everything between the `#[target_feature]` function and these methods must be inlined
//! (`#[inline(always)]` on the drivers' closures and the generated bodies, see
//! [`crate::fused::isa`]; in [`crate::math`] nested functions, not closures, and
//! `#[inline(always)]` closures where a function takes one): code of these types compiled
//! outside such a function is scalar, and its `mul_add` a call to libm's `fma`, 20-50x slower
//! than the vectors.
//!
//! Every operation is a plain loop over the array (not `core::array::from_fn`, whose
//! `try_from_fn` LLVM left out of line): LLVM's SLP vectorizer then turns whole function bodies,
//! argument included, into vector code. (An earlier version passed each transcendental
//! function's argument through `black_box`, which the `from_fn` loops needed; without those
//! loops the barrier only cost: a store, a reload and, in `log`, a lane-by-lane rebuild of the
//! vector.)
//!
//! Semantics are those of [`VFloat`] and bit for bit those of the `wide` implementations,
//! except that `mul_add` is always fused (`wide` fuses only when the build has FMA): the
//! transcendental functions, which use it, may differ in the last bits between a default
//! build's SSE2 path and these (each stays within the error bounds of [`crate::math`]).

use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use super::{tree_reduce, VFloat};
use crate::math::f32v::{self, F32Lanes};
use crate::math::f64v::{self, F64Lanes};
use xla_core::scalar::Scalar;

/// `N` lanes of `T` (f32 or f64) as a plain array; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct Lanes<T, const N: usize>(pub [T; N]);

/// 8 f32 lanes: one AVX2 register.
pub type L8F32 = Lanes<f32, 8>;
/// 16 f32 lanes: one AVX-512 register.
pub type L16F32 = Lanes<f32, 16>;
/// 4 f64 lanes: one AVX2 register.
pub type L4F64 = Lanes<f64, 4>;
/// 8 f64 lanes: one AVX-512 register.
pub type L8F64 = Lanes<f64, 8>;

/// `[f(0), ..., f(N - 1)]` by a plain loop (as `map` and `zip` below). `core::array::from_fn`
/// (and an array's `map`) go through `try_from_fn`, which LLVM left out of line in the
/// dispatched loops, compiled for the build: the AVX-512 row max of a default build called an
/// SSE2 `try_from_fn` to combine its accumulators.
#[inline(always)]
fn build<T: Copy + Default, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    let mut out = [T::default(); N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = f(i);
    }
    out
}

/// `[f(a[0]), ..., f(a[N - 1])]` (see [`build`]).
#[inline(always)]
fn each<A: Copy, B: Copy + Default, const N: usize>(a: [A; N], f: impl Fn(A) -> B) -> [B; N] {
    build(|i| f(a[i]))
}

impl<T: Copy, const N: usize> Lanes<T, N> {
    /// Lane `i` = `f(self[i])`.
    #[inline(always)]
    fn map(self, f: impl Fn(T) -> T) -> Self {
        let mut out = self.0;
        for (o, &a) in out.iter_mut().zip(&self.0) {
            *o = f(a);
        }
        Lanes(out)
    }
    /// Lane `i` = `f(self[i], o[i])`.
    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(T, T) -> T) -> Self {
        let mut out = self.0;
        for ((r, &a), &b) in out.iter_mut().zip(&self.0).zip(&o.0) {
            *r = f(a, b);
        }
        Lanes(out)
    }
}

macro_rules! ops {
    ($t:ty, $bits:ty) => {
        impl<const N: usize> Add for Lanes<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.zip(o, |a, b| a + b)
            }
        }
        impl<const N: usize> Sub for Lanes<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self.zip(o, |a, b| a - b)
            }
        }
        impl<const N: usize> Mul for Lanes<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self.zip(o, |a, b| a * b)
            }
        }
        impl<const N: usize> Div for Lanes<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                self.zip(o, |a, b| a / b)
            }
        }
        impl<const N: usize> Neg for Lanes<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                self.map(|a| -a)
            }
        }
        impl<const N: usize> BitAnd for Lanes<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn bitand(self, o: Self) -> Self {
                self.zip(o, |a, b| <$t>::from_bits(a.to_bits() & b.to_bits()))
            }
        }
        impl<const N: usize> BitOr for Lanes<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn bitor(self, o: Self) -> Self {
                self.zip(o, |a, b| <$t>::from_bits(a.to_bits() | b.to_bits()))
            }
        }
        impl<const N: usize> Not for Lanes<$t, N> {
            type Output = Self;
            #[inline(always)]
            fn not(self) -> Self {
                self.map(|a| <$t>::from_bits(!a.to_bits()))
            }
        }
        impl<const N: usize> Lanes<$t, N> {
            /// The mask of `f(self[i], o[i])`: every bit set where true.
            #[inline(always)]
            fn mask(self, o: Self, f: impl Fn($t, $t) -> bool) -> Self {
                self.zip(o, |a, b| <$t>::from_bits(if f(a, b) { !0 } else { 0 }))
            }
            /// `maxps(self, o)`: `self > o ? self : o` (o when either is NaN).
            #[inline(always)]
            fn fast_max(self, o: Self) -> Self {
                self.zip(o, |a, b| if a > b { a } else { b })
            }
            /// `minps(self, o)`: `self < o ? self : o` (o when either is NaN).
            #[inline(always)]
            fn fast_min(self, o: Self) -> Self {
                self.zip(o, |a, b| if a < b { a } else { b })
            }
            /// Whether the sign bit of every lane is set (movemask).
            #[inline(always)]
            fn all_set(self) -> bool {
                self.0
                    .iter()
                    .fold(true, |acc, x| acc & x.is_sign_negative())
            }
            /// `x` with the bits `b` (lane by lane).
            #[inline(always)]
            fn from_bits_lanes(b: [$bits; N]) -> Self {
                Lanes(each(b, <$t>::from_bits))
            }
            /// The bits of each lane.
            #[inline(always)]
            fn bits(self) -> [$bits; N] {
                each(self.0, <$t>::to_bits)
            }
        }
    };
}

ops!(f32, u32);
ops!(f64, u64);

macro_rules! impl_vfloat {
    ($t:ident, $n:literal, $math:ident) => {
        impl VFloat for Lanes<$t, $n> {
            type Elem = $t;
            const LANES: usize = $n;
            const FUSED: bool = true;

            #[inline(always)]
            fn splat(x: $t) -> Self {
                Lanes([x; $n])
            }
            #[inline(always)]
            fn load(s: &[$t]) -> Self {
                Lanes(s[..$n].try_into().expect("slice of LANES elements"))
            }
            #[inline(always)]
            fn store(self, out: &mut [$t]) {
                out[..$n].copy_from_slice(&self.0);
            }
            #[inline(always)]
            fn load_partial(s: &[$t], fill: $t) -> Self {
                if s.len() >= $n {
                    return Self::load(s);
                }
                let mut a = [fill; $n];
                a[..s.len()].copy_from_slice(s);
                Lanes(a)
            }
            #[inline(always)]
            fn store_partial(self, out: &mut [$t]) {
                let n = out.len().min($n);
                out[..n].copy_from_slice(&self.0[..n]);
            }
            #[inline(always)]
            fn from_fn(f: impl FnMut(usize) -> $t) -> Self {
                Lanes(build(f))
            }
            #[inline(always)]
            fn lane(self, i: usize) -> $t {
                self.0[i]
            }
            #[inline(always)]
            fn max_xla(self, o: Self) -> Self {
                // Lane by lane as selects of comparisons (each `if` picks between values
                // computed anyway): LLVM keeps the comparisons as AVX-512 mask registers and
                // blends under them, where whole-vector masks cost a materialising move and a
                // bitwise blend each. Equal lanes differ only for ±0, where the and picks +0.
                self.zip(o, |a, b| {
                    let m = if a < b { b } else { a };
                    let m = if a == b { <$t>::from_bits(a.to_bits() & b.to_bits()) } else { m };
                    let m = if b.is_nan() { b } else { m };
                    if a.is_nan() { a } else { m }
                })
            }
            #[inline(always)]
            fn min_xla(self, o: Self) -> Self {
                // As max_xla; the bitwise or picks -0.
                self.zip(o, |a, b| {
                    let m = if b < a { b } else { a };
                    let m = if a == b { <$t>::from_bits(a.to_bits() | b.to_bits()) } else { m };
                    let m = if b.is_nan() { b } else { m };
                    if a.is_nan() { a } else { m }
                })
            }
            #[inline(always)]
            fn abs(self) -> Self {
                self.map(<$t>::abs)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                self.map(<$t>::sqrt)
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                // The scalar op is `1 / sqrt(x)` with both roundings: the same here.
                Self::splat(1.0) / VFloat::sqrt(self)
            }
            #[inline(always)]
            fn floor(self) -> Self {
                self.map(<$t>::floor)
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                self.map(<$t>::ceil)
            }
            #[inline(always)]
            fn round_even(self) -> Self {
                self.map(<$t>::round_ties_even)
            }
            #[inline(always)]
            fn round_afz(self) -> Self {
                self.map(<$t>::round)
            }
            #[inline(always)]
            fn sign(self) -> Self {
                let keep = self.cmp_eq(Self::splat(0.0)) | self.is_nan();
                let one = (self & Self::splat(-0.0)) | Self::splat(1.0);
                Self::select(keep, self, one)
            }
            #[inline(always)]
            fn exp(self) -> Self {
                $math::exp(self)
            }
            #[inline(always)]
            fn expm1(self) -> Self {
                $math::expm1(self)
            }
            #[inline(always)]
            fn log(self) -> Self {
                $math::log(self)
            }
            #[inline(always)]
            fn log1p(self) -> Self {
                $math::log1p(self)
            }
            #[inline(always)]
            fn logistic(self) -> Self {
                $math::logistic(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                $math::tanh(self)
            }
            #[inline(always)]
            fn erf(self) -> Self {
                $math::erf(self)
            }
            #[inline(always)]
            fn sin(self) -> Self {
                $math::trig(self, $math::Trig::Sin, <$t as Scalar>::sin)
            }
            #[inline(always)]
            fn cos(self) -> Self {
                $math::trig(self, $math::Trig::Cos, <$t as Scalar>::cos)
            }
            #[inline(always)]
            fn tan(self) -> Self {
                $math::trig(self, $math::Trig::Tan, <$t as Scalar>::tan)
            }
            #[inline(always)]
            fn cbrt(self) -> Self {
                impl_vfloat!(@cbrt $math, self)
            }
            #[inline(always)]
            fn pow(self, o: Self) -> Self {
                impl_vfloat!(@pow $math, self, o)
            }
            #[inline(always)]
            fn atan2(self, o: Self) -> Self {
                impl_vfloat!(@atan2 $math, self, o)
            }
            #[inline(always)]
            fn rem(self, o: Self) -> Self {
                self.zip(o, |a, b| a % b)
            }
            #[inline(always)]
            fn mul_add(self, b: Self, c: Self) -> Self {
                Lanes(build(|i| self.0[i].mul_add(b.0[i], c.0[i])))
            }
            #[inline(always)]
            fn reduce_add(self) -> $t {
                tree_reduce(self.0, |a, b| a + b)
            }
            #[inline(always)]
            fn reduce_max_xla(self) -> $t {
                tree_reduce(self.0, |a, b| VFloat::max_xla(Self::splat(a), Self::splat(b)).0[0])
            }
            #[inline(always)]
            fn reduce_min_xla(self) -> $t {
                tree_reduce(self.0, |a, b| VFloat::min_xla(Self::splat(a), Self::splat(b)).0[0])
            }
            /// One `if` per lane on the mask's bits: after inlining, LLVM folds the test of a
            /// comparison's mask back into the comparison and emits one masked blend (the
            /// bitwise `(m & t) | (!m & f)` took four instructions at AVX-512, and with it a
            /// default build's `tanh`, `erf` and `logistic` ran 10-13% behind a native one).
            #[inline(always)]
            fn select(mask_from: Self, t: Self, f: Self) -> Self {
                Lanes(build(|i| {
                    if mask_from.0[i].to_bits() != 0 {
                        t.0[i]
                    } else {
                        f.0[i]
                    }
                }))
            }
            #[inline(always)]
            fn cmp_eq(self, o: Self) -> Self {
                self.mask(o, |a, b| a == b)
            }
            #[inline(always)]
            fn cmp_ne(self, o: Self) -> Self {
                self.mask(o, |a, b| a != b)
            }
            #[inline(always)]
            fn cmp_lt(self, o: Self) -> Self {
                self.mask(o, |a, b| a < b)
            }
            #[inline(always)]
            fn cmp_le(self, o: Self) -> Self {
                self.mask(o, |a, b| a <= b)
            }
            #[inline(always)]
            fn cmp_gt(self, o: Self) -> Self {
                self.mask(o, |a, b| a > b)
            }
            #[inline(always)]
            fn cmp_ge(self, o: Self) -> Self {
                self.mask(o, |a, b| a >= b)
            }
            #[inline(always)]
            fn is_nan(self) -> Self {
                self.mask(self, |a, _| a.is_nan())
            }
            #[inline(always)]
            fn mask_to_bools(self, out: &mut [bool]) {
                for (o, x) in out.iter_mut().zip(self.0.iter()) {
                    *o = x.to_bits() != 0;
                }
            }
            #[inline(always)]
            fn from_bools(s: &[bool]) -> Self {
                Lanes(build(|i| {
                    <$t>::from_bits(if s.get(i).copied().unwrap_or(false) {
                        !0
                    } else {
                        0
                    })
                }))
            }
        }
    };
    (@cbrt f32v, $x:expr) => { f32v::via_f64($x, #[inline(always)] |h| f64v::cbrt(h)) };
    (@cbrt f64v, $x:expr) => { f64v::cbrt($x) };
    (@pow f32v, $x:expr, $y:expr) => { f32v::via_f64_2($x, $y, #[inline(always)] |a, b| f64v::pow(a, b)) };
    (@pow f64v, $x:expr, $y:expr) => { f64v::pow($x, $y) };
    (@atan2 f32v, $x:expr, $y:expr) => { f32v::via_f64_2($x, $y, #[inline(always)] |a, b| f64v::atan2(a, b)) };
    (@atan2 f64v, $x:expr, $y:expr) => { f64v::atan2($x, $y) };
}

impl_vfloat!(f32, 8, f32v);
impl_vfloat!(f32, 16, f32v);
impl_vfloat!(f64, 4, f64v);
impl_vfloat!(f64, 8, f64v);

/// `2^23 + 2^22`: added to an integer-valued f32 of magnitude below `2^22`, it leaves the
/// integer in the low mantissa bits.
const ROUND_MAGIC_F32: f32 = 12_582_912.0;

macro_rules! impl_f32_lanes {
    ($n:literal, $h:literal) => {
        impl F32Lanes for Lanes<f32, $n> {
            type Half = Lanes<f64, $h>;
            #[inline(always)]
            fn to_halves(x: Self) -> (Self::Half, Self::Half) {
                (
                    Lanes(build(|i| x.0[i] as f64)),
                    Lanes(build(|i| x.0[$h + i] as f64)),
                )
            }
            #[inline(always)]
            fn from_halves(lo: Self::Half, hi: Self::Half) -> Self {
                Lanes(build(|i| {
                    if i < $h {
                        lo.0[i] as f32
                    } else {
                        hi.0[i - $h] as f32
                    }
                }))
            }
            #[inline(always)]
            fn pow2i(n: Self) -> Self {
                // `n + 127 + ROUND_MAGIC` holds `n + 127` (in [1, 254]) in its low mantissa
                // bits; shifting them into the exponent field drops the rest.
                let k = (n + Self::splat(ROUND_MAGIC_F32 + 127.0)).bits();
                Self::from_bits_lanes(each(k, |b| b << 23))
            }
            #[inline(always)]
            fn split_exponent(x: Self) -> (Self, Self) {
                let b = x.bits();
                let e = Lanes(each(b, |b| ((b >> 23) as i32 - 127) as f32));
                let m = Self::from_bits_lanes(each(b, |b| (b & 0x007f_ffff) | 0x3f80_0000));
                (m, e)
            }
            #[inline(always)]
            fn clamp_fast(x: Self, lo: f32, hi: f32) -> Self {
                x.fast_max(Self::splat(lo)).fast_min(Self::splat(hi))
            }
            #[inline(always)]
            fn min_keep_nan(x: Self, hi: f32) -> Self {
                Self::splat(hi).fast_min(x)
            }
            #[inline(always)]
            fn all(mask: Self) -> bool {
                mask.all_set()
            }
            #[inline(always)]
            fn all_lt(x: Self, bound: f32) -> bool {
                // Compared here rather than through a mask vector: LLVM then reduces the
                // comparison's bits (one `kortest` at AVX-512) instead of ANDing a vector.
                x.0.iter().fold(true, |acc, &v| acc & (v < bound))
            }
            #[inline(always)]
            fn mul_pow2_magic(x: Self, k: Self) -> Self {
                let (xb, kb) = (x.bits(), k.bits());
                Self::from_bits_lanes(build(|i| xb[i].wrapping_add(kb[i] << 23)))
            }
        }
    };
}

impl_f32_lanes!(8, 4);
impl_f32_lanes!(16, 8);

/// `2^52 + 1023`: added to an integer-valued f64 in `[-1022, 1023]`, it leaves the biased
/// exponent in the low mantissa bits.
const POW2_MAGIC_F64: f64 = 4_503_599_627_370_496.0 + 1023.0;

macro_rules! impl_f64_lanes {
    ($n:literal) => {
        impl F64Lanes for Lanes<f64, $n> {
            #[inline(always)]
            fn pow2i(n: Self) -> Self {
                let k = (n + Self::splat(POW2_MAGIC_F64)).bits();
                Self::from_bits_lanes(each(k, |b| b << 52))
            }
            #[inline(always)]
            fn split_exponent(x: Self) -> (Self, Self) {
                let b = x.bits();
                let eb = Self::from_bits_lanes(each(b, |b| (b >> 52) | 0x4330_0000_0000_0000));
                let m = Self::from_bits_lanes(each(b, |b| {
                    (b & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000
                }));
                (m, eb - Self::splat(POW2_MAGIC_F64))
            }
            #[inline(always)]
            fn mul_pow2_magic(x: Self, k: Self) -> Self {
                let (xb, kb) = (x.bits(), k.bits());
                Self::from_bits_lanes(build(|i| xb[i].wrapping_add(kb[i] << 52)))
            }
            #[inline(always)]
            fn all(mask: Self) -> bool {
                mask.all_set()
            }
            #[inline(always)]
            fn all_lt(x: Self, bound: f64) -> bool {
                // As the f32 one: the comparison's bits reduced (`kortest`), no mask vector.
                x.0.iter().fold(true, |acc, &v| acc & (v < bound))
            }
            #[inline(always)]
            fn any(mask: Self) -> bool {
                mask.0
                    .iter()
                    .fold(false, |acc, x| acc | x.is_sign_negative())
            }
            #[inline(always)]
            fn clamp_fast(x: Self, lo: f64, hi: f64) -> Self {
                x.fast_max(Self::splat(lo)).fast_min(Self::splat(hi))
            }
            #[inline(always)]
            fn min_keep_nan(x: Self, hi: f64) -> Self {
                Self::splat(hi).fast_min(x)
            }
        }
    };
}

impl_f64_lanes!(4);
impl_f64_lanes!(8);
