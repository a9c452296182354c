//! Variadic `ReduceWindow`: for each window position (row-major), `acc = f(acc.., x..)` over
//! the window's taps in row-major order, starting from the inits. A tap on padding or on a
//! base-dilation hole is skipped, as XLA:CPU and XLA's evaluator do (so a non-identity init
//! counts once per window, never once per padded element).

use std::sync::Arc;

use super::reduce::{arrays_and_inits, fold_groups, simple_reducer, typed_scalar};
use super::{dims_usize, row_major_strides, strided_offsets, Ctx};
use crate::error::Result;
use crate::ir::{Computation, Window};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::Scalar;
use crate::shape::ArrayShape;
use crate::with_array_data;

/// The operand offsets each window position reads, in output order then tap order; taps
/// on padding or holes left out. `out_dims` are the window positions per dimension.
pub(super) fn window_taps(dims: &[usize], w: &Window, out_dims: &[usize]) -> Vec<Vec<usize>> {
    let rank = dims.len();
    let strides = row_major_strides(dims);
    let wdims: Vec<usize> = w.dimensions.iter().map(|&d| d as usize).collect();
    let outs = strided_offsets(out_dims, &row_major_strides(out_dims));
    let taps = strided_offsets(&wdims, &row_major_strides(&wdims));
    let unravel = |mut flat: usize, sizes: &[usize]| -> Vec<usize> {
        let mut idx = vec![0; sizes.len()];
        for d in (0..sizes.len()).rev() {
            idx[d] = flat % sizes[d].max(1);
            flat /= sizes[d].max(1);
        }
        idx
    };
    outs.iter()
        .map(|&o| {
            let oi = unravel(o, out_dims);
            taps.iter()
                .filter_map(|&t| {
                    let ti = unravel(t, &wdims);
                    let mut off = 0usize;
                    for d in 0..rank {
                        let p = oi[d] as i64 * w.strides[d] + ti[d] as i64 * w.window_dilations[d]
                            - w.padding[d].0;
                        let bd = w.base_dilations[d];
                        if p < 0 || p % bd != 0 || p / bd >= dims[d] as i64 {
                            return None;
                        }
                        off += (p / bd) as usize * strides[d];
                    }
                    Some(off)
                })
                .collect()
        })
        .collect()
}

/// `ReduceWindow(operands..., inits..., computation, window)`.
pub(super) fn reduce_window(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    window: &Window,
    computation: &Arc<Computation>,
) -> Result<Literal> {
    let arrays = arrays_and_inits(ctx, operands)?;
    let (n, shape) = (arrays.len(), arrays[0].0);
    let out_shape = match &ctx.instr.shape {
        crate::shape::Shape::Tuple(t) => t.first().and_then(|s| s.as_array()),
        s => s.as_array(),
    }
    .ok_or_else(|| ctx.err("expected an array or a tuple of arrays"))?;
    let out_dims_i = out_shape.dims.clone();
    let consistent = [
        &window.dimensions,
        &window.strides,
        &window.base_dilations,
        &window.window_dilations,
    ]
    .iter()
    .all(|v| v.len() == shape.rank() && v.iter().all(|&x| x >= 1))
        && window.padding.len() == shape.rank()
        && out_dims_i.len() == shape.rank();
    if !consistent {
        return Err(ctx.err(format!("window {window:?} does not fit operand {shape}")));
    }
    let dims = dims_usize(ctx, &shape.dims)?;
    let out_dims = dims_usize(ctx, &out_dims_i)?;
    let taps = window_taps(&dims, window, &out_dims);

    let results: Vec<ArrayData> = match (n, simple_reducer(computation)) {
        (1, Some((op, swapped))) => {
            let (_, data, init) = arrays[0];
            vec![with_array_data!(data, v: T => {
                let init = typed_scalar::<T>(ctx, init)?;
                T::wrap(
                    taps.iter()
                        .map(|w| {
                            w.iter().fold(init, |acc, &r| {
                                let x = v[r];
                                if swapped { T::binary(op, x, acc) } else { T::binary(op, acc, x) }
                            })
                        })
                        .collect(),
                )
            })]
        }
        _ => fold_groups(
            ctx,
            &arrays,
            taps.iter().map(|w| w.iter().copied()),
            computation,
        )?,
    };
    let mut outs: Vec<Literal> = results
        .into_iter()
        .map(|data| Literal::Array {
            shape: ArrayShape::new(data.element_type(), &out_dims_i),
            data,
        })
        .collect();
    Ok(if n == 1 {
        outs.swap_remove(0)
    } else {
        Literal::Tuple(outs)
    })
}

#[cfg(test)]
mod tests;
