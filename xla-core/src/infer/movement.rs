//! Data-movement ops that pick, drop or add elements: Rev, Slice, Pad and ConcatInDim (XLA's
//! `InferReverseShape`, `InferSliceShape`, `InferPadShape`, `InferConcatOpShape`).

use super::{check_dims, expect_array, list};
use crate::error::{count, Blame, Error, Result};
use crate::ir::PadDim;
use crate::shape::{ArrayShape, Shape};

/// `attr` (of `op` on `operand`) has one entry per operand dimension.
fn check_len(op: &str, attr: &'static str, values: &[i64], operand: &ArrayShape) -> Result<()> {
    if values.len() == operand.rank() {
        return Ok(());
    }
    Err(Error::new(
        op,
        format!(
            "{attr} {} has {} but the operand {operand} has rank {}",
            list(values),
            count(values.len(), "entry", "entries"),
            operand.rank()
        ),
    )
    .blame(Blame::Attribute(attr)))
}

/// A computed result shape must be a valid one (its size in bytes fits in an i64).
fn validated(op: &str, out: ArrayShape, blame: Blame) -> Result<Shape> {
    out.validate()
        .map_err(|e| Error::new(op, e.message).blame(blame))?;
    Ok(Shape::Array(out))
}

/// `Rev(operand, dimensions)`: the operand's shape; `dimensions` distinct and in range.
pub fn rev(operand: &Shape, dimensions: &[i64]) -> Result<Shape> {
    let op = "Rev";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    check_dims(op, "dimensions", dimensions, a)?;
    Ok(Shape::Array(a.with_type(a.ty)))
}

/// `Slice(operand, start_indices, limit_indices, strides)`: per dimension
/// `ceil((limit - start) / stride)` elements, with `0 <= start <= limit <= size` and
/// `stride >= 1`. A dynamic dimension stays dynamic unless one element is taken from it.
pub fn slice(
    operand: &Shape,
    start_indices: &[i64],
    limit_indices: &[i64],
    strides: &[i64],
) -> Result<Shape> {
    let op = "Slice";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    check_len(op, "start_indices", start_indices, a)?;
    check_len(op, "limit_indices", limit_indices, a)?;
    check_len(op, "strides", strides, a)?;
    let mut out = a.with_type(a.ty);
    for d in 0..a.rank() {
        let (start, limit, stride, size) =
            (start_indices[d], limit_indices[d], strides[d], a.dims[d]);
        if start < 0 {
            return Err(Error::new(
                op,
                format!("start_indices[{d}] = {start} is negative (operand {a})"),
            )
            .blame(Blame::Attribute("start_indices")));
        }
        if limit > size {
            return Err(Error::new(
                op,
                format!(
                    "limit_indices[{d}] = {limit} is beyond the size {size} of dimension {d} of the operand {a}"
                ),
            )
            .blame(Blame::Attribute("limit_indices")));
        }
        if start > limit {
            return Err(Error::new(
                op,
                format!(
                    "limit_indices[{d}] = {limit} is less than start_indices[{d}] = {start} (operand {a})"
                ),
            )
            .blame(Blame::Attribute("limit_indices")));
        }
        if stride < 1 {
            return Err(Error::new(
                op,
                format!("strides[{d}] = {stride} must be at least 1 (operand {a})"),
            )
            .blame(Blame::Attribute("strides")));
        }
        // ceil((limit - start) / stride) without overflow: 0 <= limit - start <= size.
        let span = limit - start;
        let n = span / stride + i64::from(span % stride != 0);
        out.dims[d] = n;
        out.dynamic[d] = a.dynamic[d] && n != 1;
    }
    Ok(Shape::Array(out))
}

/// `Pad(operand, padding_value, padding_config)`: per dimension
/// `low + size + high + max(size - 1, 0) * interior` elements (negative edges remove
/// elements, interior padding comes first); `padding_value` is a scalar of the operand's element
/// type, `interior >= 0` and every padded size `>= 0`.
pub fn pad(operand: &Shape, padding_value: &Shape, config: &[PadDim]) -> Result<Shape> {
    let op = "Pad";
    let attr = "padding_config";
    let a = expect_array(op, "the operand", operand, Blame::Operand(0))?;
    let v = expect_array(op, "the padding value", padding_value, Blame::Operand(1))?;
    if !v.is_scalar() {
        return Err(Error::new(
            op,
            format!("the padding value must be a scalar, got {v} (operand {a})"),
        )
        .blame(Blame::Operand(1))
        .help(format!("pass a {}[] padding value", a.ty)));
    }
    if config.len() != a.rank() {
        return Err(Error::new(
            op,
            format!(
                "{attr} has {} but the operand {a} has rank {}",
                count(config.len(), "entry", "entries"),
                a.rank()
            ),
        )
        .blame(Blame::Attribute(attr)));
    }
    if v.ty != a.ty {
        return Err(Error::new(
            op,
            format!("the padding value must have the operand's element type: {a} vs {v}"),
        )
        .blame(Blame::Operand(1)));
    }
    if let Some((d, p)) = config.iter().enumerate().find(|(_, p)| p.interior < 0) {
        return Err(Error::new(
            op,
            format!(
                "{attr}[{d}] has negative interior padding {} (operand {a})",
                p.interior
            ),
        )
        .blame(Blame::Attribute(attr)));
    }
    let mut out = a.with_type(a.ty);
    for (d, p) in config.iter().enumerate() {
        let size = a.dims[d];
        let padded = (size - 1)
            .max(0)
            .checked_mul(p.interior)
            .and_then(|i| i.checked_add(size))
            .and_then(|n| n.checked_add(p.low))
            .and_then(|n| n.checked_add(p.high));
        let describe = || {
            format!(
                "dimension {d} (size {size}) of the operand {a} padded with low {}, high {}, interior {}",
                p.low, p.high, p.interior
            )
        };
        match padded {
            Some(n) if n >= 0 => out.dims[d] = n,
            Some(n) => {
                return Err(
                    Error::new(op, format!("{} has negative size {n}", describe()))
                        .blame(Blame::Attribute(attr)),
                )
            }
            None => {
                return Err(
                    Error::new(op, format!("{} has a size beyond 2^63 - 1", describe()))
                        .blame(Blame::Attribute(attr)),
                )
            }
        }
    }
    validated(op, out, Blame::Attribute(attr))
}

/// `ConcatInDim(operands..., dimension)`: at least one operand, all arrays of one rank (>= 1)
/// and element type with equal sizes except along `dimension`, where the sizes add up. A
/// dimension dynamic in any operand is dynamic in the result.
pub fn concat_in_dim(operands: &[&Shape], dimension: i64) -> Result<Shape> {
    let op = "ConcatInDim";
    if operands.is_empty() {
        return Err(Error::new(op, "needs at least one operand"));
    }
    let arrays = operands
        .iter()
        .enumerate()
        .map(|(i, s)| expect_array(op, "each operand", s, Blame::Operand(i)))
        .collect::<Result<Vec<&ArrayShape>>>()?;
    let first = arrays[0];
    let rank = first.rank();
    if dimension < 0 || dimension >= rank as i64 {
        let e = Error::new(
            op,
            format!("dimension {dimension} is out of range for the rank-{rank} operand {first}"),
        )
        .blame(Blame::Attribute("dimension"));
        return Err(if rank == 0 {
            e.help("scalars have no dimension to concatenate along; Reshape them to [1] first")
        } else {
            e
        });
    }
    let dim = dimension as usize;
    let mut out = first.with_type(first.ty);
    for (i, a) in arrays.iter().enumerate().skip(1) {
        let blame = Blame::Operand(i);
        if a.rank() != rank {
            return Err(Error::new(
                op,
                format!("all operands must have the same rank: {first} vs {a}"),
            )
            .blame(blame));
        }
        if a.ty != first.ty {
            return Err(Error::new(
                op,
                format!("all operands must have the same element type: {first} vs {a}"),
            )
            .blame(blame));
        }
        if let Some(d) = (0..rank).find(|&d| d != dim && a.dims[d] != first.dims[d]) {
            return Err(Error::new(
                op,
                format!(
                    "operands must have equal sizes in every dimension but dimension {dim}; \
                     dimension {d} differs: {first} vs {a}"
                ),
            )
            .blame(blame));
        }
        out.dims[dim] = out.dims[dim].checked_add(a.dims[dim]).ok_or_else(|| {
            let shown: Vec<String> = arrays[..=i].iter().map(|a| a.to_string()).collect();
            Error::new(
                op,
                format!(
                    "the sizes along dimension {dim} add up to more than 2^63 - 1 elements ({})",
                    shown.join(", ")
                ),
            )
            .blame(blame.clone())
        })?;
        for (o, &dy) in out.dynamic.iter_mut().zip(&a.dynamic) {
            *o |= dy;
        }
    }
    validated(op, out, Blame::Op)
}

#[cfg(test)]
mod tests;
