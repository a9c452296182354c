//! Cholesky and TriangularSolve (XLA's `InferCholeskyShape` and `InferTriangularSolveShape`).
//!
//! `Cholesky(a, lower)`: `a` is a floating-point or complex array of rank >= 2 whose two minor
//! dimensions are equal (a batch of square matrices); the result has `a`'s shape.
//!
//! `TriangularSolve(a, b, left_side, lower, unit_diagonal, transpose_a)`: `a` and `b` are
//! floating-point or complex arrays of one element type and one rank >= 2, `a` a batch of square
//! `[..., m, m]` matrices, `b` `[..., m, k]` (`left_side`) or `[..., k, m]`, the leading (batch)
//! dimensions equal; the result has `b`'s shape.

use super::expect_array;
use crate::error::{Blame, Error, Result};
use crate::ir::TransposeA;
use crate::shape::{ArrayShape, Shape};

#[cfg(test)]
mod tests;

/// `a`: a floating-point or complex array of rank >= 2 whose two minor dimensions are equal.
/// `what` names it in messages (`the operand` / `a`), `shapes` lists every operand.
fn square_matrices<'a>(op: &str, shape: &'a Shape, shapes: &str) -> Result<&'a ArrayShape> {
    let a = expect_array(op, "`a`", shape, Blame::Operand(0))?;
    let fail =
        |rule: String| Err(Error::new(op, format!("{rule} ({shapes})")).blame(Blame::Operand(0)));
    if !a.ty.is_float_or_complex() {
        return fail(format!(
            "`a` must have a floating-point or complex element type, got {}",
            a.ty
        ));
    }
    if a.rank() < 2 {
        return fail(format!(
            "`a` must have rank >= 2 (a matrix or a batch of them), got rank {}",
            a.rank()
        ));
    }
    let (m, n) = (a.dims[a.rank() - 2], a.dims[a.rank() - 1]);
    if m != n {
        return fail(format!(
            "the two minor dimensions of `a` must be equal (square matrices), got {m} x {n}"
        ));
    }
    Ok(a)
}

/// The result of `Cholesky(a, lower)`: `a`'s shape. `Err` unless `a` is a floating-point or
/// complex batch of square matrices (rank >= 2, minor dims equal). `lower` does not change it.
pub fn cholesky(a: &Shape, lower: bool) -> Result<Shape> {
    let _ = lower;
    let x = square_matrices("Cholesky", a, &format!("a {a}"))?;
    Ok(Shape::Array(x.with_type(x.ty)))
}

/// The result of `TriangularSolve(a, b, left_side, ..)`: `b`'s shape. `Err` unless `a` is a
/// floating-point or complex batch of square `[..., m, m]` matrices, `b` an array of `a`'s
/// element type and rank, its leading dims `a`'s, and its dim `-2` (`left_side`) or `-1` equal
/// to `m`. `lower`, `unit_diagonal` and `transpose_a` do not change the shape.
pub fn triangular_solve(
    a: &Shape,
    b: &Shape,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: TransposeA,
) -> Result<Shape> {
    let op = "TriangularSolve";
    let _ = (lower, unit_diagonal, transpose_a);
    let shapes = format!("a {a}, b {b}");
    let x = square_matrices(op, a, &shapes)?;
    let y = expect_array(op, "`b`", b, Blame::Operand(1))?;
    let fail =
        |rule: String| Err(Error::new(op, format!("{rule} ({shapes})")).blame(Blame::Operand(1)));
    if y.ty != x.ty {
        return fail(format!(
            "`b` must have `a`'s element type {}, got {}",
            x.ty, y.ty
        ));
    }
    if y.rank() != x.rank() {
        return fail(format!(
            "`a` and `b` must have equal rank, got {} and {}",
            x.rank(),
            y.rank()
        ));
    }
    let r = x.rank();
    if x.dims[..r - 2] != y.dims[..r - 2] {
        return fail(format!(
            "the leading (batch) dimensions of `a` and `b` must be equal, got {:?} and {:?}",
            &x.dims[..r - 2],
            &y.dims[..r - 2]
        ));
    }
    let m = x.dims[r - 1];
    let (dim, side) = if left_side {
        (
            r - 2,
            "`op(a) x = b` (left_side = true): `b` is [..., m, k]",
        )
    } else {
        (
            r - 1,
            "`x op(a) = b` (left_side = false): `b` is [..., k, m]",
        )
    };
    if y.dims[dim] != m {
        return fail(format!(
            "dimension {dim} of `b` (size {}) must equal `a`'s size m = {m}, as {side}",
            y.dims[dim]
        ));
    }
    Ok(Shape::Array(y.with_type(y.ty)))
}
