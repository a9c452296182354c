//! Elementwise ops' specs: unary, binary, comparison, select, clamp, conversions, Map.

use super::{op, opt, req, AttrKind as K, AttrSpec, Form, OpKind, OpSpec, Typing, NONE};
use crate::ir::{BinaryOp, ComparisonDirection, UnaryOp};

const BCAST: &[AttrSpec] = &[opt("broadcast_dimensions", K::Ints)];
const NEW_TYPE: &[AttrSpec] = &[req("new_element_type", K::Type)];

macro_rules! unary {
    ($($name:literal $v:ident $shlo:literal),* $(,)?) => {
        [$(op($name, OpKind::Unary(UnaryOp::$v), $shlo, Form::Operands(1), "(operand)", NONE, Typing::Unary)),*]
    };
}

macro_rules! binary {
    ($($name:literal $v:ident $shlo:literal $with:literal),* $(,)?) => {
        [$(op($name, OpKind::Binary(BinaryOp::$v), $shlo, Form::Operands(2), "(lhs, rhs)", BCAST,
              Typing::Same { with_result: $with })),*]
    };
}

macro_rules! compare {
    ($($name:literal $v:ident $total:literal),* $(,)?) => {
        [$(op($name, OpKind::Compare { direction: ComparisonDirection::$v, total_order: $total },
              "stablehlo.compare", Form::Operands(2), "(lhs, rhs)", BCAST, Typing::Same { with_result: false })),*]
    };
}

pub(super) const UNARY: [OpSpec; 28] = unary![
    "Abs" Abs "stablehlo.abs", "Cbrt" Cbrt "stablehlo.cbrt", "Ceil" Ceil "stablehlo.ceil", "Clz" Clz "stablehlo.count_leading_zeros",
    "Cos" Cos "stablehlo.cosine", "Cosh" Cosh "chlo.cosh", "Erf" Erf "chlo.erf", "Exp" Exp "stablehlo.exponential",
    "Expm1" Expm1 "stablehlo.exponential_minus_one", "Floor" Floor "stablehlo.floor", "Imag" Imag "stablehlo.imag",
    "IsFinite" IsFinite "stablehlo.is_finite", "Log" Log "stablehlo.log", "Log1p" Log1p "stablehlo.log_plus_one",
    "Logistic" Logistic "stablehlo.logistic", "Neg" Neg "stablehlo.negate", "Not" Not "stablehlo.not",
    "PopulationCount" PopulationCount "stablehlo.popcnt", "Real" Real "stablehlo.real",
    "Round" RoundNearestAfz "stablehlo.round_nearest_afz",
    "RoundNearestAfz" RoundNearestAfz "stablehlo.round_nearest_afz",
    "RoundNearestEven" RoundNearestEven "stablehlo.round_nearest_even", "Rsqrt" Rsqrt "stablehlo.rsqrt",
    "Sign" Sign "stablehlo.sign", "Sin" Sin "stablehlo.sine", "Sqrt" Sqrt "stablehlo.sqrt", "Tan" Tan "stablehlo.tan", "Tanh" Tanh "stablehlo.tanh",
];

pub(super) const BINARY: [OpSpec; 16] = binary![
    "Add" Add "stablehlo.add" true, "Sub" Sub "stablehlo.subtract" true, "Mul" Mul "stablehlo.multiply" true,
    "Div" Div "stablehlo.divide" true, "Rem" Rem "stablehlo.remainder" true, "Max" Max "stablehlo.maximum" true,
    "Min" Min "stablehlo.minimum" true, "Pow" Pow "stablehlo.power" true, "Atan2" Atan2 "stablehlo.atan2" true,
    "And" And "stablehlo.and" true, "Or" Or "stablehlo.or" true, "Xor" Xor "stablehlo.xor" true,
    "ShiftLeft" ShiftLeft "stablehlo.shift_left" true,
    "ShiftRightArithmetic" ShiftRightArithmetic "stablehlo.shift_right_arithmetic" true,
    "ShiftRightLogical" ShiftRightLogical "stablehlo.shift_right_logical" true,
    "Complex" Complex "stablehlo.complex" false,
];

pub(super) const COMPARE: [OpSpec; 12] = compare![
    "Eq" Eq false, "Ne" Ne false, "Ge" Ge false, "Gt" Gt false, "Le" Le false, "Lt" Lt false,
    "EqTotalOrder" Eq true, "NeTotalOrder" Ne true, "GeTotalOrder" Ge true,
    "GtTotalOrder" Gt true, "LeTotalOrder" Le true, "LtTotalOrder" Lt true,
];

pub(super) const ELEMENTWISE: [OpSpec; 6] = [
    op(
        "Compare",
        OpKind::CompareWith,
        "stablehlo.compare",
        Form::Operands(2),
        "(lhs, rhs)",
        &[
            req("direction", K::Direction),
            opt("comparison_type", K::ComparisonType),
            opt("broadcast_dimensions", K::Ints),
        ],
        Typing::Same { with_result: false },
    ),
    op(
        "Select",
        OpKind::Select,
        "stablehlo.select",
        Form::Operands(3),
        "(pred, on_true, on_false)",
        NONE,
        Typing::Select,
    ),
    op(
        "Clamp",
        OpKind::Clamp,
        "stablehlo.clamp",
        Form::Operands(3),
        "(min, operand, max)",
        NONE,
        Typing::Clamp,
    ),
    op(
        "ConvertElementType",
        OpKind::ConvertElementType,
        "stablehlo.convert",
        Form::Operands(1),
        "(operand)",
        NEW_TYPE,
        Typing::Free,
    ),
    op(
        "BitcastConvertType",
        OpKind::BitcastConvertType,
        "stablehlo.bitcast_convert",
        Form::Operands(1),
        "(operand)",
        NEW_TYPE,
        Typing::Free,
    ),
    op(
        "ReducePrecision",
        OpKind::ReducePrecision,
        "stablehlo.reduce_precision",
        Form::Operands(1),
        "(operand)",
        &[req("exponent_bits", K::Int), req("mantissa_bits", K::Int)],
        Typing::First,
    ),
];

pub(super) const MAP: [OpSpec; 1] = [op(
    "Map",
    OpKind::Map,
    "stablehlo.map",
    Form::Map,
    "(operands..., computation)",
    &[opt("dimensions", K::Ints)],
    Typing::Free,
)];
