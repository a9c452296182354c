//! `Scan(inputs..., inits...)`: step `j` (`0..N`, or `N-1` down to 0 when reversed) evaluates
//! `(y.., c..) = to_apply(x[j].., c..)` with `x[j]` the inputs at index `j` of the scan
//! dimension, stores each `y` at index `j` of its output and carries `c` to the next step.

use super::{array, dims_usize, evaluate, Ctx};
use crate::error::Result;
use crate::ir::Computation;
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::shape::ArrayShape;
use crate::with_array_data;

/// Split `dims` at `d`: `(outer, dims[d], inner)` element counts.
fn split(dims: &[usize], d: usize) -> (usize, usize, usize) {
    let outer = dims[..d].iter().product();
    let inner = dims[d + 1..].iter().product();
    (outer, dims[d], inner)
}

/// Index `j` of dimension `d` of `(shape, data)`, as an array without that dimension.
fn slice_at(
    ctx: &Ctx<'_>,
    shape: &ArrayShape,
    data: &ArrayData,
    d: usize,
    j: usize,
) -> Result<Literal> {
    let (outer, n, inner) = split(&dims_usize(ctx, &shape.dims)?, d);
    let mut dims = shape.dims.clone();
    dims.remove(d);
    let data = with_array_data!(data, v: T => {
        let mut out = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            out.extend_from_slice(&v[(o * n + j) * inner..(o * n + j + 1) * inner]);
        }
        T::wrap(out)
    });
    Ok(Literal::Array {
        shape: ArrayShape::new(shape.ty, &dims),
        data,
    })
}

/// Write the array `y` (the output without the scan dimension) at index `j` of dimension `d`.
fn store_at(
    ctx: &Ctx<'_>,
    shape: &ArrayShape,
    out: &mut ArrayData,
    y: &Literal,
    d: usize,
    j: usize,
) -> Result<()> {
    let (outer, n, inner) = split(&dims_usize(ctx, &shape.dims)?, d);
    with_array_data!(out, v: T => {
        let ys = y
            .as_slice::<T>()
            .filter(|ys| ys.len() == outer * inner)
            .ok_or_else(|| ctx.err(format!("to_apply returned {} for the output {shape}", y.shape())))?;
        for o in 0..outer {
            v[(o * n + j) * inner..(o * n + j + 1) * inner].copy_from_slice(&ys[o * inner..(o + 1) * inner]);
        }
    });
    Ok(())
}

/// `Scan(inputs..., inits..., to_apply, scan_dimension, is_reverse)` with `k` carries.
pub(super) fn scan(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    to_apply: &Computation,
    scan_dimension: i64,
    is_reverse: bool,
    k: usize,
) -> Result<Literal> {
    let m = operands
        .len()
        .checked_sub(k)
        .filter(|&m| m > 0)
        .ok_or_else(|| {
            ctx.err(format!(
                "{} operands cannot hold {k} carries and an input",
                operands.len()
            ))
        })?;
    let d = scan_dimension as usize;
    let inputs = operands[..m]
        .iter()
        .map(|o| array(ctx, o))
        .collect::<Result<Vec<_>>>()?;
    let n = match inputs[0].0.dims.get(d) {
        Some(&n) if scan_dimension >= 0 => n as usize,
        _ => {
            return Err(ctx.err(format!(
                "scan_dimension {scan_dimension} outside {}",
                inputs[0].0
            )))
        }
    };
    let out_shapes: Vec<ArrayShape> = match &ctx.instr.shape {
        crate::shape::Shape::Tuple(t) if t.len() >= k => t[..t.len() - k]
            .iter()
            .map(|s| {
                s.as_array()
                    .cloned()
                    .ok_or_else(|| ctx.err("an output that is not an array"))
            })
            .collect::<Result<_>>()?,
        s => {
            return Err(ctx.err(format!(
                "a Scan's result is a tuple of outputs and carries, not {s}"
            )))
        }
    };
    let mut outs: Vec<ArrayData> = out_shapes
        .iter()
        .map(|s| {
            Ok(ArrayData::zeros(
                s.ty,
                dims_usize(ctx, &s.dims)?.iter().product(),
            ))
        })
        .collect::<Result<_>>()?;
    let mut carries: Vec<Literal> = operands[m..].iter().map(|&c| c.clone()).collect();
    for step in 0..n {
        let j = if is_reverse { n - 1 - step } else { step };
        let mut args = inputs
            .iter()
            .map(|(s, data)| slice_at(ctx, s, data, d, j))
            .collect::<Result<Vec<_>>>()?;
        args.append(&mut carries);
        let r = evaluate(to_apply, &args)
            .map_err(|e| ctx.err(format!("to_apply at index {j}: {e}")))?;
        let mut results = match r {
            Literal::Tuple(t) => t,
            single => vec![single],
        };
        if results.len() != outs.len() + k {
            return Err(ctx.err(format!(
                "to_apply returned {} values, not {}",
                results.len(),
                outs.len() + k
            )));
        }
        carries = results.split_off(outs.len());
        for ((s, out), y) in out_shapes.iter().zip(outs.iter_mut()).zip(&results) {
            store_at(ctx, s, out, y, d, j)?;
        }
    }
    let mut elems: Vec<Literal> = out_shapes
        .into_iter()
        .zip(outs)
        .map(|(shape, data)| Literal::Array { shape, data })
        .collect();
    elems.extend(carries);
    Ok(Literal::Tuple(elems))
}
