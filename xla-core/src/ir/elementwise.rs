//! The elementwise ops' attributes: [`UnaryOp`], [`BinaryOp`], the comparison's
//! [`ComparisonDirection`] and [`ComparisonType`].

/// Elementwise ops of one operand. The result has the operand's dimensions; its element type is
/// the operand's except for `IsFinite` (pred) and `Real`/`Imag`/`Abs` of complex (the component
/// float type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `|x|`; for complex operands the modulus `sqrt(re^2 + im^2)` (a float); wrapping for the most negative integer.
    Abs,
    /// Cube root `x^(1/3)`, real (negative) for negative `x`.
    Cbrt,
    /// Smallest integer value `>= x`.
    Ceil,
    /// Number of leading zero bits of an integer.
    Clz,
    /// `cos x` (radians).
    Cos,
    /// `(e^x + e^-x) / 2`.
    Cosh,
    /// Error function `2/sqrt(pi) * integral_0^x e^(-t^2) dt`.
    Erf,
    /// `e^x`.
    Exp,
    /// `e^x - 1`, accurate near 0.
    Expm1,
    /// Largest integer value `<= x`.
    Floor,
    /// Imaginary part of a complex number (0 for a real float operand).
    Imag,
    /// `true` unless `x` is +-inf or NaN (float operands, pred result).
    IsFinite,
    /// Natural logarithm `ln x`.
    Log,
    /// `ln(1 + x)`, accurate near 0.
    Log1p,
    /// Sigmoid `1 / (1 + e^-x)`.
    Logistic,
    /// `-x` (wrapping for integers).
    Neg,
    /// Bitwise complement `!x`; logical not for pred.
    Not,
    /// Number of set bits of an integer.
    PopulationCount,
    /// Real part of a complex number (`x` itself for a real float operand).
    Real,
    /// Round to the nearest integer value, ties away from zero.
    RoundNearestAfz,
    /// Round to the nearest integer value, ties to even.
    RoundNearestEven,
    /// `1 / sqrt(x)`.
    Rsqrt,
    /// `-1`, `0` or `1` by the sign of `x` (floats keep +-0 and NaN; complex `x / |x|`).
    Sign,
    /// `sin x` (radians).
    Sin,
    /// `sqrt x` (NaN below 0).
    Sqrt,
    /// `tan x` (radians).
    Tan,
    /// `(e^x - e^-x) / (e^x + e^-x)`.
    Tanh,
}

/// Elementwise ops of two operands of equal dimensions (broadcasts already made explicit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `x + y` (wrapping for integers, logical or for pred).
    Add,
    /// `x - y` (wrapping for integers).
    Sub,
    /// `x * y` (wrapping for integers, logical and for pred).
    Mul,
    /// `x / y`; integers truncate toward zero, `x / 0` is -1 (signed) or MAX (unsigned), `MIN / -1` is MIN.
    Div,
    /// `x - trunc(x / y) * y` (sign of `x`, C `fmod`); integer `x % 0` is `x`.
    Rem,
    /// `max(x, y)`; a NaN operand gives NaN.
    Max,
    /// `min(x, y)`; a NaN operand gives NaN.
    Min,
    /// `x^y`.
    Pow,
    /// `atan(x / y)` with the quadrant taken from both signs, in `[-pi, pi]` (C's `atan2(x, y)`).
    Atan2,
    /// Bitwise and; logical and for pred.
    And,
    /// Bitwise or; logical or for pred.
    Or,
    /// Bitwise exclusive or; logical xor for pred.
    Xor,
    /// `x << y`; 0 once `y` (read as unsigned) reaches the bit width.
    ShiftLeft,
    /// `x >> y` filling with the sign bit; all sign bits once `y` reaches the bit width.
    ShiftRightArithmetic,
    /// `x >> y` filling with zeros; 0 once `y` reaches the bit width.
    ShiftRightLogical,
    /// `Complex(real, imag)`: two f32 (f64) arrays into one c64 (c128) array.
    Complex,
}

/// Direction of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComparisonDirection {
    /// `x == y`.
    Eq,
    /// `x != y`.
    Ne,
    /// `x >= y`.
    Ge,
    /// `x > y`.
    Gt,
    /// `x <= y`.
    Le,
    /// `x < y`.
    Lt,
}

/// How a comparison orders its operands (XLA's `Comparison::Type`, StableHLO's
/// `compare_type`); each fits some element types only (see `ComparisonType::admits`). The IR
/// keeps only whether the order is the float total order ([`Op::Compare`](super::Op::Compare)'s `total_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComparisonType {
    /// `FLOAT`: IEEE comparison of floats (NaN unordered) or complex (in)equality.
    Float,
    /// `TOTALORDER`: floats by -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN.
    TotalOrder,
    /// `SIGNED`: two's-complement integers.
    Signed,
    /// `UNSIGNED`: unsigned integers and pred.
    Unsigned,
}

impl UnaryOp {
    /// Every variant, in declaration order (what tables over the ops iterate; the IR's binary
    /// form numbers them by their position here).
    pub const ALL: [UnaryOp; 27] = [
        UnaryOp::Abs,
        UnaryOp::Cbrt,
        UnaryOp::Ceil,
        UnaryOp::Clz,
        UnaryOp::Cos,
        UnaryOp::Cosh,
        UnaryOp::Erf,
        UnaryOp::Exp,
        UnaryOp::Expm1,
        UnaryOp::Floor,
        UnaryOp::Imag,
        UnaryOp::IsFinite,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Logistic,
        UnaryOp::Neg,
        UnaryOp::Not,
        UnaryOp::PopulationCount,
        UnaryOp::Real,
        UnaryOp::RoundNearestAfz,
        UnaryOp::RoundNearestEven,
        UnaryOp::Rsqrt,
        UnaryOp::Sign,
        UnaryOp::Sin,
        UnaryOp::Sqrt,
        UnaryOp::Tan,
        UnaryOp::Tanh,
    ];
}

impl BinaryOp {
    /// Every variant, in declaration order (what tables over the ops iterate; the IR's binary
    /// form numbers them by their position here).
    pub const ALL: [BinaryOp; 16] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Max,
        BinaryOp::Min,
        BinaryOp::Pow,
        BinaryOp::Atan2,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::ShiftLeft,
        BinaryOp::ShiftRightArithmetic,
        BinaryOp::ShiftRightLogical,
        BinaryOp::Complex,
    ];
}

impl ComparisonDirection {
    /// Every variant, in declaration order (what tables over the ops iterate; the IR's binary
    /// form numbers them by their position here).
    pub const ALL: [ComparisonDirection; 6] = [
        ComparisonDirection::Eq,
        ComparisonDirection::Ne,
        ComparisonDirection::Ge,
        ComparisonDirection::Gt,
        ComparisonDirection::Le,
        ComparisonDirection::Lt,
    ];
}
