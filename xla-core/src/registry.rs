//! The op registry: every op of the surface language once, with its name, StableHLO name,
//! positional form, attribute schema, literal-typing rule and the parameters its computations
//! take. The macro's checker, the builder dispatch ([`build`]) and the tooling read it; nothing
//! else lists ops by name.
//!
//! One application `Name(args..., attr = value, ...)` is checked in three steps: the form and
//! attributes against [`OpSpec`] (any front end), the operands' literal types by [`Typing`], then
//! [`build`] calls the [`Builder`](crate::builder::Builder), whose shape inference owns every
//! rule about shapes.

mod build;
mod collective;
mod conv_dims;
#[cfg(test)]
mod tests;

pub use build::{build, computation_params, Applied, AttrValue, Attrs};
pub use collective::CollectiveOp;
pub use conv_dims::conv_dims_from_specs;

use crate::ir::{BatchNormKind, BinaryOp, ComparisonDirection, RngDistribution, UnaryOp};

/// What an op is, independent of how it is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// One-operand elementwise op.
    Unary(UnaryOp),
    /// Two-operand elementwise op with implicit broadcasting.
    Binary(BinaryOp),
    /// `Eq`..`Lt` and the `*TotalOrder` variants.
    Compare {
        /// The relation tested.
        direction: ComparisonDirection,
        /// Floats by the total order.
        total_order: bool,
    },
    /// `Compare(a, b, direction = GT, comparison_type = TOTALORDER)`.
    CompareWith,
    /// `Select(pred, on_true, on_false)`.
    Select,
    /// `Clamp(min, operand, max)`.
    Clamp,
    /// Elementwise conversion.
    ConvertElementType,
    /// Bit reinterpretation.
    BitcastConvertType,
    /// Rounding to fewer exponent and mantissa bits.
    ReducePrecision,
    /// New major dimensions.
    Broadcast,
    /// Broadcast to a shape by a dimension map.
    BroadcastInDim,
    /// Row-major reinterpretation (optionally after a transpose).
    Reshape,
    /// Consecutive dimensions merged.
    Collapse,
    /// Dimensions permuted.
    Transpose,
    /// Dimensions reversed.
    Rev,
    /// A strided box of the operand.
    Slice,
    /// Edge and interior padding.
    Pad,
    /// Operands joined along a dimension.
    ConcatInDim,
    /// Counting values.
    Iota,
    /// A literal array.
    Constant,
    /// Variadic reduction by a computation.
    Reduce,
    /// Variadic reduction of every window position by a computation.
    ReduceWindow,
    /// One element chosen per window position, the source scattered onto it.
    SelectAndScatter,
    /// A computation run along one dimension with carries.
    Scan,
    /// Variadic sort by a comparator.
    Sort,
    /// The k largest or smallest along the last dimension.
    TopK,
    /// Forward and inverse, complex and real FFTs over 1 to 3 innermost axes.
    Fft,
    /// Slices at runtime start indices, clamped into the operand.
    Gather,
    /// Variadic updates at runtime indices through a computation.
    Scatter,
    /// A computation applied elementwise.
    Map,
    /// BatchNormTraining, BatchNormInference or BatchNormGrad.
    BatchNorm(BatchNormKind),
    /// A box at runtime scalar starts, clamped into the operand.
    DynamicSlice,
    /// The operand with a box overwritten at runtime scalar starts, clamped likewise.
    DynamicUpdateSlice,
    /// Cholesky factorisation of a batch of Hermitian positive-definite matrices.
    Cholesky,
    /// A batch of triangular systems solved by substitution.
    TriangularSolve,
    /// Matrix and vector products.
    Dot,
    /// Generalised products.
    DotGeneral,
    /// Convolution, default dimension numbers, SAME/VALID padding.
    Conv,
    /// Convolution, default dimension numbers, explicit padding.
    ConvWithGeneralPadding,
    /// Convolution, explicit dimension numbers, SAME/VALID padding.
    ConvWithGeneralDimensions,
    /// Convolution, explicit dimension numbers and padding.
    ConvGeneral,
    /// Convolution with every attribute.
    ConvGeneralDilated,
    /// Loop while a condition holds.
    While,
    /// One of several computations, by a pred or an index.
    Conditional,
    /// The operands, computed before anything that reads them.
    OptimizationBarrier,
    /// A token after the operand tokens.
    AfterAll,
    /// A call of a Rust fn of the user's crate.
    CustomCall,
    /// A grouped matrix product (`jax.lax.ragged_dot_general`).
    RaggedDot,
    /// A dot of block-scaled operands.
    ScaledDot,
    /// A tuple.
    Tuple,
    /// An element of a tuple.
    GetTupleElement,
    /// A call of another fn of the block.
    Call,
    /// A call of a decomposition fn, with a composite's name, attributes and version.
    CompositeCall,
    /// `RngBitGenerator(initial_state, shape, algorithm = ..)`: `(new_state, bits)`.
    RngBitGenerator,
    /// `RngUniform(a, b, shape)` or `RngNormal(mu, sigma, shape)`.
    Rng(RngDistribution),
    /// A collective of an SPMD program, or ReplicaId/PartitionId.
    Collective(CollectiveOp),
}

/// The positional arguments of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Exactly this many operands.
    Operands(usize),
    /// At least this many operands.
    Variadic(usize),
    /// N operands, N init values, one computation.
    Reduce,
    /// N >= 1 operands, then the comparator.
    Sort,
    /// N >= 1 operands, then the computation applied to their elements.
    Map,
    /// N operands, the indices, N updates, then the update computation.
    Scatter,
    /// Condition, body, initial state.
    While,
    /// `(operand, select, source, init_value, scatter)`.
    SelectAndScatter,
    /// `([inputs...], [inits...], to_apply)`; a single input or init may go without brackets.
    Scan,
    /// `(pred, true_operand, true_computation, false_operand, false_computation)` or
    /// `(branch_index, [computations...], [operands...])`.
    Conditional,
    /// A type, such as `s32[4, 8]`.
    Type,
    /// A type and a (nested list) value.
    Constant,
    /// A fn of the block, then its operands.
    Call,
    /// This many operands, then the result type (`RngUniform(a, b, f32[4])`).
    OperandsAndType(usize),
}

/// What kind of value an attribute takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// `1`.
    Int,
    /// `[1, 0]`.
    Ints,
    /// `true`.
    Bool,
    /// `[true, false]`.
    Bools,
    /// `f32`.
    Type,
    /// `GT`.
    Direction,
    /// `TOTALORDER`, `FLOAT`, `SIGNED`, `UNSIGNED`.
    ComparisonType,
    /// `[[low, high, interior], ...]`, one triple per dimension.
    PaddingConfig,
    /// `[[low, high], ...]`, one pair per spatial dimension.
    Pairs,
    /// `SAME` or `VALID`.
    PaddingKind,
    /// `SAME`, `VALID` or `[[low, high], ...]`, one pair per dimension (a window's padding).
    WindowPadding,
    /// `[NHWC, HWIO, NHWC]`: lhs, rhs and output dimension letters.
    ConvDims,
    /// `DEFAULT`, `HIGH` or `HIGHEST` (or a list of two): accepted, no effect on CPU.
    Precision,
    /// `0.001`, `1e-5`: a float (stored as XLA stores it, an f32 for BatchNorm's epsilon).
    Float,
    /// `"foo.bar"`: a string.
    Str,
    /// `f32[2, 3]` or `(f32[2], s32[])`: a shape.
    Shape,
    /// `NO_TRANSPOSE`, `TRANSPOSE` or `ADJOINT` (TriangularSolve's `transpose_a`).
    Transpose,
    /// `DEFAULT`, `THREE_FRY` or `PHILOX`.
    RngAlgorithm,
    /// `FFT`, `IFFT`, `RFFT` or `IRFFT`.
    FftType,
    /// `[[0, 1], [2, 3]]`: groups of ids (`[]`: one group of every device).
    Groups,
}

impl AttrKind {
    /// How a value of this kind is written, for messages.
    pub fn example(self) -> &'static str {
        match self {
            AttrKind::Int => "an integer such as `1`",
            AttrKind::Ints => "a list of integers such as `[1, 0]`",
            AttrKind::Bool => "`true` or `false`",
            AttrKind::Bools => "a list such as `[true, false]`",
            AttrKind::Type => "an element type such as `f32`",
            AttrKind::Str => "a string such as `\"my_lib.softplus\"`",
            AttrKind::Shape => "a shape such as `f32[2, 3]` or `(f32[2], s32[])`",
            AttrKind::Direction => "one of EQ, NE, GE, GT, LE, LT",
            AttrKind::ComparisonType => "one of FLOAT, TOTALORDER, SIGNED, UNSIGNED",
            AttrKind::PaddingConfig => {
                "one `[low, high, interior]` per dimension, such as `[[1, 2, 0], [0, 0, 1]]`"
            }
            AttrKind::Pairs => {
                "one `[low, high]` per spatial dimension, such as `[[1, 1], [0, 2]]`"
            }
            AttrKind::PaddingKind => "`SAME` or `VALID`",
            AttrKind::WindowPadding => {
                "`SAME`, `VALID` or one `[low, high]` per dimension, such as `[[0, 0], [1, 1]]`"
            }
            AttrKind::ConvDims => {
                "lhs, rhs and output dimension letters such as `[NHWC, HWIO, NHWC]`"
            }
            AttrKind::Precision => "DEFAULT, HIGH or HIGHEST",
            AttrKind::Float => "a number such as `0.001`",
            AttrKind::Transpose => "one of NO_TRANSPOSE, TRANSPOSE, ADJOINT",
            AttrKind::RngAlgorithm => "one of DEFAULT, THREE_FRY, PHILOX",
            AttrKind::FftType => "one of FFT, IFFT, RFFT, IRFFT",
            AttrKind::Groups => "a list of id groups such as `[[0, 1], [2, 3]]` (or `[]`)",
        }
    }
}

/// One attribute of an op.
#[derive(Clone, Copy, Debug)]
pub struct AttrSpec {
    /// Its name, as the seed spells it.
    pub name: &'static str,
    /// The kind of value it takes.
    pub kind: AttrKind,
    /// Whether the op needs it (otherwise it has a default).
    pub required: bool,
}

/// How untyped literal operands get their element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typing {
    /// Every operand is typed on its own.
    Free,
    /// Operand 0 takes the result's type; any others are typed on their own.
    First,
    /// Operand 0 takes the result's type when the op keeps it (`Exp`, not `IsFinite`).
    Unary,
    /// All operands share one type: the result's too when `with_result`.
    Same {
        /// The result has the operands' type.
        with_result: bool,
    },
    /// Pred, then two operands of the result's type.
    Select,
    /// `(min, operand, max)` of the result's type; the operand fixes it first.
    Clamp,
    /// Init value `i` takes operand `i`'s type.
    Reduce,
}

/// Everything the front ends need about one op.
#[derive(Clone, Copy, Debug)]
pub struct OpSpec {
    /// The surface name (as the seed spells it).
    pub name: &'static str,
    /// What it is.
    pub kind: OpKind,
    /// The op it exports to, dialect included (`stablehlo.add`, `chlo.erf`, `func.call`): the
    /// exporter prints it and the importer finds the op by it.
    pub stablehlo: &'static str,
    /// Its positional arguments.
    pub form: Form,
    /// How the positional arguments read, for messages: `(lhs, rhs)`.
    pub signature: &'static str,
    /// Its attributes.
    pub attrs: &'static [AttrSpec],
    /// How literal operands are typed.
    pub typing: Typing,
}

impl OpSpec {
    /// The attribute called `name`.
    pub fn attr(&self, name: &str) -> Option<&'static AttrSpec> {
        self.attrs.iter().find(|a| a.name == name)
    }
}

const fn req(name: &'static str, kind: AttrKind) -> AttrSpec {
    AttrSpec {
        name,
        kind,
        required: true,
    }
}

const fn opt(name: &'static str, kind: AttrKind) -> AttrSpec {
    AttrSpec {
        name,
        kind,
        required: false,
    }
}

const fn op(
    name: &'static str,
    kind: OpKind,
    stablehlo: &'static str,
    form: Form,
    signature: &'static str,
    attrs: &'static [AttrSpec],
    typing: Typing,
) -> OpSpec {
    OpSpec {
        name,
        kind,
        stablehlo,
        form,
        signature,
        attrs,
        typing,
    }
}

use AttrKind as K;

const NONE: &[AttrSpec] = &[];
const BCAST: &[AttrSpec] = &[opt("broadcast_dimensions", K::Ints)];
const BATCH_NORM: &[AttrSpec] = &[req("epsilon", K::Float), req("feature_index", K::Int)];
/// XLA's RaggedDotDimensionNumbers (each defaults to `jax.lax.ragged_dot`'s) and the dot's
/// result type.
const RAGGED_DOT: &[AttrSpec] = &[
    opt("lhs_batch_dimensions", K::Ints),
    opt("rhs_batch_dimensions", K::Ints),
    opt("lhs_contracting_dimensions", K::Ints),
    opt("rhs_contracting_dimensions", K::Ints),
    opt("lhs_ragged_dimensions", K::Ints),
    opt("rhs_group_dimensions", K::Ints),
    opt("precision_config", K::Precision),
    opt("preferred_element_type", K::Type),
];
const NEW_TYPE: &[AttrSpec] = &[req("new_element_type", K::Type)];
const CONV_COMMON: [AttrSpec; 4] = [
    opt("feature_group_count", K::Int),
    opt("batch_group_count", K::Int),
    opt("precision_config", K::Precision),
    opt("preferred_element_type", K::Type),
];
const CONV: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::PaddingKind),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
];
const CONV_GP: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::Pairs),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
];
const CONV_GD: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::PaddingKind),
    req("dimension_numbers", K::ConvDims),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
];
const CONV_G: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::Pairs),
    req("dimension_numbers", K::ConvDims),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
];
const CONV_GDIL: &[AttrSpec] = &[
    req("window_strides", K::Ints),
    req("padding", K::Pairs),
    opt("lhs_dilation", K::Ints),
    opt("rhs_dilation", K::Ints),
    req("dimension_numbers", K::ConvDims),
    CONV_COMMON[0],
    CONV_COMMON[1],
    CONV_COMMON[2],
    CONV_COMMON[3],
    opt("window_reversal", K::Bools),
];

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

const UNARY: [OpSpec; 28] = unary![
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

const BINARY: [OpSpec; 16] = binary![
    "Add" Add "stablehlo.add" true, "Sub" Sub "stablehlo.subtract" true, "Mul" Mul "stablehlo.multiply" true,
    "Div" Div "stablehlo.divide" true, "Rem" Rem "stablehlo.remainder" true, "Max" Max "stablehlo.maximum" true,
    "Min" Min "stablehlo.minimum" true, "Pow" Pow "stablehlo.power" true, "Atan2" Atan2 "stablehlo.atan2" true,
    "And" And "stablehlo.and" true, "Or" Or "stablehlo.or" true, "Xor" Xor "stablehlo.xor" true,
    "ShiftLeft" ShiftLeft "stablehlo.shift_left" true,
    "ShiftRightArithmetic" ShiftRightArithmetic "stablehlo.shift_right_arithmetic" true,
    "ShiftRightLogical" ShiftRightLogical "stablehlo.shift_right_logical" true,
    "Complex" Complex "stablehlo.complex" false,
];

const COMPARE: [OpSpec; 12] = compare![
    "Eq" Eq false, "Ne" Ne false, "Ge" Ge false, "Gt" Gt false, "Le" Le false, "Lt" Lt false,
    "EqTotalOrder" Eq true, "NeTotalOrder" Ne true, "GeTotalOrder" Ge true,
    "GtTotalOrder" Gt true, "LeTotalOrder" Le true, "LtTotalOrder" Lt true,
];

const OTHER: [OpSpec; 55] = [
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
    op(
        "Broadcast",
        OpKind::Broadcast,
        "stablehlo.broadcast_in_dim",
        Form::Operands(1),
        "(operand)",
        &[req("broadcast_sizes", K::Ints)],
        Typing::First,
    ),
    op(
        "BroadcastInDim",
        OpKind::BroadcastInDim,
        "stablehlo.broadcast_in_dim",
        Form::Operands(1),
        "(operand)",
        &[
            req("out_dim_size", K::Ints),
            req("broadcast_dimensions", K::Ints),
        ],
        Typing::First,
    ),
    op(
        "Reshape",
        OpKind::Reshape,
        "stablehlo.reshape",
        Form::Operands(1),
        "(operand)",
        &[opt("dimensions", K::Ints), req("new_sizes", K::Ints)],
        Typing::First,
    ),
    op(
        "Collapse",
        OpKind::Collapse,
        "stablehlo.reshape",
        Form::Operands(1),
        "(operand)",
        &[req("dimensions", K::Ints)],
        Typing::First,
    ),
    op(
        "Transpose",
        OpKind::Transpose,
        "stablehlo.transpose",
        Form::Operands(1),
        "(operand)",
        &[req("permutation", K::Ints)],
        Typing::First,
    ),
    op(
        "Rev",
        OpKind::Rev,
        "stablehlo.reverse",
        Form::Operands(1),
        "(operand)",
        &[req("dimensions", K::Ints)],
        Typing::First,
    ),
    op(
        "Slice",
        OpKind::Slice,
        "stablehlo.slice",
        Form::Operands(1),
        "(operand)",
        &[
            req("start_indices", K::Ints),
            req("limit_indices", K::Ints),
            opt("strides", K::Ints),
        ],
        Typing::First,
    ),
    op(
        "Pad",
        OpKind::Pad,
        "stablehlo.pad",
        Form::Operands(2),
        "(operand, padding_value)",
        &[req("padding_config", K::PaddingConfig)],
        Typing::Same { with_result: true },
    ),
    op(
        "ConcatInDim",
        OpKind::ConcatInDim,
        "stablehlo.concatenate",
        Form::Variadic(1),
        "(operands...)",
        &[req("dimension", K::Int)],
        Typing::Same { with_result: true },
    ),
    op(
        "Iota",
        OpKind::Iota,
        "stablehlo.iota",
        Form::Type,
        "(shape)",
        &[req("iota_dimension", K::Int)],
        Typing::Free,
    ),
    op(
        "Constant",
        OpKind::Constant,
        "stablehlo.constant",
        Form::Constant,
        "(shape, value)",
        NONE,
        Typing::Free,
    ),
    op(
        "Reduce",
        OpKind::Reduce,
        "stablehlo.reduce",
        Form::Reduce,
        "(operands..., init_values..., computation)",
        &[req("dimensions", K::Ints)],
        Typing::Reduce,
    ),
    op(
        "ReduceWindow",
        OpKind::ReduceWindow,
        "stablehlo.reduce_window",
        Form::Reduce,
        "(operands..., init_values..., computation)",
        &[
            req("window_dimensions", K::Ints),
            opt("window_strides", K::Ints),
            opt("base_dilations", K::Ints),
            opt("window_dilations", K::Ints),
            opt("padding", K::WindowPadding),
        ],
        Typing::Reduce,
    ),
    op(
        "SelectAndScatter",
        OpKind::SelectAndScatter,
        "stablehlo.select_and_scatter",
        Form::SelectAndScatter,
        "(operand, select, source, init_value, scatter)",
        &[
            req("window_dimensions", K::Ints),
            opt("window_strides", K::Ints),
            opt("padding", K::WindowPadding),
        ],
        Typing::Same { with_result: true },
    ),
    // StableHLO has no scan: CHLO's (XLA legalises it to a while loop).
    op(
        "Scan",
        OpKind::Scan,
        "chlo.scan",
        Form::Scan,
        "([inputs...], [inits...], to_apply)",
        &[
            req("scan_dimension", K::Int),
            opt("is_reverse", K::Bool),
            opt("is_associative", K::Bool),
        ],
        Typing::Free,
    ),
    op(
        "Sort",
        OpKind::Sort,
        "stablehlo.sort",
        Form::Sort,
        "(operands..., comparator)",
        &[opt("dimension", K::Int), opt("is_stable", K::Bool)],
        Typing::Free,
    ),
    op(
        "TopK",
        OpKind::TopK,
        "chlo.top_k",
        Form::Operands(1),
        "(operand)",
        &[req("k", K::Int), opt("largest", K::Bool)],
        Typing::Free,
    ),
    op(
        "Cholesky",
        OpKind::Cholesky,
        "stablehlo.cholesky",
        Form::Operands(1),
        "(a)",
        &[req("lower", K::Bool)],
        Typing::Same { with_result: true },
    ),
    op(
        "TriangularSolve",
        OpKind::TriangularSolve,
        "stablehlo.triangular_solve",
        Form::Operands(2),
        "(a, b)",
        &[
            req("left_side", K::Bool),
            req("lower", K::Bool),
            req("unit_diagonal", K::Bool),
            req("transpose_a", K::Transpose),
        ],
        Typing::Same { with_result: true },
    ),
    op(
        "Fft",
        OpKind::Fft,
        "stablehlo.fft",
        Form::Operands(1),
        "(operand)",
        &[req("fft_type", K::FftType), req("fft_length", K::Ints)],
        Typing::Free,
    ),
    op(
        "Gather",
        OpKind::Gather,
        "stablehlo.gather",
        Form::Operands(2),
        "(operand, start_indices)",
        &[
            req("offset_dims", K::Ints),
            opt("collapsed_slice_dims", K::Ints),
            opt("operand_batching_dims", K::Ints),
            opt("start_indices_batching_dims", K::Ints),
            req("start_index_map", K::Ints),
            req("index_vector_dim", K::Int),
            req("slice_sizes", K::Ints),
            opt("indices_are_sorted", K::Bool),
        ],
        Typing::Free,
    ),
    op(
        "Scatter",
        OpKind::Scatter,
        "stablehlo.scatter",
        Form::Scatter,
        "(operands..., scatter_indices, updates..., update_computation)",
        &[
            req("update_window_dims", K::Ints),
            opt("inserted_window_dims", K::Ints),
            opt("input_batching_dims", K::Ints),
            opt("scatter_indices_batching_dims", K::Ints),
            req("scatter_dims_to_operand_dims", K::Ints),
            req("index_vector_dim", K::Int),
            opt("indices_are_sorted", K::Bool),
            opt("unique_indices", K::Bool),
        ],
        Typing::Free,
    ),
    op(
        "DynamicSlice",
        OpKind::DynamicSlice,
        "stablehlo.dynamic_slice",
        Form::Variadic(1),
        "(operand, start_indices...)",
        &[req("slice_sizes", K::Ints)],
        Typing::First,
    ),
    op(
        "DynamicUpdateSlice",
        OpKind::DynamicUpdateSlice,
        "stablehlo.dynamic_update_slice",
        Form::Variadic(2),
        "(operand, update, start_indices...)",
        NONE,
        Typing::First,
    ),
    op(
        "Dot",
        OpKind::Dot,
        "stablehlo.dot_general",
        Form::Operands(2),
        "(lhs, rhs)",
        &[
            opt("precision_config", K::Precision),
            opt("preferred_element_type", K::Type),
        ],
        Typing::Same { with_result: false },
    ),
    op(
        "RaggedDot",
        OpKind::RaggedDot,
        "chlo.ragged_dot",
        Form::Operands(3),
        "(lhs, rhs, group_sizes)",
        RAGGED_DOT,
        Typing::Free,
    ),
    op(
        "ScaledDot",
        OpKind::ScaledDot,
        // No StableHLO op: exported as its expansion; a name no import matches.
        "xla.scaled_dot",
        Form::Operands(4),
        "(lhs, lhs_scale, rhs, rhs_scale)",
        &[
            req("lhs_contracting_dimensions", K::Ints),
            req("rhs_contracting_dimensions", K::Ints),
            opt("lhs_batch_dimensions", K::Ints),
            opt("rhs_batch_dimensions", K::Ints),
            opt("precision_config", K::Precision),
            opt("preferred_element_type", K::Type),
        ],
        Typing::Same { with_result: false },
    ),
    op(
        "Map",
        OpKind::Map,
        "stablehlo.map",
        Form::Map,
        "(operands..., computation)",
        &[opt("dimensions", K::Ints)],
        Typing::Free,
    ),
    op(
        "BatchNormTraining",
        OpKind::BatchNorm(BatchNormKind::Training),
        "stablehlo.batch_norm_training",
        Form::Operands(3),
        "(operand, scale, offset)",
        BATCH_NORM,
        Typing::Same { with_result: false },
    ),
    op(
        "BatchNormInference",
        OpKind::BatchNorm(BatchNormKind::Inference),
        "stablehlo.batch_norm_inference",
        Form::Operands(5),
        "(operand, scale, offset, mean, variance)",
        BATCH_NORM,
        Typing::Same { with_result: false },
    ),
    op(
        "BatchNormGrad",
        OpKind::BatchNorm(BatchNormKind::Grad),
        "stablehlo.batch_norm_grad",
        Form::Operands(5),
        "(operand, scale, mean, variance, grad_output)",
        BATCH_NORM,
        Typing::Same { with_result: false },
    ),
    op(
        "DotGeneral",
        OpKind::DotGeneral,
        "stablehlo.dot_general",
        Form::Operands(2),
        "(lhs, rhs)",
        &[
            req("lhs_contracting_dimensions", K::Ints),
            req("rhs_contracting_dimensions", K::Ints),
            opt("lhs_batch_dimensions", K::Ints),
            opt("rhs_batch_dimensions", K::Ints),
            opt("precision_config", K::Precision),
            opt("preferred_element_type", K::Type),
        ],
        Typing::Same { with_result: false },
    ),
    op(
        "Conv",
        OpKind::Conv,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV,
        Typing::Same { with_result: false },
    ),
    op(
        "ConvWithGeneralPadding",
        OpKind::ConvWithGeneralPadding,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV_GP,
        Typing::Same { with_result: false },
    ),
    op(
        "ConvWithGeneralDimensions",
        OpKind::ConvWithGeneralDimensions,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV_GD,
        Typing::Same { with_result: false },
    ),
    op(
        "ConvGeneral",
        OpKind::ConvGeneral,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV_G,
        Typing::Same { with_result: false },
    ),
    op(
        "ConvGeneralDilated",
        OpKind::ConvGeneralDilated,
        "stablehlo.convolution",
        Form::Operands(2),
        "(lhs, rhs)",
        CONV_GDIL,
        Typing::Same { with_result: false },
    ),
    op(
        "While",
        OpKind::While,
        "stablehlo.while",
        Form::While,
        "(condition, body, init)",
        NONE,
        Typing::Free,
    ),
    op(
        "Conditional",
        OpKind::Conditional,
        "stablehlo.if",
        Form::Conditional,
        "(pred, true_operand, true_computation, false_operand, false_computation) or \
         (branch_index, [computations...], [operands...])",
        NONE,
        Typing::Free,
    ),
    op(
        "OptimizationBarrier",
        OpKind::OptimizationBarrier,
        "stablehlo.optimization_barrier",
        Form::Variadic(0),
        "(operands...)",
        NONE,
        Typing::Free,
    ),
    op(
        "AfterAll",
        OpKind::AfterAll,
        "stablehlo.after_all",
        Form::Variadic(0),
        "(tokens...)",
        NONE,
        Typing::Free,
    ),
    op(
        "CustomCall",
        OpKind::CustomCall,
        "stablehlo.custom_call",
        Form::Variadic(0),
        "(operands...)",
        &[
            req("call_target_name", K::Str),
            req("shape", K::Shape),
            opt("opaque", K::Str),
            opt("has_side_effect", K::Bool),
        ],
        Typing::Free,
    ),
    op(
        "Tuple",
        OpKind::Tuple,
        "stablehlo.tuple",
        Form::Variadic(0),
        "(elements...)",
        NONE,
        Typing::Free,
    ),
    op(
        "GetTupleElement",
        OpKind::GetTupleElement,
        "stablehlo.get_tuple_element",
        Form::Operands(1),
        "(tuple)",
        &[req("index", K::Int)],
        Typing::Free,
    ),
    op(
        "Call",
        OpKind::Call,
        "func.call",
        Form::Call,
        "(fn, operands...)",
        NONE,
        Typing::Free,
    ),
    op(
        "CompositeCall",
        OpKind::CompositeCall,
        "stablehlo.composite",
        Form::Call,
        "(decomposition, operands...)",
        &[
            req("name", K::Str),
            opt("attributes", K::Str),
            opt("version", K::Int),
        ],
        Typing::Free,
    ),
    op(
        "RngBitGenerator",
        OpKind::RngBitGenerator,
        "stablehlo.rng_bit_generator",
        Form::OperandsAndType(1),
        "(initial_state, shape)",
        &[req("algorithm", K::RngAlgorithm)],
        Typing::Free,
    ),
    op(
        "RngUniform",
        OpKind::Rng(RngDistribution::Uniform),
        "stablehlo.rng",
        Form::OperandsAndType(2),
        "(a, b, shape)",
        NONE,
        Typing::Same { with_result: true },
    ),
    op(
        "RngNormal",
        OpKind::Rng(RngDistribution::Normal),
        "stablehlo.rng",
        Form::OperandsAndType(2),
        "(mu, sigma, shape)",
        NONE,
        Typing::Same { with_result: true },
    ),
];

/// The op spelled `name`.
pub fn lookup(name: &str) -> Option<&'static OpSpec> {
    specs().find(|s| s.name == name)
}

/// The StableHLO (or CHLO) name of unary op `u` (every one has a spec: a registry test checks).
pub fn unary_name(u: UnaryOp) -> Option<&'static str> {
    UNARY
        .iter()
        .find(|s| matches!(s.kind, OpKind::Unary(x) if x == u))
        .map(|s| s.stablehlo)
}

/// The StableHLO name of binary op `b` (every one has a spec: a registry test checks).
pub fn binary_name(b: BinaryOp) -> Option<&'static str> {
    BINARY
        .iter()
        .find(|s| matches!(s.kind, OpKind::Binary(x) if x == b))
        .map(|s| s.stablehlo)
}

/// The StableHLO name of batch-norm op `k` (`stablehlo.batch_norm_training`).
pub fn batch_norm_name(k: BatchNormKind) -> &'static str {
    OTHER
        .iter()
        .find(|s| s.kind == OpKind::BatchNorm(k))
        .map_or("stablehlo.batch_norm", |s| s.stablehlo)
}

/// Every op spec, in a stable order.
pub fn specs() -> impl Iterator<Item = &'static OpSpec> {
    UNARY
        .iter()
        .chain(&BINARY)
        .chain(&COMPARE)
        .chain(&OTHER)
        .chain(&collective::COLLECTIVE)
}

/// Names users reach for that XLA spells otherwise (other libraries' and StableHLO's names),
/// lower-cased: `(theirs, ours)`. "Did you mean" finds them where an edit distance cannot
/// (`Convert` is 11 edits from `ConvertElementType`).
const ALIASES: &[(&str, &str)] = &[
    ("convert", "ConvertElementType"),
    ("cast", "ConvertElementType"),
    ("astype", "ConvertElementType"),
    ("bitcast", "BitcastConvertType"),
    ("bitcastconvert", "BitcastConvertType"),
    ("matmul", "Dot"),
    ("dotgeneral", "DotGeneral"),
    ("einsum", "DotGeneral"),
    ("permute", "Transpose"),
    ("sum", "Reduce"),
    ("pool", "ReduceWindow"),
    ("maxpool", "ReduceWindow"),
    ("max_pool", "ReduceWindow"),
    ("avgpool", "ReduceWindow"),
    ("avg_pool", "ReduceWindow"),
    ("reduce_window", "ReduceWindow"),
    ("cumsum", "ReduceWindow"),
    ("select_and_scatter", "SelectAndScatter"),
    ("scan", "Scan"),
    ("reducesum", "Reduce"),
    ("maximum", "Max"),
    ("minimum", "Min"),
    ("multiply", "Mul"),
    ("subtract", "Sub"),
    ("divide", "Div"),
    ("remainder", "Rem"),
    ("power", "Pow"),
    ("negate", "Neg"),
    ("exponential", "Exp"),
    ("exponentialminusone", "Expm1"),
    ("sigmoid", "Logistic"),
    ("compare", "Compare"),
    ("where", "Select"),
    ("broadcastto", "BroadcastInDim"),
    ("broadcast_in_dim", "BroadcastInDim"),
    ("reshape", "Reshape"),
    ("iota", "Iota"),
    ("arange", "Iota"),
    ("concat", "ConcatInDim"),
    ("concatenate", "ConcatInDim"),
    ("reverse", "Rev"),
    ("flip", "Rev"),
    ("convolution", "ConvGeneralDilated"),
    ("conv2d", "ConvGeneralDilated"),
    ("if", "Conditional"),
    ("cond", "Conditional"),
    ("case", "Conditional"),
    ("whileloop", "While"),
    ("while_loop", "While"),
    ("argsort", "Sort"),
    ("top_k", "TopK"),
    ("cholesky", "Cholesky"),
    ("chol", "Cholesky"),
    ("triangular_solve", "TriangularSolve"),
    ("trsm", "TriangularSolve"),
    ("solve_triangular", "TriangularSolve"),
    ("topk", "TopK"),
    ("take", "Gather"),
    ("gathernd", "Gather"),
    ("gather_nd", "Gather"),
    ("embedding", "Gather"),
    ("indexselect", "Gather"),
    ("index_select", "Gather"),
    ("scatteradd", "Scatter"),
    ("scatter_add", "Scatter"),
    ("indexadd", "Scatter"),
    ("index_add", "Scatter"),
    ("scatternd", "Scatter"),
    ("batchnorm", "BatchNormTraining"),
    ("vmap", "Map"),
    ("apply", "Map"),
    ("batch_norm", "BatchNormTraining"),
    ("batchnormalization", "BatchNormTraining"),
    ("dynamic_slice", "DynamicSlice"),
    ("dynamicslice", "DynamicSlice"),
    ("dynamic_update_slice", "DynamicUpdateSlice"),
    ("dynamicupdateslice", "DynamicUpdateSlice"),
    ("rng_bit_generator", "RngBitGenerator"),
    ("random_bits", "RngBitGenerator"),
    ("uniform", "RngUniform"),
    ("rand", "RngUniform"),
    ("normal", "RngNormal"),
    ("randn", "RngNormal"),
];

/// The op a name from another library means (`Convert` -> `ConvertElementType`).
pub fn alias(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    ALIASES.iter().find(|(a, _)| *a == lower).map(|&(_, op)| op)
}
