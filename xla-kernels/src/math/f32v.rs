//! f32 vector polynomials for the hot transcendental functions and sin/cos/tan (generic over
//! `f32x8` and `f32x16` through [`F32Lanes`]).
//!
//! Coefficients are our own Chebyshev fits (mpmath `chebyfit`, 40 digits) of the smooth
//! remainders named at each constant; the fit error is below 1/4 ulp of the result, so the
//! error is dominated by the final few roundings. Range reduction is Cody-Waite with a 9-bit
//! `ln 2` head, so `n * LN2_HI` is exact with or without FMA.

// Coefficients are written as fitted (more digits than f32 holds); the compiler rounds each
// to the nearest f32, which is what the error measurements used.
#![allow(clippy::excessive_precision)]

use core::ops::{BitAnd, BitOr};

use wide::{f32x16, f32x8, f64x4, f64x8, i32x16, i32x8};

use super::f64v::F64Lanes;
use crate::simd::VFloat;

/// Integer-exponent access to an f32 vector, the only per-type code of the polynomials.
pub(crate) trait F32Lanes:
    VFloat<Elem = f32> + BitAnd<Output = Self> + BitOr<Output = Self>
{
    /// `2^n` for integer-valued `n` in `[-126, 127]` (other lanes: unspecified finite bits).
    fn pow2i(n: Self) -> Self;
    /// `(m, e)` with `x = m * 2^e`, `m` in `[1, 2)`, for positive normal finite `x`.
    fn split_exponent(x: Self) -> (Self, Self);
    /// `x` clamped to `[lo, hi]` with one max and one min instruction (NaN lanes: unspecified,
    /// callers select NaN results themselves).
    fn clamp_fast(x: Self, lo: f32, hi: f32) -> Self;
    /// `min(x, hi)` in one instruction; NaN lanes of `x` stay NaN.
    fn min_keep_nan(x: Self, hi: f32) -> Self;
    /// Whether every lane of the mask is set (one movemask with AVX).
    fn all(mask: Self) -> bool;
    /// Whether every lane of `x` is below `bound` (false for a NaN lane).
    #[inline(always)]
    fn all_lt(x: Self, bound: f32) -> bool {
        Self::all(x.cmp_lt(Self::splat(bound)))
    }
    /// `x * 2^n` by adding `n` to the exponent field, where `k = n + ROUND_MAGIC` as computed
    /// by [`round_magic`] (its low mantissa bits hold `n`); exact when `x` and the result are
    /// normal.
    fn mul_pow2_magic(x: Self, k: Self) -> Self;

    /// The f64 vector of half the lanes (for functions evaluated in f64).
    type Half: F64Lanes;
    /// Lanes `0..LANES/2` and `LANES/2..` widened to f64 (exact).
    fn to_halves(x: Self) -> (Self::Half, Self::Half);
    /// The inverse of [`F32Lanes::to_halves`], each lane rounded once to f32.
    fn from_halves(lo: Self::Half, hi: Self::Half) -> Self;
}

macro_rules! impl_f32_lanes {
    ($v:ident, $i:ident, $from_int:ident, $half:ident) => {
        impl F32Lanes for $v {
            type Half = $half;
            #[inline(always)]
            fn to_halves(x: Self) -> ($half, $half) {
                let a = x.as_array();
                let h = <$half as VFloat>::LANES;
                (
                    $half::new(core::array::from_fn(|i| a[i] as f64)),
                    $half::new(core::array::from_fn(|i| a[h + i] as f64)),
                )
            }
            #[inline(always)]
            fn from_halves(lo: $half, hi: $half) -> Self {
                let (l, h) = (lo.as_array(), hi.as_array());
                let n = <$half as VFloat>::LANES;
                $v::new(core::array::from_fn(|i| {
                    if i < n {
                        l[i] as f32
                    } else {
                        h[i - n] as f32
                    }
                }))
            }
            #[inline(always)]
            fn pow2i(n: Self) -> Self {
                let e = (n.round_int() + $i::splat(127)) << 23u32;
                wide::bytemuck::cast(e)
            }
            #[inline(always)]
            fn split_exponent(x: Self) -> (Self, Self) {
                let bits: $i = wide::bytemuck::cast(x);
                let e = (bits >> 23u32) - $i::splat(127);
                let m = (bits & $i::splat(0x007f_ffff)) | $i::splat(0x3f80_0000);
                (wide::bytemuck::cast(m), $v::$from_int(e))
            }
            #[inline(always)]
            fn clamp_fast(x: Self, lo: f32, hi: f32) -> Self {
                x.fast_max($v::splat(lo)).fast_min($v::splat(hi))
            }
            #[inline(always)]
            fn min_keep_nan(x: Self, hi: f32) -> Self {
                // minps returns its second operand when either is NaN.
                $v::splat(hi).fast_min(x)
            }
            #[inline(always)]
            fn all(mask: Self) -> bool {
                mask.all()
            }
            #[inline(always)]
            fn mul_pow2_magic(x: Self, k: Self) -> Self {
                // ROUND_MAGIC's low 9 bits are zero, so `bits(k) << 23` is `n << 23`.
                let (xb, kb): ($i, $i) = (wide::bytemuck::cast(x), wide::bytemuck::cast(k));
                wide::bytemuck::cast(xb + (kb << 23u32))
            }
        }
    };
}

impl_f32_lanes!(f32x8, i32x8, from_i32x8, f64x4);
impl_f32_lanes!(f32x16, i32x16, from_i32x16, f64x8);

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// `ln 2` = `LN2_HI + LN2_LO`; `LN2_HI` has 9 significant bits, so `n * LN2_HI` is exact for
/// `|n| < 2^15`.
const LN2_HI: f32 = 0.693_359_375;
const LN2_LO: f32 = -2.121_944_4e-4;

/// `(e^r - 1 - r) / r^2` on `[-ln2/2, ln2/2]`, degree 5, max abs error 1.5e-9.
const EXPM1_Q: [f32; 6] = [
    0.500_000_001_429_945_7,
    0.166_666_666_847_324_63,
    0.041_666_456_680_080_16,
    0.008_333_309_059_758_685,
    0.001_393_455_602_837_505_7,
    0.000_198_927_721_240_161_9,
];

/// `(ln(1+f) - f + f^2/2) / f^3` on `[sqrt(1/2) - 1, sqrt(2) - 1]`, degree 8, max abs error 3e-8.
const LOG1P_Q: [f32; 9] = [
    0.333_333_311_218_801_5,
    -0.249_999_966_269_394_8,
    0.200_007_305_038_522_4,
    -0.166_678_509_728_517_66,
    0.142_485_512_643_614_7,
    -0.124_240_377_176_501_97,
    0.116_890_711_374_578_69,
    -0.114_945_466_128_902_19,
    0.069_807_019_586_649_74,
];

/// `c[0] + c[1] x + ... + c[n] x^n` by Horner's rule with multiply-adds.
#[inline(always)]
fn poly<V: F32Lanes, const N: usize>(x: V, c: &[f32; N]) -> V {
    let mut acc = V::splat(c[N - 1]);
    for &k in c[..N - 1].iter().rev() {
        acc = acc.mul_add(x, V::splat(k));
    }
    acc
}

/// `x * 2^n` for integer-valued `n` in `[-252, 254]` and `|x|` in `[2^-2, 2^2]`, rounded once:
/// the first factor `2^h` keeps the product normal (exact), the second rounds.
#[inline(always)]
fn ldexp<V: F32Lanes>(x: V, n: V) -> V {
    let h = (n * V::splat(0.5)).round_even();
    x * V::pow2i(h) * V::pow2i(n - h)
}

/// `n = round(x / ln 2)` and `r = x - n ln 2`, `|r| <= ln2/2` (plus rounding), for
/// `|x| < 2^21`. `n` comes from [`round_magic`] like [`exp`]'s fast path, so both paths pick
/// the same `n` (with FMA, rounding `x log2 e` first can pick the other neighbour).
#[inline(always)]
fn reduce_ln2<V: F32Lanes>(x: V) -> (V, V) {
    let (_, n) = round_magic(x, LOG2E);
    let r = n.mul_add(V::splat(-LN2_HI), x);
    let r = n.mul_add(V::splat(-LN2_LO), r);
    (n, r)
}

/// `e^r - 1` for `|r| <= ln2/2`.
#[inline(always)]
fn expm1_reduced<V: F32Lanes>(r: V) -> V {
    (r * r).mul_add(poly(r, &EXPM1_Q), r)
}

/// Lanes of `x` where `mask` is set, `y` elsewhere.
#[inline(always)]
fn sel<V: VFloat>(mask: V, x: V, y: V) -> V {
    V::select(mask, x, y)
}

/// `1.5 * 2^23`: `t + ROUND_MAGIC` rounds `t` (`|t| < 2^22`) to the integer `n` (ties to
/// even), held in the low mantissa bits, and `(t + ROUND_MAGIC) - ROUND_MAGIC` is `n` exactly.
const ROUND_MAGIC: f32 = 12_582_912.0;

/// `k = round(x * scale) + ROUND_MAGIC` and `n = round(x * scale)` (see [`ROUND_MAGIC`]);
/// one multiply-add and one subtraction instead of a rounding instruction and a conversion.
#[inline(always)]
fn round_magic<V: F32Lanes>(x: V, scale: f32) -> (V, V) {
    let k = x.mul_add(V::splat(scale), V::splat(ROUND_MAGIC));
    (k, k - V::splat(ROUND_MAGIC))
}

/// Below this `|x|`, `n = round(x / ln 2)` is in `[-125, 125]`, so `e^r 2^n` (with `e^r` in
/// `[2^-0.5, 2^0.5]`) is a normal float and the exponent-field add of
/// [`F32Lanes::mul_pow2_magic`] scales exactly.
const EXP_FAST_MAX: f32 = 86.5;

/// `e^x`: `2^n e^r`. Vectors with every `|x| < EXP_FAST_MAX` (the common case) scale by adding
/// `n` to the exponent field; others (NaN, overflow, subnormal or zero results) take
/// [`exp_any`]. Both give the same bits where both apply.
#[inline(always)]
pub(crate) fn exp<V: F32Lanes>(x: V) -> V {
    if V::all_lt(x.abs(), EXP_FAST_MAX) {
        exp_normal(x)
    } else {
        exp_any(x)
    }
}

/// [`exp`] for `|x| < EXP_FAST_MAX` in every lane.
#[inline(always)]
fn exp_normal<V: F32Lanes>(x: V) -> V {
    let (k, n) = round_magic(x, LOG2E);
    let r = n.mul_add(V::splat(-LN2_HI), x);
    let r = n.mul_add(V::splat(-LN2_LO), r);
    V::mul_pow2_magic(expm1_reduced(r) + V::splat(1.0), k)
}

/// [`exp`] for any input: clamping to `[-104, 89]` makes overflow give +inf and underflow 0
/// through the same arithmetic; subnormal results are rounded once.
#[inline(always)]
fn exp_any<V: F32Lanes>(x: V) -> V {
    let xc = V::clamp_fast(x, -104.0, 89.0);
    let (n, r) = reduce_ln2(xc);
    let res = ldexp(expm1_reduced(r) + V::splat(1.0), n);
    sel(x.is_nan(), x, res)
}

/// `e^x - 1`: `2^n (em + 1 - 2^-n)` for `n` in `[-1, 24]` (where `1 - 2^-n` is exact and
/// the sum cancels little), else `2^n (em + 1) - 1`, with `em = e^r - 1`.
#[inline(always)]
pub(crate) fn expm1<V: F32Lanes>(x: V) -> V {
    let xc = V::clamp_fast(x, -26.0, 89.0);
    let (n, r) = reduce_ln2(xc);
    let em = expm1_reduced(r);
    let one = V::splat(1.0);
    let mid = n.cmp_ge(V::splat(-1.0)) & n.cmp_le(V::splat(24.0));
    let c = sel(mid, one - V::pow2i(-n), one);
    let d = sel(mid, V::splat(0.0), one);
    let res = ldexp(em + c, n) - d;
    // ±0 stays ±0 (the formula gives +0 for -0); NaN stays NaN.
    sel(x.cmp_eq(V::splat(0.0)) | x.is_nan(), x, res)
}

/// `ln x = e ln2 + ln(1 + f)` with `x = 2^e (1 + f)`, `1 + f` in `[sqrt(1/2), sqrt 2)`;
/// subnormals are scaled by `2^23` first.
#[inline(always)]
pub(crate) fn log<V: F32Lanes>(x: V) -> V {
    let tiny = x.cmp_lt(V::splat(f32::MIN_POSITIVE));
    let xs = sel(tiny, x * V::splat(8_388_608.0), x);
    let (m, e) = V::split_exponent(xs);
    let big = m.cmp_gt(V::splat(std::f32::consts::SQRT_2));
    let m = sel(big, m * V::splat(0.5), m);
    let e = e + sel(big, V::splat(1.0), V::splat(0.0)) - sel(tiny, V::splat(23.0), V::splat(0.0));
    let f = m - V::splat(1.0);
    let f2 = f * f;
    // ln(1+f) = f - f^2/2 + f^3 q(f); small terms first, e ln2 last.
    let y = (f2 * f).mul_add(poly(f, &LOG1P_Q), e * V::splat(LN2_LO));
    let y = f2.mul_add(V::splat(-0.5), y);
    let res = e.mul_add(V::splat(LN2_HI), f + y);
    let res = sel(x.cmp_eq(V::splat(f32::INFINITY)), x, res);
    let res = sel(x.cmp_eq(V::splat(0.0)), V::splat(f32::NEG_INFINITY), res);
    sel(
        x.cmp_lt(V::splat(0.0)) | x.is_nan(),
        V::splat(f32::NAN),
        res,
    )
}

/// `ln(1 + x) = ln u + (x - (u - 1)) / u` with `u = 1 + x` rounded: the second term restores
/// what rounding `u` lost.
#[inline(always)]
pub(crate) fn log1p<V: F32Lanes>(x: V) -> V {
    let one = V::splat(1.0);
    let u = x + one;
    let lu = log(u);
    let corr = (x - (u - one)) / u;
    let finite_pos = u.cmp_gt(V::splat(0.0)) & u.cmp_lt(V::splat(f32::INFINITY));
    let res = sel(finite_pos, lu + corr, lu);
    sel(x.cmp_eq(V::splat(0.0)), x, res)
}

/// `1 / (1 + e^-x)` for `x >= 0`, `e^x / (1 + e^x)` for `x < 0` (never overflows, keeps tiny
/// results).
#[inline(always)]
pub(crate) fn logistic<V: F32Lanes>(x: V) -> V {
    let e = exp(-x.abs());
    let d = V::splat(1.0) + e;
    sel(x.cmp_lt(V::splat(0.0)), e / d, V::splat(1.0) / d)
}

/// `tanh(x) / x` as `P(t) / Q(t)`, `t = x^2` in `[0, 81.5]` (`|x| <= 9.03`): a rational fit of
/// our own (iteratively reweighted least squares on the relative error at 6000 points, numpy
/// f64), max relative error 6.8e-9 before f32 rounding. `P(0)` rounds to 1 in f32, so tiny `x`
/// give `x` exactly.
const TANH_P: [f32; 7] = [
    0.999_999_993_166_755_6,
    0.130_828_238_035_135_46,
    0.003_102_628_707_247_756_5,
    1.114_033_703_511_650_7e-5,
    -2.016_791_213_622_916e-8,
    5.249_949_073_135_768_6e-11,
    -8.415_658_150_661_384e-14,
];
/// The denominator of [`TANH_P`] (`Q(0) = 1`).
const TANH_Q: [f32; 4] = [
    1.0,
    0.464_161_507_095_539_55,
    0.024_489_898_782_519_694,
    0.000_254_420_736_258_387_3,
];
/// From this `|x|` on, tanh rounds to ±1 in f32 (`1 - tanh(9.02) < 2^-25`).
const TANH_ONE: f32 = 9.02;

/// `tanh x = x P(x^2) / Q(x^2)` for `|x| < TANH_ONE`, at most 1 (the f32 evaluation can
/// round a few ulp either side of 1), and exactly ±1 from [`TANH_ONE`] on. About 17 vector
/// operations and one division, no exponential: twice the speed of
/// `(e^{2a} - 1) / (e^{2a} + 1)`, 6 ulp instead of 2 (the roundings of `P`, `Q`, `x P` and
/// the quotient, near 1). NaN propagates through the arithmetic; the sign (of ±0 too) is
/// copied back.
#[inline(always)]
pub(crate) fn tanh<V: F32Lanes>(x: V) -> V {
    let a = V::min_keep_nan(x.abs(), TANH_ONE);
    let t = a * a;
    let r = V::min_keep_nan((a * poly(t, &TANH_P)) / poly(t, &TANH_Q), 1.0);
    let r = sel(a.cmp_ge(V::splat(TANH_ONE)), V::splat(1.0), r);
    r | (x & V::splat(-0.0))
}

/// `erf(x) / x` as `P(t) / Q(t)`, `t = x^2` in `[0, 15.37]` (`|x| <= 3.9193`): a rational fit
/// of our own (linearised least squares with Lawson reweighting on the relative error at 8000
/// points, numpy f64), max relative error 1.8e-9 before f32 rounding. `P(0)` rounds to
/// `2/sqrt(pi)` in f32.
const ERF_P: [f32; 7] = [
    1.128_379_169_129_631_9,
    0.185_137_060_078_175_54,
    0.054_243_319_557_903_1,
    0.003_838_579_392_712_299,
    0.000_376_720_978_505_317_4,
    4.608_164_269_550_499e-6,
    -1.279_430_629_399_145e-8,
];
/// The denominator of [`ERF_P`] (`Q(0) = 1`; every coefficient positive, so no pole).
const ERF_Q: [f32; 6] = [
    1.0,
    0.497_406_853_490_535_6,
    0.113_873_696_629_950_52,
    0.015_429_827_977_911_951,
    0.001_301_465_342_164_765_4,
    6.238_910_960_243_07e-5,
];
/// From this `|x|` on, `erf x` rounds to ±1 in f32 (`erfc x <= 2^-25`; the f32 below gives
/// `1 - 2^-24`).
const ERF_ONE: f32 = 3.919_205_9;

/// `erf x = x P(x^2) / Q(x^2)` for `|x| < ERF_ONE`, at most 1, and exactly ±1 from
/// [`ERF_ONE`] on. Two short polynomials and one division, no exponential and no branch
/// (the form XLA uses, with coefficients of our own). NaN propagates through the arithmetic;
/// the sign (of ±0 too) is copied back.
#[inline(always)]
pub(crate) fn erf<V: F32Lanes>(x: V) -> V {
    let a = V::min_keep_nan(x.abs(), ERF_ONE);
    let t = a * a;
    let r = V::min_keep_nan((a * poly(t, &ERF_P)) / poly(t, &ERF_Q), 1.0);
    let r = sel(a.cmp_ge(V::splat(ERF_ONE)), V::splat(1.0), r);
    r | (x & V::splat(-0.0))
}

/// `pi/2 = PIO2_HI + PIO2_LO` (to 2^-86): `PIO2_HI` has 33 significant bits, so `j * PIO2_HI`
/// is exact for `|j| < 2^20`.
const PIO2_HI: f64 = 1.570_796_326_734_125_6;
const PIO2_LO: f64 = 6.077_100_506_506_192e-11;
/// Up to this `|x|`, `|j| = |round(x 2/pi)| < 2^19` and the two-part reduction is exact
/// enough; larger (and infinite) arguments go lane by lane through the scalar op.
const TRIG_FAST_MAX: f32 = 524_288.0;
/// `(sin(r) - r) / r^3` as a polynomial in `z = r^2`, `|r| <= 1.01 pi/4`, abs error 3e-14.
const SIN_S: [f64; 5] = [
    -0.166_666_666_666_635_97,
    0.008_333_333_330_893_767,
    -0.000_198_412_667_384_292_7,
    2.755_593_744_034_176_7e-6,
    -2.480_073_076_553_330_6e-8,
];
/// `(cos(r) - 1 + r^2/2) / r^4` as a polynomial in `z = r^2`, abs error 2.2e-15.
const COS_C: [f64; 5] = [
    0.041_666_666_666_664_47,
    -0.001_388_888_888_714_472_2,
    2.480_158_508_330_003e-5,
    -2.755_633_144_337_754e-7,
    2.069_709_234_271_669e-9,
];

/// Which trigonometric function [`trig`] computes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trig {
    Sin,
    Cos,
    Tan,
}

/// f64 Horner (see [`poly`]).
#[inline(always)]
fn poly64<H: VFloat<Elem = f64>, const N: usize>(x: H, c: &[f64; N]) -> H {
    let mut acc = H::splat(c[N - 1]);
    for &k in c[..N - 1].iter().rev() {
        acc = acc.mul_add(x, H::splat(k));
    }
    acc
}

/// sin / cos / tan of f64 lanes holding f32 values with `|x| <= TRIG_FAST_MAX`:
/// `x = j pi/2 + r`, `|r| <= pi/4`, then the quadrant `j mod 4` picks `±sin r`, `±cos r`
/// (or `tan r`, `-1/tan r`). Errors ~1e-13 relative: the f32 rounding dominates.
#[inline(always)]
fn trig_half<H: VFloat<Elem = f64> + BitOr<Output = H>>(x: H, f: Trig) -> H {
    let j = (x * H::splat(std::f64::consts::FRAC_2_PI)).round_even();
    let r = (-j).mul_add(H::splat(PIO2_HI), x);
    let r = (-j).mul_add(H::splat(PIO2_LO), r);
    let z = r * r;
    let s = (r * z).mul_add(poly64(z, &SIN_S), r);
    let c = (z * z).mul_add(poly64(z, &COS_C), z.mul_add(H::splat(-0.5), H::splat(1.0)));
    // q = j mod 4 in {0, 1, 2, 3} (exact: j is an integer below 2^20).
    let quarter = j * H::splat(0.25);
    let q = (quarter - quarter.floor()) * H::splat(4.0);
    let odd = q.cmp_eq(H::splat(1.0)) | q.cmp_eq(H::splat(3.0));
    match f {
        Trig::Sin => {
            let v = H::select(odd, c, s);
            H::select(q.cmp_ge(H::splat(2.0)), -v, v)
        }
        Trig::Cos => {
            let v = H::select(odd, s, c);
            H::select(q.cmp_eq(H::splat(1.0)) | q.cmp_eq(H::splat(2.0)), -v, v)
        }
        Trig::Tan => H::select(odd, -c / s, s / c),
    }
}

/// sin, cos or tan of f32 lanes, evaluated in f64 and rounded once (so within 1 ulp of the
/// scalar op, usually equal). Vectors with a lane beyond [`TRIG_FAST_MAX`] (or infinite) use
/// the scalar op for every lane.
#[inline(always)]
pub(crate) fn trig<V: F32Lanes>(x: V, f: Trig, scalar: fn(f32) -> f32) -> V {
    let big = x.abs().cmp_gt(V::splat(TRIG_FAST_MAX));
    let mut flags = [false; 16];
    big.mask_to_bools(&mut flags);
    if flags.iter().any(|&b| b) {
        return V::from_fn(|i| scalar(x.lane(i)));
    }
    let (lo, hi) = V::to_halves(x);
    let res = V::from_halves(trig_half(lo, f), trig_half(hi, f));
    // sin(±0) = tan(±0) = ±0: the reduction computes -0 - 0*pi/2 = +0.
    match f {
        Trig::Sin | Trig::Tan => sel(x.cmp_eq(V::splat(0.0)), x, res),
        Trig::Cos => res,
    }
}

/// An f32 function evaluated in f64 lanes by `f` (an f64 vector function within a few f64
/// ulp) and rounded once, as the scalar op evaluates it: `cbrt`, `pow`, `atan2`. Callers pass
/// an `#[inline(always)]` closure: a function item (or a plain closure) can stay out of line,
/// compiled for the build's baseline outside a dispatched loop's instruction set (a default
/// build's f32 `pow` ran 14x slower than a native one that way).
#[inline(always)]
pub(crate) fn via_f64<V: F32Lanes>(x: V, f: impl Fn(V::Half) -> V::Half) -> V {
    let (lo, hi) = V::to_halves(x);
    V::from_halves(f(lo), f(hi))
}

/// [`via_f64`] for a function of two arguments.
#[inline(always)]
pub(crate) fn via_f64_2<V: F32Lanes>(x: V, y: V, f: impl Fn(V::Half, V::Half) -> V::Half) -> V {
    let ((xl, xh), (yl, yh)) = (V::to_halves(x), V::to_halves(y));
    V::from_halves(f(xl, yl), f(xh, yh))
}

/// `1 / sqrt x` in f32 (two roundings: within 1 ulp of the scalar op, which rounds once).
#[inline(always)]
pub(crate) fn rsqrt<V: F32Lanes>(x: V) -> V {
    V::splat(1.0) / x.sqrt()
}

#[cfg(test)]
mod tests;
