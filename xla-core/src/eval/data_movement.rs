//! Ops that move elements without computing: BroadcastInDim, Reshape, Transpose. Broadcast and
//! transpose are the same gather, `out[idx] = in[sum_d idx[d] * stride[d]]`, with stride 0 for
//! broadcast dimensions and permuted strides for a transpose.

use super::{array, dims_usize, row_major_strides, strided_offsets, Ctx};
use crate::error::Result;
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::shape::ArrayShape;
use crate::with_array_data;

/// `out[k] = data[offsets[k]]`.
fn gather(data: &ArrayData, offsets: &[usize]) -> ArrayData {
    with_array_data!(data, v: T => <T as ArrayElement>::wrap(offsets.iter().map(|&o| v[o]).collect()))
}

/// `BroadcastInDim`: operand dimension `i` becomes output dimension `broadcast_dimensions[i]`
/// (same size, or size 1 repeated); other output dimensions repeat the operand.
pub(super) fn broadcast_in_dim(
    ctx: &Ctx<'_>,
    operand: &Literal,
    broadcast_dimensions: &[i64],
) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let out = ctx.out_array()?;
    let in_dims = dims_usize(ctx, &shape.dims)?;
    let out_dims = dims_usize(ctx, &out.dims)?;
    if broadcast_dimensions.len() != in_dims.len() {
        return Err(ctx.err(format!(
            "broadcast_dimensions {broadcast_dimensions:?} must have one entry per operand dimension: {shape} vs {out}"
        )));
    }
    let in_strides = row_major_strides(&in_dims);
    let mut strides = vec![0usize; out_dims.len()];
    for (i, &b) in broadcast_dimensions.iter().enumerate() {
        let d = usize::try_from(b)
            .ok()
            .filter(|&d| d < out_dims.len())
            .ok_or_else(|| {
                ctx.err(format!(
                    "broadcast dimension {b} out of range: {shape} vs {out}"
                ))
            })?;
        if in_dims[i] == out_dims[d] {
            // Size 1 to size 1 reads index 0 either way; a stride of 0 keeps offsets in range.
            strides[d] += if in_dims[i] == 1 { 0 } else { in_strides[i] };
        } else if in_dims[i] != 1 {
            return Err(ctx.err(format!(
                "operand dimension {i} (size {}) must be 1 or equal output dimension {d} (size {}): {shape} vs {out}",
                in_dims[i], out_dims[d]
            )));
        }
    }
    let out_count: usize = out_dims.iter().product();
    if data.is_empty() && out_count > 0 {
        return Err(ctx.err(format!(
            "cannot broadcast an empty array to a non-empty one: {shape} vs {out}"
        )));
    }
    let offsets = strided_offsets(&out_dims, &strides);
    if offsets.iter().any(|&o| o >= data.len()) {
        // Only reachable with repeated broadcast dimensions (rejected by shape inference).
        return Err(ctx.err(format!(
            "broadcast_dimensions {broadcast_dimensions:?} are not distinct"
        )));
    }
    Ok(Literal::Array {
        shape: out.with_type(shape.ty),
        data: gather(data, &offsets),
    })
}

/// `Reshape`: the same row-major elements under the instruction's dimensions.
pub(super) fn reshape(ctx: &Ctx<'_>, operand: &Literal) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let out = ctx.out_array()?;
    let count: usize = dims_usize(ctx, &out.dims)?.iter().product();
    if count != data.len() {
        return Err(ctx.err(format!("element counts differ: {shape} vs {out}")));
    }
    Ok(Literal::Array {
        shape: out.with_type(shape.ty),
        data: data.clone(),
    })
}

/// `Transpose`: output dimension `d` is operand dimension `permutation[d]`.
pub(super) fn transpose(ctx: &Ctx<'_>, operand: &Literal, permutation: &[i64]) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let in_dims = dims_usize(ctx, &shape.dims)?;
    let rank = in_dims.len();
    let mut seen = vec![false; rank];
    let mut perm = Vec::with_capacity(rank);
    for &p in permutation {
        match usize::try_from(p).ok().filter(|&p| p < rank) {
            Some(p) if !seen[p] => {
                seen[p] = true;
                perm.push(p);
            }
            _ => {
                return Err(ctx.err(format!(
                    "{permutation:?} is not a permutation of the dimensions of {shape}"
                )))
            }
        }
    }
    if perm.len() != rank {
        return Err(ctx.err(format!(
            "{permutation:?} is not a permutation of the dimensions of {shape}"
        )));
    }
    let in_strides = row_major_strides(&in_dims);
    let out_dims: Vec<usize> = perm.iter().map(|&p| in_dims[p]).collect();
    let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let offsets = strided_offsets(&out_dims, &strides);
    let out_shape = ArrayShape::new(
        shape.ty,
        &out_dims.iter().map(|&d| d as i64).collect::<Vec<_>>(),
    );
    Ok(Literal::Array {
        shape: out_shape,
        data: gather(data, &offsets),
    })
}
