//! `Scalar` for `Complex<f32>` (c64) and `Complex<f64>` (c128), and `ComplexComponent` for
//! f32 / f64.
//!
//! `+ - *` use the textbook formulas in the component type (as XLA's elemental emitter);
//! `/` is Smith's algorithm with XLA's recovery of the (NaN, NaN) corner cases (zero divisor,
//! infinite numerator, infinite divisor). The unary functions (`abs`, `sign`, `exp`, `expm1`,
//! `log`, `log1p`, `sqrt`, `rsqrt`, `sin`, `cos`, `cosh`, `tan`, `tanh`, `logistic`) are XLA's own
//! formulas evaluated in the component type (module `math`), so that infinite, NaN and signed
//! zero components give what XLA:CPU gives, which is not C99 Annex G (`|inf + NaN i| = NaN`,
//! `sqrt(-4 - 0i) = 2i`). `pow` and `atan2` are evaluated in c128 and rounded componentwise for
//! c64, with XLA's special cases (`pow`'s `0^0 = 1`, `x^0 = 1`, `1^z = 1`). `cbrt` (which XLA
//! rejects for complex) is num-complex's principal cube root.
//!
//! Ordered comparisons and `max`/`min` use the lexicographic `(re, im)` order (StableHLO's
//! definition; XLA itself rejects them for complex). Ops XLA does not define for complex
//! (`ceil`, `floor`, `round_*`, `erf`, `rem`, bitwise ops and shifts) return the lhs unchanged;
//! `is_finite` is true when both parts are finite.

use std::cmp::Ordering;

use num_complex::Complex;
use num_traits::Float;

use super::{direction_holds, direction_holds_partial, ComplexComponent, Scalar, Value};
use crate::ir::ComparisonDirection;

mod math;

type C64 = Complex<f64>;

/// `a / b` by Smith's algorithm (the smaller of `|b.re|`, `|b.im|` is divided by the larger, so
/// no intermediate squares `|b|^2`), then XLA's fixes for a (NaN, NaN) quotient:
/// `z / 0 = (inf * sign(b.re)) * z`; `inf / finite` and `finite / inf` are recomputed with the
/// infinities replaced by ±1 (then scaled by inf, resp. 0).
#[inline]
fn smith_div<F: Float>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    let (ar, ai, br, bi) = (a.re, a.im, b.re, b.im);
    let zero = F::zero();
    let one = F::one();
    let inf = F::infinity();
    let q = if br.abs() < bi.abs() {
        let ratio = br / bi;
        let denom = bi + br * ratio;
        Complex::new((ratio * ar + ai) / denom, (ratio * ai - ar) / denom)
    } else {
        let ratio = bi / br;
        let denom = br + bi * ratio;
        Complex::new((ratio * ai + ar) / denom, (ai - ratio * ar) / denom)
    };
    if !(q.re.is_nan() && q.im.is_nan()) {
        return q;
    }
    let finite = |x: F| x.abs() != inf && !x.is_nan();
    if br == zero && bi == zero && !(ar.is_nan() && ai.is_nan()) {
        // Case 1: zero divisor, not an all-NaN dividend.
        let s = inf.copysign(br);
        return Complex::new(s * ar, s * ai);
    }
    let unit_inf = |x: F| {
        if x.abs() == inf {
            one.copysign(x)
        } else {
            zero.copysign(x)
        }
    };
    if (ar.abs() == inf || ai.abs() == inf) && finite(br) && finite(bi) {
        // Case 2: infinite dividend, finite divisor.
        let (xr, xi) = (unit_inf(ar), unit_inf(ai));
        return Complex::new(inf * (xr * br + xi * bi), inf * (xi * br - xr * bi));
    }
    if (br.abs() == inf || bi.abs() == inf) && finite(ar) && finite(ai) {
        // Case 3: finite dividend, infinite divisor.
        let (yr, yi) = (unit_inf(br), unit_inf(bi));
        return Complex::new(zero * (ar * yr + ai * yi), zero * (ai * yr - ar * yi));
    }
    q
}

/// `log(z) = ln|z| + i atan2(im, re)`, the plain formula (used by [`atan2_c`]).
#[inline]
fn log_c(z: C64) -> C64 {
    Complex::new(z.re.hypot(z.im).ln(), z.im.atan2(z.re))
}

/// XLA's complex power: `|a|^c e^{-d arg a} (cos q + i sin q)` with `q = c arg a + d ln|a|`,
/// and, in increasing priority, `0^(c+0i)` = 1 for c = 0 and 0 for c > 0; `x^0 = 1`;
/// `1^z = 1`; `inf^(c+0i)` = inf for c > 0 and 0 for c < 0.
fn pow_c(x: C64, y: C64) -> C64 {
    let (a, b, c, d) = (x.re, x.im, y.re, y.im);
    let inf = f64::INFINITY;
    if a == inf && b == 0.0 && d == 0.0 && c < 0.0 {
        return Complex::new(0.0, 0.0);
    }
    if a == inf && b == 0.0 && d == 0.0 && c > 0.0 {
        return Complex::new(inf, 0.0);
    }
    if a == 1.0 && b == 0.0 {
        return Complex::new(1.0, 0.0);
    }
    if c == 0.0 && d == 0.0 {
        return Complex::new(1.0, 0.0);
    }
    let abs = a.hypot(b);
    if abs == 0.0 && d == 0.0 && c >= 0.0 {
        // c > 0 here (c == 0 was handled above).
        return Complex::new(0.0, 0.0);
    }
    let arg = b.atan2(a);
    let coeff = abs.powf(c) * (-d * arg).exp();
    let q = c * arg + d * abs.ln();
    Complex::new(coeff * q.cos(), coeff * q.sin())
}

/// Complex `atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2))`, as XLA.
#[inline]
fn atan2_c(y: C64, x: C64) -> C64 {
    let i = Complex::new(0.0, 1.0);
    let num = x + i * y;
    let den = (x * x + y * y).sqrt();
    let l = log_c(smith_div(num, den));
    Complex::new(l.im, -l.re)
}

/// Lexicographic partial order on `(re, im)`; `None` when a compared part is NaN.
#[inline]
fn lex_partial<F: Float>(a: Complex<F>, b: Complex<F>) -> Option<Ordering> {
    match a.re.partial_cmp(&b.re)? {
        Ordering::Equal => a.im.partial_cmp(&b.im),
        o => Some(o),
    }
}

/// Per-width pieces: evaluate a c128 function at this precision.
trait Widen: Sized {
    fn widen(self) -> C64;
    fn narrow(z: C64) -> Self;
}

impl Widen for Complex<f32> {
    #[inline]
    fn widen(self) -> C64 {
        Complex::new(self.re as f64, self.im as f64)
    }
    #[inline]
    fn narrow(z: C64) -> Self {
        Complex::new(z.re as f32, z.im as f32)
    }
}

impl Widen for Complex<f64> {
    #[inline]
    fn widen(self) -> C64 {
        self
    }
    #[inline]
    fn narrow(z: C64) -> Self {
        z
    }
}

/// Apply a c128 function at this type's precision (exact widening, one rounding per part).
#[inline]
fn wide1<T: Widen>(x: T, f: fn(C64) -> C64) -> T {
    T::narrow(f(x.widen()))
}

/// Two-operand version of [`wide1`].
#[inline]
fn wide2<T: Widen>(x: T, y: T, f: fn(C64, C64) -> C64) -> T {
    T::narrow(f(x.widen(), y.widen()))
}

macro_rules! complex_scalar {
    ($f:ident, $bits_ty:ty, $half:expr) => {
        impl Scalar for Complex<$f> {
            type Real = $f;
            const ZERO: Self = Complex::new(0.0, 0.0);
            const ONE: Self = Complex::new(1.0, 0.0);

            #[inline]
            fn abs(self) -> $f {
                math::abs(self)
            }
            #[inline]
            fn cbrt(self) -> Self {
                // Principal cube root.
                wide1(self, C64::cbrt)
            }
            identity_ops!(unary: ceil, clz);
            #[inline]
            fn cos(self) -> Self {
                math::cos_c(self)
            }
            #[inline]
            fn cosh(self) -> Self {
                math::cosh_c(self)
            }
            identity_ops!(unary: erf);
            #[inline]
            fn exp(self) -> Self {
                math::exp_c(self)
            }
            #[inline]
            fn expm1(self) -> Self {
                math::expm1_c(self)
            }
            identity_ops!(unary: floor);
            #[inline]
            fn imag(self) -> $f {
                self.im
            }
            #[inline]
            fn is_finite(self) -> bool {
                self.re.is_finite() && self.im.is_finite()
            }
            #[inline]
            fn log(self) -> Self {
                math::log_c(self)
            }
            #[inline]
            fn log1p(self) -> Self {
                math::log1p_c(self)
            }
            #[inline]
            fn logistic(self) -> Self {
                math::logistic_c(self)
            }
            #[inline]
            fn neg(self) -> Self {
                Complex::new(-self.re, -self.im)
            }
            identity_ops!(unary: not, popcnt);
            #[inline]
            fn real(self) -> $f {
                self.re
            }
            identity_ops!(unary: round_afz, round_even);
            #[inline]
            fn rsqrt(self) -> Self {
                math::rsqrt_c(self)
            }
            #[inline]
            fn sign(self) -> Self {
                math::sign(self)
            }
            #[inline]
            fn sin(self) -> Self {
                math::sin_c(self)
            }
            #[inline]
            fn sqrt(self) -> Self {
                math::sqrt_c(self)
            }
            #[inline]
            fn tan(self) -> Self {
                math::tan_c(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                math::tanh_c(self)
            }

            #[inline]
            fn add(self, rhs: Self) -> Self {
                Complex::new(self.re + rhs.re, self.im + rhs.im)
            }
            #[inline]
            fn sub(self, rhs: Self) -> Self {
                Complex::new(self.re - rhs.re, self.im - rhs.im)
            }
            #[inline]
            fn mul(self, rhs: Self) -> Self {
                // The textbook formula in the component type, as XLA (no Annex G inf recovery).
                Complex::new(
                    self.re * rhs.re - self.im * rhs.im,
                    self.re * rhs.im + self.im * rhs.re,
                )
            }
            #[inline]
            fn div(self, rhs: Self) -> Self {
                smith_div(self, rhs)
            }
            identity_ops!(binary: rem);
            #[inline]
            fn max(self, rhs: Self) -> Self {
                // NaN-propagating (the first operand with a NaN part), else lexicographic.
                if self.re.is_nan() || self.im.is_nan() {
                    self
                } else if rhs.re.is_nan() || rhs.im.is_nan() {
                    rhs
                } else if lex_partial(self, rhs) == Some(Ordering::Less) {
                    rhs
                } else {
                    self
                }
            }
            #[inline]
            fn min(self, rhs: Self) -> Self {
                if self.re.is_nan() || self.im.is_nan() {
                    self
                } else if rhs.re.is_nan() || rhs.im.is_nan() {
                    rhs
                } else if lex_partial(self, rhs) == Some(Ordering::Greater) {
                    rhs
                } else {
                    self
                }
            }
            #[inline]
            fn pow(self, rhs: Self) -> Self {
                wide2(self, rhs, pow_c)
            }
            #[inline]
            fn atan2(self, rhs: Self) -> Self {
                wide2(self, rhs, atan2_c)
            }
            identity_ops!(binary: and, or, xor, shl, shr_arithmetic, shr_logical);

            #[inline]
            fn compare(self, rhs: Self, direction: ComparisonDirection) -> bool {
                match direction {
                    // Componentwise, as XLA: Eq is ordered (NaN -> false), Ne unordered.
                    ComparisonDirection::Eq => self.re == rhs.re && self.im == rhs.im,
                    ComparisonDirection::Ne => self.re != rhs.re || self.im != rhs.im,
                    ComparisonDirection::Ge
                    | ComparisonDirection::Gt
                    | ComparisonDirection::Le
                    | ComparisonDirection::Lt => {
                        direction_holds_partial(direction, lex_partial(self, rhs))
                    }
                }
            }
            #[inline]
            fn total_cmp(self, rhs: Self) -> Ordering {
                <$f>::total_cmp(&self.re, &rhs.re).then_with(|| <$f>::total_cmp(&self.im, &rhs.im))
            }
            #[inline]
            fn compare_total(self, rhs: Self, direction: ComparisonDirection) -> bool {
                direction_holds(direction, Scalar::total_cmp(self, rhs))
            }

            #[inline]
            fn to_value(self) -> Value {
                Value::Complex(self.re as f64, self.im as f64)
            }
            #[inline]
            fn from_value(v: Value) -> Self {
                match v {
                    Value::Pred(b) => Complex::new(if b { 1.0 } else { 0.0 }, 0.0),
                    // One rounding, as for the real types.
                    Value::Int(i) => Complex::new(i as $f, 0.0),
                    Value::Float(f) => Complex::new(f as $f, 0.0),
                    Value::Complex(re, im) => Complex::new(re as $f, im as $f),
                }
            }
            #[inline]
            fn to_bits(self) -> u128 {
                // Real part in the low half, as stored on a little-endian machine.
                (self.re.to_bits() as u128) | ((self.im.to_bits() as u128) << $half)
            }
            #[inline]
            fn from_bits(bits: u128) -> Self {
                Complex::new(
                    <$f>::from_bits(bits as $bits_ty),
                    <$f>::from_bits((bits >> $half) as $bits_ty),
                )
            }
            #[inline]
            fn reduce_precision(self, exponent_bits: u32, mantissa_bits: u32) -> Self {
                Complex::new(
                    <$f as Scalar>::reduce_precision(self.re, exponent_bits, mantissa_bits),
                    <$f as Scalar>::reduce_precision(self.im, exponent_bits, mantissa_bits),
                )
            }
        }

        impl ComplexComponent for $f {
            type Complex = Complex<$f>;
            #[inline]
            fn make_complex(re: Self, im: Self) -> Complex<$f> {
                Complex::new(re, im)
            }
        }
    };
}

complex_scalar!(f32, u32, 32);
complex_scalar!(f64, u64, 64);

#[cfg(test)]
mod tests;
