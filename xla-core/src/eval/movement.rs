//! Ops that pick, drop or add elements: Rev, Slice, Pad, Concatenate (StableHLO's `evalRevOp`,
//! `evalSliceOp`, `evalPadOp`, `evalConcatenateOp`). Rev and Slice are gathers
//! `out[idx] = in[base + sum_d idx[d] * step[d]]` (negative steps for reversed dimensions), Pad
//! scatters the operand into the padding value, Concatenate copies row-major runs.
//!
//! Every attribute is first checked against the operand shapes by the op's shape inference, so a
//! malformed IR gives an `Err` and the index arithmetic below stays in range.

use super::{array, dims_usize, row_major_strides, Ctx};
use crate::error::Result;
use crate::infer;
use crate::ir::PadDim;
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::shape::{ArrayShape, Shape};
use crate::with_array_data;

/// The instruction's array shape, checked equal (type and dims) to what inference gives for the
/// operands (`inferred`, or its error).
pub(super) fn checked_out<'a>(ctx: &'a Ctx<'_>, inferred: Result<Shape>) -> Result<&'a ArrayShape> {
    let inferred = inferred.map_err(|e| ctx.err(e.to_string()))?;
    let out = ctx.out_array()?;
    match inferred.as_array() {
        Some(a) if a.ty == out.ty && a.dims == out.dims => Ok(out),
        Some(_) | None => Err(ctx.err(format!(
            "the operands give shape {inferred} but the instruction's shape is {out}"
        ))),
    }
}

/// `base + sum_d idx[d] * steps[d]` for every multi-index `idx` of `sizes` in row-major order (an
/// odometer with signed steps). Callers guarantee every offset is a valid index.
pub(super) fn affine_offsets(sizes: &[usize], base: usize, steps: &[isize]) -> Vec<usize> {
    let count: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(count);
    if count == 0 {
        return out;
    }
    let rank = sizes.len();
    let mut idx = vec![0usize; rank];
    let mut offset = base as isize;
    for _ in 0..count {
        out.push(offset as usize);
        for d in (0..rank).rev() {
            idx[d] += 1;
            offset += steps[d];
            if idx[d] < sizes[d] {
                break;
            }
            offset -= steps[d] * sizes[d] as isize;
            idx[d] = 0;
        }
    }
    out
}

/// `out[k] = data[offsets[k]]`.
pub(super) fn gather(data: &ArrayData, offsets: &[usize]) -> ArrayData {
    with_array_data!(data, v: T => <T as ArrayElement>::wrap(offsets.iter().map(|&o| v[o]).collect()))
}

/// `Rev`: index `i` of each reversed dimension of size `n` reads operand index `n - 1 - i`.
pub(super) fn rev(ctx: &Ctx<'_>, operand: &Literal, dimensions: &[i64]) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let out = checked_out(ctx, infer::rev(&Shape::Array(shape.clone()), dimensions))?;
    let dims = dims_usize(ctx, &shape.dims)?;
    let strides = row_major_strides(&dims);
    let mut base = 0usize;
    let mut steps: Vec<isize> = strides.iter().map(|&s| s as isize).collect();
    if !data.is_empty() {
        // Inference checked the dimensions are distinct and in range.
        for &d in dimensions {
            let d = d as usize;
            base += (dims[d] - 1) * strides[d];
            steps[d] = -steps[d];
        }
    }
    Ok(Literal::Array {
        shape: out.with_type(shape.ty),
        data: gather(data, &affine_offsets(&dims, base, &steps)),
    })
}

/// `Slice`: `out[i] = operand[start + i * stride]` per dimension.
pub(super) fn slice(
    ctx: &Ctx<'_>,
    operand: &Literal,
    start_indices: &[i64],
    limit_indices: &[i64],
    strides: &[i64],
) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let inferred = infer::slice(
        &Shape::Array(shape.clone()),
        start_indices,
        limit_indices,
        strides,
    );
    let out = checked_out(ctx, inferred)?;
    let in_strides = row_major_strides(&dims_usize(ctx, &shape.dims)?);
    let out_dims = dims_usize(ctx, &out.dims)?;
    let mut base = 0usize;
    let mut steps = vec![0isize; out_dims.len()];
    if out_dims.iter().all(|&n| n > 0) {
        for d in 0..out_dims.len() {
            // 0 <= start < limit <= size here, and start + (n - 1) * stride < limit.
            base += start_indices[d] as usize * in_strides[d];
            if out_dims[d] > 1 {
                steps[d] = (strides[d] as usize * in_strides[d]) as isize;
            }
        }
    }
    Ok(Literal::Array {
        shape: out.with_type(shape.ty),
        data: gather(data, &affine_offsets(&out_dims, base, &steps)),
    })
}

/// `Pad`: operand index `i` of dimension `d` lands at `low + i * (interior + 1)` when that is
/// inside the result; every other element is the padding value.
pub(super) fn pad(
    ctx: &Ctx<'_>,
    operand: &Literal,
    padding_value: &Literal,
    config: &[PadDim],
) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let (vshape, value) = array(ctx, padding_value)?;
    let inferred = infer::pad(
        &Shape::Array(shape.clone()),
        &Shape::Array(vshape.clone()),
        config,
    );
    let out = checked_out(ctx, inferred)?;
    let in_dims = dims_usize(ctx, &shape.dims)?;
    let out_dims = dims_usize(ctx, &out.dims)?;
    let out_strides = row_major_strides(&out_dims);
    // Where each operand index of each dimension lands, if inside the result.
    let lands: Vec<Vec<Option<usize>>> = in_dims
        .iter()
        .zip(config)
        .zip(&out_dims)
        .map(|((&n, p), &size)| {
            (0..n)
                .map(|i| {
                    let at = i128::from(p.low) + i as i128 * (i128::from(p.interior) + 1);
                    usize::try_from(at).ok().filter(|&at| at < size)
                })
                .collect()
        })
        .collect();
    let out_count: usize = out_dims.iter().product();
    // The operand element each result element takes, or None for padding.
    let mut source: Vec<Option<usize>> = vec![None; out_count];
    let rank = in_dims.len();
    let mut idx = vec![0usize; rank];
    for k in 0..data.len() {
        let at: Option<usize> = (0..rank)
            .map(|d| lands[d][idx[d]].map(|p| p * out_strides[d]))
            .sum();
        if let Some(at) = at {
            source[at] = Some(k);
        }
        for d in (0..rank).rev() {
            idx[d] += 1;
            if idx[d] < in_dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    let padded = with_array_data!(data, v: T => {
        match <T as ArrayElement>::unwrap(value).and_then(|p| p.first().copied()) {
            Some(fill) => Ok(<T as ArrayElement>::wrap(
                source.iter().map(|s| s.map_or(fill, |k| v[k])).collect(),
            )),
            None => Err(ctx.err(format!(
                "the padding value {vshape} is not a scalar of the operand's type {shape}"
            ))),
        }
    })?;
    Ok(Literal::Array {
        shape: out.with_type(shape.ty),
        data: padded,
    })
}

/// `Concatenate`: for each index of the dimensions before `dimension`, the operands' row-major
/// runs one after another.
pub(super) fn concatenate(ctx: &Ctx<'_>, operands: &[&Literal], dimension: i64) -> Result<Literal> {
    let arrays = operands
        .iter()
        .map(|l| array(ctx, l))
        .collect::<Result<Vec<_>>>()?;
    let shapes: Vec<Shape> = arrays
        .iter()
        .map(|(s, _)| Shape::Array((*s).clone()))
        .collect();
    let refs: Vec<&Shape> = shapes.iter().collect();
    let out = checked_out(ctx, infer::concat_in_dim(&refs, dimension))?;
    // Inference checked there is an operand and `dimension` is in range.
    let (first, first_data) = arrays[0];
    let dim = dimension as usize;
    let out_dims = dims_usize(ctx, &out.dims)?;
    let outer: usize = out_dims[..dim].iter().product();
    let inner: usize = out_dims[dim + 1..].iter().product();
    let runs: Vec<usize> = arrays
        .iter()
        .map(|(s, _)| s.dims[dim] as usize * inner)
        .collect();
    let joined = with_array_data!(first_data, _v: T => {
        let parts: Option<Vec<&[T]>> = arrays
            .iter()
            .map(|(_, d)| <T as ArrayElement>::unwrap(d))
            .collect();
        match parts {
            Some(parts) => {
                let mut all: Vec<T> = Vec::with_capacity(out_dims.iter().product());
                for o in 0..outer {
                    for (part, &run) in parts.iter().zip(&runs) {
                        all.extend_from_slice(&part[o * run..(o + 1) * run]);
                    }
                }
                Ok(<T as ArrayElement>::wrap(all))
            }
            None => Err(ctx.err(format!(
                "operands of different element types ({first} and others)"
            ))),
        }
    })?;
    Ok(Literal::Array {
        shape: out.with_type(first.ty),
        data: joined,
    })
}

#[cfg(test)]
mod tests;
