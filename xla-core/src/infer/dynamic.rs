//! DynamicSlice and DynamicUpdateSlice (XLA's `InferDynamicSliceShape` and
//! `InferDynamicUpdateSliceShape`, with scalar start indices as StableHLO has them).
//!
//! `DynamicSlice(operand, starts..., slice_sizes)`: one scalar start per operand dimension, all
//! of one integer type; the result is `operand.ty[slice_sizes]`.
//!
//! `DynamicUpdateSlice(operand, update, starts...)`: the same starts; `update` has the operand's
//! rank and element type and fits in it; the result is the operand's shape.
//!
//! XLA's rules in XLA's order, with one stricter rule from the specification: every slice size
//! and update dimension is at least 1 (XLA also takes 0, an empty slice).

use super::{expect_array, list};
use crate::error::{count, Blame, Error, Result};
use crate::shape::{ArrayShape, Shape};

#[cfg(test)]
mod tests;

/// The op being checked and the shapes every message names.
struct Cx {
    op: &'static str,
    shapes: String,
}

impl Cx {
    fn new(op: &'static str, operands: &[(&str, &Shape)], starts: &[&Shape]) -> Cx {
        let mut parts: Vec<String> = operands.iter().map(|(n, s)| format!("{n} {s}")).collect();
        let starts: Vec<String> = starts.iter().map(|s| s.to_string()).collect();
        parts.push(format!("starts ({})", starts.join(", ")));
        Cx {
            op,
            shapes: parts.join(", "),
        }
    }

    /// An error naming the op, the rule and the shapes, blamed on `blame`.
    fn on(&self, blame: Blame, rule: String) -> Error {
        Error::new(self.op, format!("{rule} ({})", self.shapes)).blame(blame)
    }

    /// The starts (operands `first..`): one per dimension of the rank-`rank` operand, each a
    /// scalar of an integer type, all of the same type.
    fn starts(&self, starts: &[&Shape], rank: usize, first: usize) -> Result<()> {
        if starts.len() != rank {
            return Err(self
                .on(
                    Blame::Op,
                    format!(
                        "{} given for a rank-{rank} operand: one scalar start per operand \
                         dimension is required",
                        count(starts.len(), "start index", "start indices")
                    ),
                )
                .help(format!(
                    "write {} scalar start{} after the operand{}",
                    rank,
                    if rank == 1 { "" } else { "s" },
                    if first == 2 { " and the update" } else { "" }
                )));
        }
        let mut first_ty = None;
        for (i, s) in starts.iter().enumerate() {
            let blame = Blame::Operand(first + i);
            let a = expect_array(self.op, &format!("start index {i}"), s, blame.clone())?;
            if !a.is_scalar() {
                return Err(self
                    .on(
                        blame.clone(),
                        format!("start index {i} must be a scalar, got {a}"),
                    )
                    .help("pass one scalar start per operand dimension"));
            }
            if !a.ty.is_integral() {
                return Err(self.on(
                    blame.clone(),
                    format!("start index {i} must have an integer element type, got {a}"),
                ));
            }
            match first_ty {
                None => first_ty = Some(a.ty),
                Some(t) if t != a.ty => {
                    return Err(self.on(
                        blame.clone(),
                        format!(
                            "start index {i} is {a} but start index 0 is {t}[]: all start \
                             indices must have the same type"
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Extent `n` (called `what[d]`, of attribute or operand `blame`) of a slice of operand
    /// dimension `d`: `1 <= n <= operand.dims[d]`.
    fn extent(
        &self,
        blame: Blame,
        what: &str,
        d: usize,
        n: i64,
        operand: &ArrayShape,
    ) -> Result<()> {
        if n < 1 {
            return Err(self.on(blame, format!("{what}[{d}] = {n} must be at least 1")));
        }
        let size = operand.dims[d];
        if n > size {
            return Err(self.on(
                blame,
                format!("{what}[{d}] = {n} is larger than dimension {d} of the operand ({size})"),
            ));
        }
        Ok(())
    }
}

/// `DynamicSlice(operand, starts..., slice_sizes)`: `operand.ty[slice_sizes]`; one scalar
/// integer start per operand dimension (one type for all), `1 <= slice_sizes[d] <= dims[d]`.
/// A dynamic dimension stays dynamic when the slice takes its whole bound.
pub fn dynamic_slice(operand: &Shape, starts: &[&Shape], slice_sizes: &[i64]) -> Result<Shape> {
    let cx = Cx::new("DynamicSlice", &[("operand", operand)], starts);
    let a = expect_array(cx.op, "the operand", operand, Blame::Operand(0))?;
    cx.starts(starts, a.rank(), 1)?;
    let attr = Blame::Attribute("slice_sizes");
    if slice_sizes.len() != a.rank() {
        return Err(cx.on(
            attr,
            format!(
                "slice_sizes {} has {} but the operand has rank {}",
                list(slice_sizes),
                count(slice_sizes.len(), "entry", "entries"),
                a.rank()
            ),
        ));
    }
    let mut out = a.with_type(a.ty);
    for (d, &n) in slice_sizes.iter().enumerate() {
        cx.extent(attr.clone(), "slice_sizes", d, n, a)?;
        out.dims[d] = n;
        out.dynamic[d] = a.dynamic[d] && n == a.dims[d];
    }
    Ok(Shape::Array(out))
}

/// `DynamicUpdateSlice(operand, update, starts...)`: the operand's shape; `update` of the
/// operand's rank and element type with `1 <= update.dims[d] <= operand.dims[d]`, one scalar
/// integer start per operand dimension (one type for all).
pub fn dynamic_update_slice(operand: &Shape, update: &Shape, starts: &[&Shape]) -> Result<Shape> {
    let cx = Cx::new(
        "DynamicUpdateSlice",
        &[("operand", operand), ("update", update)],
        starts,
    );
    let a = expect_array(cx.op, "the operand", operand, Blame::Operand(0))?;
    let u = expect_array(cx.op, "the update", update, Blame::Operand(1))?;
    cx.starts(starts, a.rank(), 2)?;
    if u.rank() != a.rank() {
        return Err(cx.on(
            Blame::Operand(1),
            format!(
                "the update has rank {} but the operand has rank {}: they must be equal",
                u.rank(),
                a.rank()
            ),
        ));
    }
    if u.ty != a.ty {
        return Err(cx
            .on(
                Blame::Operand(1),
                format!(
                    "the update's element type {} differs from the operand's {}",
                    u.ty, a.ty
                ),
            )
            .help(format!("convert the update to {}", a.ty)));
    }
    for (d, &n) in u.dims.iter().enumerate() {
        cx.extent(Blame::Operand(1), "update dims", d, n, a)?;
    }
    Ok(Shape::Array(a.with_type(a.ty)))
}
