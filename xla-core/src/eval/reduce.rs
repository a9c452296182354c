//! Variadic `Reduce`: N arrays of equal dims and N scalar inits; for each position of the kept
//! dimensions, `acc = f(acc_0..acc_{N-1}, x_0..x_{N-1})` over the reduced positions, starting
//! from the inits.
//!
//! XLA leaves the order unspecified; here it is a sequential left fold in row-major order of the
//! reduced dimensions. A reducer that is a single binary op of its two parameters (the common
//! `|a, b| a + b`) is applied directly; any other reducer is evaluated recursively on scalar
//! literals.

use std::sync::Arc;

use super::{array, dims_usize, evaluate, row_major_strides, strided_offsets, Ctx};
use crate::error::Result;
use crate::ir::{BinaryOp, Computation, Op};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::Scalar;
use crate::shape::ArrayShape;
use crate::with_array_data;

/// `Reduce(operands..., inits..., dimensions, computation)`.
pub(super) fn reduce(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    dimensions: &[i64],
    computation: &Arc<Computation>,
) -> Result<Literal> {
    if operands.is_empty() || operands.len() % 2 == 1 {
        return Err(ctx.err(format!(
            "takes N arrays and N inits, got {} operands",
            operands.len()
        )));
    }
    let n = operands.len() / 2;
    let mut arrays = Vec::with_capacity(n);
    for i in 0..n {
        let (s, d) = array(ctx, operands[i])?;
        let (is, id) = array(ctx, operands[n + i])?;
        if !is.dims.is_empty() || is.ty != s.ty {
            return Err(ctx.err(format!(
                "init {i} must be a scalar of the operand's type: {is} vs {s}"
            )));
        }
        arrays.push((s, d, id));
    }
    let shape = arrays[0].0;
    if let Some((s, _, _)) = arrays.iter().find(|(s, _, _)| s.dims != shape.dims) {
        return Err(ctx.err(format!("all operands must have equal dims: {shape} vs {s}")));
    }
    let dims = dims_usize(ctx, &shape.dims)?;
    let rank = dims.len();
    let mut reduced = vec![false; rank];
    for &d in dimensions {
        match usize::try_from(d).ok().filter(|&d| d < rank) {
            Some(d) if !reduced[d] => reduced[d] = true,
            _ => {
                return Err(ctx.err(format!(
                    "dimensions {dimensions:?} must be distinct dimensions of {shape}"
                )))
            }
        }
    }
    // Offsets of the kept positions (output order) and of the reduced positions (fold order).
    let strides = row_major_strides(&dims);
    let pick = |keep: bool| -> (Vec<usize>, Vec<usize>) {
        (0..rank)
            .filter(|&d| reduced[d] != keep)
            .map(|d| (dims[d], strides[d]))
            .unzip()
    };
    let (kept_sizes, kept_strides) = pick(true);
    let (red_sizes, red_strides) = pick(false);
    let bases = strided_offsets(&kept_sizes, &kept_strides);
    let inner = strided_offsets(&red_sizes, &red_strides);
    let out_dims: Vec<i64> = kept_sizes.iter().map(|&d| d as i64).collect();

    let results: Vec<ArrayData> = match (n, simple_reducer(computation)) {
        (1, Some((op, swapped))) => {
            let (_, data, init) = arrays[0];
            vec![with_array_data!(data, v: T => {
                let init = typed_scalar::<T>(ctx, init)?;
                T::wrap(
                    bases
                        .iter()
                        .map(|&b| {
                            inner.iter().fold(init, |acc, &r| {
                                let x = v[b + r];
                                if swapped { T::binary(op, x, acc) } else { T::binary(op, acc, x) }
                            })
                        })
                        .collect(),
                )
            })]
        }
        _ => general_reduce(ctx, &arrays, &bases, &inner, computation)?,
    };
    let mut outs: Vec<Literal> = results
        .into_iter()
        .map(|data| Literal::Array {
            shape: ArrayShape::new(data.element_type(), &out_dims),
            data,
        })
        .collect();
    if n == 1 {
        Ok(outs.swap_remove(0))
    } else {
        Ok(Literal::Tuple(outs))
    }
}

/// The single element of a scalar init of type `T`.
fn typed_scalar<T: ArrayElement>(ctx: &Ctx<'_>, data: &ArrayData) -> Result<T> {
    T::unwrap(data)
        .and_then(|v| v.first().copied())
        .ok_or_else(|| ctx.err(format!("init must be a {} scalar", T::TYPE)))
}

/// `Some((op, swapped))` if the reducer is `op(p0, p1)` (`swapped`: `op(p1, p0)`) of two scalar
/// parameters of one type, with nothing else to compute.
fn simple_reducer(comp: &Computation) -> Option<(BinaryOp, bool)> {
    let root = comp.instrs.get(comp.root.0 as usize)?;
    let op = match root.op {
        Op::Binary(op) if op != BinaryOp::Complex => op,
        _ => return None,
    };
    if comp.params.len() != 2 || comp.params[0] != comp.params[1] || root.shape != comp.params[0] {
        return None;
    }
    let param = |k: usize| -> Option<usize> {
        match comp.instrs.get(root.operands.get(k)?.0 as usize)?.op {
            Op::Parameter { index, .. } => Some(index),
            _ => None,
        }
    };
    match (param(0)?, param(1)?) {
        (0, 1) => Some((op, false)),
        (1, 0) => Some((op, true)),
        _ => None,
    }
}

/// Any reducer: evaluate the computation on scalar literals for every element.
fn general_reduce(
    ctx: &Ctx<'_>,
    arrays: &[(&ArrayShape, &ArrayData, &ArrayData)],
    bases: &[usize],
    inner: &[usize],
    computation: &Computation,
) -> Result<Vec<ArrayData>> {
    let n = arrays.len();
    let mut outs: Vec<ArrayData> = arrays
        .iter()
        .map(|(s, _, _)| ArrayData::zeros(s.ty, 0))
        .collect();
    // The argument vector is reused: accumulators in 0..n, elements in n..2n.
    let mut args: Vec<Literal> = Vec::with_capacity(2 * n);
    for &b in bases {
        args.clear();
        for (_, _, init) in arrays {
            args.push(scalar_at(init, 0));
        }
        for (_, data, _) in arrays {
            args.push(scalar_at(data, 0));
        }
        for &r in inner {
            for (i, (_, data, _)) in arrays.iter().enumerate() {
                args[n + i] = scalar_at(data, b + r);
            }
            let result = evaluate(computation, &args)?;
            match (n, result) {
                (1, acc @ Literal::Array { .. }) => args[0] = acc,
                (_, Literal::Tuple(accs)) if accs.len() == n => {
                    for (slot, acc) in args.iter_mut().zip(accs) {
                        *slot = acc;
                    }
                }
                (_, other) => {
                    return Err(ctx.err(format!(
                        "the reducer must return {n} scalar(s) of the operands' types, not {}",
                        other.shape()
                    )))
                }
            }
        }
        for (out, acc) in outs.iter_mut().zip(&args[..n]) {
            push_scalar(ctx, out, acc)?;
        }
    }
    Ok(outs)
}

/// Element `i` of `data` as a scalar literal (`data` non-empty, `i` in range by construction;
/// an empty array yields its type's zero, never read).
fn scalar_at(data: &ArrayData, i: usize) -> Literal {
    with_array_data!(data, v: T => Literal::scalar::<T>(v.get(i).copied().unwrap_or_default()))
}

/// Append the scalar `lit` to `out` (same element type).
fn push_scalar(ctx: &Ctx<'_>, out: &mut ArrayData, lit: &Literal) -> Result<()> {
    let ty = out.element_type();
    with_array_data!(out, v: T => {
        let x = lit
            .as_slice::<T>()
            .filter(|s| s.len() == 1)
            .ok_or_else(|| ctx.err(format!("the reducer returned {} where {ty}[] was expected", lit.shape())))?;
        v.push(x[0]);
    });
    Ok(())
}
