//! The HLO-like IR: a [`Computation`] is a list of [`Instruction`]s in definition order (operands
//! always come before their users), each with its inferred [`Shape`].
//!
//! The IR is deliberately smaller than the user-facing op set, like HLO: the builder lowers sugar
//! into canonical ops (Dot -> DotGeneral, Broadcast/implicit broadcasting -> BroadcastInDim,
//! Collapse -> Reshape), so every elementwise instruction has operands of its own dimensions.
//! Ops are matched without `_ =>` everywhere so a new op cannot be half-added.

use std::sync::Arc;

use crate::element::ElementType;
use crate::literal::Literal;
use crate::shape::Shape;

/// Index of an instruction inside its computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstrId(pub u32);

/// Elementwise ops of one operand. The result has the operand's dimensions; its element type is
/// the operand's except for `IsFinite` (pred) and `Real`/`Imag`/`Abs` of complex (the component
/// float type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Abs,
    Cbrt,
    Ceil,
    Clz,
    Cos,
    Cosh,
    Erf,
    Exp,
    Expm1,
    Floor,
    Imag,
    IsFinite,
    Log,
    Log1p,
    Logistic,
    Neg,
    Not,
    PopulationCount,
    Real,
    RoundNearestAfz,
    RoundNearestEven,
    Rsqrt,
    Sign,
    Sin,
    Sqrt,
    Tan,
    Tanh,
}

/// Elementwise ops of two operands of equal dimensions (broadcasts already made explicit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Max,
    Min,
    Pow,
    Atan2,
    And,
    Or,
    Xor,
    ShiftLeft,
    ShiftRightArithmetic,
    ShiftRightLogical,
    /// `Complex(real, imag)`: two f32 (f64) arrays into one c64 (c128) array.
    Complex,
}

/// Direction of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComparisonDirection {
    Eq,
    Ne,
    Ge,
    Gt,
    Le,
    Lt,
}

/// DotGeneral's dimension numbers. Result dims: batch, lhs free (in order), rhs free (in order).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDimensionNumbers {
    pub lhs_contracting_dimensions: Vec<i64>,
    pub rhs_contracting_dimensions: Vec<i64>,
    pub lhs_batch_dimensions: Vec<i64>,
    pub rhs_batch_dimensions: Vec<i64>,
}

/// One canonical op. The instruction's `operands` and `shape` complete its meaning.
#[derive(Clone, Debug)]
pub enum Op {
    /// Parameter number `index` of the computation; no operands.
    Parameter { index: usize, name: String },
    /// A constant; no operands.
    Constant(Literal),
    /// `Iota(shape, dimension)`: values counting up along `dimension`; no operands.
    Iota { dimension: usize },
    /// One-operand elementwise op.
    Unary(UnaryOp),
    /// Two-operand elementwise op on operands of equal dimensions.
    Binary(BinaryOp),
    /// Elementwise comparison into pred; `total_order` selects the *TotalOrder variants for
    /// floats (-NaN < -Inf < -Finite < -0 < +0 < +Finite < +Inf < +NaN).
    Compare {
        direction: ComparisonDirection,
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
        exponent_bits: u32,
        mantissa_bits: u32,
    },
    /// Operand dimension `i` maps to output dimension `broadcast_dimensions[i]` (size equal or
    /// 1); the output dimensions are the instruction's shape.
    BroadcastInDim { broadcast_dimensions: Vec<i64> },
    /// Row-major reinterpretation with the instruction's dimensions (same element count).
    Reshape,
    /// `output[i_{perm[0]}, ...] ` : output dimension `d` is operand dimension `permutation[d]`.
    Transpose { permutation: Vec<i64> },
    /// Variadic reduce: operands are N arrays then N scalar inits; the result is the reduced
    /// array (N = 1) or a tuple of them.
    Reduce {
        dimensions: Vec<i64>,
        computation: Arc<Computation>,
    },
    /// Generalised matrix product; result dims: batch, lhs free, rhs free.
    DotGeneral {
        dimension_numbers: DotDimensionNumbers,
        preferred_element_type: Option<ElementType>,
    },
    /// A tuple of the operands.
    Tuple,
    /// Element `index` of a tuple operand.
    GetTupleElement { index: usize },
    /// Call a computation with the operands as its parameters.
    Call { computation: Arc<Computation> },
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
            Op::DotGeneral { .. } => "dot",
            Op::Tuple => "tuple",
            Op::GetTupleElement { .. } => "get-tuple-element",
            Op::Call { .. } => "call",
        }
    }
}

/// One instruction: an op, its operands (earlier instructions) and its inferred shape.
#[derive(Clone, Debug)]
pub struct Instruction {
    pub op: Op,
    pub operands: Vec<InstrId>,
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

    /// The result shape.
    pub fn result_shape(&self) -> &Shape {
        &self.instr(self.root).shape
    }
}
