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
mod control;
mod conv;
mod conv_dims;
mod dims;
mod dot;
mod elementwise;
mod host_io;
mod indexing;
mod linalg;
mod movement;
mod norm;
mod reduce;
mod rng;
#[cfg(test)]
mod tests;

pub use build::{build, computation_params, Applied, AttrValue, Attrs};
pub use collective::CollectiveOp;
pub use conv_dims::conv_dims_from_specs;
pub use host_io::HostIoOp;

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
    /// The runtime size of a dimension.
    GetDimensionSize,
    /// A dimension made dynamic with a runtime size.
    SetDimensionSize,
    /// A reshape to runtime sizes within static bounds.
    DynamicReshape,
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
    /// Infeed, Outfeed, Send or Recv.
    HostIo(HostIoOp),
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

const NONE: &[AttrSpec] = &[];

/// The op spelled `name`.
pub fn lookup(name: &str) -> Option<&'static OpSpec> {
    specs().find(|s| s.name == name)
}

/// The StableHLO (or CHLO) name of unary op `u` (every one has a spec: a registry test checks).
pub fn unary_name(u: UnaryOp) -> Option<&'static str> {
    elementwise::UNARY
        .iter()
        .find(|s| matches!(s.kind, OpKind::Unary(x) if x == u))
        .map(|s| s.stablehlo)
}

/// The StableHLO name of binary op `b` (every one has a spec: a registry test checks).
pub fn binary_name(b: BinaryOp) -> Option<&'static str> {
    elementwise::BINARY
        .iter()
        .find(|s| matches!(s.kind, OpKind::Binary(x) if x == b))
        .map(|s| s.stablehlo)
}

/// The StableHLO name of batch-norm op `k` (`stablehlo.batch_norm_training`).
pub fn batch_norm_name(k: BatchNormKind) -> &'static str {
    norm::NORM
        .iter()
        .find(|s| s.kind == OpKind::BatchNorm(k))
        .map_or("stablehlo.batch_norm", |s| s.stablehlo)
}

/// Every op spec, in a stable order (the families' arrays in the order the registry always
/// listed them: the importer breaks ties between specs sharing a StableHLO name by it).
pub fn specs() -> impl Iterator<Item = &'static OpSpec> {
    elementwise::UNARY
        .iter()
        .chain(&elementwise::BINARY)
        .chain(&elementwise::COMPARE)
        .chain(&elementwise::ELEMENTWISE)
        .chain(&movement::MOVEMENT)
        .chain(&reduce::REDUCE)
        .chain(&linalg::LINALG)
        .chain(&indexing::INDEXING)
        .chain(&dot::DOT)
        .chain(&elementwise::MAP)
        .chain(&norm::NORM)
        .chain(&dot::DOT_GENERAL)
        .chain(&conv::CONVOLUTION)
        .chain(&control::CONTROL)
        .chain(&rng::RNG)
        .chain(&collective::COLLECTIVE)
        .chain(&dims::DIMS)
        .chain(&host_io::HOST_IO)
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
