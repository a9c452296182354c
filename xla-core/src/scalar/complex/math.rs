//! The complex unary functions as XLA:CPU evaluates them, in the component type `F` (f32 for
//! c64, f64 for c128), so that infinities, NaNs, signed zeros, overflow and underflow come out
//! where XLA's do.
//!
//! XLA does not follow C99 Annex G: it evaluates fixed real formulas, and whatever IEEE
//! arithmetic makes of an infinite or NaN component is the result (`|inf + NaN i| = NaN`,
//! `exp(-inf + inf i) = NaN + NaN i`), with a few explicit selects (e.g. `Im exp(x + 0i) = +0`).
//! Each function below documents its formula; the formulas were identified by comparing
//! XLA:CPU's results (jax 0.10.2, `tests/oracle_complex_special.rs`) bit for bit on every
//! combination of the components {±0, ±1, ±inf, NaN} and on large finite ones. They are the
//! published algorithms XLA applies: MLIR's complex-to-standard lowering (abs, sign, expm1, sin,
//! cos, tan, tanh, rsqrt; exp with an overflow-avoiding split), StableHLO's complex math
//! expander (log, log1p, sqrt), CHLO's expansion of cosh and `1 / (1 + e^-z)` for logistic.
//!
//! Arithmetic between the steps is done in `F`, as XLA does, because where an intermediate
//! overflows or rounds to 0 decides the class of the result (`Re cos(0.5 + 89i)` is inf in c64:
//! `e^89` overflows f32). The real elementary functions (`exp`, `sin`, `ln`, ...) are evaluated
//! in f64 and rounded once to `F`, like the real f32 ops of `scalar::float`.
//!
//! XLA:CPU also runs with flush-to-zero: an intermediate that underflows to a subnormal is a
//! zero of the same sign there. Where that changes what a later step makes of it (`1 / e^-710`
//! is inf, not 5.6e307; the sign of `Im logistic(100 - 0.5i)` in c64 comes from a flushed
//! `e^-100 sin 0.5`) the intermediate is flushed here too ([`ftz`]): the outputs of the real
//! elementary functions, of Dekker's squares, of `cosm1` and of [`exp_c`] (which `cosh` and
//! `logistic` build on).

use num_complex::Complex;
use num_traits::Float;

use super::smith_div;

/// A component type: f32 or f64.
pub(super) trait Part: Float {
    /// `f(self)` evaluated in f64 and rounded once to `Self`.
    fn via(self, f: fn(f64) -> f64) -> Self;
    /// `f(self, rhs)` evaluated in f64 and rounded once to `Self`.
    fn via2(self, rhs: Self, f: fn(f64, f64) -> f64) -> Self;
    /// `Self` from an f64 constant (rounded).
    fn c(x: f64) -> Self;
    /// Veltkamp's splitting constant `2^ceil(p/2) + 1` (p = precision in bits): `C x` splits `x`
    /// into a high half of `ceil(p/2)` bits and an exact low half, for Dekker's exact square.
    const SPLITTER: f64;
}

impl Part for f32 {
    #[inline]
    fn via(self, f: fn(f64) -> f64) -> f32 {
        ftz(f(self as f64) as f32)
    }
    #[inline]
    fn via2(self, rhs: f32, f: fn(f64, f64) -> f64) -> f32 {
        ftz(f(self as f64, rhs as f64) as f32)
    }
    #[inline]
    fn c(x: f64) -> f32 {
        x as f32
    }
    const SPLITTER: f64 = 4097.0;
}

impl Part for f64 {
    #[inline]
    fn via(self, f: fn(f64) -> f64) -> f64 {
        ftz(f(self))
    }
    #[inline]
    fn via2(self, rhs: f64, f: fn(f64, f64) -> f64) -> f64 {
        ftz(f(self, rhs))
    }
    #[inline]
    fn c(x: f64) -> f64 {
        x
    }
    const SPLITTER: f64 = 134_217_729.0;
}

// ---- real building blocks --------------------------------------------------------------------

/// A subnormal as the zero of its sign (XLA:CPU's flush-to-zero), anything else unchanged.
#[inline]
fn ftz<F: Float>(x: F) -> F {
    if x != F::zero() && x.abs() < F::min_positive_value() {
        F::zero().copysign(x)
    } else {
        x
    }
}

// The real elementary functions: f64's, rounded once to `F` and flushed.

#[inline]
fn exp<F: Part>(x: F) -> F {
    x.via(f64::exp)
}
#[inline]
fn expm1<F: Part>(x: F) -> F {
    x.via(f64::exp_m1)
}
#[inline]
fn ln<F: Part>(x: F) -> F {
    x.via(f64::ln)
}
#[inline]
fn ln1p<F: Part>(x: F) -> F {
    x.via(f64::ln_1p)
}
#[inline]
fn sin<F: Part>(x: F) -> F {
    x.via(f64::sin)
}
#[inline]
fn cos<F: Part>(x: F) -> F {
    x.via(f64::cos)
}
#[inline]
fn atan2<F: Part>(y: F, x: F) -> F {
    y.via2(x, f64::atan2)
}
/// `1 / sqrt(x)`, one rounding for f32.
#[inline]
fn rsqrt<F: Part>(x: F) -> F {
    x.via(|v| 1.0 / v.sqrt())
}

/// XLA's maximum: NaN if either operand is NaN.
#[inline]
fn max<F: Float>(a: F, b: F) -> F {
    if a.is_nan() || b.is_nan() {
        F::nan()
    } else if a < b {
        b
    } else {
        a
    }
}

/// XLA's minimum: NaN if either operand is NaN.
#[inline]
fn min<F: Float>(a: F, b: F) -> F {
    if a.is_nan() || b.is_nan() {
        F::nan()
    } else if a > b {
        b
    } else {
        a
    }
}

/// `cos b - 1` without cancellation: `-2 sin^2(b/2)` for `b^2 < (pi/4)^2 ~ 0.61685` (XLA's
/// threshold), else `cos b - 1`.
/// `+ 0` turns the `-0` at `b = ±0` into XLA's `+0`.
#[inline]
fn cosm1<F: Part>(b: F) -> F {
    let b2 = b * b;
    if b2 >= F::c(0.61685) {
        cos(b) - F::one()
    } else {
        let h = sin(b * F::c(0.5));
        ftz(-(F::c(2.0) * h * h)) + F::zero()
    }
}

/// Dekker's exact square: `(h, l)` with `h = x*x` rounded and `h + l = x^2` exactly (barring
/// overflow), via Veltkamp's split `x = xh + xl` with half-width halves.
#[inline]
fn square_dekker<F: Part>(x: F) -> (F, F) {
    let h = x * x;
    let cx = F::c(F::SPLITTER) * x;
    let xh = cx + (x - cx);
    let xl = x - xh;
    let hl = xh * xl;
    (ftz(h), ftz((((-h + xh * xh) + hl) + hl) + xl * xl))
}

/// Knuth's 2Sum: `s = a + b` rounded and its exact rounding error.
#[inline]
fn two_sum<F: Float>(a: F, b: F) -> (F, F) {
    let s = a + b;
    let d = s - a;
    (s, (a - (s - d)) + (b - d))
}

/// Dekker's fast2Sum: `s = a + b` rounded and its error, exact when `|a| >= |b|`.
#[inline]
fn fast_two_sum<F: Float>(a: F, b: F) -> (F, F) {
    let s = a + b;
    (s, b - (s - a))
}

/// The sum of `terms` in doubled precision: the running sum with `step` (2Sum or fast2Sum)
/// and the rounding errors summed in order and added at the end. The first error starts the
/// error sum as is (not `0 + e`), as in XLA's chain: the sign of a zero result depends on it.
#[inline]
fn sum_compensated<F: Float>(terms: [F; 5], step: fn(F, F) -> (F, F)) -> F {
    let mut hi = terms[0];
    let mut lo = F::zero();
    for (k, &t) in terms[1..].iter().enumerate() {
        let (s, e) = step(hi, t);
        hi = s;
        lo = if k == 0 { e } else { lo + e };
    }
    hi + lo
}

/// `ln(mx) + ln1p(r^2)/2` with `r = mn / mx` (1 when `mn == mx`, which covers `0/0` and
/// `inf/inf`): `ln hypot` without overflow.
#[inline]
fn ln_hypot<F: Part>(mx: F, mn: F) -> F {
    let r = if mn == mx { F::one() } else { mn / mx };
    ln(mx) + F::c(0.5) * ln1p(r * r)
}

// ---- the functions ---------------------------------------------------------------------------

/// `|a + bi| = M sqrt(1 + (m/M)^2)` with `M = max(|a|, |b|)`, `m = min(|a|, |b|)`; where that
/// is NaN (`0/0`, `inf/inf`, a NaN part) the result is `m`: so `|inf + NaN i| = NaN`,
/// `|inf + inf i| = inf`, `|0| = 0`.
#[inline]
pub(super) fn abs<F: Part>(z: Complex<F>) -> F {
    let (aa, ab) = (z.re.abs(), z.im.abs());
    let (mx, mn) = (max(aa, ab), min(aa, ab));
    let r = mn / mx;
    let v = mx * (F::one() + r * r).sqrt();
    if v.is_nan() {
        mn
    } else {
        v
    }
}

/// `z / |z|`, and `z` itself (signs kept) when both parts are zero.
#[inline]
pub(super) fn sign<F: Part>(z: Complex<F>) -> Complex<F> {
    if z.re == F::zero() && z.im == F::zero() {
        return z;
    }
    let m = abs(z);
    Complex::new(z.re / m, z.im / m)
}

/// `e^(a+bi) = e^a cos b + i e^a sin b`; where `e^a` overflows, `(h cos b) h` with
/// `h = e^(a/2)` (so `e^a cos b` stays finite where only `e^a` overflows). `Im = +0` when
/// `b = ±0` (so `exp(inf + 0i) = inf + 0i`). Flushed (see the module docs).
#[inline]
pub(super) fn exp_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (a, b) = (z.re, z.im);
    let e = exp(a);
    let times_e = |t: F| {
        if e == F::infinity() {
            let h = exp(a * F::c(0.5));
            (h * t) * h
        } else {
            e * t
        }
    };
    let re = times_e(cos(b));
    let im = if b == F::zero() {
        F::zero()
    } else {
        times_e(sin(b))
    };
    Complex::new(ftz(re), ftz(im))
}

/// `e^(a+bi) - 1 = (expm1(a) cos b + cosm1 b) + i (expm1(a) + 1) sin b`, with
/// `cos b = cosm1 b + 1`; `Im = +0` when `b = ±0`.
#[inline]
pub(super) fn expm1_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (a, b) = (z.re, z.im);
    let em = expm1(a);
    let cm = cosm1(b);
    let re = em * (cm + F::one()) + cm;
    let im = if b == F::zero() {
        F::zero()
    } else {
        (em + F::one()) * sin(b)
    };
    Complex::new(re, im)
}

/// `ln|z| + i atan2(b, a)`. The modulus term is `ln1p(s)/2` with `s = a^2 + b^2 - 1` summed
/// exactly (Dekker squares, fast2Sum) when `|s| < 1/2`, i.e. near the unit circle; otherwise
/// `ln(M) + ln1p((m/M)^2)/2` (see [`ln_hypot`]).
#[inline]
pub(super) fn log_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (x, y) = (z.re, z.im);
    let (yyh, yyl) = square_dekker(y);
    let (xxh, xxl) = square_dekker(x);
    let (mxh, mnh) = if yyh > xxh { (yyh, xxh) } else { (xxh, yyh) };
    let s = sum_compensated([-F::one(), mxh, mnh, yyl, xxl], fast_two_sum);
    let re = if s.abs() < F::c(0.5) {
        F::c(0.5) * ln1p(s)
    } else {
        let (ax, ay) = (x.abs(), y.abs());
        ln_hypot(max(ax, ay), min(ax, ay))
    };
    Complex::new(re, atan2(y, x))
}

/// `ln(1 + z) = ln|1 + z| + i atan2(b, a + 1)`. The modulus term, by the size of `z`:
/// `ln_hypot(|a|, |b|)` when `max(|a|, |b|) > sqrt(MAX)/100` (where `1 + a ~ a` and squares
/// would overflow); `ln((a+1)^2 + b^2)/2` when `|a + 1| + |b| < 0.2`; otherwise
/// `ln1p(2a + a^2 + b^2)/2` with the sum in doubled precision (Dekker squares, 2Sum).
#[inline]
pub(super) fn log1p_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (x, y) = (z.re, z.im);
    let half = F::c(0.5);
    let (ax, ay) = (x.abs(), y.abs());
    let mx = max(ax, ay);
    let xp1 = x + F::one();
    let (yyh, yyl) = square_dekker(y);
    let re = if mx > F::max_value().sqrt() * F::c(0.01) {
        ln_hypot(mx, min(ax, ay))
    } else if xp1.abs() + ay < F::c(0.2) {
        half * ln(xp1 * xp1 + yyh)
    } else {
        let (xxh, xxl) = square_dekker(x);
        half * ln1p(sum_compensated([x + x, yyh, xxh, yyl, xxl], two_sum))
    };
    Complex::new(re, atan2(y, xp1))
}

/// `sqrt(x^2 + y^2)` for `mx >= mn >= 0` as `sqrt(2) mx` when equal, else `mx sqrt(1 + r)`
/// with `r = (mn/mx)^2`, or `mx + mx r / 2` where `sqrt(1 + r)` rounds to 1 but `r > 0`.
#[inline]
fn hypot_sorted<F: Part>(mx: F, mn: F) -> F {
    if mx == mn {
        return F::c(std::f64::consts::SQRT_2) * mx;
    }
    let q = mn / mx;
    let r = q * q;
    let sqa = (F::one() + r).sqrt();
    if sqa == F::one() && r > F::zero() {
        mx + mx * r / F::c(2.0)
    } else {
        mx * sqa
    }
}

/// Principal square root, `u + i sgn(b) |b| / (2u)` for `a >= 0` and `|b| / (2u) + i sgn(b) u`
/// for `a < 0`, where `u = sqrt((|z| + |a|)/2)` and `sgn(b) = -1` only for `b < 0` (so
/// `sqrt(-4 - 0i) = 2i`, not C99's `-2i`; a NaN part gives NaN + NaN i). Where `u` underflows
/// to 0 or overflows, `u` and `|b|/(2u)` are rebuilt from `sqrt|a|`, `sqrt|b|` and the ratio of
/// the parts; `|a| = |b|` uses `u = sqrt|a| sqrt((1 + sqrt 2)/2)`.
pub(super) fn sqrt_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (x, y) = (z.re, z.im);
    let (ax, ay) = (x.abs(), y.abs());
    let (sq_ax, sq_ay) = (ax.sqrt(), ay.sqrt());
    let two = F::c(2.0);
    let sq2 = F::c(std::f64::consts::SQRT_2);
    let eq = ax == ay;
    let (u, ay_div_u) = if eq {
        // sqrt(1 + sqrt 2) and 2 sqrt((1 + sqrt 2)/2).
        (
            sq_ax * F::c(1.553_773_974_030_037_4) / sq2,
            sq_ay / F::c(2.197_368_226_935_62),
        )
    } else {
        let u_general = (hypot_sorted(max(ax, ay), min(ax, ay)) / two + ax / two).sqrt();
        if u_general == F::zero() || u_general == F::infinity() {
            // r0 = min/max of the parts, h = hypot(1, r0).
            let lt = ax < ay;
            let r0 = if lt { ax / ay } else { ay / ax };
            let h = hypot_sorted(max(F::one(), r0.abs()), min(F::one(), r0.abs()));
            if ax > ay {
                let sq_1h = (F::one() + h).sqrt();
                (
                    sq_ax * (sq_1h / sq2),
                    sq_ay * (sq_ay / sq_ax) / (sq_1h * sq2),
                )
            } else {
                let sq_rh = (r0 + h).sqrt();
                (sq_ay * (sq_rh / sq2), sq_ay / (sq_rh * sq2))
            }
        } else {
            (u_general, ay / (u_general * two))
        }
    };
    let signed = |v: F| if y < F::zero() { -v } else { v };
    if x >= F::zero() {
        Complex::new(u, signed(ay_div_u))
    } else if x < F::zero() {
        Complex::new(ay_div_u, signed(u))
    } else {
        // x is NaN: neither branch of XLA's selects; the parts are NaN anyway.
        Complex::new(ay_div_u, signed(ay_div_u))
    }
}

/// `1/sqrt(z) = |z|^(-1/2) (cos t + i sin t)` with `t = -atan2(b, a)/2` and
/// `|z|^(-1/2) = rsqrt(M) sqrt(rsqrt(1 + (m/M)^2))` (`rsqrt(m)` where that is NaN). Exceptions:
/// `(copysign(0, a), -copysign(0, b))` when `|a| = inf`, or `|b| = inf` with `a` NaN; `inf + NaN i`
/// at `z = 0`.
pub(super) fn rsqrt_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (a, b) = (z.re, z.im);
    if a == F::zero() && b == F::zero() {
        return Complex::new(F::infinity(), F::nan());
    }
    let (aa, ab) = (a.abs(), b.abs());
    if aa == F::infinity() || (ab == F::infinity() && a.is_nan()) {
        return Complex::new(F::zero().copysign(a), -F::zero().copysign(b));
    }
    let (mx, mn) = (max(aa, ab), min(aa, ab));
    let r = mn / mx;
    let v = rsqrt(mx) * rsqrt(F::one() + r * r).sqrt();
    let m = if v.is_nan() { rsqrt(mn) } else { v };
    let t = atan2(b, a) * F::c(-0.5);
    Complex::new(m * cos(t), m * sin(t))
}

/// `sin` and `cos` share `t = e^b`: `cosh b = t/2 + 1/(2t)`, `sinh b = t/2 - 1/(2t)`.
#[inline]
fn half_exps<F: Part>(b: F) -> (F, F) {
    let t = exp(b);
    let half = F::c(0.5);
    (half * t, half / t)
}

/// `cos(a + bi) = (1/(2t) + t/2) cos a + i (1/(2t) - t/2) sin a`, `t = e^b`.
#[inline]
pub(super) fn cos_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (ht, hr) = half_exps(z.im);
    Complex::new((hr + ht) * cos(z.re), (hr - ht) * sin(z.re))
}

/// `sin(a + bi) = (t/2 + 1/(2t)) sin a + i (t/2 - 1/(2t)) cos a`, `t = e^b`.
#[inline]
pub(super) fn sin_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (ht, hr) = half_exps(z.im);
    Complex::new((ht + hr) * sin(z.re), (ht - hr) * cos(z.re))
}

/// `cosh z = e^(z + ln(1/2)) + e^(ln(1/2) - z)` (CHLO's expansion, which keeps `e^|a|/2`
/// finite one step longer), with [`exp_c`] and componentwise complex `+`/`-`.
pub(super) fn cosh_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let ln_half = ln(F::c(0.5));
    let p = exp_c(Complex::new(z.re + ln_half, z.im + F::zero()));
    let q = exp_c(Complex::new(ln_half - z.re, F::zero() - z.im));
    Complex::new(p.re + q.re, p.im + q.im)
}

/// `tanh(a + bi) = (e^2a - e^-2a + 4i cos b sin b) / (e^2a + e^-2a - 2 + 4 cos^2 b)` with
/// `e^±2a` as `expm1(±2a)` (the `-2` absorbed): `Re = copysign(1, a)` when `expm1(2a) +
/// expm1(-2a)` overflows; `Re = NaN` when `sin 2b` is NaN and `|a| != inf`; `Im = 0` when
/// `b = ±0`, or when `|a| = inf` and `sin 2b` is NaN.
pub(super) fn tanh_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let (a, b) = (z.re, z.im);
    let four = F::c(4.0);
    let two_a = a + a;
    let (ep, en) = (expm1(two_a), expm1(-two_a));
    let (c, s) = (cos(b), sin(b));
    let im_num = four * (c * s);
    let sum_m2 = ep + en;
    let den = sum_m2 + c * c * four;
    let mut re = if sum_m2 == F::infinity() {
        F::one().copysign(a)
    } else {
        (ep - en) / den
    };
    let mut im = im_num / den;
    let a_inf = a.abs() == F::infinity();
    if im_num.is_nan() && !a_inf {
        re = F::nan();
    }
    if b == F::zero() || (a_inf && im_num.is_nan()) {
        im = F::zero();
    }
    Complex::new(re, im)
}

/// `tan(a + bi) = -i tanh(-b + ai)`, i.e. `(Im w, -Re w)` with `w = tanh(-b + ai)`.
#[inline]
pub(super) fn tan_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let w = tanh_c(Complex::new(-z.im, z.re));
    Complex::new(w.im, -w.re)
}

/// `1 / (1 + e^-z)`: [`exp_c`], componentwise `+` of `1 + 0i`, XLA's complex division.
#[inline]
pub(super) fn logistic_c<F: Part>(z: Complex<F>) -> Complex<F> {
    let e = exp_c(Complex::new(-z.re, -z.im));
    smith_div(
        Complex::new(F::one(), F::zero()),
        Complex::new(F::one() + e.re, F::zero() + e.im),
    )
}
