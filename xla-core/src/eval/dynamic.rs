//! DynamicSlice and DynamicUpdateSlice (StableHLO's `evalDynamicSliceOp` and
//! `evalDynamicUpdateSliceOp`): each start is clamped into `[0, dim - size]` (XLA's rule, so the
//! slice always lies inside the operand), then the slice is an affine box of the operand: read
//! (`out[i] = operand[s + i]`) or overwritten (`out[s + i] = update[i]`).
//!
//! The shapes are first checked by the op's shape inference, so a malformed IR gives an `Err`
//! and the index arithmetic below stays in range.

use super::indexing::index_values;
use super::movement::{affine_offsets, checked_out, gather};
use super::{array, dims_usize, row_major_strides, Ctx};
use crate::error::Result;
use crate::infer;
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::shape::Shape;
use crate::with_array_data;

/// The clamped starts: `clamp(start[d], 0, dims[d] - sizes[d])` for each scalar start literal.
fn clamped_starts(
    ctx: &Ctx<'_>,
    starts: &[&Literal],
    dims: &[usize],
    sizes: &[usize],
) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(starts.len());
    for ((s, &dim), &size) in starts.iter().zip(dims).zip(sizes) {
        let (_, data) = array(ctx, s)?;
        let v = index_values(ctx, data)?;
        let &[v] = &v[..] else {
            return Err(ctx.err(format!("a start holds {} values, not 1", v.len())));
        };
        // Inference checked 1 <= size <= dim.
        let hi = (dim - size) as i128;
        out.push(v.clamp(0, hi) as usize);
    }
    Ok(out)
}

/// The row-major offsets in an operand of `dims` of the box of `sizes` at `starts`.
fn box_offsets(dims: &[usize], starts: &[usize], sizes: &[usize]) -> Vec<usize> {
    let strides = row_major_strides(dims);
    let base = starts.iter().zip(&strides).map(|(s, st)| s * st).sum();
    let steps: Vec<isize> = strides.iter().map(|&s| s as isize).collect();
    affine_offsets(sizes, base, &steps)
}

/// `DynamicSlice`: `out[i] = operand[clamp(start) + i]`.
pub(super) fn dynamic_slice(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    slice_sizes: &[i64],
) -> Result<Literal> {
    let Some((&operand, starts)) = operands.split_first() else {
        return Err(ctx.err("takes an operand and its starts"));
    };
    let (shape, data) = array(ctx, operand)?;
    let start_shapes: Vec<Shape> = starts.iter().map(|s| s.shape()).collect();
    let refs: Vec<&Shape> = start_shapes.iter().collect();
    let inferred = infer::dynamic_slice(&Shape::Array(shape.clone()), &refs, slice_sizes);
    let out = checked_out(ctx, inferred)?;
    let dims = dims_usize(ctx, &shape.dims)?;
    let sizes = dims_usize(ctx, slice_sizes)?;
    let s = clamped_starts(ctx, starts, &dims, &sizes)?;
    Ok(Literal::Array {
        shape: out.with_type(shape.ty),
        data: gather(data, &box_offsets(&dims, &s, &sizes)),
    })
}

/// `DynamicUpdateSlice`: the operand with `out[clamp(start) + i] = update[i]`.
pub(super) fn dynamic_update_slice(ctx: &Ctx<'_>, operands: &[&Literal]) -> Result<Literal> {
    let [operand, update, starts @ ..] = operands else {
        return Err(ctx.err("takes an operand, an update and its starts"));
    };
    let (shape, data) = array(ctx, operand)?;
    let (ushape, udata) = array(ctx, update)?;
    let start_shapes: Vec<Shape> = starts.iter().map(|s| s.shape()).collect();
    let refs: Vec<&Shape> = start_shapes.iter().collect();
    let inferred = infer::dynamic_update_slice(
        &Shape::Array(shape.clone()),
        &Shape::Array(ushape.clone()),
        &refs,
    );
    let out = checked_out(ctx, inferred)?;
    let dims = dims_usize(ctx, &shape.dims)?;
    let sizes = dims_usize(ctx, &ushape.dims)?;
    let s = clamped_starts(ctx, starts, &dims, &sizes)?;
    let offsets = box_offsets(&dims, &s, &sizes);
    let data: ArrayData = with_array_data!(data, v: T => {
        let u = T::unwrap(udata).ok_or_else(|| ctx.err("update type"))?;
        let mut v = v.clone();
        for (&o, &x) in offsets.iter().zip(u) {
            v[o] = x;
        }
        <T as ArrayElement>::wrap(v)
    });
    Ok(Literal::Array {
        shape: out.with_type(shape.ty),
        data,
    })
}
