//! The HLO-like IR: a [`Computation`] is a list of [`Instruction`]s in definition order (operands
//! always come before their users), each with its inferred [`Shape`].
//!
//! The IR is deliberately smaller than the user-facing op set, like HLO: the builder lowers sugar
//! into canonical ops (Dot -> DotGeneral, Broadcast/implicit broadcasting -> BroadcastInDim,
//! Collapse -> Reshape), so every elementwise instruction has operands of its own dimensions.
//! Ops are matched without `_ =>` everywhere so a new op cannot be half-added.

use std::sync::Arc;

pub use crate::rng::{RandomAlgorithm, RngDistribution};

mod collective;
mod dot;
mod elementwise;
mod host_io;
mod indexing;
mod linalg;
mod norm;
mod window;
pub use collective::{Collective, CollectiveKind, GroupMode};
pub use dot::{DotDimensionNumbers, RaggedDotDimensionNumbers};
pub use elementwise::{BinaryOp, ComparisonDirection, ComparisonType, UnaryOp};
pub use host_io::HostIo;
pub use indexing::{GatherDimensionNumbers, ScatterDimensionNumbers};
pub use linalg::{FftType, TransposeA};
pub use norm::BatchNormKind;
pub use window::{ConvDimensionNumbers, ConvWindow, PadDim, Window};

use crate::element::ElementType;
use crate::literal::Literal;
use crate::shape::Shape;

/// Index of an instruction inside its computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstrId(pub u32);

/// What makes a Call a CompositeCall: a name (`foo.bar`), attributes (an MLIR dictionary such
/// as `{n = 1 : i32}`, or empty) and a version (0 by default). None of them changes what the
/// call computes: its decomposition does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composite {
    /// The composite's name.
    pub name: String,
    /// Its attributes, an MLIR dictionary `{...}`, or empty.
    pub attributes: String,
    /// The version of its semantics.
    pub version: i64,
}

/// One canonical op. The instruction's `operands` and `shape` complete its meaning.
#[derive(Clone, Debug)]
pub enum Op {
    /// A collective of an SPMD program (or ReplicaId/PartitionId): exchanges between the
    /// devices running the program ([`crate::spmd`]).
    Collective(Collective),
    /// Host I/O (Infeed, Outfeed, Send, Recv): side effects ordered by the token each takes
    /// and returns, through the device's host queues ([`crate::spmd::host`]); never removed
    /// as dead code, run in program order.
    HostIo(HostIo),
    /// Parameter number `index` of the computation; no operands.
    Parameter {
        /// Position in the computation's parameter list.
        index: usize,
        /// The name the user gave it (kept for StableHLO and diagnostics).
        name: String,
    },
    /// A constant; no operands.
    Constant(Literal),
    /// `Iota(shape, dimension)`: values counting up along `dimension`; no operands.
    Iota {
        /// The dimension along which `output[i] = i[dimension]`.
        dimension: usize,
    },
    /// One-operand elementwise op.
    Unary(UnaryOp),
    /// Two-operand elementwise op on operands of equal dimensions.
    Binary(BinaryOp),
    /// Elementwise comparison into pred; `total_order` selects the *TotalOrder variants for
    /// floats (-NaN < -Inf < -Finite < -0 < +0 < +Finite < +Inf < +NaN).
    Compare {
        /// Which relation `x R y` is tested.
        direction: ComparisonDirection,
        /// Floats compare by the total order above instead of IEEE (where NaN is unordered).
        total_order: bool,
    },
    /// `Select(pred, on_true, on_false)`; a scalar pred has been broadcast explicitly.
    Select,
    /// `Clamp(min, operand, max)`; scalar bounds have been broadcast explicitly.
    Clamp,
    /// Elementwise conversion to the instruction's element type.
    ConvertElementType,
    /// Bit reinterpretation to the instruction's element type (width changes add/remove the
    /// minor dimension).
    BitcastConvertType,
    /// Round mantissa and exponent to fewer bits, staying in the same type.
    ReducePrecision {
        /// Exponent bits kept: values beyond that range overflow to +-inf or flush to 0.
        exponent_bits: u32,
        /// Mantissa bits kept: values are rounded to nearest even at that precision.
        mantissa_bits: u32,
    },
    /// Operand dimension `i` maps to output dimension `broadcast_dimensions[i]` (size equal or
    /// 1); the output dimensions are the instruction's shape.
    BroadcastInDim {
        /// Output dimension of each operand dimension, strictly increasing.
        broadcast_dimensions: Vec<i64>,
    },
    /// Row-major reinterpretation with the instruction's dimensions (same element count).
    Reshape,
    /// `output[i_{perm[0]}, ...] ` : output dimension `d` is operand dimension `permutation[d]`.
    Transpose {
        /// `permutation[d]` is the operand dimension that becomes output dimension `d`.
        permutation: Vec<i64>,
    },
    /// Variadic reduce: operands are N arrays then N scalar inits; the result is the reduced
    /// array (N = 1) or a tuple of them.
    Reduce {
        /// Operand dimensions folded away; the others keep their order.
        dimensions: Vec<i64>,
        /// The reducer: 2N scalars (accumulators, then elements) to N scalars.
        computation: Arc<Computation>,
    },
    /// Variadic `ReduceWindow(operands..., init_values...)`: N arrays then N scalar inits;
    /// `out[o] = computation(init, every element of window o)`, padding and holes reading
    /// the init; the result is one array (N = 1) or a tuple of them.
    ReduceWindow {
        /// Sizes, strides, padding and dilations per operand dimension.
        window: Window,
        /// The reducer: 2N scalars (accumulators, then elements) to N scalars.
        computation: Arc<Computation>,
    },
    /// `SelectAndScatter(operand, source, init_value)`: the output starts as `init_value`
    /// everywhere; for every window position `o` (row-major) the element of window `o` that
    /// `select` keeps (the first tap, replaced by each later tap `t` with `!select(kept, t)`,
    /// padding skipped) gets `out[kept] = scatter(out[kept], source[o])`.
    SelectAndScatter {
        /// Sizes, strides and padding per operand dimension (dilations all 1).
        window: Window,
        /// `(T[], T[]) -> pred[]`: true keeps the first argument.
        select: Arc<Computation>,
        /// `(T[], T[]) -> T[]`: the output element and the source value to its new value.
        scatter: Arc<Computation>,
    },
    /// `Scan(inputs..., inits...)`: m arrays sharing `scan_dimension` of size N, k carries;
    /// step `i` (`N-1` down to 0 when `is_reverse`) runs
    /// `(y_0.., c_0..) = to_apply(x_0[i].., c_0..)`; the result is the tuple
    /// `(y arrays with the scan dimension put back, final carries)`.
    Scan {
        /// The dimension scanned, in the inputs and the outputs.
        scan_dimension: i64,
        /// Steps from the last index to the first.
        is_reverse: bool,
        /// The caller's claim that `to_apply` is associative (XLA's tri-state; no effect).
        is_associative: Option<bool>,
        /// `k`: how many of the operands (the last ones) and results are carries.
        num_carries: usize,
        /// `(x slices.., carries..) -> (outputs.., carries..)`.
        to_apply: Arc<Computation>,
    },
    /// Generalised matrix product; result dims: batch, lhs free, rhs free.
    DotGeneral {
        /// Which dimensions are contracted and which are batch.
        dimension_numbers: DotDimensionNumbers,
        /// The result element type when it differs from the operands' (a widening dot).
        preferred_element_type: Option<ElementType>,
    },
    /// Reverse the order of elements along each of `dimensions`.
    Rev {
        /// Dimensions reversed (distinct, in range).
        dimensions: Vec<i64>,
    },
    /// `output[i] = operand[start + i * stride]` per dimension.
    Slice {
        /// First index taken per dimension.
        start_indices: Vec<i64>,
        /// One past the last index that may be taken per dimension.
        limit_indices: Vec<i64>,
        /// Step per dimension (at least 1).
        strides: Vec<i64>,
    },
    /// `Pad(operand, padding_value)`: edge and interior padding per dimension.
    Pad {
        /// One entry per operand dimension.
        config: Vec<PadDim>,
    },
    /// Operands joined along `dimension` (all other dimensions equal).
    Concatenate {
        /// The dimension the operands are laid end to end along.
        dimension: i64,
    },
    /// Variadic sort along `dimension`: operands permuted together by `comparator`, a strict
    /// weak order on 2N scalars `(lhs_0, rhs_0, lhs_1, rhs_1, ...)` returning pred.
    Sort {
        /// The dimension sorted along.
        dimension: i64,
        /// Equal elements keep their order.
        is_stable: bool,
        /// `comparator(a..., b...)` is true when `a` goes before `b`.
        comparator: Arc<Computation>,
    },
    /// The `k` largest (or smallest) elements along the last dimension, sorted, and their
    /// indices (s32): a tuple `(values, indices)`.
    TopK {
        /// Elements kept per row.
        k: i64,
        /// Largest first (true) or smallest first (false).
        largest: bool,
    },
    /// `Cholesky(a)`: per matrix of the two minor dims, `l` with `a = l l^H` (`lower`) or `u`
    /// with `a = u^H u`, reading only that triangle of `a` (pivots from the real part of the
    /// diagonal, see `eval::linalg`); the other triangle of the result is zero, and a matrix whose factorisation meets a
    /// pivot that is negative or NaN is all NaN (XLA's CholeskyExpander).
    Cholesky {
        /// Factor (and read) the lower triangle, else the upper.
        lower: bool,
    },
    /// `TriangularSolve(a, b)`: per matrix of the two minor dims, `x` with `op(a) x = b`
    /// (`left_side`) or `x op(a) = b`, reading only the `lower` (else upper) triangle of `a`,
    /// its diagonal taken as ones when `unit_diagonal`.
    TriangularSolve {
        /// Solve `op(a) x = b` (true) or `x op(a) = b` (false).
        left_side: bool,
        /// `a` is lower triangular (true) or upper.
        lower: bool,
        /// The diagonal of `a` is taken as ones and not read.
        unit_diagonal: bool,
        /// `op(a)`: `a`, `a^T` or `a^H`.
        transpose_a: TransposeA,
    },
    /// `Fft(operand)` over the `fft_length.len()` (1 to 3) innermost axes, their time-domain
    /// lengths `fft_length`, as a cascade of one-axis transforms (for RFFT the innermost axis
    /// first, for IRFFT last).
    Fft {
        /// FFT, IFFT, RFFT or IRFFT.
        fft_type: FftType,
        /// Time-domain length of each transformed axis, outermost first.
        fft_length: Vec<i64>,
    },
    /// `ConvGeneralDilated(lhs, rhs)`: every convolution form of the surface lowers to it.
    Convolution {
        /// Strides, padding, dilations and reversal per spatial dimension.
        window: ConvWindow,
        /// The role of each operand dimension.
        dimension_numbers: ConvDimensionNumbers,
        /// Input features split into this many groups, each with its own kernel slice.
        feature_group_count: i64,
        /// Batch split into this many groups whose results are laid along output features.
        batch_group_count: i64,
        /// The result element type when it differs from the operands'.
        preferred_element_type: Option<ElementType>,
    },
    /// `While(init)`: `state = body(state)` while `condition(state)`; the result is the
    /// final state.
    While {
        /// `state -> pred[]`.
        condition: Arc<Computation>,
        /// `state -> state`.
        body: Arc<Computation>,
    },
    /// `Conditional(selector, operands...)`: runs `branches[i]` on operand `i + 1`. A pred
    /// selector picks branch 0 when true and 1 when false; an s32 index out of range runs the
    /// last branch.
    Conditional {
        /// The computations, each taking one operand; all return the same shape.
        branches: Vec<Arc<Computation>>,
    },
    /// `Gather(operand, start_indices)`: `out[b, o] = operand[clamp(start(b)) + offset(o)]`,
    /// each start clamped so the whole slice lies inside the operand.
    Gather {
        /// How output, operand and start-indices dimensions correspond.
        dimension_numbers: GatherDimensionNumbers,
        /// The slice taken at each start, one size per operand dimension.
        slice_sizes: Vec<i64>,
        /// The caller promises sorted starts (no effect on the result).
        indices_are_sorted: bool,
    },
    /// `Scatter(operands..., scatter_indices, updates...)`: N operands and N updates;
    /// `out[start(u) + window(u)] = f(out[..], update[u])` for every update index `u` in
    /// row-major order, a window that does not fit in the operand skipped whole. The result
    /// is the updated operand (N = 1) or a tuple of them.
    Scatter {
        /// How update, operand and scatter-indices dimensions correspond.
        dimension_numbers: ScatterDimensionNumbers,
        /// The caller promises sorted indices (no effect on the result).
        indices_are_sorted: bool,
        /// The caller promises no two updates hit one element (no effect on the result).
        unique_indices: bool,
        /// `(current_0.., update_0..) -> new_0..`: 2N scalars to N scalars.
        update_computation: Arc<Computation>,
    },
    /// Batch normalisation over every dimension but `feature_index` (XLA's BatchNormTraining,
    /// BatchNormInference, BatchNormGrad): population variance, `epsilon` inside the square
    /// root, computed as XLA's BatchNormExpander writes it
    /// ([`crate::builder::expand_batch_norm`]).
    BatchNorm {
        /// Which of the three ops.
        kind: BatchNormKind,
        /// The operand dimension holding the features (the one not reduced over).
        feature_index: i64,
        /// Added to the variance before the reciprocal square root (an f32, as in HLO).
        epsilon: f32,
    },
    /// `Map(operands...)`: `out[i] = computation(operands[0][i], .., operands[N-1][i])` for
    /// every index `i`; operands of one set of dimensions, the result of the computation's
    /// scalar type.
    Map {
        /// Every dimension in order (XLA supports no other).
        dimensions: Vec<i64>,
        /// N scalars (operand `k`'s element type) to one scalar.
        computation: Arc<Computation>,
    },
    /// `DynamicSlice(operand, starts...)`: `out[i] = operand[s + i]` with one scalar start per
    /// operand dimension, `s[d] = clamp(start[d], 0, dim[d] - slice_sizes[d])`.
    DynamicSlice {
        /// The extent of the slice per operand dimension (the result's dims).
        slice_sizes: Vec<i64>,
    },
    /// `DynamicUpdateSlice(operand, update, starts...)`: the operand with
    /// `out[s + i] = update[i]`, `s[d] = clamp(start[d], 0, dim[d] - update_dim[d])`.
    DynamicUpdateSlice,
    /// `GetDimensionSize(operand)`: the `s32[]` runtime size of `dimension` (its size when
    /// static). See [`crate::padder`] for how dynamic dimensions run.
    GetDimensionSize {
        /// The operand dimension asked for.
        dimension: i64,
    },
    /// `SetDimensionSize(operand, size)`: the operand with `dimension` dynamic, its runtime
    /// size the `s32[]` `size` (clamped into `[0, bound]`), its bound unchanged.
    SetDimensionSize {
        /// The dimension made dynamic.
        dimension: i64,
    },
    /// `DynamicReshape(operand, sizes...)`: the operand's valid elements in row-major order
    /// over the runtime sizes (one `s32[]` per result dimension) of the instruction's shape,
    /// whose dims are the bounds.
    DynamicReshape,
    /// `OptimizationBarrier(operands...)`: the operands unchanged (one operand: its value; several:
    /// their tuple), every one computed before anything that reads the results.
    OptimizationBarrier,
    /// `RaggedDot(lhs, rhs, group_sizes)`: group `j` owns the index range
    /// `[sum(gs[..j]), sum(gs[..=j]))` of the lhs ragged dimension. Mode 1 (ragged
    /// non-contracting): `out[.., i, ..] = lhs[.., i, ..] · rhs[j, ..]` for the group holding
    /// `i`, zero in no group; mode 2 (ragged contracting): `out[j, ..]` contracts only group
    /// `j`'s range of `k`; mode 3 (ragged batch): DotGeneral. Defined by its expansion
    /// ([`crate::builder::expand_ragged_dot`]).
    RaggedDot {
        /// Batch, contracting, ragged and group dimensions.
        dimension_numbers: RaggedDotDimensionNumbers,
        /// The result's element type when wider than the operands' (as DotGeneral's).
        preferred_element_type: Option<ElementType>,
    },
    /// `ScaledDot(lhs, lhs_scale, rhs, rhs_scale)`: DotGeneral of the block-dequantized
    /// operands `x[i] * scale[i / b]` (per dimension, block `b = x_dim / scale_dim`), as XLA's
    /// ScaledDotRewriter writes it ([`crate::builder::expand_scaled_dot`]).
    ScaledDot {
        /// Which dimensions are contracted and which are batch.
        dimension_numbers: DotDimensionNumbers,
        /// The result element type when it differs from the operands'.
        preferred_element_type: Option<ElementType>,
    },
    /// `AfterAll(tokens...)`: one token ordered after every operand token (none: a fresh token).
    AfterAll,
    /// `CustomCall(operands..., call_target_name, shape)`: a call of code outside the IR whose
    /// result has the declared shape; for `xla!`, a Rust fn of the user's crate.
    CustomCall {
        /// The target: a Rust path for `xla!` (`softplus`, `crate::ops::softplus`).
        target: String,
        /// Opaque text for the target's backend (StableHLO's `backend_config`).
        opaque: String,
        /// The call has effects beyond its result (it is never removed or duplicated).
        has_side_effect: bool,
    },
    /// `RngBitGenerator(initial_state)`: the tuple `(new_state, bits)` of the instruction's
    /// shape, bit for bit XLA:CPU's streams ([`crate::rng`]).
    RngBitGenerator {
        /// ThreeFry or Philox (DEFAULT is Philox).
        algorithm: RandomAlgorithm,
    },
    /// `RngUniform(a, b)` / `RngNormal(mu, sigma)` of the instruction's shape: scalar
    /// parameters, numbers drawn from Philox bits keyed by `seed` ([`crate::rng`]).
    Rng {
        /// Uniform or normal.
        distribution: RngDistribution,
        /// The Philox key: how many Rng ops precede it in its computation, so each call site
        /// has its own fixed stream.
        seed: u64,
    },
    /// A tuple of the operands.
    Tuple,
    /// Element `index` of a tuple operand.
    GetTupleElement {
        /// Position of the element taken.
        index: usize,
    },
    /// Call a computation with the operands as its parameters; a CompositeCall when
    /// `composite` is set (XLA: a kCall with is_composite=true; the callee is the
    /// decomposition, which defines the semantics).
    Call {
        /// The callee; its parameters are the operands.
        computation: Arc<Computation>,
        /// The composite's name, attributes and version, for a CompositeCall.
        composite: Option<Box<Composite>>,
    },
}

impl Op {
    /// The HLO opcode name, as HLO text prints it.
    pub fn opcode(&self) -> &'static str {
        match self {
            Op::Parameter { .. } => "parameter",
            Op::Constant(_) => "constant",
            Op::Iota { .. } => "iota",
            Op::Unary(_) => "unary",
            Op::Binary(_) => "binary",
            Op::Compare { .. } => "compare",
            Op::Select => "select",
            Op::Clamp => "clamp",
            Op::ConvertElementType => "convert",
            Op::BitcastConvertType => "bitcast-convert",
            Op::ReducePrecision { .. } => "reduce-precision",
            Op::BroadcastInDim { .. } => "broadcast",
            Op::Reshape => "reshape",
            Op::Transpose { .. } => "transpose",
            Op::Reduce { .. } => "reduce",
            Op::ReduceWindow { .. } => "reduce-window",
            Op::SelectAndScatter { .. } => "select-and-scatter",
            Op::Scan { .. } => "scan",
            Op::DotGeneral { .. } => "dot",
            Op::Rev { .. } => "reverse",
            Op::Slice { .. } => "slice",
            Op::Pad { .. } => "pad",
            Op::Concatenate { .. } => "concatenate",
            Op::Sort { .. } => "sort",
            Op::TopK { .. } => "topk",
            Op::Cholesky { .. } => "cholesky",
            Op::TriangularSolve { .. } => "triangular-solve",
            Op::Fft { .. } => "fft",
            Op::Collective(c) => c.kind.opcode(),
            Op::HostIo(h) => h.opcode(),
            Op::Convolution { .. } => "convolution",
            Op::While { .. } => "while",
            Op::Conditional { .. } => "conditional",
            Op::Gather { .. } => "gather",
            Op::Scatter { .. } => "scatter",
            Op::BatchNorm { kind, .. } => match kind {
                BatchNormKind::Training => "batch-norm-training",
                BatchNormKind::Inference => "batch-norm-inference",
                BatchNormKind::Grad => "batch-norm-grad",
            },
            Op::Map { .. } => "map",
            Op::DynamicSlice { .. } => "dynamic-slice",
            Op::DynamicUpdateSlice => "dynamic-update-slice",
            Op::GetDimensionSize { .. } => "get-dimension-size",
            Op::SetDimensionSize { .. } => "set-dimension-size",
            Op::DynamicReshape => "dynamic-reshape",
            Op::OptimizationBarrier => "opt-barrier",
            Op::AfterAll => "after-all",
            Op::CustomCall { .. } => "custom-call",
            Op::RaggedDot { .. } => "ragged-dot",
            Op::ScaledDot { .. } => "scaled-dot",
            Op::RngBitGenerator { .. } => "rng-bit-generator",
            Op::Rng { .. } => "rng",
            Op::Tuple => "tuple",
            Op::GetTupleElement { .. } => "get-tuple-element",
            Op::Call { .. } => "call",
        }
    }
}

impl Op {
    /// True for ops computing each output element from the operand elements at the same index
    /// (operands of the result's dimensions).
    pub fn is_elementwise(&self) -> bool {
        match self {
            Op::Unary(_)
            | Op::Binary(_)
            | Op::Compare { .. }
            | Op::Select
            | Op::Clamp
            | Op::ConvertElementType
            | Op::ReducePrecision { .. } => true,
            Op::Parameter { .. }
            | Op::Constant(_)
            | Op::Iota { .. }
            | Op::BitcastConvertType
            | Op::BroadcastInDim { .. }
            | Op::Reshape
            | Op::Transpose { .. }
            | Op::Rev { .. }
            | Op::Slice { .. }
            | Op::Pad { .. }
            | Op::Concatenate { .. }
            | Op::Reduce { .. }
            | Op::ReduceWindow { .. }
            | Op::SelectAndScatter { .. }
            | Op::Scan { .. }
            | Op::DotGeneral { .. }
            | Op::Sort { .. }
            | Op::TopK { .. }
            | Op::Fft { .. }
            | Op::Collective(_)
            | Op::HostIo(_)
            | Op::Convolution { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve { .. }
            | Op::While { .. }
            | Op::Conditional { .. }
            | Op::Gather { .. }
            | Op::Scatter { .. }
            | Op::BatchNorm { .. }
            | Op::Map { .. }
            | Op::DynamicSlice { .. }
            | Op::DynamicUpdateSlice
            | Op::GetDimensionSize { .. }
            | Op::SetDimensionSize { .. }
            | Op::DynamicReshape
            | Op::OptimizationBarrier
            | Op::AfterAll
            | Op::CustomCall { .. }
            | Op::RaggedDot { .. }
            | Op::ScaledDot { .. }
            | Op::RngBitGenerator { .. }
            | Op::Rng { .. }
            | Op::Tuple
            | Op::GetTupleElement { .. }
            | Op::Call { .. } => false,
        }
    }

    /// The computations this op holds (reducers, comparators, loop bodies, branches, callees).
    pub fn computations(&self) -> Vec<&Arc<Computation>> {
        match self {
            Op::Reduce { computation, .. }
            | Op::ReduceWindow { computation, .. }
            | Op::Call { computation, .. }
            | Op::Map { computation, .. } => vec![computation],
            Op::Sort { comparator, .. } => vec![comparator],
            Op::SelectAndScatter {
                select, scatter, ..
            } => vec![select, scatter],
            Op::Scan { to_apply, .. } => vec![to_apply],
            Op::Collective(c) => c.computation().into_iter().collect(),
            Op::Scatter {
                update_computation, ..
            } => vec![update_computation],
            Op::While { condition, body } => vec![condition, body],
            Op::Conditional { branches } => branches.iter().collect(),
            Op::Parameter { .. }
            | Op::Constant(_)
            | Op::Iota { .. }
            | Op::Unary(_)
            | Op::Binary(_)
            | Op::Compare { .. }
            | Op::Select
            | Op::Clamp
            | Op::ConvertElementType
            | Op::BitcastConvertType
            | Op::ReducePrecision { .. }
            | Op::BroadcastInDim { .. }
            | Op::Reshape
            | Op::Transpose { .. }
            | Op::Rev { .. }
            | Op::Slice { .. }
            | Op::Pad { .. }
            | Op::Concatenate { .. }
            | Op::DotGeneral { .. }
            | Op::TopK { .. }
            | Op::Fft { .. }
            | Op::HostIo(_)
            | Op::Convolution { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve { .. }
            | Op::Gather { .. }
            | Op::BatchNorm { .. }
            | Op::DynamicSlice { .. }
            | Op::DynamicUpdateSlice
            | Op::GetDimensionSize { .. }
            | Op::SetDimensionSize { .. }
            | Op::DynamicReshape
            | Op::OptimizationBarrier
            | Op::AfterAll
            | Op::CustomCall { .. }
            | Op::RaggedDot { .. }
            | Op::ScaledDot { .. }
            | Op::RngBitGenerator { .. }
            | Op::Rng { .. }
            | Op::Tuple
            | Op::GetTupleElement { .. } => Vec::new(),
        }
    }
}

/// One instruction: an op, its operands (earlier instructions) and its inferred shape.
#[derive(Clone, Debug)]
pub struct Instruction {
    /// What the instruction computes.
    pub op: Op,
    /// Its inputs, all defined earlier in the same computation.
    pub operands: Vec<InstrId>,
    /// Its result shape, as shape inference gave it.
    pub shape: Shape,
}

/// A computation (HLO's `HloComputation`): parameters, instructions in definition order, root.
/// Sub-computations (reducers, called fns) are held by the ops that use them.
#[derive(Clone, Debug)]
pub struct Computation {
    /// Name, unique within a program (used for StableHLO function names).
    pub name: String,
    /// Parameter shapes in order; parameter `i` is the instruction with `Op::Parameter{index:i}`.
    pub params: Vec<Shape>,
    /// Instructions, operands before users.
    pub instrs: Vec<Instruction>,
    /// The result.
    pub root: InstrId,
}

impl Computation {
    /// The instruction with this id.
    pub fn instr(&self, id: InstrId) -> &Instruction {
        &self.instrs[id.0 as usize]
    }

    /// True when an instruction, or one in a nested computation, is a collective or host I/O
    /// (Infeed, Outfeed, Send, Recv): the program then runs on a device of a run, whose
    /// context ([`crate::spmd::Collectives`]) carries both.
    pub fn uses_collectives(&self) -> bool {
        self.instrs.iter().any(|i| {
            matches!(i.op, Op::Collective(_) | Op::HostIo(_))
                || i.op.computations().iter().any(|c| c.uses_collectives())
        })
    }

    /// The result shape.
    pub fn result_shape(&self) -> &Shape {
        &self.instr(self.root).shape
    }
}
