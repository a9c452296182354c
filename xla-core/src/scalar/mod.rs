//! Element-level semantics of every elementwise op: THE single source of truth, used by the
//! reference evaluator (`crate::eval`) and by the scalar path of macro-generated code
//! (`<f32 as ::xla_aot::__rt::xla_core::scalar::Scalar>::add(a, b)`).
//!
//! Every rule here was checked against XLA:CPU (jaxlib 0.10) through StableHLO; the oracle test
//! suite (`tests/oracle_ops.rs` at the repo root) keeps checking it. The rules that are easy to
//! get wrong:
//!
//! * Integers wrap on overflow (`add`, `mul`, `neg`, `abs(MIN) = MIN`, `pow`).
//! * Integer `x / 0` is `-1` for signed and all-ones for unsigned; `MIN / -1 = MIN`;
//!   `x % 0 = x`; `MIN % -1 = 0`.
//! * Shift amounts are read as unsigned: `shl`/`shr_logical` by `>= bits` give 0,
//!   `shr_arithmetic` by `>= bits` gives the sign fill (0 or -1).
//! * Integer `pow` with a negative exponent is 0, except base 1 (1) and base -1 (±1 by parity);
//!   `0^0 = 1`.
//! * Float `max`/`min` propagate NaN, and order `-0 < +0` (`max(-0, +0) = +0`).
//! * float -> int conversion truncates toward zero, saturates at the integer range, NaN -> 0;
//!   float -> pred is `x != 0` (NaN -> true); int -> int wraps (two's complement truncation).
//! * Conversions *to* f16/bf16 go through f32 (XLA does; e.g. f64 -> bf16 rounds twice), and
//!   f16/bf16 arithmetic is f32 arithmetic rounded back (exact for + - * / sqrt, whose f32
//!   results round correctly to the narrower type).
//! * `sign(NaN) = NaN`, `sign(±0) = ±0`, `sign(z) = z / |z|` for complex (0 at 0).
//! * Float `rem` is C `fmod` (sign of the dividend).
//!
//! Ops that shape inference rejects for a type (e.g. `cos` of `s32`, `shl` of `f32`) still
//! return a defined value (documented per impl, usually the operand unchanged or zero) and never
//! panic.

/// Methods that return their operand (unary) or their lhs (binary), written once for every
/// `impl Scalar`: mostly ops shape inference rejects for the type, kept total as the module docs
/// promise (`cos` of an integer, `shl` of a float), plus the few that are the identity by
/// definition (`real` of a real type, `abs` of an unsigned integer).
macro_rules! identity_ops {
    (unary: $($u:ident),* $(,)?) => {$(
        #[inline]
        fn $u(self) -> Self {
            self
        }
    )*};
    (binary: $($b:ident),* $(,)?) => {$(
        #[inline]
        fn $b(self, _rhs: Self) -> Self {
            self
        }
    )*};
}

mod complex;
mod float;
mod int;
mod round;
mod special;

use std::cmp::Ordering;

use crate::element::ElementType;
use crate::ir::{BinaryOp, ComparisonDirection, UnaryOp};
use crate::literal::ArrayElement;

pub use special::{erf_f64, reduce_precision_bits};

/// Any element value, wide enough to hold every element type exactly; the pivot of
/// [`Scalar::convert`] (`T::from_value(x.to_value())`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A pred.
    Pred(bool),
    /// Any signed or unsigned integer.
    Int(i128),
    /// Any real float (f16, bf16 and f32 widen exactly).
    Float(f64),
    /// Any complex number `(re, im)`.
    Complex(f64, f64),
}

/// The element-level semantics of XLA's elementwise ops for one native element type.
///
/// Implemented for all 15 native types: `bool`, `i8..i64`, `u8..u64`, `half::f16`,
/// `half::bf16`, `f32`, `f64`, `Complex<f32>`, `Complex<f64>`. All methods are `#[inline]` and
/// total (no panics, whatever the input). Call them fully qualified
/// (`<T as Scalar>::max(a, b)`): several names shadow inherent methods with other semantics
/// (`f32::max` ignores NaN).
pub trait Scalar: ArrayElement {
    /// Component type: `f32` for `Complex<f32>`, `f64` for `Complex<f64>`, `Self` otherwise.
    /// The result type of `abs`, `real` and `imag`.
    type Real: Scalar;

    /// Additive identity (false for pred).
    const ZERO: Self;
    /// Multiplicative identity (true for pred).
    const ONE: Self;

    // ---- one operand ----------------------------------------------------------------------
    /// `|x|`; wraps for signed `MIN`; identity for unsigned and pred; modulus for complex.
    fn abs(self) -> Self::Real;
    /// Cube root (floats).
    fn cbrt(self) -> Self;
    /// Round toward +inf (floats).
    fn ceil(self) -> Self;
    /// Number of leading zero bits (integers).
    fn clz(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Error function (real floats).
    fn erf(self) -> Self;
    /// `e^x`.
    fn exp(self) -> Self;
    /// `e^x - 1`, accurate near 0.
    fn expm1(self) -> Self;
    /// Round toward -inf (floats).
    fn floor(self) -> Self;
    /// Imaginary part; 0 for real types.
    fn imag(self) -> Self::Real;
    /// Neither infinite nor NaN (true for non-float types).
    fn is_finite(self) -> bool;
    /// Natural logarithm.
    fn log(self) -> Self;
    /// `ln(1 + x)`, accurate near 0.
    fn log1p(self) -> Self;
    /// `1 / (1 + e^-x)`.
    fn logistic(self) -> Self;
    /// `-x` (wrapping for integers).
    fn neg(self) -> Self;
    /// Logical not for pred, bitwise not for integers.
    fn not(self) -> Self;
    /// Number of set bits (integers).
    fn popcnt(self) -> Self;
    /// Real part; the value itself for real types.
    fn real(self) -> Self::Real;
    /// Round to nearest, ties away from zero (floats).
    fn round_afz(self) -> Self;
    /// Round to nearest, ties to even (floats).
    fn round_even(self) -> Self;
    /// `1 / sqrt(x)`.
    fn rsqrt(self) -> Self;
    /// -1, 0 or 1 (±0 and NaN kept for floats; `z/|z|` for complex).
    fn sign(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;

    // ---- two operands ---------------------------------------------------------------------
    /// `a + b` (wrapping; logical or for pred).
    fn add(self, rhs: Self) -> Self;
    /// `a - b` (wrapping; xor for pred).
    fn sub(self, rhs: Self) -> Self;
    /// `a * b` (wrapping; logical and for pred).
    fn mul(self, rhs: Self) -> Self;
    /// `a / b`; integers: `x/0 = -1` (all ones unsigned), `MIN/-1 = MIN`.
    fn div(self, rhs: Self) -> Self;
    /// Remainder with the sign of the dividend; integers: `x%0 = x`, `MIN%-1 = 0`.
    fn rem(self, rhs: Self) -> Self;
    /// Maximum; NaN-propagating and `-0 < +0` for floats.
    fn max(self, rhs: Self) -> Self;
    /// Minimum; NaN-propagating and `-0 < +0` for floats.
    fn min(self, rhs: Self) -> Self;
    /// `a^b`; integers by repeated squaring (negative exponent: 0 unless base is ±1).
    fn pow(self, rhs: Self) -> Self;
    /// `atan2(a, b)` (angle of the point `(b, a)`).
    fn atan2(self, rhs: Self) -> Self;
    /// Bitwise / logical and.
    fn and(self, rhs: Self) -> Self;
    /// Bitwise / logical or.
    fn or(self, rhs: Self) -> Self;
    /// Bitwise / logical xor.
    fn xor(self, rhs: Self) -> Self;
    /// `a << b`; 0 when `b` (as unsigned) `>= bits`.
    fn shl(self, rhs: Self) -> Self;
    /// Arithmetic `a >> b`; sign fill when `b` (as unsigned) `>= bits`.
    fn shr_arithmetic(self, rhs: Self) -> Self;
    /// Logical `a >> b`; 0 when `b` (as unsigned) `>= bits`.
    fn shr_logical(self, rhs: Self) -> Self;

    // ---- comparisons ----------------------------------------------------------------------
    /// `a <dir> b` with IEEE semantics for floats (NaN unordered: only `Ne` is true) and
    /// lexicographic `(re, im)` order for complex.
    fn compare(self, rhs: Self, direction: ComparisonDirection) -> bool;
    /// The total order: `-NaN < -Inf < -Finite < -0 < +0 < +Finite < +Inf < +NaN` for floats
    /// (bit-pattern order, so NaN payloads are ordered too); the usual order otherwise.
    fn total_cmp(self, rhs: Self) -> Ordering;

    /// `a <dir> b` in the total order of [`Scalar::total_cmp`].
    #[inline]
    fn compare_total(self, rhs: Self, direction: ComparisonDirection) -> bool {
        direction_holds(direction, self.total_cmp(rhs))
    }

    // ---- three operands -------------------------------------------------------------------
    /// `pred ? on_true : on_false`.
    #[inline]
    fn select(pred: bool, on_true: Self, on_false: Self) -> Self {
        if pred {
            on_true
        } else {
            on_false
        }
    }

    /// `min(max(x, lo), hi)` with this type's `max`/`min` (NaN-propagating for floats).
    #[inline]
    fn clamp(lo: Self, x: Self, hi: Self) -> Self {
        Self::min(Self::max(x, lo), hi)
    }

    // ---- conversions ----------------------------------------------------------------------
    /// This element as a [`Value`] (exact).
    fn to_value(self) -> Value;
    /// The element of this type XLA's `ConvertElementType` produces from `v` (see module docs).
    fn from_value(v: Value) -> Self;

    /// `ConvertElementType` to `T`.
    #[inline]
    fn convert<T: Scalar>(self) -> T {
        T::from_value(self.to_value())
    }

    /// The storage bits, zero-extended (complex: real part in the low half, as in memory on a
    /// little-endian machine; pred: 0 or 1).
    fn to_bits(self) -> u128;
    /// Inverse of [`Scalar::to_bits`], reading the low `bit_width` bits (pred: any non-zero
    /// byte is true).
    fn from_bits(bits: u128) -> Self;

    /// `BitcastConvertType` to a type of the same width (a different width reads/writes the low
    /// bits; the evaluator handles width changes through bytes).
    #[inline]
    fn bitcast<T: Scalar>(self) -> T {
        T::from_bits(self.to_bits())
    }

    /// `ReducePrecision(x, exponent_bits, mantissa_bits)`: XLA's bit-level rounding (mantissa
    /// to nearest even, exponent overflow to ±inf, underflow to ±0, NaN kept); identity for
    /// non-float types; componentwise for complex.
    fn reduce_precision(self, exponent_bits: u32, mantissa_bits: u32) -> Self;

    // ---- op dispatch ----------------------------------------------------------------------
    /// Apply a same-type binary op (every `BinaryOp` except `Complex`, for which this returns
    /// `a` unchanged: use [`make_complex`] instead).
    #[inline]
    fn binary(op: BinaryOp, a: Self, b: Self) -> Self {
        match op {
            BinaryOp::Add => a.add(b),
            BinaryOp::Sub => a.sub(b),
            BinaryOp::Mul => a.mul(b),
            BinaryOp::Div => a.div(b),
            BinaryOp::Rem => a.rem(b),
            BinaryOp::Max => Scalar::max(a, b),
            BinaryOp::Min => Scalar::min(a, b),
            BinaryOp::Pow => a.pow(b),
            BinaryOp::Atan2 => a.atan2(b),
            BinaryOp::And => a.and(b),
            BinaryOp::Or => a.or(b),
            BinaryOp::Xor => a.xor(b),
            BinaryOp::ShiftLeft => a.shl(b),
            BinaryOp::ShiftRightArithmetic => a.shr_arithmetic(b),
            BinaryOp::ShiftRightLogical => a.shr_logical(b),
            BinaryOp::Complex => a,
        }
    }

    /// Apply a unary op whose result has this type (every `UnaryOp` except `Abs`, `Real`,
    /// `Imag` — result type `Self::Real` — and `IsFinite` — pred; for those this returns `x`
    /// unchanged: use [`UnaryResult`] / [`Scalar::unary_any`]).
    #[inline]
    fn unary_same(op: UnaryOp, x: Self) -> Self {
        match op {
            UnaryOp::Cbrt => x.cbrt(),
            UnaryOp::Ceil => x.ceil(),
            UnaryOp::Clz => x.clz(),
            UnaryOp::Cos => x.cos(),
            UnaryOp::Cosh => x.cosh(),
            UnaryOp::Erf => x.erf(),
            UnaryOp::Exp => x.exp(),
            UnaryOp::Expm1 => x.expm1(),
            UnaryOp::Floor => x.floor(),
            UnaryOp::Log => x.log(),
            UnaryOp::Log1p => x.log1p(),
            UnaryOp::Logistic => x.logistic(),
            UnaryOp::Neg => x.neg(),
            UnaryOp::Not => x.not(),
            UnaryOp::PopulationCount => x.popcnt(),
            UnaryOp::RoundNearestAfz => x.round_afz(),
            UnaryOp::RoundNearestEven => x.round_even(),
            UnaryOp::Rsqrt => x.rsqrt(),
            UnaryOp::Sign => x.sign(),
            UnaryOp::Sin => x.sin(),
            UnaryOp::Sqrt => x.sqrt(),
            UnaryOp::Tan => x.tan(),
            UnaryOp::Tanh => x.tanh(),
            UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag | UnaryOp::IsFinite => x,
        }
    }

    /// Apply any unary op; the result's type is given by the [`UnaryResult`] variant.
    #[inline]
    fn unary_any(op: UnaryOp, x: Self) -> UnaryResult<Self> {
        match op {
            UnaryOp::Abs => UnaryResult::Real(x.abs()),
            UnaryOp::Real => UnaryResult::Real(x.real()),
            UnaryOp::Imag => UnaryResult::Real(x.imag()),
            UnaryOp::IsFinite => UnaryResult::Pred(x.is_finite()),
            UnaryOp::Cbrt
            | UnaryOp::Ceil
            | UnaryOp::Clz
            | UnaryOp::Cos
            | UnaryOp::Cosh
            | UnaryOp::Erf
            | UnaryOp::Exp
            | UnaryOp::Expm1
            | UnaryOp::Floor
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Logistic
            | UnaryOp::Neg
            | UnaryOp::Not
            | UnaryOp::PopulationCount
            | UnaryOp::RoundNearestAfz
            | UnaryOp::RoundNearestEven
            | UnaryOp::Rsqrt
            | UnaryOp::Sign
            | UnaryOp::Sin
            | UnaryOp::Sqrt
            | UnaryOp::Tan
            | UnaryOp::Tanh => UnaryResult::Same(Self::unary_same(op, x)),
        }
    }
}

/// The result of [`Scalar::unary_any`]: same type, the component type, or pred.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnaryResult<T: Scalar> {
    /// Same element type as the operand.
    Same(T),
    /// The component type `T::Real` (`Abs`, `Real`, `Imag`).
    Real(T::Real),
    /// pred (`IsFinite`).
    Pred(bool),
}

/// The element type a unary op produces from `operand` (`IsFinite` -> pred; `Abs`/`Real`/`Imag`
/// of complex -> the component type; otherwise unchanged).
pub fn unary_result_type(op: UnaryOp, operand: ElementType) -> ElementType {
    match op {
        UnaryOp::IsFinite => ElementType::Pred,
        UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => {
            operand.complex_component().unwrap_or(operand)
        }
        UnaryOp::Cbrt
        | UnaryOp::Ceil
        | UnaryOp::Clz
        | UnaryOp::Cos
        | UnaryOp::Cosh
        | UnaryOp::Erf
        | UnaryOp::Exp
        | UnaryOp::Expm1
        | UnaryOp::Floor
        | UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Logistic
        | UnaryOp::Neg
        | UnaryOp::Not
        | UnaryOp::PopulationCount
        | UnaryOp::RoundNearestAfz
        | UnaryOp::RoundNearestEven
        | UnaryOp::Rsqrt
        | UnaryOp::Sign
        | UnaryOp::Sin
        | UnaryOp::Sqrt
        | UnaryOp::Tan
        | UnaryOp::Tanh => operand,
    }
}

/// Whether `ordering` satisfies `direction` (`Lt` holds for `Less`, ...).
#[inline]
pub fn direction_holds(direction: ComparisonDirection, ordering: Ordering) -> bool {
    match direction {
        ComparisonDirection::Eq => ordering == Ordering::Equal,
        ComparisonDirection::Ne => ordering != Ordering::Equal,
        ComparisonDirection::Ge => ordering != Ordering::Less,
        ComparisonDirection::Gt => ordering == Ordering::Greater,
        ComparisonDirection::Le => ordering != Ordering::Greater,
        ComparisonDirection::Lt => ordering == Ordering::Less,
    }
}

/// Whether a partial comparison result satisfies `direction`; `None` (unordered: NaN) satisfies
/// only `Ne`, as IEEE comparisons do.
#[inline]
pub fn direction_holds_partial(direction: ComparisonDirection, ordering: Option<Ordering>) -> bool {
    match ordering {
        Some(o) => direction_holds(direction, o),
        None => direction == ComparisonDirection::Ne,
    }
}

/// A real float type that has a complex counterpart (`f32` -> `Complex<f32>`, `f64` ->
/// `Complex<f64>`): the element level of `BinaryOp::Complex`.
pub trait ComplexComponent: Scalar {
    /// The complex type whose parts are `Self`.
    type Complex: Scalar<Real = Self>;
    /// `re + i*im`.
    fn make_complex(re: Self, im: Self) -> Self::Complex;
}

/// `Complex(re, im)`: the element of `BinaryOp::Complex`.
#[inline]
pub fn make_complex<T: ComplexComponent>(re: T, im: T) -> T::Complex {
    T::make_complex(re, im)
}

/// Binds a type alias to the Rust type of each variant of an [`ArrayData`](crate::ArrayData)
/// and evaluates a body once per variant, so generic code (`T: Scalar`) can run over any array
/// without a hand-written 15-arm match:
///
/// ```
/// use xla_core::{with_array_data, ArrayData, scalar::Scalar};
/// let data = ArrayData::S32(vec![1, -2]);
/// let out: ArrayData = with_array_data!(&data, v: T => {
///     <T as xla_core::ArrayElement>::wrap(v.iter().map(|&x| <T as Scalar>::neg(x)).collect())
/// });
/// assert_eq!(out, ArrayData::S32(vec![-1, 2]));
/// ```
#[macro_export]
macro_rules! with_array_data {
    ($data:expr, $v:ident : $T:ident => $body:expr) => {
        match $data {
            $crate::ArrayData::Pred($v) => {
                #[allow(dead_code)]
                type $T = bool;
                $body
            }
            $crate::ArrayData::S8($v) => {
                #[allow(dead_code)]
                type $T = i8;
                $body
            }
            $crate::ArrayData::S16($v) => {
                #[allow(dead_code)]
                type $T = i16;
                $body
            }
            $crate::ArrayData::S32($v) => {
                #[allow(dead_code)]
                type $T = i32;
                $body
            }
            $crate::ArrayData::S64($v) => {
                #[allow(dead_code)]
                type $T = i64;
                $body
            }
            $crate::ArrayData::U8($v) => {
                #[allow(dead_code)]
                type $T = u8;
                $body
            }
            $crate::ArrayData::U16($v) => {
                #[allow(dead_code)]
                type $T = u16;
                $body
            }
            $crate::ArrayData::U32($v) => {
                #[allow(dead_code)]
                type $T = u32;
                $body
            }
            $crate::ArrayData::U64($v) => {
                #[allow(dead_code)]
                type $T = u64;
                $body
            }
            $crate::ArrayData::F16($v) => {
                #[allow(dead_code)]
                type $T = $crate::__half::f16;
                $body
            }
            $crate::ArrayData::Bf16($v) => {
                #[allow(dead_code)]
                type $T = $crate::__half::bf16;
                $body
            }
            $crate::ArrayData::F32($v) => {
                #[allow(dead_code)]
                type $T = f32;
                $body
            }
            $crate::ArrayData::F64($v) => {
                #[allow(dead_code)]
                type $T = f64;
                $body
            }
            $crate::ArrayData::C64($v) => {
                #[allow(dead_code)]
                type $T = $crate::__num_complex::Complex<f32>;
                $body
            }
            $crate::ArrayData::C128($v) => {
                #[allow(dead_code)]
                type $T = $crate::__num_complex::Complex<f64>;
                $body
            }
        }
    };
}

/// Binds a type alias to the Rust type of an [`ElementType`] and evaluates a body with it:
/// `with_element_type!(ty, T => Literal::zeros_of::<T>())`.
#[macro_export]
macro_rules! with_element_type {
    ($ty:expr, $T:ident => $body:expr) => {
        match $ty {
            $crate::ElementType::Pred => {
                #[allow(dead_code)]
                type $T = bool;
                $body
            }
            $crate::ElementType::S8 => {
                #[allow(dead_code)]
                type $T = i8;
                $body
            }
            $crate::ElementType::S16 => {
                #[allow(dead_code)]
                type $T = i16;
                $body
            }
            $crate::ElementType::S32 => {
                #[allow(dead_code)]
                type $T = i32;
                $body
            }
            $crate::ElementType::S64 => {
                #[allow(dead_code)]
                type $T = i64;
                $body
            }
            $crate::ElementType::U8 => {
                #[allow(dead_code)]
                type $T = u8;
                $body
            }
            $crate::ElementType::U16 => {
                #[allow(dead_code)]
                type $T = u16;
                $body
            }
            $crate::ElementType::U32 => {
                #[allow(dead_code)]
                type $T = u32;
                $body
            }
            $crate::ElementType::U64 => {
                #[allow(dead_code)]
                type $T = u64;
                $body
            }
            $crate::ElementType::F16 => {
                #[allow(dead_code)]
                type $T = $crate::__half::f16;
                $body
            }
            $crate::ElementType::Bf16 => {
                #[allow(dead_code)]
                type $T = $crate::__half::bf16;
                $body
            }
            $crate::ElementType::F32 => {
                #[allow(dead_code)]
                type $T = f32;
                $body
            }
            $crate::ElementType::F64 => {
                #[allow(dead_code)]
                type $T = f64;
                $body
            }
            $crate::ElementType::C64 => {
                #[allow(dead_code)]
                type $T = $crate::__num_complex::Complex<f32>;
                $body
            }
            $crate::ElementType::C128 => {
                #[allow(dead_code)]
                type $T = $crate::__num_complex::Complex<f64>;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests;
