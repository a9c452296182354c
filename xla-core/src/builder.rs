//! The builder: XlaBuilder's API in Rust. Every method runs the op's shape inference first
//! (`crate::infer`), returns `Err` naming the op, the rule and the shapes, and otherwise appends
//! canonical instructions (lowering sugar such as implicit broadcasting, Dot, Collapse).
//! Usable at run time as well as by the macro.

use std::sync::Arc;

use crate::broadcast::BroadcastPlan;
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::infer;
use crate::ir::{
    BinaryOp, ComparisonDirection, ComparisonType, Composite, Computation, DotDimensionNumbers,
    InstrId, Instruction, Op, UnaryOp,
};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

mod collective;
mod control;
mod conv;
mod dims;
mod dynamic;
mod fft;
mod host_io;
mod indexing;
mod linalg;
mod movement;
mod norm;
mod ragged;
mod rng;
mod scaled;
mod scan;
mod sort;
mod window;

pub use norm::expand_batch_norm;
pub use ragged::expand_ragged_dot;
pub use scaled::expand_scaled_dot;
pub use scan::expand_scan;

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
        Builder {
            name: name.into(),
            instrs: Vec::new(),
            params: Vec::new(),
        }
    }

    /// The computation's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of instructions so far.
    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    /// True before the first instruction.
    pub fn is_empty(&self) -> bool {
        self.instrs.is_empty()
    }

    /// The instructions so far, in definition order.
    pub fn instructions(&self) -> &[Instruction] {
        &self.instrs
    }

    /// The inferred shape of `op`. Panics if `op` was made by another builder; see
    /// [`Builder::try_shape`].
    pub fn shape(&self, op: XlaOp) -> &Shape {
        &self.instrs[op.0 .0 as usize].shape
    }

    /// The inferred shape of `op`, or `Err` if `op` is not an instruction of this builder.
    pub fn try_shape(&self, op: XlaOp) -> Result<&Shape> {
        self.instrs
            .get(op.0 .0 as usize)
            .map(|i| &i.shape)
            .ok_or_else(|| {
                Error::new(
                    "Builder",
                    format!(
                        "instruction {} does not belong to computation `{}`",
                        op.0 .0, self.name
                    ),
                )
            })
    }

    /// The element type of `op` if it is an array.
    pub fn element_type(&self, op: XlaOp) -> Option<ElementType> {
        self.try_shape(op)
            .ok()
            .and_then(Shape::as_array)
            .map(|a| a.ty)
    }

    fn push(&mut self, op: Op, operands: Vec<InstrId>, shape: Shape) -> XlaOp {
        let id = InstrId(self.instrs.len() as u32);
        self.instrs.push(Instruction {
            op,
            operands,
            shape,
        });
        XlaOp(id)
    }

    /// Appends `op` on `operands` with a shape its inference gave elsewhere (the padder copies
    /// an instruction of another computation, or gives it its padded shape); only the
    /// operands' membership is checked.
    pub(crate) fn append(&mut self, op: Op, operands: &[XlaOp], shape: Shape) -> Result<XlaOp> {
        self.shape_list(operands)?;
        Ok(self.push(op, operands.iter().map(|o| o.0).collect(), shape))
    }

    /// Operand shapes, checked to belong to this builder.
    fn shapes<const N: usize>(&self, ops: [XlaOp; N]) -> Result<[&Shape; N]> {
        let mut out = [&Shape::Token; N];
        for (o, op) in out.iter_mut().zip(ops) {
            *o = self.try_shape(op)?;
        }
        Ok(out)
    }

    /// The shapes of a list of operands, checked to belong to this builder.
    fn shape_list(&self, ops: &[XlaOp]) -> Result<Vec<&Shape>> {
        ops.iter().map(|&o| self.try_shape(o)).collect()
    }

    /// `BroadcastInDim` `op` to `dims` if a mapping is given (keeping its element type).
    fn broadcast_to(
        &mut self,
        op: XlaOp,
        map: Option<Vec<i64>>,
        dims: &[i64],
        dynamic: &[bool],
    ) -> XlaOp {
        let Some(broadcast_dimensions) = map else {
            return op;
        };
        let ty = self.element_type(op).unwrap_or(ElementType::Pred);
        let shape = ArrayShape {
            ty,
            dims: dims.to_vec(),
            dynamic: dynamic.to_vec(),
            layout: None,
        };
        self.push(
            Op::BroadcastInDim {
                broadcast_dimensions,
            },
            vec![op.0],
            Shape::Array(shape),
        )
    }

    /// Emit the broadcasts of a two-operand plan, then the op itself.
    fn emit_binary(
        &mut self,
        op: Op,
        lhs: XlaOp,
        rhs: XlaOp,
        plan: BroadcastPlan,
        shape: ArrayShape,
    ) -> XlaOp {
        let BroadcastPlan {
            dims,
            dynamic,
            operands,
        } = plan;
        let mut maps = operands.into_iter();
        let l = self.broadcast_to(lhs, maps.next().flatten(), &dims, &dynamic);
        let r = self.broadcast_to(rhs, maps.next().flatten(), &dims, &dynamic);
        self.push(op, vec![l.0, r.0], Shape::Array(shape))
    }

    /// Parameter `index` of shape `shape` (layouts allowed); `Err` if the index is taken.
    pub fn parameter(&mut self, index: usize, shape: Shape, name: &str) -> Result<XlaOp> {
        shape.validate().map_err(|e| {
            Error::new("Parameter", format!("`{name}`: {}", e.message)).blame(Blame::Result)
        })?;
        if self.params.get(index).is_some_and(Option::is_some) {
            return Err(Error::new(
                "Parameter",
                format!(
                    "parameter number {index} (`{name}`) is already taken in `{}`",
                    self.name
                ),
            )
            .blame(Blame::Result));
        }
        if self.params.len() <= index {
            self.params.resize(index + 1, None);
        }
        self.params[index] = Some(shape.clone());
        Ok(self.push(
            Op::Parameter {
                index,
                name: name.to_string(),
            },
            vec![],
            shape,
        ))
    }

    /// A constant.
    pub fn constant(&mut self, value: Literal) -> XlaOp {
        let shape = value.shape();
        self.push(Op::Constant(value), vec![], shape)
    }

    /// A constant, checked first: `Err` if an array's data do not match its shape (length or
    /// element type) or the shape is invalid.
    pub fn try_constant(&mut self, value: Literal) -> Result<XlaOp> {
        fn check(l: &Literal) -> Result<()> {
            match l {
                Literal::Array { shape, data } => {
                    shape
                        .validate()
                        .map_err(|e| Error::new("Constant", e.message))?;
                    if data.element_type() != shape.ty || data.len() as i64 != shape.element_count()
                    {
                        return Err(Error::new(
                            "Constant",
                            format!(
                                "{} {} elements given for shape {shape}",
                                data.len(),
                                data.element_type()
                            ),
                        ));
                    }
                    Ok(())
                }
                Literal::Tuple(elems) => elems.iter().try_for_each(check),
                Literal::Token => Ok(()),
            }
        }
        check(&value)?;
        Ok(self.constant(value))
    }

    /// `Iota(shape, iota_dimension)`.
    pub fn iota(&mut self, shape: Shape, iota_dimension: i64) -> Result<XlaOp> {
        let out = infer::iota(&shape, iota_dimension)?;
        Ok(self.push(
            Op::Iota {
                dimension: iota_dimension as usize,
            },
            vec![],
            Shape::Array(out),
        ))
    }

    /// One-operand elementwise op (`Abs`, `Exp`, `Not`, `IsFinite`, ...).
    pub fn unary(&mut self, op: UnaryOp, operand: XlaOp) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::unary(op, s)?;
        Ok(self.push(Op::Unary(op), vec![operand.0], Shape::Array(out)))
    }

    /// Two-operand elementwise op, with or without `broadcast_dimensions` (broadcasting.es.md);
    /// broadcasts are made explicit as BroadcastInDim instructions.
    pub fn binary(
        &mut self,
        op: BinaryOp,
        lhs: XlaOp,
        rhs: XlaOp,
        broadcast_dimensions: Option<&[i64]>,
    ) -> Result<XlaOp> {
        let [l, r] = self.shapes([lhs, rhs])?;
        let plan = infer::binary_op(op, l, r, broadcast_dimensions)?;
        Ok(self.emit_binary(Op::Binary(op), lhs, rhs, plan.broadcast, plan.shape))
    }

    /// Comparison (`Eq`...`Lt`, or the TotalOrder variants when `total_order`), into pred.
    pub fn compare(
        &mut self,
        direction: ComparisonDirection,
        total_order: bool,
        lhs: XlaOp,
        rhs: XlaOp,
        broadcast_dimensions: Option<&[i64]>,
    ) -> Result<XlaOp> {
        let [l, r] = self.shapes([lhs, rhs])?;
        let plan = infer::compare(direction, total_order, l, r, broadcast_dimensions)?;
        Ok(self.emit_binary(
            Op::Compare {
                direction,
                total_order,
            },
            lhs,
            rhs,
            plan.broadcast,
            plan.shape,
        ))
    }

    /// `Compare(lhs, rhs, direction, comparison_type)`: the comparison type must fit the
    /// operands (FLOAT or TOTALORDER for floats, FLOAT for complex, SIGNED for signed integers,
    /// UNSIGNED for unsigned integers and pred); `None` is the operands' default. Only
    /// TOTALORDER (floats) differs from [`compare`](Self::compare) with `total_order = false`.
    pub fn compare_with_type(
        &mut self,
        direction: ComparisonDirection,
        comparison_type: Option<ComparisonType>,
        lhs: XlaOp,
        rhs: XlaOp,
        broadcast_dimensions: Option<&[i64]>,
    ) -> Result<XlaOp> {
        let [l, r] = self.shapes([lhs, rhs])?;
        let plan = infer::elementwise::compare_with_type(
            direction,
            comparison_type,
            l,
            r,
            broadcast_dimensions,
        )?;
        let total_order = match comparison_type {
            Some(ComparisonType::TotalOrder) => true,
            Some(ComparisonType::Float | ComparisonType::Signed | ComparisonType::Unsigned)
            | None => false,
        };
        Ok(self.emit_binary(
            Op::Compare {
                direction,
                total_order,
            },
            lhs,
            rhs,
            plan.broadcast,
            plan.shape,
        ))
    }

    /// `Select(pred, on_true, on_false)`; pred may be a scalar.
    pub fn select(&mut self, pred: XlaOp, on_true: XlaOp, on_false: XlaOp) -> Result<XlaOp> {
        let [p, t, f] = self.shapes([pred, on_true, on_false])?;
        let out = infer::select(p, t, f)?;
        // A scalar pred over arrays is broadcast; over tuples it stays scalar (nothing to match).
        let scalar_pred = p.as_array().is_some_and(ArrayShape::is_scalar);
        let pred = match &out {
            Shape::Array(a) if scalar_pred && !a.is_scalar() => {
                self.broadcast_to(pred, Some(Vec::new()), &a.dims, &a.dynamic)
            }
            Shape::Array(_) | Shape::Tuple(_) | Shape::Token => pred,
        };
        Ok(self.push(Op::Select, vec![pred.0, on_true.0, on_false.0], out))
    }

    /// `Clamp(min, operand, max)`; min and max may be scalars.
    pub fn clamp(&mut self, min: XlaOp, operand: XlaOp, max: XlaOp) -> Result<XlaOp> {
        let [lo, x, hi] = self.shapes([min, operand, max])?;
        let out = infer::clamp(lo, x, hi)?;
        let map = |s: &Shape| {
            s.as_array()
                .filter(|a| a.is_scalar() && !out.is_scalar())
                .map(|_| Vec::new())
        };
        let (lo_map, hi_map) = (map(lo), map(hi));
        let min = self.broadcast_to(min, lo_map, &out.dims, &out.dynamic);
        let max = self.broadcast_to(max, hi_map, &out.dims, &out.dynamic);
        Ok(self.push(Op::Clamp, vec![min.0, operand.0, max.0], Shape::Array(out)))
    }

    /// `ConvertElementType(operand, new_element_type)`.
    pub fn convert(&mut self, operand: XlaOp, new_element_type: ElementType) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::convert(s, new_element_type)?;
        Ok(self.push(Op::ConvertElementType, vec![operand.0], Shape::Array(out)))
    }

    /// `BitcastConvertType(operand, new_element_type)`.
    pub fn bitcast_convert(
        &mut self,
        operand: XlaOp,
        new_element_type: ElementType,
    ) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::bitcast_convert(s, new_element_type)?;
        Ok(self.push(Op::BitcastConvertType, vec![operand.0], Shape::Array(out)))
    }

    /// `ReducePrecision(operand, exponent_bits, mantissa_bits)`.
    pub fn reduce_precision(
        &mut self,
        operand: XlaOp,
        exponent_bits: i64,
        mantissa_bits: i64,
    ) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::reduce_precision(s, exponent_bits, mantissa_bits)?;
        // infer checked both fit in u32.
        let op = Op::ReducePrecision {
            exponent_bits: exponent_bits as u32,
            mantissa_bits: mantissa_bits as u32,
        };
        Ok(self.push(op, vec![operand.0], Shape::Array(out)))
    }

    /// `Broadcast(operand, broadcast_sizes)`: new dimensions in front.
    pub fn broadcast(&mut self, operand: XlaOp, broadcast_sizes: &[i64]) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let (out, broadcast_dimensions) = infer::broadcast(s, broadcast_sizes)?;
        Ok(self.push(
            Op::BroadcastInDim {
                broadcast_dimensions,
            },
            vec![operand.0],
            Shape::Array(out),
        ))
    }

    /// `BroadcastInDim(operand, out_dim_size, broadcast_dimensions)`.
    pub fn broadcast_in_dim(
        &mut self,
        operand: XlaOp,
        out_dim_size: &[i64],
        broadcast_dimensions: &[i64],
    ) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::broadcast_in_dim(s, out_dim_size, broadcast_dimensions)?;
        let op = Op::BroadcastInDim {
            broadcast_dimensions: broadcast_dimensions.to_vec(),
        };
        Ok(self.push(op, vec![operand.0], Shape::Array(out)))
    }

    /// `Reshape(operand, new_sizes)`; with `dimensions`, the operand is first transposed by them.
    pub fn reshape(
        &mut self,
        operand: XlaOp,
        dimensions: Option<&[i64]>,
        new_sizes: &[i64],
    ) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let mut source = operand;
        let mut shape = s.clone();
        if let Some(perm) = dimensions {
            let t = infer::shape_ops::transpose_named("Reshape", "dimensions", s, perm)?;
            infer::reshape(&Shape::Array(t.clone()), new_sizes)?;
            let identity = perm.iter().copied().eq(0..perm.len() as i64);
            if !identity {
                shape = Shape::Array(t.clone());
                source = self.push(
                    Op::Transpose {
                        permutation: perm.to_vec(),
                    },
                    vec![operand.0],
                    shape.clone(),
                );
            }
        }
        let out = infer::reshape(&shape, new_sizes)?;
        Ok(self.push(Op::Reshape, vec![source.0], Shape::Array(out)))
    }

    /// `Collapse(operand, dimensions)`: consecutive, ordered dimensions merged into one.
    pub fn collapse(&mut self, operand: XlaOp, dimensions: &[i64]) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::collapse(s, dimensions)?;
        if dimensions.len() <= 1 {
            // Nothing merges: XLA's Collapse returns its operand.
            return Ok(operand);
        }
        Ok(self.push(Op::Reshape, vec![operand.0], Shape::Array(out)))
    }

    /// `Transpose(operand, permutation)`.
    pub fn transpose(&mut self, operand: XlaOp, permutation: &[i64]) -> Result<XlaOp> {
        let [s] = self.shapes([operand])?;
        let out = infer::transpose(s, permutation)?;
        Ok(self.push(
            Op::Transpose {
                permutation: permutation.to_vec(),
            },
            vec![operand.0],
            Shape::Array(out),
        ))
    }

    /// Variadic `Reduce(operands..., init_values..., computation, dimensions_to_reduce)`.
    pub fn reduce(
        &mut self,
        operands: &[XlaOp],
        init_values: &[XlaOp],
        computation: &Arc<Computation>,
        dimensions: &[i64],
    ) -> Result<XlaOp> {
        let ops = self.shape_list(operands)?;
        let inits = self.shape_list(init_values)?;
        let out = infer::reduce(&ops, &inits, computation, dimensions)?;
        let ids = operands.iter().chain(init_values).map(|o| o.0).collect();
        let op = Op::Reduce {
            dimensions: dimensions.to_vec(),
            computation: Arc::clone(computation),
        };
        Ok(self.push(op, ids, out))
    }

    /// `Dot(lhs, rhs)`: vector·vector, matrix·vector, matrix·matrix.
    pub fn dot(
        &mut self,
        lhs: XlaOp,
        rhs: XlaOp,
        preferred_element_type: Option<ElementType>,
    ) -> Result<XlaOp> {
        let [l, r] = self.shapes([lhs, rhs])?;
        let (dimension_numbers, out) = infer::dot(l, r, preferred_element_type)?;
        let op = Op::DotGeneral {
            dimension_numbers,
            preferred_element_type,
        };
        Ok(self.push(op, vec![lhs.0, rhs.0], Shape::Array(out)))
    }

    /// `DotGeneral(lhs, rhs, dimension_numbers)`.
    pub fn dot_general(
        &mut self,
        lhs: XlaOp,
        rhs: XlaOp,
        dimension_numbers: &DotDimensionNumbers,
        preferred_element_type: Option<ElementType>,
    ) -> Result<XlaOp> {
        let [l, r] = self.shapes([lhs, rhs])?;
        let out = infer::dot_general(l, r, dimension_numbers, preferred_element_type)?;
        let op = Op::DotGeneral {
            dimension_numbers: dimension_numbers.clone(),
            preferred_element_type,
        };
        Ok(self.push(op, vec![lhs.0, rhs.0], Shape::Array(out)))
    }

    /// `Tuple(elements...)`.
    pub fn tuple(&mut self, elements: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shape_list(elements)?;
        let out = infer::tuple(&shapes);
        Ok(self.push(Op::Tuple, elements.iter().map(|o| o.0).collect(), out))
    }

    /// `OptimizationBarrier(operands...)`: the operands (one: itself; several: their tuple).
    pub fn optimization_barrier(&mut self, operands: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::optimization_barrier(&shapes);
        Ok(self.push(
            Op::OptimizationBarrier,
            operands.iter().map(|o| o.0).collect(),
            out,
        ))
    }

    /// `CustomCall(operands..., call_target_name, shape)`: a call of `target` (a Rust path)
    /// whose result has the declared `shape`.
    pub fn custom_call(
        &mut self,
        target: &str,
        operands: &[XlaOp],
        shape: &Shape,
        opaque: &str,
        has_side_effect: bool,
    ) -> Result<XlaOp> {
        self.shape_list(operands)?;
        let out = infer::custom_call(target, shape)?;
        let op = Op::CustomCall {
            target: target.to_string(),
            opaque: opaque.to_string(),
            has_side_effect,
        };
        Ok(self.push(op, operands.iter().map(|o| o.0).collect(), out))
    }

    /// `AfterAll(tokens...)`: a token after every operand token.
    pub fn after_all(&mut self, tokens: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shape_list(tokens)?;
        let out = infer::after_all(&shapes)?;
        Ok(self.push(Op::AfterAll, tokens.iter().map(|o| o.0).collect(), out))
    }

    /// `GetTupleElement(tuple, index)`.
    pub fn get_tuple_element(&mut self, tuple: XlaOp, index: i64) -> Result<XlaOp> {
        let [s] = self.shapes([tuple])?;
        let out = infer::get_tuple_element(s, index)?;
        Ok(self.push(
            Op::GetTupleElement {
                index: index as usize,
            },
            vec![tuple.0],
            out,
        ))
    }

    /// `Map(operands..., computation, dimensions)`: `out[i] = computation(operands[0][i], ...)`
    /// at every index `i`; `dimensions` is every dimension in order.
    pub fn map(
        &mut self,
        operands: &[XlaOp],
        computation: &Arc<Computation>,
        dimensions: &[i64],
    ) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::map(&shapes, computation, dimensions)?;
        let op = Op::Map {
            dimensions: dimensions.to_vec(),
            computation: Arc::clone(computation),
        };
        Ok(self.push(op, operands.iter().map(|o| o.0).collect(), out))
    }

    /// `Call(computation, operands...)`.
    pub fn call(&mut self, computation: &Arc<Computation>, operands: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::call(computation, &shapes)?;
        let op = Op::Call {
            computation: Arc::clone(computation),
            composite: None,
        };
        Ok(self.push(op, operands.iter().map(|o| o.0).collect(), out))
    }

    /// `CompositeCall(decomposition, operands..., name, attributes, version)`: a call of the
    /// decomposition that carries the composite's name, attributes (`{...}` or empty) and
    /// version.
    pub fn composite_call(
        &mut self,
        decomposition: &Arc<Computation>,
        operands: &[XlaOp],
        composite: Composite,
    ) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::composite_call(&composite, decomposition, &shapes)?;
        let op = Op::Call {
            computation: Arc::clone(decomposition),
            composite: Some(Box::new(composite)),
        };
        Ok(self.push(op, operands.iter().map(|o| o.0).collect(), out))
    }

    /// Finish with `root` as the result; `Err` if parameter numbers have gaps or `root` is not an
    /// instruction of this builder.
    pub fn build(self, root: XlaOp) -> Result<Computation> {
        self.try_shape(root)?;
        let mut params = Vec::with_capacity(self.params.len());
        for (i, p) in self.params.into_iter().enumerate() {
            match p {
                Some(s) => params.push(s),
                None => {
                    return Err(Error::new(
                        "Parameter",
                        format!(
                            "parameter numbers of `{}` have a gap: parameter {i} is missing",
                            self.name
                        ),
                    ))
                }
            }
        }
        Ok(Computation {
            name: self.name,
            params,
            instrs: self.instrs,
            root: root.0,
        })
    }
}

#[cfg(test)]
mod tests;
