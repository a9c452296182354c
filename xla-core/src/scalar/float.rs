//! `Scalar` for the real float types.
//!
//! f64 uses the platform's libm (correctly rounded or within 1 ulp). f32 transcendental functions
//! are evaluated in f64 and rounded once, which makes them (almost always) correctly rounded: a
//! reference at least as accurate as XLA's own approximations. f16 and bf16 widen exactly to
//! f32, apply the f32 op and round back, which is what XLA:CPU does (and which is correctly
//! rounded for `+ - * / sqrt` because f32 has more than twice their precision plus 2 bits).
//!
//! Integer-only ops (`clz`, `popcnt`, `and`, shifts...) are rejected by shape inference for
//! floats; here they return the lhs unchanged.

use std::cmp::Ordering;

use half::{bf16, f16};

use super::round::{f32_round_to_odd, f64_round_to_odd_int};
use super::special::{erf_f64, reduce_precision_bits};
use super::{direction_holds, direction_holds_partial, Scalar, Value};
use crate::ir::ComparisonDirection;

/// XLA's float maximum: NaN propagates (the first NaN operand is returned), otherwise the
/// larger in the total order, so `max(-0, +0) = +0`.
macro_rules! float_max_min {
    () => {
        #[inline]
        fn max(self, rhs: Self) -> Self {
            if self.is_nan() {
                self
            } else if rhs.is_nan() {
                rhs
            } else if Self::total_cmp(&self, &rhs) == Ordering::Less {
                rhs
            } else {
                self
            }
        }
        #[inline]
        fn min(self, rhs: Self) -> Self {
            if self.is_nan() {
                self
            } else if rhs.is_nan() {
                rhs
            } else if Self::total_cmp(&self, &rhs) == Ordering::Greater {
                rhs
            } else {
                self
            }
        }
    };
}

/// Ops defined identically for f32 and f64 given a function `wide` that evaluates an f64
/// function at this precision (`wide(f, x)` = `f(x as f64)` rounded to `Self`).
macro_rules! float_common {
    ($t:ident, $bits_ty:ty, $exp_bits:expr, $mant_bits:expr) => {
        type Real = $t;
        const ZERO: Self = 0.0;
        const ONE: Self = 1.0;

        #[inline]
        fn abs(self) -> Self {
            <$t>::abs(self)
        }
        #[inline]
        fn cbrt(self) -> Self {
            wide1(self, f64::cbrt)
        }
        #[inline]
        fn ceil(self) -> Self {
            <$t>::ceil(self)
        }
        identity_ops!(unary: clz);
        #[inline]
        fn cos(self) -> Self {
            wide1(self, f64::cos)
        }
        #[inline]
        fn cosh(self) -> Self {
            wide1(self, f64::cosh)
        }
        #[inline]
        fn erf(self) -> Self {
            wide1(self, erf_f64)
        }
        #[inline]
        fn exp(self) -> Self {
            wide1(self, f64::exp)
        }
        #[inline]
        fn expm1(self) -> Self {
            wide1(self, f64::exp_m1)
        }
        #[inline]
        fn floor(self) -> Self {
            <$t>::floor(self)
        }
        #[inline]
        fn imag(self) -> Self {
            0.0
        }
        #[inline]
        fn is_finite(self) -> bool {
            <$t>::is_finite(self)
        }
        #[inline]
        fn log(self) -> Self {
            wide1(self, f64::ln)
        }
        #[inline]
        fn log1p(self) -> Self {
            wide1(self, f64::ln_1p)
        }
        #[inline]
        fn logistic(self) -> Self {
            wide1(self, logistic_f64)
        }
        #[inline]
        fn neg(self) -> Self {
            -self
        }
        identity_ops!(unary: not, popcnt, real);
        #[inline]
        fn round_afz(self) -> Self {
            <$t>::round(self)
        }
        #[inline]
        fn round_even(self) -> Self {
            <$t>::round_ties_even(self)
        }
        #[inline]
        fn rsqrt(self) -> Self {
            wide1(self, rsqrt_f64)
        }
        #[inline]
        fn sign(self) -> Self {
            // NaN and ±0 are their own sign.
            if self.is_nan() || self == 0.0 {
                self
            } else {
                <$t>::copysign(1.0, self)
            }
        }
        #[inline]
        fn sin(self) -> Self {
            wide1(self, f64::sin)
        }
        #[inline]
        fn sqrt(self) -> Self {
            <$t>::sqrt(self)
        }
        #[inline]
        fn tan(self) -> Self {
            wide1(self, f64::tan)
        }
        #[inline]
        fn tanh(self) -> Self {
            wide1(self, f64::tanh)
        }

        #[inline]
        fn add(self, rhs: Self) -> Self {
            self + rhs
        }
        #[inline]
        fn sub(self, rhs: Self) -> Self {
            self - rhs
        }
        #[inline]
        fn mul(self, rhs: Self) -> Self {
            self * rhs
        }
        #[inline]
        fn div(self, rhs: Self) -> Self {
            self / rhs
        }
        #[inline]
        fn rem(self, rhs: Self) -> Self {
            // Rust's float `%` is C fmod: exact, sign of the dividend.
            self % rhs
        }
        float_max_min!();
        #[inline]
        fn pow(self, rhs: Self) -> Self {
            wide2(self, rhs, f64::powf)
        }
        #[inline]
        fn atan2(self, rhs: Self) -> Self {
            wide2(self, rhs, f64::atan2)
        }
        identity_ops!(binary: and, or, xor, shl, shr_arithmetic, shr_logical);

        #[inline]
        fn compare(self, rhs: Self, direction: ComparisonDirection) -> bool {
            direction_holds_partial(direction, self.partial_cmp(&rhs))
        }
        #[inline]
        fn total_cmp(self, rhs: Self) -> Ordering {
            <$t>::total_cmp(&self, &rhs)
        }

        #[inline]
        fn to_value(self) -> Value {
            Value::Float(self as f64)
        }
        #[inline]
        fn from_value(v: Value) -> Self {
            match v {
                Value::Pred(b) => {
                    if b {
                        1.0
                    } else {
                        0.0
                    }
                }
                // i128 -> float `as` rounds to nearest even, once.
                Value::Int(i) => i as $t,
                Value::Float(f) => f as $t,
                Value::Complex(re, _) => re as $t,
            }
        }
        #[inline]
        fn to_bits(self) -> u128 {
            <$t>::to_bits(self) as u128
        }
        #[inline]
        fn from_bits(bits: u128) -> Self {
            <$t>::from_bits(bits as $bits_ty)
        }
        #[inline]
        fn reduce_precision(self, exponent_bits: u32, mantissa_bits: u32) -> Self {
            let bits = reduce_precision_bits(
                <$t>::to_bits(self) as u64,
                $exp_bits,
                $mant_bits,
                exponent_bits,
                mantissa_bits,
            );
            <$t>::from_bits(bits as $bits_ty)
        }
    };
}

/// `1 / (1 + e^-x)`; saturates cleanly (`e^-x = inf` gives 0).
#[inline]
fn logistic_f64(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `1 / sqrt(x)`.
#[inline]
fn rsqrt_f64(x: f64) -> f64 {
    1.0 / x.sqrt()
}

/// Evaluate an f64 function at f32 precision: widen (exact), apply, round once.
trait Wide: Sized {
    fn wide1_impl(self, f: fn(f64) -> f64) -> Self;
    fn wide2_impl(self, rhs: Self, f: fn(f64, f64) -> f64) -> Self;
}

impl Wide for f32 {
    #[inline]
    fn wide1_impl(self, f: fn(f64) -> f64) -> Self {
        f(self as f64) as f32
    }
    #[inline]
    fn wide2_impl(self, rhs: Self, f: fn(f64, f64) -> f64) -> Self {
        f(self as f64, rhs as f64) as f32
    }
}

impl Wide for f64 {
    #[inline]
    fn wide1_impl(self, f: fn(f64) -> f64) -> Self {
        f(self)
    }
    #[inline]
    fn wide2_impl(self, rhs: Self, f: fn(f64, f64) -> f64) -> Self {
        f(self, rhs)
    }
}

#[inline]
fn wide1<T: Wide>(x: T, f: fn(f64) -> f64) -> T {
    x.wide1_impl(f)
}

#[inline]
fn wide2<T: Wide>(x: T, y: T, f: fn(f64, f64) -> f64) -> T {
    x.wide2_impl(y, f)
}

impl Scalar for f32 {
    float_common!(f32, u32, 8, 23);
}

impl Scalar for f64 {
    float_common!(f64, u64, 11, 52);
}

/// f16 and bf16: widen to f32 (exact), apply the f32 op, round back to nearest even.
macro_rules! half_float {
    ($t:ident, $exp_bits:expr, $mant_bits:expr) => {
        impl Scalar for $t {
            type Real = $t;
            const ZERO: Self = $t::ZERO;
            const ONE: Self = $t::ONE;

            #[inline]
            fn abs(self) -> Self {
                // Clearing the sign bit is exact and keeps NaN payloads.
                $t::from_bits(self.to_bits() & 0x7fff)
            }
            #[inline]
            fn cbrt(self) -> Self {
                half_float!(@un $t, self, cbrt)
            }
            #[inline]
            fn ceil(self) -> Self {
                half_float!(@un $t, self, ceil)
            }
            identity_ops!(unary: clz);
            #[inline]
            fn cos(self) -> Self {
                half_float!(@un $t, self, cos)
            }
            #[inline]
            fn cosh(self) -> Self {
                half_float!(@un $t, self, cosh)
            }
            #[inline]
            fn erf(self) -> Self {
                half_float!(@un $t, self, erf)
            }
            #[inline]
            fn exp(self) -> Self {
                half_float!(@un $t, self, exp)
            }
            #[inline]
            fn expm1(self) -> Self {
                half_float!(@un $t, self, expm1)
            }
            #[inline]
            fn floor(self) -> Self {
                half_float!(@un $t, self, floor)
            }
            #[inline]
            fn imag(self) -> Self {
                $t::ZERO
            }
            #[inline]
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            #[inline]
            fn log(self) -> Self {
                half_float!(@un $t, self, log)
            }
            #[inline]
            fn log1p(self) -> Self {
                half_float!(@un $t, self, log1p)
            }
            #[inline]
            fn logistic(self) -> Self {
                half_float!(@un $t, self, logistic)
            }
            #[inline]
            fn neg(self) -> Self {
                $t::from_bits(self.to_bits() ^ 0x8000)
            }
            identity_ops!(unary: not, popcnt, real);
            #[inline]
            fn round_afz(self) -> Self {
                half_float!(@un $t, self, round_afz)
            }
            #[inline]
            fn round_even(self) -> Self {
                half_float!(@un $t, self, round_even)
            }
            #[inline]
            fn rsqrt(self) -> Self {
                half_float!(@un $t, self, rsqrt)
            }
            #[inline]
            fn sign(self) -> Self {
                half_float!(@un $t, self, sign)
            }
            #[inline]
            fn sin(self) -> Self {
                half_float!(@un $t, self, sin)
            }
            #[inline]
            fn sqrt(self) -> Self {
                half_float!(@un $t, self, sqrt)
            }
            #[inline]
            fn tan(self) -> Self {
                half_float!(@un $t, self, tan)
            }
            #[inline]
            fn tanh(self) -> Self {
                half_float!(@un $t, self, tanh)
            }

            #[inline]
            fn add(self, rhs: Self) -> Self {
                half_float!(@bin $t, self, rhs, add)
            }
            #[inline]
            fn sub(self, rhs: Self) -> Self {
                half_float!(@bin $t, self, rhs, sub)
            }
            #[inline]
            fn mul(self, rhs: Self) -> Self {
                half_float!(@bin $t, self, rhs, mul)
            }
            #[inline]
            fn div(self, rhs: Self) -> Self {
                half_float!(@bin $t, self, rhs, div)
            }
            #[inline]
            fn rem(self, rhs: Self) -> Self {
                half_float!(@bin $t, self, rhs, rem)
            }
            #[inline]
            fn max(self, rhs: Self) -> Self {
                // Selecting (not recomputing) keeps the operand's exact bits.
                if self.is_nan() {
                    self
                } else if rhs.is_nan() {
                    rhs
                } else if Scalar::total_cmp(self, rhs) == Ordering::Less {
                    rhs
                } else {
                    self
                }
            }
            #[inline]
            fn min(self, rhs: Self) -> Self {
                if self.is_nan() {
                    self
                } else if rhs.is_nan() {
                    rhs
                } else if Scalar::total_cmp(self, rhs) == Ordering::Greater {
                    rhs
                } else {
                    self
                }
            }
            #[inline]
            fn pow(self, rhs: Self) -> Self {
                half_float!(@bin $t, self, rhs, pow)
            }
            #[inline]
            fn atan2(self, rhs: Self) -> Self {
                half_float!(@bin $t, self, rhs, atan2)
            }
            identity_ops!(binary: and, or, xor, shl, shr_arithmetic, shr_logical);

            #[inline]
            fn compare(self, rhs: Self, direction: ComparisonDirection) -> bool {
                direction_holds_partial(direction, self.to_f32().partial_cmp(&rhs.to_f32()))
            }
            #[inline]
            fn total_cmp(self, rhs: Self) -> Ordering {
                // Widening is monotonic and keeps the sign of NaNs, but NaN payloads could
                // collide; ordering the raw sign-magnitude bits is exact.
                let key = |b: u16| -> i32 {
                    let b = b as i32;
                    if b & 0x8000 != 0 {
                        -(b & 0x7fff) - 1
                    } else {
                        b
                    }
                };
                key(self.to_bits()).cmp(&key(rhs.to_bits()))
            }
            #[inline]
            fn compare_total(self, rhs: Self, direction: ComparisonDirection) -> bool {
                direction_holds(direction, Scalar::total_cmp(self, rhs))
            }

            #[inline]
            fn to_value(self) -> Value {
                Value::Float(self.to_f64())
            }
            #[inline]
            fn from_value(v: Value) -> Self {
                // Rounded once: to odd in f32 first, then to nearest even (see `round`).
                let odd = match v {
                    Value::Pred(b) => f32::from(u8::from(b)),
                    Value::Int(i) => f32_round_to_odd(f64_round_to_odd_int(i)),
                    Value::Float(f) | Value::Complex(f, _) => f32_round_to_odd(f),
                };
                $t::from_f32(odd)
            }
            #[inline]
            fn to_bits(self) -> u128 {
                $t::to_bits(self) as u128
            }
            #[inline]
            fn from_bits(bits: u128) -> Self {
                $t::from_bits(bits as u16)
            }
            #[inline]
            fn reduce_precision(self, exponent_bits: u32, mantissa_bits: u32) -> Self {
                let bits = reduce_precision_bits(
                    $t::to_bits(self) as u64,
                    $exp_bits,
                    $mant_bits,
                    exponent_bits,
                    mantissa_bits,
                );
                $t::from_bits(bits as u16)
            }
        }
    };
    (@un $t:ident, $x:ident, $f:ident) => {
        $t::from_f32(<f32 as Scalar>::$f($x.to_f32()))
    };
    (@bin $t:ident, $x:ident, $y:ident, $f:ident) => {
        $t::from_f32(<f32 as Scalar>::$f($x.to_f32(), $y.to_f32()))
    };
}

half_float!(f16, 5, 10);
half_float!(bf16, 8, 7);
