//! `Scalar` for pred and the integer types.
//!
//! Float-only ops (`cos`, `floor`, `erf`, ...) are rejected by shape inference for these types;
//! here they return the operand unchanged (or `true` for `is_finite`) so they stay total.

use std::cmp::Ordering;

use super::{direction_holds, Scalar, Value};
use crate::ir::ComparisonDirection;

/// XLA's integer power (its elemental emitter, checked against XLA:CPU): the exponent is read as
/// a signed integer of the same width; a negative one gives 1 for base 1, +-1 by parity for base
/// -1 (all ones) and 0 otherwise; a non-negative one is applied by exactly six squaring steps
/// with wrapping multiplication, so only its low six bits count (`3^200 = 3^8`).
macro_rules! int_pow {
    ($base:expr, $exp:expr, $t:ty, $signed:ty) => {{
        let (base, exp): ($t, $t) = ($base, $exp);
        if (exp as $signed) < 0 {
            match base as $signed {
                1 => 1,
                -1 => {
                    if exp & 1 == 0 {
                        1
                    } else {
                        base
                    }
                }
                _ => 0,
            }
        } else {
            let mut acc: $t = 1;
            let mut b = base;
            let mut e = exp;
            for _ in 0..6 {
                if e & 1 != 0 {
                    acc = acc.wrapping_mul(b);
                }
                b = b.wrapping_mul(b);
                e >>= 1;
            }
            acc
        }
    }};
}

/// The operations both signed and unsigned integers share.
macro_rules! int_common {
    ($t:ty, $u:ty, $bits:expr) => {
        const ZERO: Self = 0;
        const ONE: Self = 1;

        identity_ops!(unary: cbrt, ceil);
        #[inline]
        fn clz(self) -> Self {
            self.leading_zeros() as Self
        }
        identity_ops!(unary: cos, cosh, erf, exp, expm1, floor);
        #[inline]
        fn imag(self) -> Self {
            0
        }
        #[inline]
        fn is_finite(self) -> bool {
            true
        }
        identity_ops!(unary: log, log1p, logistic);
        #[inline]
        fn neg(self) -> Self {
            self.wrapping_neg()
        }
        #[inline]
        fn not(self) -> Self {
            !self
        }
        #[inline]
        fn popcnt(self) -> Self {
            self.count_ones() as Self
        }
        identity_ops!(unary: real, round_afz, round_even, rsqrt, sin, sqrt, tan, tanh);

        #[inline]
        fn add(self, rhs: Self) -> Self {
            self.wrapping_add(rhs)
        }
        #[inline]
        fn sub(self, rhs: Self) -> Self {
            self.wrapping_sub(rhs)
        }
        #[inline]
        fn mul(self, rhs: Self) -> Self {
            self.wrapping_mul(rhs)
        }
        #[inline]
        fn max(self, rhs: Self) -> Self {
            std::cmp::max(self, rhs)
        }
        #[inline]
        fn min(self, rhs: Self) -> Self {
            std::cmp::min(self, rhs)
        }
        identity_ops!(binary: atan2);
        #[inline]
        fn and(self, rhs: Self) -> Self {
            self & rhs
        }
        #[inline]
        fn or(self, rhs: Self) -> Self {
            self | rhs
        }
        #[inline]
        fn xor(self, rhs: Self) -> Self {
            self ^ rhs
        }
        #[inline]
        fn shl(self, rhs: Self) -> Self {
            // The amount is read as unsigned: negative amounts are huge and shift everything out.
            let amount = rhs as $u;
            if amount >= $bits {
                0
            } else {
                self << amount
            }
        }
        #[inline]
        fn shr_logical(self, rhs: Self) -> Self {
            let amount = rhs as $u;
            if amount >= $bits {
                0
            } else {
                ((self as $u) >> amount) as Self
            }
        }

        #[inline]
        fn compare(self, rhs: Self, direction: ComparisonDirection) -> bool {
            direction_holds(direction, Ord::cmp(&self, &rhs))
        }
        #[inline]
        fn total_cmp(self, rhs: Self) -> Ordering {
            Ord::cmp(&self, &rhs)
        }

        #[inline]
        fn to_value(self) -> Value {
            Value::Int(self as i128)
        }
        #[inline]
        fn from_value(v: Value) -> Self {
            match v {
                Value::Pred(b) => b as Self,
                // Two's complement truncation, as XLA's integer narrowing.
                Value::Int(i) => i as Self,
                // Truncation toward zero, saturating, NaN -> 0: exactly Rust's `as`.
                Value::Float(f) => f as Self,
                Value::Complex(re, _) => re as Self,
            }
        }
        #[inline]
        fn to_bits(self) -> u128 {
            (self as $u) as u128
        }
        #[inline]
        fn from_bits(bits: u128) -> Self {
            (bits as $u) as Self
        }
        #[inline]
        fn reduce_precision(self, _exponent_bits: u32, _mantissa_bits: u32) -> Self {
            self
        }
    };
}

macro_rules! signed_int {
    ($($t:ty => $u:ty, $bits:expr;)*) => {$(
        impl Scalar for $t {
            type Real = $t;
            int_common!($t, $u, $bits);

            #[inline]
            fn abs(self) -> Self {
                self.wrapping_abs()
            }
            #[inline]
            fn sign(self) -> Self {
                self.signum()
            }
            #[inline]
            fn div(self, rhs: Self) -> Self {
                if rhs == 0 {
                    -1
                } else {
                    // MIN / -1 overflows: XLA gives MIN, which is the wrapped result.
                    self.wrapping_div(rhs)
                }
            }
            #[inline]
            fn rem(self, rhs: Self) -> Self {
                if rhs == 0 {
                    self
                } else {
                    // MIN % -1 = 0 (wrapping_rem's answer).
                    self.wrapping_rem(rhs)
                }
            }
            #[inline]
            fn pow(self, rhs: Self) -> Self {
                int_pow!(self, rhs, $t, $t)
            }
            #[inline]
            fn shr_arithmetic(self, rhs: Self) -> Self {
                let amount = rhs as $u;
                if amount >= $bits {
                    if self < 0 { -1 } else { 0 }
                } else {
                    self >> amount
                }
            }
        }
    )*};
}

macro_rules! unsigned_int {
    ($($t:ty => $s:ty, $bits:expr;)*) => {$(
        impl Scalar for $t {
            type Real = $t;
            int_common!($t, $t, $bits);

            identity_ops!(unary: abs);
            #[inline]
            fn sign(self) -> Self {
                (self != 0) as Self
            }
            #[inline]
            fn div(self, rhs: Self) -> Self {
                if rhs == 0 {
                    Self::MAX
                } else {
                    self / rhs
                }
            }
            #[inline]
            fn rem(self, rhs: Self) -> Self {
                if rhs == 0 {
                    self
                } else {
                    self % rhs
                }
            }
            #[inline]
            fn pow(self, rhs: Self) -> Self {
                int_pow!(self, rhs, $t, $s)
            }
            #[inline]
            fn shr_arithmetic(self, rhs: Self) -> Self {
                // The sign bit of the unsigned value is replicated, as XLA does.
                let signed = self as $s;
                if rhs >= $bits {
                    if signed < 0 { Self::MAX } else { 0 }
                } else {
                    (signed >> rhs) as Self
                }
            }
        }
    )*};
}

signed_int! {
    i8 => u8, 8;
    i16 => u16, 16;
    i32 => u32, 32;
    i64 => u64, 64;
}

unsigned_int! {
    u8 => i8, 8;
    u16 => i16, 16;
    u32 => i32, 32;
    u64 => i64, 64;
}

/// pred: `add`/`max`/`or` are logical or, `mul`/`min`/`and` logical and, `sub`/`xor` xor;
/// arithmetic ops XLA rejects for pred (`div`, `pow`, shifts, floats' ops) return the lhs.
impl Scalar for bool {
    type Real = bool;
    const ZERO: Self = false;
    const ONE: Self = true;

    identity_ops!(unary: abs, cbrt, ceil);
    #[inline]
    fn clz(self) -> Self {
        // Pred is one bit wide here: one leading zero iff false.
        !self
    }
    identity_ops!(unary: cos, cosh, erf, exp, expm1, floor);
    #[inline]
    fn imag(self) -> Self {
        false
    }
    #[inline]
    fn is_finite(self) -> bool {
        true
    }
    identity_ops!(unary: log, log1p, logistic);
    #[inline]
    fn neg(self) -> Self {
        // -x mod 2 = x.
        self
    }
    #[inline]
    fn not(self) -> Self {
        !self
    }
    identity_ops!(unary: popcnt, real, round_afz, round_even, rsqrt, sign, sin, sqrt, tan, tanh);

    #[inline]
    fn add(self, rhs: Self) -> Self {
        self | rhs
    }
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        self ^ rhs
    }
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        self & rhs
    }
    identity_ops!(binary: div, rem);
    #[inline]
    fn max(self, rhs: Self) -> Self {
        self | rhs
    }
    #[inline]
    fn min(self, rhs: Self) -> Self {
        self & rhs
    }
    identity_ops!(binary: pow, atan2);
    #[inline]
    fn and(self, rhs: Self) -> Self {
        self & rhs
    }
    #[inline]
    fn or(self, rhs: Self) -> Self {
        self | rhs
    }
    #[inline]
    fn xor(self, rhs: Self) -> Self {
        self ^ rhs
    }
    identity_ops!(binary: shl, shr_arithmetic, shr_logical);

    #[inline]
    fn compare(self, rhs: Self, direction: ComparisonDirection) -> bool {
        direction_holds(direction, Ord::cmp(&self, &rhs))
    }
    #[inline]
    fn total_cmp(self, rhs: Self) -> Ordering {
        Ord::cmp(&self, &rhs)
    }

    #[inline]
    fn to_value(self) -> Value {
        Value::Pred(self)
    }
    #[inline]
    fn from_value(v: Value) -> Self {
        match v {
            Value::Pred(b) => b,
            Value::Int(i) => i != 0,
            // NaN != 0, so NaN converts to true (as XLA).
            Value::Float(f) => f != 0.0,
            Value::Complex(re, im) => re != 0.0 || im != 0.0,
        }
    }
    #[inline]
    fn to_bits(self) -> u128 {
        self as u128
    }
    #[inline]
    fn from_bits(bits: u128) -> Self {
        bits as u8 != 0
    }
    #[inline]
    fn reduce_precision(self, _exponent_bits: u32, _mantissa_bits: u32) -> Self {
        self
    }
}
