//! Gather and Scatter (StableHLO's `evalGatherOp` and `evalScatterOp`, with XLA's treatment of
//! out-of-range indices).
//!
//! Both read start vectors the same way: a *position* `p` is a multi-index over the index
//! array's dimensions other than `index_vector_dim`; its start is the operand index `s` with
//! `s[map[k]] = indices[p with k at index_vector_dim]`, and, for each batching pair,
//! `s[operand_batching[j]] = p[indices_batching[j]]`.
//!
//! Gather clamps each start into `[0, size - slice_size]` per operand dimension (XLA's rule).
//! Scatter skips a whole window whose start is negative or whose end passes the operand (XLA
//! drops the window, not the elements that fall outside), and applies updates in row-major
//! order of the positions (XLA:CPU's order, which decides the result for duplicate indices and
//! a non-commutative computation).
//!
//! Every attribute is checked by the op's shape inference first, so a malformed IR gives an
//! `Err` and the index arithmetic below stays in range.

use std::sync::Arc;

use super::reduce::simple_reducer;
use super::{array, dims_usize, evaluate, row_major_strides, Ctx};
use crate::error::Result;
use crate::infer;
use crate::ir::{Computation, GatherDimensionNumbers, Op, ScatterDimensionNumbers};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::Scalar;
use crate::shape::{ArrayShape, Shape};
use crate::with_array_data;

#[cfg(test)]
mod tests;

/// The integer values of an index array, widened (u64 above `i64::MAX` stays large).
pub(super) fn index_values(ctx: &Ctx<'_>, data: &ArrayData) -> Result<Vec<i128>> {
    macro_rules! wide {
        ($v:expr) => {
            $v.iter().map(|&x| i128::from(x)).collect()
        };
    }
    Ok(match data {
        ArrayData::S8(v) => wide!(v),
        ArrayData::S16(v) => wide!(v),
        ArrayData::S32(v) => wide!(v),
        ArrayData::S64(v) => wide!(v),
        ArrayData::U8(v) => wide!(v),
        ArrayData::U16(v) => wide!(v),
        ArrayData::U32(v) => wide!(v),
        ArrayData::U64(v) => wide!(v),
        ArrayData::Pred(_)
        | ArrayData::F16(_)
        | ArrayData::Bf16(_)
        | ArrayData::F32(_)
        | ArrayData::F64(_)
        | ArrayData::C64(_)
        | ArrayData::C128(_) => {
            return Err(ctx.err(format!(
                "indices of type {} (an integer type is required)",
                data.element_type()
            )))
        }
    })
}

/// How positions read start vectors (see the module docs).
struct Starts<'a> {
    /// The index array's dims with the implicit trailing 1, and its row-major strides.
    dims: Vec<usize>,
    strides: Vec<usize>,
    values: Vec<i128>,
    index_vector_dim: usize,
    /// Operand dimension of each vector component.
    map: &'a [i64],
    /// `(operand dimension, index-array dimension)` batching pairs.
    batching: Vec<(usize, usize)>,
    rank: usize,
}

impl Starts<'_> {
    /// Sizes of the position dimensions (the index array's dims but `index_vector_dim`).
    fn position_sizes(&self) -> Vec<usize> {
        let ivd = self.index_vector_dim;
        (0..self.dims.len())
            .filter(|&d| d != ivd)
            .map(|d| self.dims[d])
            .collect()
    }

    /// The operand start of position `pos`.
    fn start(&self, pos: &[usize]) -> Vec<i128> {
        let ivd = self.index_vector_dim;
        let mut full: Vec<usize> = pos.to_vec();
        full.insert(ivd, 0);
        let mut s = vec![0i128; self.rank];
        for (k, &d) in self.map.iter().enumerate() {
            full[ivd] = k;
            let flat: usize = full.iter().zip(&self.strides).map(|(i, st)| i * st).sum();
            s[d as usize] = self.values[flat];
        }
        for &(od, id) in &self.batching {
            s[od] = full[id] as i128;
        }
        s
    }
}

/// Every multi-index of `sizes` in row-major order (none when a size is 0; `[]` once for rank
/// 0).
fn multi_indices(sizes: &[usize]) -> Vec<Vec<usize>> {
    let count: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut idx = vec![0usize; sizes.len()];
    for _ in 0..count {
        out.push(idx.clone());
        for d in (0..sizes.len()).rev() {
            idx[d] += 1;
            if idx[d] < sizes[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// `(operand dims, index-array dims)` of batching pairs, as usize.
fn pairs(a: &[i64], b: &[i64]) -> Vec<(usize, usize)> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| (x as usize, y as usize))
        .collect()
}

/// The dimensions of `rank` in none of `out`, ascending.
fn remaining(rank: usize, out: &[&[i64]]) -> Vec<usize> {
    (0..rank)
        .filter(|&d| !out.iter().any(|o| o.contains(&(d as i64))))
        .collect()
}

/// The index array as [`Starts`] for an operand of rank `rank`.
fn starts<'a>(
    ctx: &Ctx<'_>,
    indices: &Literal,
    index_vector_dim: i64,
    map: &'a [i64],
    batching: Vec<(usize, usize)>,
    rank: usize,
) -> Result<Starts<'a>> {
    let (ishape, idata) = array(ctx, indices)?;
    let mut dims = dims_usize(ctx, &ishape.dims)?;
    let ivd = index_vector_dim as usize;
    if ivd == dims.len() {
        dims.push(1);
    }
    Ok(Starts {
        strides: row_major_strides(&dims),
        dims,
        values: index_values(ctx, idata)?,
        index_vector_dim: ivd,
        map,
        batching,
        rank,
    })
}

/// The instruction's array shape, checked equal to what inference gives (or its error).
fn checked_out<'a>(ctx: &'a Ctx<'_>, inferred: Result<Shape>) -> Result<&'a Shape> {
    let inferred = inferred.map_err(|e| ctx.err(e.to_string()))?;
    if !super::same_shape(&inferred, &ctx.instr.shape) {
        return Err(ctx.err(format!(
            "the operands give shape {inferred} but the instruction's shape is {}",
            ctx.instr.shape
        )));
    }
    Ok(&ctx.instr.shape)
}

/// `Gather`: `out[p, o] = operand[clamp(start(p)) + window(o)]`, `p` the output's batch
/// dimensions, `o` its `offset_dims`.
pub(super) fn gather(
    ctx: &Ctx<'_>,
    operand: &Literal,
    indices: &Literal,
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Result<Literal> {
    let (ashape, adata) = array(ctx, operand)?;
    let out = checked_out(
        ctx,
        infer::gather(&operand.shape(), &indices.shape(), dn, slice_sizes),
    )?;
    let out = out.as_array().ok_or_else(|| ctx.err("a tuple result"))?;
    let dims = dims_usize(ctx, &ashape.dims)?;
    let strides = row_major_strides(&dims);
    let batching = pairs(&dn.operand_batching_dims, &dn.start_indices_batching_dims);
    let st = starts(
        ctx,
        indices,
        dn.index_vector_dim,
        &dn.start_index_map,
        batching,
        dims.len(),
    )?;
    let window = remaining(
        dims.len(),
        &[&dn.collapsed_slice_dims, &dn.operand_batching_dims],
    );
    let out_dims = dims_usize(ctx, &out.dims)?;
    let is_offset = |d: usize| dn.offset_dims.contains(&(d as i64));
    let mut offsets = Vec::new();
    for o in multi_indices(&out_dims) {
        let pos: Vec<usize> = (0..o.len())
            .filter(|&d| !is_offset(d))
            .map(|d| o[d])
            .collect();
        let mut at: Vec<i128> = st.start(&pos);
        for (d, s) in at.iter_mut().enumerate() {
            let max = (dims[d] as i128 - slice_sizes[d] as i128).max(0);
            *s = (*s).clamp(0, max);
        }
        let offs = (0..o.len()).filter(|&d| is_offset(d)).map(|d| o[d]);
        for (w, x) in window.iter().zip(offs) {
            at[*w] += x as i128;
        }
        offsets.push(
            at.iter()
                .zip(&strides)
                .map(|(&i, &s)| i as usize * s)
                .sum::<usize>(),
        );
    }
    Ok(Literal::Array {
        shape: out.with_type(ashape.ty),
        data: with_array_data!(adata, v: T => <T as ArrayElement>::wrap(offsets.iter().map(|&k| v[k]).collect())),
    })
}

/// The `(operand offset, update offset)` pairs a scatter applies, in application order:
/// positions in row-major order (windows that do not fit skipped), each window row-major.
fn scatter_pairs(
    ctx: &Ctx<'_>,
    ashape: &ArrayShape,
    ushape: &ArrayShape,
    indices: &Literal,
    dn: &ScatterDimensionNumbers,
) -> Result<Vec<(usize, usize)>> {
    let dims = dims_usize(ctx, &ashape.dims)?;
    let udims = dims_usize(ctx, &ushape.dims)?;
    let (astrides, ustrides) = (row_major_strides(&dims), row_major_strides(&udims));
    let batching = pairs(&dn.input_batching_dims, &dn.scatter_indices_batching_dims);
    let map = &dn.scatter_dims_to_operand_dims;
    let st = starts(ctx, indices, dn.index_vector_dim, map, batching, dims.len())?;
    let window = remaining(
        dims.len(),
        &[&dn.inserted_window_dims, &dn.input_batching_dims],
    );
    let uwin: Vec<usize> = dn.update_window_dims.iter().map(|&d| d as usize).collect();
    let uscatter = remaining(udims.len(), &[&dn.update_window_dims]);
    // The window's extent along each operand dimension (1 for inserted and batching ones).
    let mut extent = vec![1usize; dims.len()];
    for (&od, &ud) in window.iter().zip(&uwin) {
        extent[od] = udims[ud];
    }
    let wsizes: Vec<usize> = uwin.iter().map(|&d| udims[d]).collect();
    let windows = multi_indices(&wsizes);
    let mut out = Vec::new();
    for pos in multi_indices(&st.position_sizes()) {
        let s = st.start(&pos);
        let fits =
            (0..dims.len()).all(|d| s[d] >= 0 && s[d] + extent[d] as i128 <= dims[d] as i128);
        if !fits {
            continue;
        }
        let base: usize = (0..dims.len()).map(|d| s[d] as usize * astrides[d]).sum();
        let ubase: usize = uscatter
            .iter()
            .zip(&pos)
            .map(|(&d, &p)| p * ustrides[d])
            .sum();
        for w in &windows {
            let o: usize = window.iter().zip(w).map(|(&d, &x)| x * astrides[d]).sum();
            let u: usize = uwin.iter().zip(w).map(|(&d, &x)| x * ustrides[d]).sum();
            out.push((base + o, ubase + u));
        }
    }
    Ok(out)
}

/// `Scatter`: copies of the operands, then `(out_k[o])_k = f((out_k[o])_k, (updates_k[u])_k)`
/// for each pair of [`scatter_pairs`] in order.
pub(super) fn scatter(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    dn: &ScatterDimensionNumbers,
    computation: &Arc<Computation>,
) -> Result<Literal> {
    if operands.len() < 3 || operands.len().is_multiple_of(2) {
        return Err(ctx.err(format!(
            "takes N operands, the indices and N updates, got {} operands",
            operands.len()
        )));
    }
    let n = operands.len() / 2;
    let shapes: Vec<Shape> = operands.iter().map(|l| l.shape()).collect();
    let refs: Vec<&Shape> = shapes.iter().collect();
    checked_out(
        ctx,
        infer::scatter(&refs[..n], refs[n], &refs[n + 1..], dn, computation),
    )?;
    let arrays = operands
        .iter()
        .map(|l| array(ctx, l))
        .collect::<Result<Vec<_>>>()?;
    let pairs = scatter_pairs(ctx, arrays[0].0, arrays[n + 1].0, operands[n], dn)?;
    let mut outs: Vec<ArrayData> = arrays[..n].iter().map(|(_, d)| (*d).clone()).collect();
    let updates: Vec<&ArrayData> = arrays[n + 1..].iter().map(|(_, d)| *d).collect();
    match (n, simple_reducer(computation), returned_param(computation)) {
        (1, Some((op, swapped)), _) => {
            let u = updates[0];
            with_array_data!(&mut outs[0], v: T => {
                let u = T::unwrap(u).ok_or_else(|| ctx.err("update type"))?;
                for &(o, k) in &pairs {
                    v[o] = if swapped { T::binary(op, u[k], v[o]) } else { T::binary(op, v[o], u[k]) };
                }
            });
        }
        // `|a, b| b`: the last update of each element wins; `|a, b| a` keeps the operand.
        (1, _, Some(p)) => {
            if p == 1 {
                copy_pairs(ctx, &mut outs[0], updates[0], &pairs)?;
            }
        }
        _ => general_scatter(ctx, &mut outs, &updates, &pairs, computation)?,
    }
    let mut lits: Vec<Literal> = outs
        .into_iter()
        .zip(&arrays)
        .map(|(data, (s, _))| Literal::Array {
            shape: s.with_type(s.ty),
            data,
        })
        .collect();
    Ok(if n == 1 {
        lits.swap_remove(0)
    } else {
        Literal::Tuple(lits)
    })
}

/// `Some(k)` when the computation returns its parameter `k` unchanged (a scalar root).
fn returned_param(c: &Computation) -> Option<usize> {
    match c.instr(c.root).op {
        Op::Parameter { index, .. } if c.result_shape().is_array() => Some(index),
        _ => None,
    }
}

/// `out[o] = u[k]` for each pair, in order.
fn copy_pairs(
    ctx: &Ctx<'_>,
    out: &mut ArrayData,
    u: &ArrayData,
    pairs: &[(usize, usize)],
) -> Result<()> {
    with_array_data!(out, v: T => {
        let u = T::unwrap(u).ok_or_else(|| ctx.err("update type"))?;
        for &(o, k) in pairs {
            v[o] = u[k];
        }
    });
    Ok(())
}

/// Any computation: evaluated on scalar literals for every pair.
fn general_scatter(
    ctx: &Ctx<'_>,
    outs: &mut [ArrayData],
    updates: &[&ArrayData],
    pairs: &[(usize, usize)],
    computation: &Computation,
) -> Result<()> {
    let n = outs.len();
    let mut args: Vec<Literal> = Vec::with_capacity(2 * n);
    for &(o, k) in pairs {
        args.clear();
        args.extend(outs.iter().map(|d| scalar_at(d, o)));
        args.extend(updates.iter().map(|d| scalar_at(d, k)));
        let r = evaluate(computation, &args)?;
        let values: Vec<&Literal> = match (&r, n) {
            (Literal::Array { .. }, 1) => vec![&r],
            (Literal::Tuple(v), _) if v.len() == n => v.iter().collect(),
            _ => {
                return Err(ctx.err(format!(
                    "update_computation returned {} for {n} operand(s)",
                    r.shape()
                )))
            }
        };
        for (out, lit) in outs.iter_mut().zip(values) {
            set_scalar(ctx, out, o, lit)?;
        }
    }
    Ok(())
}

/// Element `i` of `data` as a scalar literal (`i` in range by construction).
fn scalar_at(data: &ArrayData, i: usize) -> Literal {
    with_array_data!(data, v: T => Literal::scalar::<T>(v[i]))
}

/// `out[i] = lit` (a scalar of `out`'s type).
fn set_scalar(ctx: &Ctx<'_>, out: &mut ArrayData, i: usize, lit: &Literal) -> Result<()> {
    let ty = out.element_type();
    with_array_data!(out, v: T => {
        let x = lit
            .as_slice::<T>()
            .filter(|s| s.len() == 1)
            .ok_or_else(|| ctx.err(format!("update_computation returned {} where {ty}[] was expected", lit.shape())))?;
        v[i] = x[0];
    });
    Ok(())
}
