//! The builder: XlaBuilder's API in Rust. Every method runs the op's shape inference first
//! (`crate::infer`), returns `Err` naming the op, the rule and the shapes, and otherwise appends
//! canonical instructions (lowering sugar such as implicit broadcasting, Dot, Collapse).
//! Usable at run time as well as by the macro.

use std::sync::Arc;

use crate::element::ElementType;
use crate::error::Result;
use crate::ir::{BinaryOp, ComparisonDirection, Computation, DotDimensionNumbers, InstrId, Instruction, UnaryOp};
use crate::literal::Literal;
use crate::shape::Shape;

/// A handle to an instruction of the builder that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XlaOp(pub InstrId);

/// Builds one [`Computation`].
#[derive(Debug)]
pub struct Builder {
    name: String,
    instrs: Vec<Instruction>,
    params: Vec<Option<Shape>>,
}

impl Builder {
    /// A builder for a computation called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Builder { name: name.into(), instrs: Vec::new(), params: Vec::new() }
    }

    /// The inferred shape of `op`.
    pub fn shape(&self, op: XlaOp) -> &Shape {
        &self.instrs[op.0 .0 as usize].shape
    }

    /// Parameter `index` of shape `shape` (layouts allowed); `Err` if the index is taken.
    pub fn parameter(&mut self, index: usize, shape: Shape, name: &str) -> Result<XlaOp> {
        CONTRACT
    }

    /// A constant.
    pub fn constant(&mut self, value: Literal) -> XlaOp {
        CONTRACT
    }

    /// `Iota(shape, iota_dimension)`.
    pub fn iota(&mut self, shape: Shape, iota_dimension: i64) -> Result<XlaOp> {
        CONTRACT
    }

    /// One-operand elementwise op (`Abs`, `Exp`, `Not`, `IsFinite`, ...).
    pub fn unary(&mut self, op: UnaryOp, operand: XlaOp) -> Result<XlaOp> {
        CONTRACT
    }

    /// Two-operand elementwise op, with or without `broadcast_dimensions` (broadcasting.es.md);
    /// broadcasts are made explicit as BroadcastInDim instructions.
    pub fn binary(&mut self, op: BinaryOp, lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Option<&[i64]>) -> Result<XlaOp> {
        CONTRACT
    }

    /// Comparison (`Eq`...`Lt`, or the TotalOrder variants when `total_order`), into pred.
    pub fn compare(&mut self, direction: ComparisonDirection, total_order: bool, lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Option<&[i64]>) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Select(pred, on_true, on_false)`; pred may be a scalar.
    pub fn select(&mut self, pred: XlaOp, on_true: XlaOp, on_false: XlaOp) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Clamp(min, operand, max)`; min and max may be scalars.
    pub fn clamp(&mut self, min: XlaOp, operand: XlaOp, max: XlaOp) -> Result<XlaOp> {
        CONTRACT
    }

    /// `ConvertElementType(operand, new_element_type)`.
    pub fn convert(&mut self, operand: XlaOp, new_element_type: ElementType) -> Result<XlaOp> {
        CONTRACT
    }

    /// `BitcastConvertType(operand, new_element_type)`.
    pub fn bitcast_convert(&mut self, operand: XlaOp, new_element_type: ElementType) -> Result<XlaOp> {
        CONTRACT
    }

    /// `ReducePrecision(operand, exponent_bits, mantissa_bits)`.
    pub fn reduce_precision(&mut self, operand: XlaOp, exponent_bits: i64, mantissa_bits: i64) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Broadcast(operand, broadcast_sizes)`: new dimensions in front.
    pub fn broadcast(&mut self, operand: XlaOp, broadcast_sizes: &[i64]) -> Result<XlaOp> {
        CONTRACT
    }

    /// `BroadcastInDim(operand, out_dim_size, broadcast_dimensions)`.
    pub fn broadcast_in_dim(&mut self, operand: XlaOp, out_dim_size: &[i64], broadcast_dimensions: &[i64]) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Reshape(operand, new_sizes)`; with `dimensions`, the operand is first transposed by them.
    pub fn reshape(&mut self, operand: XlaOp, dimensions: Option<&[i64]>, new_sizes: &[i64]) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Collapse(operand, dimensions)`: consecutive, ordered dimensions merged into one.
    pub fn collapse(&mut self, operand: XlaOp, dimensions: &[i64]) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Transpose(operand, permutation)`.
    pub fn transpose(&mut self, operand: XlaOp, permutation: &[i64]) -> Result<XlaOp> {
        CONTRACT
    }

    /// Variadic `Reduce(operands..., init_values..., computation, dimensions_to_reduce)`.
    pub fn reduce(&mut self, operands: &[XlaOp], init_values: &[XlaOp], computation: &Arc<Computation>, dimensions: &[i64]) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Dot(lhs, rhs)`: vector·vector, matrix·vector, matrix·matrix.
    pub fn dot(&mut self, lhs: XlaOp, rhs: XlaOp, preferred_element_type: Option<ElementType>) -> Result<XlaOp> {
        CONTRACT
    }

    /// `DotGeneral(lhs, rhs, dimension_numbers)`.
    pub fn dot_general(&mut self, lhs: XlaOp, rhs: XlaOp, dimension_numbers: &DotDimensionNumbers, preferred_element_type: Option<ElementType>) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Tuple(elements...)`.
    pub fn tuple(&mut self, elements: &[XlaOp]) -> Result<XlaOp> {
        CONTRACT
    }

    /// `GetTupleElement(tuple, index)`.
    pub fn get_tuple_element(&mut self, tuple: XlaOp, index: i64) -> Result<XlaOp> {
        CONTRACT
    }

    /// `Call(computation, operands...)`.
    pub fn call(&mut self, computation: &Arc<Computation>, operands: &[XlaOp]) -> Result<XlaOp> {
        CONTRACT
    }

    /// Finish with `root` as the result; `Err` if parameter numbers have gaps.
    pub fn build(self, root: XlaOp) -> Result<Computation> {
        CONTRACT
    }
}
