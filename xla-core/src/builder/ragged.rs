//! RaggedDot on the builder and its expansion into primitive ops ([`expand_ragged_dot`]), the
//! one definition of its arithmetic, which the evaluator runs, the macro inlines and the
//! StableHLO export writes (XLA:CPU has no ragged-dot emitter; JAX lowers
//! `jax.lax.ragged_dot` on CPU to the same mask and dot).

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::Result;
use crate::infer;
use crate::ir::{BinaryOp, ComparisonDirection, Computation, DotDimensionNumbers, Op};
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape};

impl Builder {
    /// `RaggedDot(lhs[m, k], rhs[g, k, n], group_sizes[g])`: `out[i, :] = lhs[i, :] · rhs[j]`
    /// for the group `j` whose rows `[sum(gs[..j]), sum(gs[..=j]))` hold `i`; rows past
    /// `sum(gs)` are zero.
    pub fn ragged_dot(&mut self, lhs: XlaOp, rhs: XlaOp, group_sizes: XlaOp) -> Result<XlaOp> {
        let [l, r, g] = self.shapes([lhs, rhs, group_sizes])?;
        let out = infer::ragged_dot(l, r, g)?;
        let ids = vec![lhs.0, rhs.0, group_sizes.0];
        Ok(self.push(Op::RaggedDot, ids, Shape::Array(out)))
    }
}

/// The computation RaggedDot stands for on operands of `shapes` (lhs, rhs, group_sizes), as
/// JAX's CPU lowering writes it: group bounds `end = cumsum(gs)`, `start = end - gs` (in s64,
/// so no row index wraps), `lhs` broadcast to `[g, m, k]` and zeroed outside each group's
/// rows, then one DotGeneral contracting `(g, k)` with rhs's `(g, k)`: each row sums its own
/// group's `k` products (the other groups add exact zeros). `Err` when the shapes break a rule
/// of [`infer::ragged_dot`].
pub fn expand_ragged_dot(shapes: &[&Shape]) -> Result<Computation> {
    let op = "RaggedDot";
    let [l, r, gs] = shapes else {
        return Err(crate::error::Error::new(
            op,
            format!(
                "takes (lhs, rhs, group_sizes), got {} operands",
                shapes.len()
            ),
        ));
    };
    let out = infer::ragged_dot(l, r, gs)?;
    let (m, k, g) = (
        out.dims[0],
        l.as_array().map_or(0, |a| a.dims[1]),
        gs.as_array().map_or(0, |a| a.dims[0]),
    );
    let mut b = Builder::new(op);
    let lhs = b.parameter(0, (*l).clone(), "lhs")?;
    let rhs = b.parameter(1, (*r).clone(), "rhs")?;
    let sizes = b.parameter(2, (*gs).clone(), "group_sizes")?;
    let t = ElementType::S64;
    let sizes = b.convert(sizes, t)?;
    let end = cumsum(&mut b, sizes, g)?;
    let start = b.binary(BinaryOp::Sub, end, sizes, None)?;
    let gmk = [g, m, k];
    let row = b.iota(Shape::Array(ArrayShape::new(t, &gmk)), 1)?;
    let start = b.broadcast_in_dim(start, &gmk, &[0])?;
    let end = b.broadcast_in_dim(end, &gmk, &[0])?;
    let after = b.compare(ComparisonDirection::Le, false, start, row, None)?;
    let before = b.compare(ComparisonDirection::Lt, false, row, end, None)?;
    let inside = b.binary(BinaryOp::And, after, before, None)?;
    let x = b.broadcast_in_dim(lhs, &gmk, &[1, 2])?;
    let zero = splat_zero(&mut b, out.ty, &gmk)?;
    let x = b.select(inside, x, zero)?;
    let dn = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![0, 2],
        rhs_contracting_dimensions: vec![0, 1],
        lhs_batch_dimensions: vec![],
        rhs_batch_dimensions: vec![],
    };
    let root = b.dot_general(x, rhs, &dn, None)?;
    b.build(root)
}

/// Zero of `ty` broadcast to `dims`.
fn splat_zero(b: &mut Builder, ty: ElementType, dims: &[i64]) -> Result<XlaOp> {
    let z = b.constant(Literal::zeros(&ArrayShape::new(ty, &[])));
    b.broadcast_in_dim(z, dims, &[])
}

/// Inclusive prefix sums of the s64 vector `v[g]`: `out[j] = sum(v[i] for i <= j)`, as a
/// masked `[j, i]` matrix reduced over `i` (integers: the order of the sum is immaterial).
fn cumsum(b: &mut Builder, v: XlaOp, g: i64) -> Result<XlaOp> {
    let t = ElementType::S64;
    let gg = [g, g];
    let rows = b.broadcast_in_dim(v, &gg, &[1])?;
    let j = b.iota(Shape::Array(ArrayShape::new(t, &gg)), 0)?;
    let i = b.iota(Shape::Array(ArrayShape::new(t, &gg)), 1)?;
    let upto = b.compare(ComparisonDirection::Le, false, i, j, None)?;
    let zero = splat_zero(b, t, &gg)?;
    let terms = b.select(upto, rows, zero)?;
    let init = b.constant(Literal::zeros(&ArrayShape::new(t, &[])));
    let add = Arc::new(add_s64()?);
    b.reduce(&[terms], &[init], &add, &[1])
}

/// `(a: s64[], b: s64[]) -> a + b`.
fn add_s64() -> Result<Computation> {
    let mut b = Builder::new("add");
    let x = b.parameter(0, Shape::scalar(ElementType::S64), "a")?;
    let y = b.parameter(1, Shape::scalar(ElementType::S64), "b")?;
    let s = b.binary(BinaryOp::Add, x, y, None)?;
    b.build(s)
}
