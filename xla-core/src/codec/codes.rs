//! The enum codes the byte form writes for unary and binary ops, comparison directions and FFT
//! types, and their inverses.

use crate::error::Result;
use crate::ir::{BinaryOp, ComparisonDirection, FftType, UnaryOp};

use super::err;

/// The code of `u`, its position in `UnaryOp::ALL` (a test checks it): an exhaustive match, so
/// a new op cannot go without one.
pub(super) fn unary_code(u: UnaryOp) -> u64 {
    match u {
        UnaryOp::Abs => 0,
        UnaryOp::Cbrt => 1,
        UnaryOp::Ceil => 2,
        UnaryOp::Clz => 3,
        UnaryOp::Cos => 4,
        UnaryOp::Cosh => 5,
        UnaryOp::Erf => 6,
        UnaryOp::Exp => 7,
        UnaryOp::Expm1 => 8,
        UnaryOp::Floor => 9,
        UnaryOp::Imag => 10,
        UnaryOp::IsFinite => 11,
        UnaryOp::Log => 12,
        UnaryOp::Log1p => 13,
        UnaryOp::Logistic => 14,
        UnaryOp::Neg => 15,
        UnaryOp::Not => 16,
        UnaryOp::PopulationCount => 17,
        UnaryOp::Real => 18,
        UnaryOp::RoundNearestAfz => 19,
        UnaryOp::RoundNearestEven => 20,
        UnaryOp::Rsqrt => 21,
        UnaryOp::Sign => 22,
        UnaryOp::Sin => 23,
        UnaryOp::Sqrt => 24,
        UnaryOp::Tan => 25,
        UnaryOp::Tanh => 26,
    }
}

pub(super) fn code_unary(c: u64) -> Result<UnaryOp> {
    UnaryOp::ALL
        .get(c as usize)
        .copied()
        .ok_or_else(|| err(format!("unary op code {c}")))
}

/// The code of `b`, its position in `BinaryOp::ALL` (a test checks it): an exhaustive match, so
/// a new op cannot go without one.
pub(super) fn binary_code(b: BinaryOp) -> u64 {
    match b {
        BinaryOp::Add => 0,
        BinaryOp::Sub => 1,
        BinaryOp::Mul => 2,
        BinaryOp::Div => 3,
        BinaryOp::Rem => 4,
        BinaryOp::Max => 5,
        BinaryOp::Min => 6,
        BinaryOp::Pow => 7,
        BinaryOp::Atan2 => 8,
        BinaryOp::And => 9,
        BinaryOp::Or => 10,
        BinaryOp::Xor => 11,
        BinaryOp::ShiftLeft => 12,
        BinaryOp::ShiftRightArithmetic => 13,
        BinaryOp::ShiftRightLogical => 14,
        BinaryOp::Complex => 15,
    }
}

pub(super) fn code_binary(c: u64) -> Result<BinaryOp> {
    BinaryOp::ALL
        .get(c as usize)
        .copied()
        .ok_or_else(|| err(format!("binary op code {c}")))
}

pub(super) fn direction_code(d: ComparisonDirection) -> u64 {
    match d {
        ComparisonDirection::Eq => 0,
        ComparisonDirection::Ne => 1,
        ComparisonDirection::Ge => 2,
        ComparisonDirection::Gt => 3,
        ComparisonDirection::Le => 4,
        ComparisonDirection::Lt => 5,
    }
}

/// FFT, IFFT, RFFT, IRFFT as 120..=123 (the fft range of the flat attribute numbering).
pub(super) fn fft_type_code(t: FftType) -> u64 {
    match t {
        FftType::Fft => 120,
        FftType::Ifft => 121,
        FftType::Rfft => 122,
        FftType::Irfft => 123,
    }
}

pub(super) fn code_fft_type(c: u64) -> Result<FftType> {
    FftType::ALL
        .into_iter()
        .find(|&t| fft_type_code(t) == c)
        .ok_or_else(|| err(format!("fft type code {c}")))
}

pub(super) fn code_direction(c: u64) -> Result<ComparisonDirection> {
    ComparisonDirection::ALL
        .get(c as usize)
        .copied()
        .ok_or_else(|| err(format!("comparison direction code {c}")))
}
