//! What a node computes: [`Kind`], and which kinds are kernels of their own.

use std::sync::Arc;

use xla_core::{Computation, Literal};

/// What a node computes. Elementwise kinds read operands of their own dimensions.
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    /// Array leaf `path` (tuple indices) of fn parameter `index`.
    Param {
        index: usize,
        path: Vec<usize>,
    },
    /// An array constant.
    Constant(Literal),
    /// Values counting along `dimension`.
    Iota {
        dimension: usize,
    },
    Unary(xla_core::UnaryOp),
    Binary(xla_core::BinaryOp),
    Compare {
        direction: xla_core::ComparisonDirection,
        total_order: bool,
    },
    Select,
    Clamp,
    Convert,
    /// Bitcast between types of equal width: elementwise.
    Bitcast,
    ReducePrecision {
        exponent_bits: u32,
        mantissa_bits: u32,
    },
    /// Operand dim `i` is output dim `dims[i]`.
    BroadcastInDim {
        dims: Vec<usize>,
    },
    /// Row-major reinterpretation.
    Reshape,
    /// Output dim `d` is operand dim `perm[d]`.
    Transpose {
        perm: Vec<usize>,
    },
    /// `operand[d] = n[d] - 1 - out[d]` on `dims`.
    Rev {
        dims: Vec<usize>,
    },
    /// `operand[d] = start[d] + strides[d]·out[d]`.
    Slice {
        start: Vec<i64>,
        strides: Vec<i64>,
    },
    /// Edge padding (no interior): `out[d] = operand[d - low[d]]` inside the operand, else the
    /// scalar second input.
    Pad {
        low: Vec<i64>,
    },
    /// The inputs laid end to end along `dim`.
    Concat {
        dim: usize,
    },
    /// Identity; inserted where a value must be written to a second place (outputs).
    Copy,
    /// Variadic sort along `dim`: N inputs, N outputs, permuted together by `comparator`.
    Sort {
        dim: usize,
        stable: bool,
        comparator: Arc<Computation>,
    },
    /// The `k` largest (or smallest) along the last dim: outputs (values, s32 indices).
    TopK {
        k: usize,
        largest: bool,
    },
    /// Cholesky factor of input 0's matrices (`xla_kernels::linalg::cholesky`).
    Cholesky {
        lower: bool,
    },
    /// RaggedDot of inputs (lhs, rhs, group_sizes) in modes 1 and 2, one GEMM per group
    /// (`xla_kernels::gemm::ragged`); any other form is inlined as its expansion.
    RaggedDot(crate::expand::calls::ragged::RaggedPlan),
    /// Triangular solve of inputs (a, b) (`xla_kernels::linalg::triangular_solve`).
    TriangularSolve {
        left_side: bool,
        lower: bool,
        unit_diagonal: bool,
        transpose_a: xla_core::ir::TransposeA,
    },
    /// A collective (or ReplicaId/PartitionId) of an SPMD program: a call of
    /// `xla_kernels::collectives` with the fn's `ctx`.
    Collective(xla_core::Collective),
    /// Infeed, Outfeed, Send or Recv through the fn's `ctx`: inputs the data operands'
    /// leaves (Outfeed, Send), outputs the data read (Infeed, Recv), `data_outputs` of them;
    /// a node with none has one `u8[0]` output so that it is a kernel. Never dead.
    HostIo {
        op: xla_core::HostIo,
        data_outputs: usize,
    },
    /// FFT, IFFT, RFFT or IRFFT over the `fft_length.len()` innermost dims of its input.
    Fft {
        fft_type: xla_core::FftType,
        fft_length: Vec<i64>,
    },
    /// Convolution of inputs (lhs, rhs), both already of the result's element type.
    Conv {
        window: xla_core::ConvWindow,
        dn: xla_core::ConvDimensionNumbers,
        feature_group_count: i64,
        batch_group_count: i64,
    },
    /// Loop: inputs are the initial state's leaves, outputs the final state's.
    While {
        condition: Arc<Computation>,
        body: Arc<Computation>,
    },
    /// Input 0 is the selector (pred or s32 scalar); then the leaves of each branch's operand
    /// in turn (`arity[b]` of them); outputs are the result's leaves.
    Conditional {
        branches: Vec<Arc<Computation>>,
        arity: Vec<usize>,
    },
    /// A call of the user's Rust fn `target` on the inputs' views, writing the outputs' views.
    CustomCall {
        target: String,
        /// Runs even when nothing reads its results.
        has_side_effect: bool,
    },
    /// Gather of input 0 at the start vectors of input 1, starts clamped into the operand.
    Gather {
        dn: xla_core::GatherDimensionNumbers,
        slice_sizes: Vec<i64>,
    },
    /// Scatter: inputs are N operands, the indices, N updates; N outputs.
    Scatter {
        dn: xla_core::ScatterDimensionNumbers,
        computation: Arc<Computation>,
    },
    /// `operand[d] = clamp(start_d, 0, n[d] - sizes[d]) + out[d]`: input 0 the operand, then
    /// one scalar start per operand dim (a view whose offset is read when its kernel starts).
    DynamicSlice {
        sizes: Vec<i64>,
    },
    /// The operand (input 0) with the update (input 1) written at the clamped starts (inputs
    /// 2..): a kernel, in place when the operand dies there.
    DynamicUpdateSlice,
    /// ReduceWindow: inputs are N operands then N scalar inits; N outputs.
    ReduceWindow {
        window: xla_core::Window,
        computation: Arc<Computation>,
    },
    /// SelectAndScatter: inputs operand, source, scalar init; one output of the operand's
    /// shape.
    SelectAndScatter {
        window: xla_core::Window,
        select: Arc<Computation>,
        scatter: Arc<Computation>,
    },
    /// A Scan that is a cumulative `op` (`|x, c| (c op x, c op x)`): inputs x and the init
    /// carry (x without `dim`); outputs y (x's shape) and the final carry.
    CumScan {
        op: xla_core::BinaryOp,
        /// `c op x` rather than `x op c`.
        carry_first: bool,
        dim: usize,
        reverse: bool,
    },
    /// RngBitGenerator: input the state; outputs the new state and the bits.
    RngBitGenerator {
        algorithm: xla_core::RandomAlgorithm,
    },
    /// RngUniform / RngNormal: inputs the two scalar parameters.
    Rng {
        distribution: xla_core::RngDistribution,
        seed: u64,
    },
    /// Bitcast between types of different widths: the minor dim appears or disappears.
    BitcastResize,
    /// Variadic reduce: inputs are N operands then N scalar inits; N outputs.
    Reduce {
        dims: Vec<usize>,
        computation: Arc<Computation>,
    },
    /// DotGeneral in canonical form: operands of the result element type, lhs dims
    /// [batch.., m.., contract..], rhs dims [batch.., contract.., n..], result [batch.., m.., n..].
    Dot {
        batch: usize,
        contract: usize,
    },
}

impl Kind {
    /// Host I/O, or a While or Conditional whose computations hold host I/O or a collective:
    /// the node runs even when nothing reads its results (a CustomCall marked
    /// `has_side_effect` too; an unmarked one nothing reads is dropped).
    pub fn has_side_effect(&self) -> bool {
        match self {
            Kind::HostIo { .. } => true,
            Kind::CustomCall {
                has_side_effect, ..
            } => *has_side_effect,
            Kind::While { condition, body } => {
                condition.uses_collectives() || body.uses_collectives()
            }
            Kind::Conditional { branches, .. } => branches.iter().any(|b| b.uses_collectives()),
            Kind::BitcastResize
            | Kind::Reduce { .. }
            | Kind::Dot { .. }
            | Kind::Sort { .. }
            | Kind::TopK { .. }
            | Kind::Cholesky { .. }
            | Kind::RaggedDot { .. }
            | Kind::TriangularSolve { .. }
            | Kind::Fft { .. }
            | Kind::Collective(_)
            | Kind::Conv { .. }
            | Kind::Gather { .. }
            | Kind::Scatter { .. }
            | Kind::DynamicUpdateSlice
            | Kind::ReduceWindow { .. }
            | Kind::SelectAndScatter { .. }
            | Kind::RngBitGenerator { .. }
            | Kind::Rng { .. }
            | Kind::CumScan { .. }
            | Kind::Param { .. }
            | Kind::Constant(_)
            | Kind::Iota { .. }
            | Kind::Unary(_)
            | Kind::Binary(_)
            | Kind::Compare { .. }
            | Kind::Select
            | Kind::Clamp
            | Kind::Convert
            | Kind::Bitcast
            | Kind::ReducePrecision { .. }
            | Kind::BroadcastInDim { .. }
            | Kind::Reshape
            | Kind::Transpose { .. }
            | Kind::Rev { .. }
            | Kind::Slice { .. }
            | Kind::DynamicSlice { .. }
            | Kind::Pad { .. }
            | Kind::Concat { .. }
            | Kind::Copy => false,
        }
    }

    /// True for nodes whose result always lives in a buffer (they are kernels of their own).
    pub fn is_kernel_root(&self) -> bool {
        match self {
            Kind::BitcastResize
            | Kind::Reduce { .. }
            | Kind::Dot { .. }
            | Kind::Sort { .. }
            | Kind::TopK { .. }
            | Kind::Cholesky { .. }
            | Kind::RaggedDot { .. }
            | Kind::TriangularSolve { .. }
            | Kind::Fft { .. }
            | Kind::Collective(_)
            | Kind::HostIo { .. }
            | Kind::Conv { .. }
            | Kind::While { .. }
            | Kind::Conditional { .. }
            | Kind::CustomCall { .. }
            | Kind::Gather { .. }
            | Kind::Scatter { .. }
            | Kind::DynamicUpdateSlice
            | Kind::ReduceWindow { .. }
            | Kind::SelectAndScatter { .. }
            | Kind::RngBitGenerator { .. }
            | Kind::Rng { .. }
            | Kind::CumScan { .. } => true,
            Kind::Param { .. }
            | Kind::Constant(_)
            | Kind::Iota { .. }
            | Kind::Unary(_)
            | Kind::Binary(_)
            | Kind::Compare { .. }
            | Kind::Select
            | Kind::Clamp
            | Kind::Convert
            | Kind::Bitcast
            | Kind::ReducePrecision { .. }
            | Kind::BroadcastInDim { .. }
            | Kind::Reshape
            | Kind::Transpose { .. }
            | Kind::Rev { .. }
            | Kind::Slice { .. }
            | Kind::DynamicSlice { .. }
            | Kind::Pad { .. }
            | Kind::Concat { .. }
            | Kind::Copy => false,
        }
    }
}
