//! f64 vector versions of the transcendental functions (generic over `f64x4` and `f64x8`
//! through [`F64Lanes`]), also used by the f32 functions that are evaluated in f64 lanes
//! (`cbrt`, `pow`, `atan2`: rounding an f64 result that is within a few f64 ulp gives the
//! correctly rounded f32 result except next to a halfway case, like the scalar op).
//!
//! Coefficients are our own Chebyshev fits (mpmath `chebyfit`, 60 digits) of the smooth
//! remainders named at each constant, each accurate well below 2^-60 relative to the result,
//! so the errors come from the final roundings. Exactness tricks (the error of a product) use
//! FMA when the build target has it and Dekker's splitting otherwise, so the results are the
//! same with and without `-C target-cpu=native`, up to the roundings of unfused multiply-adds
//! in the polynomials.

// Coefficients are written as fitted (more digits than f64 holds); the compiler rounds each
// to the nearest f64, which is what the error measurements used.
#![allow(clippy::excessive_precision)]
// The fitted leading coefficient of erf(x)/x is 2/sqrt(pi) to the last bits: kept as fitted.
#![allow(clippy::approx_constant)]

use core::ops::{BitAnd, BitOr};

use wide::{f64x4, f64x8, i64x4, i64x8, u64x4, u64x8};

use crate::simd::VFloat;

/// Integer-exponent access to an f64 vector, the only per-type code of the functions.
pub(crate) trait F64Lanes:
    VFloat<Elem = f64> + BitAnd<Output = Self> + BitOr<Output = Self>
{
    /// `2^n` for integer-valued `n` in `[-1022, 1023]` (other lanes: unspecified bits).
    fn pow2i(n: Self) -> Self;
    /// `(m, e)` with `x = m * 2^e`, `m` in `[1, 2)`, for positive normal finite `x`.
    fn split_exponent(x: Self) -> (Self, Self);
    /// `x * 2^n` by adding `n` to the exponent field, where `k = n + ROUND_MAGIC` as computed
    /// by [`round_magic`]; exact when `x` and the result are normal.
    fn mul_pow2_magic(x: Self, k: Self) -> Self;
    /// Whether every lane of the mask is set.
    fn all(mask: Self) -> bool;
    /// Whether every lane of `x` is below `bound` (false for a NaN lane).
    #[inline(always)]
    fn all_lt(x: Self, bound: f64) -> bool {
        Self::all(x.cmp_lt(Self::splat(bound)))
    }
    /// Whether any lane of the mask is set.
    fn any(mask: Self) -> bool;
    /// `x` clamped to `[lo, hi]` with one max and one min (NaN lanes: unspecified).
    fn clamp_fast(x: Self, lo: f64, hi: f64) -> Self;
    /// `min(x, hi)`; NaN lanes of `x` stay NaN.
    fn min_keep_nan(x: Self, hi: f64) -> Self;
}

macro_rules! impl_f64_lanes {
    ($v:ident, $i:ident, $u:ident) => {
        impl F64Lanes for $v {
            #[inline(always)]
            fn pow2i(n: Self) -> Self {
                // `n + 2^52 + 1023` holds `n + 1023` in its low mantissa bits; shifting them
                // into the exponent field drops the rest.
                let k = n + $v::splat(4_503_599_627_370_496.0 + 1023.0);
                let b: $i = wide::bytemuck::cast(k);
                wide::bytemuck::cast(b << 52u32)
            }
            #[inline(always)]
            fn split_exponent(x: Self) -> (Self, Self) {
                let bits: $u = wide::bytemuck::cast(x);
                // The biased exponent (x > 0: the sign bit is clear) put in the low bits of
                // 2^52: that float minus 2^52 + 1023 is the exponent, exactly. (A logical
                // shift: AVX2 has no 64-bit arithmetic one.)
                let eb = (bits >> 52u32) | $u::splat(0x4330_0000_0000_0000);
                let e = wide::bytemuck::cast::<$u, $v>(eb)
                    - $v::splat(4_503_599_627_370_496.0 + 1023.0);
                let m =
                    (bits & $u::splat(0x000f_ffff_ffff_ffff)) | $u::splat(0x3ff0_0000_0000_0000);
                (wide::bytemuck::cast(m), e)
            }
            #[inline(always)]
            fn mul_pow2_magic(x: Self, k: Self) -> Self {
                // ROUND_MAGIC's low 12 mantissa bits hold `n` mod 2^12, which `<< 52` moves
                // to the exponent field (two's complement: negative `n` subtract).
                let (xb, kb): ($i, $i) = (wide::bytemuck::cast(x), wide::bytemuck::cast(k));
                wide::bytemuck::cast(xb + (kb << 52u32))
            }
            #[inline(always)]
            fn all(mask: Self) -> bool {
                mask.all()
            }
            #[inline(always)]
            fn any(mask: Self) -> bool {
                mask.any()
            }
            #[inline(always)]
            fn clamp_fast(x: Self, lo: f64, hi: f64) -> Self {
                x.fast_max($v::splat(lo)).fast_min($v::splat(hi))
            }
            #[inline(always)]
            fn min_keep_nan(x: Self, hi: f64) -> Self {
                // minpd returns its second operand when either is NaN.
                $v::splat(hi).fast_min(x)
            }
        }
    };
}

impl_f64_lanes!(f64x4, i64x4, u64x4);
impl_f64_lanes!(f64x8, i64x8, u64x8);
/// `(e^r - 1 - r) / r^2` on `|r| <= 1.0005 ln2/2`, degree 10, max abs error 1.4e-18.
const EXP_Q: [f64; 11] = [
    0.5,
    0.16666666666666671008,
    0.041666666666666669767,
    0.00833333333332611205263,
    0.00138888888888837318278,
    0.000198412698749012592341,
    2.48015873256053227815e-5,
    2.7557255297969644392e-6,
    2.75572735701021396732e-7,
    2.5105259538448493419e-8,
    2.09147173417163759523e-9,
];
/// `(2 atanh(s) / s - 2 - 2z/3) / z^2`, `z = s^2` in `[0, 1.001 (3 - 2 sqrt 2)^2]`, degree 6, max abs error 2.8e-16.
const LOG_T2: [f64; 7] = [
    0.400000000000000272373,
    0.285714285713380107173,
    0.222222222713268081909,
    0.181818082109218814197,
    0.153855774633081442592,
    0.132858688375457415712,
    0.129147121839350905662,
];
/// `(sin r - r) / r^3` in `z = r^2`, `|r| <= 1.01 pi/4`, degree 6, max abs error 1.3e-20.
const SIN_S: [f64; 7] = [
    -0.166666666666666666653,
    0.00833333333333333125883,
    -0.000198412698412645658949,
    2.7557319218954762264e-6,
    -2.50521061002559892301e-8,
    1.60585108753191949126e-10,
    -7.58548648523593814048e-13,
];
/// `(cos r - 1 + r^2/2) / r^4` in `z = r^2`, `|r| <= 1.01 pi/4`, degree 6, max abs error 7.4e-22.
const COS_C: [f64; 7] = [
    0.0416666666666666666659,
    -0.00138888888888888877356,
    2.48015873015843689687e-5,
    -2.75573192211891042027e-7,
    2.08767557175844037429e-9,
    -1.14704493544667726189e-11,
    4.74519880720287581057e-14,
];
/// `(atan t - t) / t^3` in `z = t^2`, `|t| <= 1.001 tan(pi/8)`, degree 11, max abs error 1.2e-18.
const ATAN_A: [f64; 12] = [
    -0.333333333333333332143,
    0.199999999999998005209,
    -0.142857142856588224353,
    0.11111111105057569372,
    -0.0909090874863523178906,
    0.0769229623449151395143,
    -0.0666642236403320621135,
    0.0587890003234298332534,
    -0.0523024115078939954448,
    0.0455062203917553613099,
    -0.0345456101048584918614,
    0.0162581320649792083635,
];
/// `cbrt m` on `[1, 8]` (a start for Halley's iteration), degree 3, max abs error 0.0085.
const CBRT_0: [f64; 4] = [
    0.716734641860442326817,
    0.328836454463147403764,
    -0.0340260536529048630665,
    0.00162749533803309307895,
];
/// `erf(x) / x` in `z = x^2` on `[0, 2.25]`, degree 14, max abs error 3.8e-18.
const ERF_SMALL: [f64; 15] = [
    1.12837916709551257013,
    -0.376126389031836771923,
    0.112837916709526239674,
    -0.026866170644802672926,
    0.00522397762317934816594,
    -0.000854832692947069147706,
    0.000120553304298997595476,
    -1.49256027415508475096e-5,
    1.64614847224541459673e-6,
    -1.63598415947247280168e-7,
    1.47656668570557452882e-8,
    -1.20830485170227220363e-9,
    8.68587011439133361886e-11,
    -4.91011798468050833049e-12,
    1.58895460078188370064e-13,
];
/// The centre of the `1/x` interval of [`ERFC_G`]: `w = 1/x - ERFC_MID`.
const ERFC_MID: f64 = 0.416666666666666666667;
/// `erfc(x) e^{x^2}` in `w = 1/x - ERFC_MID` for `x` in `[1.5, 6]`, degree 20, max abs error 2.4e-18.
const ERFC_G: [f64; 21] = [
    0.218498734537033324798,
    0.458410989990255200399,
    -0.187996286626021502496,
    -0.00549134899371745951571,
    0.10762902385140739116,
    -0.118610054721512025571,
    0.0562853104691283955696,
    0.0441074979592785189393,
    -0.134979573653364710565,
    0.166997103628592911923,
    -0.104710704973983063507,
    -0.0554501040976734576985,
    0.269839553786103437223,
    -0.441800996580279955427,
    0.441217849539139254509,
    -0.169575921213921913237,
    -0.460764750725460451947,
    1.68572395831132976574,
    -2.66454675974566372248,
    0.270204376347440956649,
    2.94265803833286966152,
];

const LOG2E: f64 = std::f64::consts::LOG2_E;
/// `ln 2 = LN2_HI + LN2_LO` (to 2^-97): `LN2_HI` has 42 significant bits, so `n * LN2_HI` is
/// exact for `|n| < 2^11` (every exponent of an f64).
const LN2_HI: f64 = 0.693_147_180_559_890_330_187;
const LN2_LO: f64 = 5.497_923_018_708_371_174_71e-14;
/// `2/3 = TWO_THIRDS_HI + TWO_THIRDS_LO`.
const TWO_THIRDS_HI: f64 = 0.666_666_666_666_666_629_659;
const TWO_THIRDS_LO: f64 = 3.700_743_415_417_188_468_08e-17;
/// `pi/2 = P1 + P2 + P3` (to 2^-120): `P1` and `P2` have at most 33 significant bits, so
/// `j * P1` and `j * P2` are exact for `|j| < 2^20`.
const P1: f64 = 1.570_796_326_734_125_614_17;
const P2: f64 = 6.077_100_506_303_965_976_6e-11;
const P3: f64 = 2.022_266_248_795_950_732_4e-21;
const PI_HI: f64 = std::f64::consts::PI;
const PI_LO: f64 = 1.224_646_799_147_353_177_23e-16;
const PIO2_HI: f64 = std::f64::consts::FRAC_PI_2;
const PIO2_LO: f64 = 6.123_233_995_736_765_886_13e-17;
const PIO4_HI: f64 = std::f64::consts::FRAC_PI_4;
const PIO4_LO: f64 = 3.061_616_997_868_382_943_07e-17;

/// `1.5 * 2^52`: `t + ROUND_MAGIC` rounds `t` (`|t| < 2^51`) to the integer `n` (ties to
/// even), held in the low mantissa bits, and `(t + ROUND_MAGIC) - ROUND_MAGIC` is `n` exactly.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// `c[0] + c[1] x + ... + c[n] x^n` by Horner's rule with multiply-adds.
#[inline(always)]
fn poly<V: F64Lanes, const N: usize>(x: V, c: &[f64; N]) -> V {
    let mut acc = V::splat(c[N - 1]);
    for &k in c[..N - 1].iter().rev() {
        acc = acc.mul_add(x, V::splat(k));
    }
    acc
}

/// Lanes of `x` where `mask` is set, `y` elsewhere.
#[inline(always)]
fn sel<V: VFloat>(mask: V, x: V, y: V) -> V {
    V::select(mask, x, y)
}

/// `(a b, e)` with `a b = p + e` exactly (no overflow): one FMA when `V`'s `mul_add` is fused
/// (the dispatched [`crate::simd::Lanes`] always, `wide` in a build with FMA), else Dekker's
/// product of halves split at 27 bits. Both give the same `e`.
#[inline(always)]
fn two_prod<V: F64Lanes>(a: V, b: V) -> (V, V) {
    let p = a * b;
    if V::FUSED {
        (p, a.mul_add(b, -p))
    } else {
        let split = |x: V| {
            let c = x * V::splat(134_217_729.0);
            let hi = c - (c - x);
            (hi, x - hi)
        };
        let ((ah, al), (bh, bl)) = (split(a), split(b));
        (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
    }
}

/// `(a + b, e)` with `a + b = s + e` exactly (Knuth's two-sum, any magnitudes).
#[inline(always)]
fn two_sum<V: F64Lanes>(a: V, b: V) -> (V, V) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `k = round(x * scale) + ROUND_MAGIC` and `n = round(x * scale)` (see [`ROUND_MAGIC`]).
#[inline(always)]
fn round_magic<V: F64Lanes>(x: V, scale: f64) -> (V, V) {
    let k = x.mul_add(V::splat(scale), V::splat(ROUND_MAGIC));
    (k, k - V::splat(ROUND_MAGIC))
}

/// `x * 2^n` for integer-valued `n` in `[-2044, 2046]` and `|x|` in `[2^-2, 2^2]`, rounded
/// once: the first factor `2^h` keeps the product normal (exact), the second rounds.
#[inline(always)]
fn ldexp<V: F64Lanes>(x: V, n: V) -> V {
    let h = (n * V::splat(0.5)).round_even();
    x * V::pow2i(h) * V::pow2i(n - h)
}

/// `e^r - 1` for `|r| <= ln2/2`.
#[inline(always)]
fn expm1_reduced<V: F64Lanes>(r: V) -> V {
    (r * r).mul_add(poly(r, &EXP_Q), r)
}

/// `n = round(x / ln 2)` (and its [`round_magic`] `k`), `r = x - n ln 2`, `|r| <= ln2/2`
/// (plus rounding), for `|x| < 1420`: `x - n LN2_HI` is exact (Sterbenz), one rounding after.
#[inline(always)]
fn reduce_ln2<V: F64Lanes>(x: V) -> (V, V, V) {
    let (k, n) = round_magic(x, LOG2E);
    let r = x - n * V::splat(LN2_HI);
    (k, n, r - n * V::splat(LN2_LO))
}

/// Below this `|x|`, `n = round(x / ln 2)` is in `[-1021, 1021]`, so `e^r 2^n` is normal and
/// the exponent-field add of [`F64Lanes::mul_pow2_magic`] scales exactly.
const EXP_FAST_MAX: f64 = 708.0;

/// `e^x = 2^n e^r`. Vectors with every `|x| < EXP_FAST_MAX` (the common case) scale by adding
/// `n` to the exponent field; others (NaN, overflow, subnormal or zero results) take
/// [`exp_any`]. Both give the same bits where both apply.
#[inline(always)]
pub(crate) fn exp<V: F64Lanes>(x: V) -> V {
    if V::all_lt(x.abs(), EXP_FAST_MAX) {
        let (k, _, r) = reduce_ln2(x);
        V::mul_pow2_magic(expm1_reduced(r) + V::splat(1.0), k)
    } else {
        exp_any(x)
    }
}

/// [`exp`] for any input: clamping to `[-746, 710]` makes overflow give +inf and underflow 0
/// through the same arithmetic; subnormal results are rounded once.
#[inline(always)]
fn exp_any<V: F64Lanes>(x: V) -> V {
    let (_, n, r) = reduce_ln2(V::clamp_fast(x, -746.0, 710.0));
    sel(x.is_nan(), x, ldexp(expm1_reduced(r) + V::splat(1.0), n))
}

/// `e^x - 1`: `2^n (em + 1 - 2^-n)` for `n` in `[-1, 53]` (where `1 - 2^-n` is exact and the
/// sum cancels little), else `2^n (em + 1) - 1`, with `em = e^r - 1`; `x = r` for `n = 0`.
#[inline(always)]
pub(crate) fn expm1<V: F64Lanes>(x: V) -> V {
    let (_, n, r) = reduce_ln2(V::clamp_fast(x, -40.0, 710.0));
    let em = expm1_reduced(r);
    let one = V::splat(1.0);
    let mid = n.cmp_ge(V::splat(-1.0)) & n.cmp_le(V::splat(53.0));
    let c = sel(mid, one - V::pow2i(-n), one);
    let d = sel(mid, V::splat(0.0), one);
    let res = ldexp(em + c, n) - d;
    // ±0 stays ±0; NaN stays NaN.
    sel(x.cmp_eq(V::splat(0.0)) | x.is_nan(), x, res)
}

/// `(m, e, f)` with `x = 2^e m`, `m = 1 + f` in `[sqrt(1/2), sqrt 2)`, for positive finite
/// `x` (subnormals scaled by 2^54 first); `f = m - 1` is exact.
#[inline(always)]
fn reduce_log<V: F64Lanes>(x: V) -> (V, V, V) {
    let tiny = x.cmp_lt(V::splat(f64::MIN_POSITIVE));
    let xs = sel(tiny, x * V::splat(18_014_398_509_481_984.0), x);
    let (m, e) = V::split_exponent(xs);
    let big = m.cmp_gt(V::splat(std::f64::consts::SQRT_2));
    let m = sel(big, m * V::splat(0.5), m);
    let e = e + sel(big, V::splat(1.0), V::splat(0.0)) - sel(tiny, V::splat(54.0), V::splat(0.0));
    (m, e, m - V::splat(1.0))
}

/// `ln x = e ln2 + ln(1 + f)` with `ln(1 + f) = 2 atanh s = f - f^2/2 + s (f^2/2 + R(s^2))`,
/// `s = f / (2 + f)` (`|s| < 0.172`), `R(z) = z (2/3 + z T2(z))`; small terms first, the
/// exact `e LN2_HI` last.
#[inline(always)]
pub(crate) fn log<V: F64Lanes>(x: V) -> V {
    let (_, e, f) = reduce_log(x);
    let s = f / (V::splat(2.0) + f);
    let z = s * s;
    let r = z * z.mul_add(poly(z, &LOG_T2), V::splat(2.0 / 3.0));
    let hfsq = V::splat(0.5) * f * f;
    let lo = s.mul_add(hfsq + r, e * V::splat(LN2_LO));
    let res = e.mul_add(V::splat(LN2_HI), f - (hfsq - lo));
    let res = sel(x.cmp_eq(V::splat(f64::INFINITY)), x, res);
    let res = sel(x.cmp_eq(V::splat(0.0)), V::splat(f64::NEG_INFINITY), res);
    sel(
        x.cmp_lt(V::splat(0.0)) | x.is_nan(),
        V::splat(f64::NAN),
        res,
    )
}

/// `ln x = hi + lo` to about 2^-64 relative (for [`pow`]), positive finite `x`: the terms
/// `2s` and `(2/3) s^3` of `2 atanh s` are carried in two parts, the rest is below 2^-11 of
/// the result.
#[inline(always)]
fn log_dd<V: F64Lanes>(x: V) -> (V, V) {
    let (m, e, f) = reduce_log(x);
    // d = 1 + m exactly as dh + dl (Fast2Sum: the exponent of 1 is >= that of m).
    let one = V::splat(1.0);
    let dh = one + m;
    let dl = m - (dh - one);
    // s = f / d as sh + sl: the residual f - sh dh is exact.
    let sh = f / dh;
    let (p, pe) = two_prod(sh, dh);
    let sl = (((f - p) - pe) - sh * dl) / dh;
    // z = s^2, t = s^3 and u = (2/3) s^3, each as hi + lo.
    let (zh, ze) = two_prod(sh, sh);
    let zl = ze + V::splat(2.0) * sh * sl;
    let (th, te) = two_prod(sh, zh);
    let tl = te + sh * zl + sl * zh;
    let (uh, ue) = two_prod(V::splat(TWO_THIRDS_HI), th);
    let ul = ue + V::splat(TWO_THIRDS_LO) * th + V::splat(TWO_THIRDS_HI) * tl;
    let rest = sh * zh * zh * poly(zh, &LOG_T2);
    // e LN2_HI + 2 sh + uh in two parts, then every small term.
    let (a, ae) = two_sum(V::splat(2.0) * sh, uh);
    let (h, he) = two_sum(e * V::splat(LN2_HI), a);
    let small = he + ae + ul + V::splat(2.0) * sl + rest + e * V::splat(LN2_LO);
    let hi = h + small;
    (hi, small - (hi - h))
}

/// `ln(1 + x) = ln u + (x - (u - 1)) / u` with `u = 1 + x` rounded: the second term restores
/// what rounding `u` lost.
#[inline(always)]
pub(crate) fn log1p<V: F64Lanes>(x: V) -> V {
    let one = V::splat(1.0);
    let u = x + one;
    let lu = log(u);
    let corr = (x - (u - one)) / u;
    let finite_pos = u.cmp_gt(V::splat(0.0)) & u.cmp_lt(V::splat(f64::INFINITY));
    let res = sel(finite_pos, lu + corr, lu);
    sel(x.cmp_eq(V::splat(0.0)), x, res)
}

/// `1 / (1 + e^-x)`, the scalar op's formula (so the same saturation: 0 once `e^-x`
/// overflows).
#[inline(always)]
pub(crate) fn logistic<V: F64Lanes>(x: V) -> V {
    V::splat(1.0) / (V::splat(1.0) + exp(-x))
}

/// `(tanh x - x) / x^3` in `z = x^2` on `[0, 0.55^2]`, degree 11, max abs error 2.2e-19.
const TANH_T: [f64; 12] = [
    -0.33333333333333333311,
    0.133333333333333120599,
    -0.0539682539682203745421,
    0.0218694885340739077356,
    -0.00886323546314680007008,
    0.00359212676996263470516,
    -0.00145581909715135121024,
    0.000589905296949273299621,
    -0.000238472724801525213054,
    9.45513305292485796055e-5,
    -3.37208011204631637507e-5,
    7.87427434534441910047e-6,
];
/// Below this `|x|`, `tanh x = x + x^3 T(x^2)` ([`TANH_T`]).
const TANH_SMALL: f64 = 0.55;
/// From this `|x|` on, `tanh x` rounds to ±1 (`1 - tanh 19.1 < 2^-54`).
const TANH_ONE: f64 = 19.1;

/// `tanh x = x + x^3 T(x^2)` for `|x| < 0.55`; beyond, `tanh |x| = em / (em + 2)` with
/// `em = e^{2|x|} - 1` (no cancellation), the sign copied back. Each part is computed only
/// when a lane needs it.
#[inline(always)]
pub(crate) fn tanh<V: F64Lanes>(x: V) -> V {
    let a = V::min_keep_nan(x.abs(), TANH_ONE);
    let small = a.cmp_lt(V::splat(TANH_SMALL));
    // Functions, not closures: a closure is not `#[inline(always)]`, and one left out of line
    // is compiled for the build's baseline, outside the dispatched loop's instruction set
    // (a default build's f64 tanh ran 18x slower than a native one that way).
    #[inline(always)]
    fn poly_part<V: F64Lanes>(a: V) -> V {
        let z = a * a;
        (a * z).mul_add(poly(z, &TANH_T), a)
    }
    #[inline(always)]
    fn exp_part<V: F64Lanes>(a: V) -> V {
        let em = expm1(a + a);
        let r = em / (em + V::splat(2.0));
        sel(a.cmp_ge(V::splat(TANH_ONE)), V::splat(1.0), r)
    }
    let r = if V::all(small) {
        poly_part(a)
    } else if !V::any(small) {
        exp_part(a)
    } else {
        sel(small, poly_part(a), exp_part(a))
    };
    r | (x & V::splat(-0.0))
}

/// Where `erf` switches from `x P(x^2)` to `1 - e^{-x^2} G(1/x)`.
const ERF_SPLIT: f64 = 1.5;
/// From this `|x|` on, `erf x` rounds to ±1 (`erfc 6 < 2^-55`).
const ERF_ONE: f64 = 6.0;

/// `erf x`: `x P(x^2)` for `|x| < 1.5`, `1 - e^{-x^2} G(1/|x|)` for `1.5 <= |x| < 6` (`e^{-x^2}`
/// from the square in two parts), else ±1. Each part is computed only when a lane needs it
/// (as in [`tanh`]): with the small part computed ahead of the branch for every vector, LLVM
/// vectorized the dispatched 8-lane body only in pieces (scalar and 4-lane polynomials), and a
/// default build's f64 erf ran 4.5x behind a native one.
#[inline(always)]
pub(crate) fn erf<V: F64Lanes>(x: V) -> V {
    #[inline(always)]
    fn small_part<V: F64Lanes>(a: V) -> V {
        a * poly(a * a, &ERF_SMALL)
    }
    #[inline(always)]
    fn large_part<V: F64Lanes>(a: V) -> V {
        let ac = V::clamp_fast(a, ERF_SPLIT, ERF_ONE);
        let g = poly(V::splat(1.0) / ac - V::splat(ERFC_MID), &ERFC_G);
        let (sq, sqe) = two_prod(ac, ac);
        let erfc = exp(-sq) * (V::splat(1.0) - sqe) * g;
        sel(
            a.cmp_ge(V::splat(ERF_ONE)),
            V::splat(1.0),
            V::splat(1.0) - erfc,
        )
    }
    let a = x.abs();
    let is_small = a.cmp_lt(V::splat(ERF_SPLIT));
    let res = if V::all(is_small) {
        small_part(a)
    } else if !V::any(is_small) {
        large_part(a)
    } else {
        sel(is_small, small_part(a), large_part(a))
    };
    sel(x.is_nan(), x, res | (x & V::splat(-0.0)))
}

/// Which trigonometric function [`trig`] computes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trig {
    Sin,
    Cos,
    Tan,
}

/// Up to this `|x|`, `|j| = |round(x 2/pi)| < 2^20` and the three-part reduction is exact to
/// about 2^-100; larger and infinite arguments go lane by lane through the scalar op.
const TRIG_FAST_MAX: f64 = 1_048_576.0;

/// sin, cos or tan: `x = j pi/2 + r` with `r = rh + rl` (`|r| <= pi/4`), then the quadrant
/// `j mod 4` picks `±sin r`, `±cos r` (or `tan r`, `-1/tan r`). `cos r` is `w + (1 - w - z/2)
/// + ...` with `w = 1 - z/2` rounded, so the big term is exact. Vectors with a lane beyond
/// [`TRIG_FAST_MAX`] (or infinite) use the scalar op for every lane.
#[inline(always)]
pub(crate) fn trig<V: F64Lanes>(x: V, f: Trig, scalar: fn(f64) -> f64) -> V {
    if V::any(x.abs().cmp_gt(V::splat(TRIG_FAST_MAX))) {
        return V::from_fn(|i| scalar(x.lane(i)));
    }
    let (_, j) = round_magic(x, std::f64::consts::FRAC_2_PI);
    // x - j P1 and j P2 are exact; the two subtractions keep their errors.
    let r1 = x - j * V::splat(P1);
    let (r2, e2) = two_sum(r1, -(j * V::splat(P2)));
    let (r3, e3) = two_sum(r2, -(j * V::splat(P3)));
    let rh = r3 + (e2 + e3);
    let rl = (e2 + e3) - (rh - r3);
    let z = rh * rh;
    let s = rh + (rh * z).mul_add(poly(z, &SIN_S), rl);
    let hz = V::splat(0.5) * z;
    let w = V::splat(1.0) - hz;
    let c = w + (((V::splat(1.0) - w) - hz) + (z * z).mul_add(poly(z, &COS_C), -(rh * rl)));
    // q = j mod 4 in {0, 1, 2, 3} (exact: j is an integer below 2^20).
    let quarter = j * V::splat(0.25);
    let q = (quarter - quarter.floor()) * V::splat(4.0);
    let odd = q.cmp_eq(V::splat(1.0)) | q.cmp_eq(V::splat(3.0));
    let res = match f {
        Trig::Sin => {
            let v = sel(odd, c, s);
            sel(q.cmp_ge(V::splat(2.0)), -v, v)
        }
        Trig::Cos => {
            let v = sel(odd, s, c);
            sel(q.cmp_eq(V::splat(1.0)) | q.cmp_eq(V::splat(2.0)), -v, v)
        }
        Trig::Tan => sel(odd, -c / s, s / c),
    };
    // sin(±0) = tan(±0) = ±0 (the reduction computes -0 - 0 = +0).
    match f {
        Trig::Sin | Trig::Tan => sel(x.cmp_eq(V::splat(0.0)), x, res),
        Trig::Cos => res,
    }
}

/// `cbrt x`: `|x| = 2^{3q} mm` with `mm` in `[1, 8)`, a cubic start (error 0.0085), two
/// Halley steps (cubic convergence: beyond f64 precision), then one Newton step on the exact
/// residual `mm - y^3` so the result is rounded once; the sign copied back.
#[inline(always)]
pub(crate) fn cbrt<V: F64Lanes>(x: V) -> V {
    let a = x.abs();
    let tiny = a.cmp_lt(V::splat(f64::MIN_POSITIVE));
    // 2^54 = (2^18)^3: subnormals become normal, and the root is scaled back by 2^-18.
    let (m, e) = V::split_exponent(sel(tiny, a * V::splat(18_014_398_509_481_984.0), a));
    // e = 3q + rem, rem in {0, 1, 2}; (e + 0.5) / 3 is at least 1/6 from an integer.
    let q = ((e + V::splat(0.5)) * V::splat(1.0 / 3.0)).floor();
    let rem = e - V::splat(3.0) * q;
    let mm = m * sel(
        rem.cmp_eq(V::splat(0.0)),
        V::splat(1.0),
        sel(rem.cmp_eq(V::splat(1.0)), V::splat(2.0), V::splat(4.0)),
    );
    let mut y = poly(mm, &CBRT_0);
    for _ in 0..2 {
        let y3 = y * y * y;
        y = y * (y3 + mm + mm) / (y3 + y3 + mm);
    }
    let (y2, e2) = two_prod(y, y);
    let (y3, e3) = two_prod(y2, y);
    let resid = (mm - y3) - (e3 + e2 * y);
    let y = y + resid / (V::splat(3.0) * y2);
    let q = q - sel(tiny, V::splat(18.0), V::splat(0.0));
    let res = (y * V::pow2i(q)) | (x & V::splat(-0.0));
    let keep = x.cmp_eq(V::splat(0.0)) | a.cmp_eq(V::splat(f64::INFINITY)) | x.is_nan();
    sel(keep, x, res)
}

/// `x^y` with C's special cases: `e^{y ln|x|}` with `ln|x|` in two parts ([`log_dd`]) and the
/// product `y ln|x|` in two parts, so the exponential's argument is exact to ~2^-64 relative
/// (a few ulp at the overflow edge, ~1 ulp in the usual range); the sign is `-` for negative
/// `x` and odd integer `y`, NaN for negative finite `x` and non-integer `y`.
#[inline(always)]
pub(crate) fn pow<V: F64Lanes>(x: V, y: V) -> V {
    let ax = x.abs();
    let (lh, ll) = log_dd(ax);
    let lh = sel(ax.cmp_eq(V::splat(0.0)), V::splat(f64::NEG_INFINITY), lh);
    let lh = sel(ax.cmp_eq(V::splat(f64::INFINITY)), ax, lh);
    let (ph, pe) = two_prod(y, lh);
    // The low part only where the high part is in exp's range (no inf - inf).
    let in_range = ph.abs().cmp_lt(V::splat(746.0));
    // (Dekker's product of a |y| > 2^996 is NaN: there ph is in range only for x = ±1.)
    let pl = pe + y * ll;
    let pl = sel(in_range & pl.cmp_eq(pl), pl, V::splat(0.0));
    let phc = V::clamp_fast(ph, -746.0, 710.0);
    let (k, n) = round_magic(phc, LOG2E);
    let r = phc - n * V::splat(LN2_HI);
    let r = r + (pl - n * V::splat(LN2_LO));
    let er = expm1_reduced(r) + V::splat(1.0);
    let mag = if V::all_lt(phc.abs(), EXP_FAST_MAX) {
        V::mul_pow2_magic(er, k)
    } else {
        ldexp(er, n)
    };
    // Integer and odd-integer y (every |y| >= 2^53 is even; infinities count as even).
    let y_int = y.floor().cmp_eq(y);
    let half = y * V::splat(0.5);
    let y_odd =
        y_int & half.floor().cmp_ne(half) & y.abs().cmp_lt(V::splat(9_007_199_254_740_992.0));
    let res = mag | sel(y_odd, x & V::splat(-0.0), V::splat(0.0));
    let finite_neg = x.cmp_lt(V::splat(0.0)) & x.cmp_gt(V::splat(f64::NEG_INFINITY));
    let nan = (finite_neg & y.floor().cmp_ne(y)) | x.is_nan() | y.is_nan();
    let res = sel(nan, V::splat(f64::NAN), res);
    let one = y.cmp_eq(V::splat(0.0))
        | x.cmp_eq(V::splat(1.0))
        | (x.cmp_eq(V::splat(-1.0)) & y.abs().cmp_eq(V::splat(f64::INFINITY)));
    sel(one, V::splat(1.0), res)
}

/// `atan2(y, x)`: `a = min(|x|, |y|) / max(|x|, |y|)` in `[0, 1]`, `atan a` directly for
/// `a <= tan(pi/8)`, else `pi/4 + atan((a - 1) / (a + 1))`; then `pi/2 - .` when `|y| > |x|`,
/// `pi - .` when `x` has its sign bit set, and the sign of `y`. The quotients and the sums
/// are carried in two parts (exact division residuals, two-sums), so the result is rounded
/// about once. `0/0` counts as 0 and `inf/inf` as 1, which gives C's special cases
/// (`atan2(±0, -0) = ±pi`, `atan2(±inf, -inf) = ±3pi/4`, ...).
#[inline(always)]
pub(crate) fn atan2<V: F64Lanes>(y: V, x: V) -> V {
    let (zero, one, inf) = (V::splat(0.0), V::splat(1.0), V::splat(f64::INFINITY));
    let (ax, ay) = (x.abs(), y.abs());
    let swap = ay.cmp_gt(ax);
    let (num, den) = (sel(swap, ax, ay), sel(swap, ay, ax));
    let a = num / den;
    let (p, pe) = two_prod(a, den);
    let a_lo = ((num - p) - pe) / den;
    // No residual where the product a * den is subnormal (its error is not representable) or
    // where it or Dekker's split overflows.
    let plain =
        num.cmp_lt(V::splat(1e-290)) | den.cmp_eq(inf) | num.cmp_eq(inf) | a_lo.cmp_ne(a_lo);
    let a_lo = sel(plain, zero, a_lo);
    let a = sel(den.cmp_eq(zero), zero, a);
    let a = sel(num.cmp_eq(inf), one, a);
    // Reduced argument t + t_lo: a itself, or (a - 1) / (a + 1) for a > tan(pi/8).
    let big = a.cmp_gt(V::splat(0.414_213_562_373_095_03));
    let (nh, ne) = two_sum(a, -one);
    let (dh, de) = two_sum(a, one);
    let tb = nh / dh;
    let (q, qe) = two_prod(tb, dh);
    let tb_lo = ((((nh - q) - qe) + (ne + a_lo)) - tb * (de + a_lo)) / dh;
    let t = sel(big, tb, a);
    let t_lo = sel(big, tb_lo, a_lo);
    // atan(t + t_lo) = t + t^3 A(t^2) + t_lo / (1 + t^2) (+ O(t_lo^2)).
    let z = t * t;
    let tail = (t * z).mul_add(poly(z, &ATAN_A), t_lo * (one - z));
    let (rh, re) = two_sum(sel(big, V::splat(PIO4_HI), zero), t);
    let rl = re + (tail + sel(big, V::splat(PIO4_LO), zero));
    // pi/2 - r where |y| > |x|, then pi - r where x has its sign bit set, in two parts.
    let (sh, se) = two_sum(V::splat(PIO2_HI), -rh);
    let (rh, rl) = (
        sel(swap, sh, rh),
        sel(swap, (se - rl) + V::splat(PIO2_LO), rl),
    );
    // The sign bit of x (-0 too) as a mask: ±1 with that sign, compared with 0.
    let x_neg = (one | (x & V::splat(-0.0))).cmp_lt(zero);
    let (nh, ne) = two_sum(V::splat(PI_HI), -rh);
    let (rh, rl) = (
        sel(x_neg, nh, rh),
        sel(x_neg, (ne - rl) + V::splat(PI_LO), rl),
    );
    let r = rh + rl;
    sel(x.is_nan() | y.is_nan(), x + y, r | (y & V::splat(-0.0)))
}

#[cfg(test)]
mod tests;
