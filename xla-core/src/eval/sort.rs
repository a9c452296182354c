//! `Sort` and `TopK`.
//!
//! Sort permutes N operands of equal dims together along one dimension: every row (all
//! positions along the sorted dimension for fixed other indices) is ordered by a merge sort
//! whose "goes before" test is the comparator, `comparator(lhs_0, rhs_0, lhs_1, rhs_1, ...)`,
//! evaluated on scalar literals (or applied directly when it is a single comparison of one
//! operand's pair of parameters, the common `|a, b| a < b`).
//!
//! The merge sort is always stable: XLA guarantees stability only with `is_stable`, and an
//! unstable sort may return any order of the elements the comparator calls equal, so the stable
//! order is a valid result in both cases (and the one XLA:CPU gives for a strict weak order).
//! The sort is our own bottom-up merge sort, not `slice::sort_by`: a comparator that is not a
//! strict weak order (IEEE `<` over NaN, `a != b`, always true...) still yields a permutation
//! after `O(n log n)` comparisons, never a panic or a loop; which permutation is then
//! unspecified, for XLA too.
//!
//! TopK orders each row along the last dimension by the total order XLA uses for TopK (floats:
//! `-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN`, NaN payloads by their bits; XLA:CPU agrees
//! bit for bit), largest or smallest first, ties by lower index first, and keeps the first k.
//!
//! bf16 operands of both ops follow XLA:CPU (jaxlib 0.10.2, AVX2 and AVX-512 alike), which sorts
//! bf16 through f32: every NaN becomes the quiet NaN of its sign (`0x7fc0`, `0xffc0`) before the
//! comparator sees it, so NaNs of one sign are equal (in index order when stable), and the
//! results hold those canonical NaNs, keys and payloads alike. Other types keep their bits.

use std::cmp::Ordering;

use half::bf16;

use super::{array, dims_usize, evaluate, row_major_strides, strided_offsets, Ctx};
use crate::element::ElementType;
use crate::error::Result;
use crate::ir::{ComparisonDirection, Computation, Op};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::scalar::Scalar;
use crate::shape::{ArrayShape, Shape};
use crate::with_array_data;

/// `Sort(operands..., comparator, dimension)`; `is_stable` needs nothing more (see the module
/// docs).
pub(super) fn sort(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    dimension: i64,
    comparator: &Computation,
) -> Result<Literal> {
    if operands.is_empty() {
        return Err(ctx.err("needs at least one operand"));
    }
    let arrays = operands
        .iter()
        .map(|&l| array(ctx, l))
        .collect::<Result<Vec<(&ArrayShape, &ArrayData)>>>()?;
    let canonical: Vec<Option<ArrayData>> =
        arrays.iter().map(|(_, d)| canonical_bf16_nans(d)).collect();
    let arrays: Vec<(&ArrayShape, &ArrayData)> = arrays
        .iter()
        .zip(&canonical)
        .map(|(&(s, d), c)| (s, c.as_ref().unwrap_or(d)))
        .collect();
    let shape = arrays[0].0;
    if let Some((s, _)) = arrays.iter().find(|(s, _)| s.dims != shape.dims) {
        return Err(ctx.err(format!("all operands must have equal dims: {shape} vs {s}")));
    }
    let dims = dims_usize(ctx, &shape.dims)?;
    let d = usize::try_from(dimension)
        .ok()
        .filter(|&d| d < dims.len())
        .ok_or_else(|| {
            ctx.err(format!(
                "dimension {dimension} is not a dimension of {shape}"
            ))
        })?;
    let n = arrays.len();
    let types: Vec<ElementType> = arrays.iter().map(|(s, _)| s.ty).collect();
    let params_ok =
        comparator.params.len() == 2 * n
            && comparator.params.iter().enumerate().all(
                |(p, s)| matches!(s, Shape::Array(a) if a.is_scalar() && a.ty == types[p / 2]),
            );
    if !params_ok {
        let ps: Vec<String> = comparator.params.iter().map(Shape::to_string).collect();
        return Err(ctx.err(format!(
            "the comparator takes ({}), not a pair of scalars per operand of types {types:?}",
            ps.join(", ")
        )));
    }

    // One row per position of the other dimensions: `bases` are their first elements, `step`
    // the distance between neighbours along the sorted dimension.
    let strides = row_major_strides(&dims);
    let (len, step) = (dims[d], strides[d]);
    let mut outer = dims.clone();
    outer[d] = 1;
    let bases = strided_offsets(&outer, &strides);

    let perm = match simple_comparator(comparator) {
        Some((k, swapped, direction, total_order)) => {
            with_array_data!(arrays[k].1, v: T => {
                let mut less = |a: usize, b: usize| -> Result<bool> {
                    let (x, y) = if swapped { (v[b], v[a]) } else { (v[a], v[b]) };
                    Ok(if total_order {
                        x.compare_total(y, direction)
                    } else {
                        x.compare(y, direction)
                    })
                };
                permutations(&bases, len, step, &mut less)?
            })
        }
        None => {
            let mut args: Vec<Literal> = Vec::with_capacity(2 * n);
            for (_, data) in &arrays {
                args.push(scalar_at(data, 0));
                args.push(scalar_at(data, 0));
            }
            let mut less = |a: usize, b: usize| -> Result<bool> {
                for (k, (_, data)) in arrays.iter().enumerate() {
                    args[2 * k] = scalar_at(data, a);
                    args[2 * k + 1] = scalar_at(data, b);
                }
                let r = evaluate(comparator, &args)?;
                match r.as_slice::<bool>() {
                    Some(&[p]) => Ok(p),
                    _ => Err(ctx.err(format!(
                        "the comparator returned {} where pred[] was expected",
                        r.shape()
                    ))),
                }
            };
            permutations(&bases, len, step, &mut less)?
        }
    };

    let mut outs: Vec<Literal> = arrays
        .iter()
        .map(|(s, data)| Literal::Array {
            shape: s.with_type(s.ty),
            data: with_array_data!(*data, v: T => {
                let mut out = v.clone();
                for (r, &b) in bases.iter().enumerate() {
                    for (i, &src) in perm[r * len..(r + 1) * len].iter().enumerate() {
                        out[b + i * step] = v[b + src * step];
                    }
                }
                T::wrap(out)
            }),
        })
        .collect();
    Ok(if n == 1 {
        outs.swap_remove(0)
    } else {
        Literal::Tuple(outs)
    })
}

/// `Some((k, swapped, direction, total_order))` when the comparator is a single `Compare` of
/// operand `k`'s two parameters: `lhs_k R rhs_k`, or `rhs_k R lhs_k` when `swapped`.
fn simple_comparator(comp: &Computation) -> Option<(usize, bool, ComparisonDirection, bool)> {
    let root = comp.instrs.get(comp.root.0 as usize)?;
    let Op::Compare {
        direction,
        total_order,
    } = root.op
    else {
        return None;
    };
    if root.operands.len() != 2 {
        return None;
    }
    let param = |i: usize| -> Option<usize> {
        match comp.instrs.get(root.operands.get(i)?.0 as usize)?.op {
            Op::Parameter { index, .. } => Some(index),
            _ => None,
        }
    };
    let (a, b) = (param(0)?, param(1)?);
    if a / 2 != b / 2 || a == b {
        return None;
    }
    Some((a / 2, a % 2 == 1, direction, total_order))
}

/// For every row (`bases[r] + i * step`, `i < len`), the positions `i` in sorted order:
/// `perm[r * len + i]` is the position that goes to `i`. `less(x, y)` (offsets) says whether the
/// element at `x` goes before the one at `y`.
fn permutations(
    bases: &[usize],
    len: usize,
    step: usize,
    less: &mut dyn FnMut(usize, usize) -> Result<bool>,
) -> Result<Vec<usize>> {
    let mut perm = Vec::with_capacity(bases.len() * len);
    let mut row: Vec<usize> = Vec::with_capacity(len);
    let mut buf: Vec<usize> = Vec::with_capacity(len);
    for &b in bases {
        row.clear();
        row.extend(0..len);
        merge_sort(&mut row, &mut buf, &mut |x, y| {
            less(b + x * step, b + y * step)
        })?;
        perm.extend_from_slice(&row);
    }
    Ok(perm)
}

/// Stable bottom-up merge sort of `items` by `less` (`buf` is scratch space): each merge takes
/// the right element first only when `less(right, left)`, so equal elements keep their order.
/// It makes at most `n * ceil(log2 n)` calls of `less` whatever they answer, so an inconsistent
/// order still terminates with a permutation of `items`.
fn merge_sort(
    items: &mut Vec<usize>,
    buf: &mut Vec<usize>,
    less: &mut dyn FnMut(usize, usize) -> Result<bool>,
) -> Result<()> {
    let n = items.len();
    buf.clear();
    buf.extend_from_slice(items);
    let mut width = 1usize;
    while width < n {
        let mut lo = 0usize;
        while lo < n {
            let mid = lo.saturating_add(width).min(n);
            let hi = mid.saturating_add(width).min(n);
            let (mut i, mut j) = (lo, mid);
            for slot in &mut buf[lo..hi] {
                let take_right = j < hi && (i >= mid || less(items[j], items[i])?);
                if take_right {
                    *slot = items[j];
                    j += 1;
                } else {
                    *slot = items[i];
                    i += 1;
                }
            }
            lo = hi;
        }
        std::mem::swap(items, buf);
        width = width.saturating_mul(2);
    }
    Ok(())
}

/// `data` with every NaN replaced by the quiet NaN of its sign when it is bf16 with NaNs (what
/// XLA:CPU sorts, see the module docs); `None` when nothing changes.
fn canonical_bf16_nans(data: &ArrayData) -> Option<ArrayData> {
    let ArrayData::Bf16(v) = data else {
        return None;
    };
    if !v.iter().any(|x| x.is_nan()) {
        return None;
    }
    let canonical = |x: bf16| {
        if x.is_nan() {
            bf16::from_bits(0x7fc0 | (x.to_bits() & 0x8000))
        } else {
            x
        }
    };
    Some(ArrayData::Bf16(v.iter().map(|&x| canonical(x)).collect()))
}

/// Element `i` of `data` as a scalar literal (its type's zero if out of range, never read).
fn scalar_at(data: &ArrayData, i: usize) -> Literal {
    with_array_data!(data, v: T => Literal::scalar::<T>(v.get(i).copied().unwrap_or_default()))
}

/// `TopK(operand, k, largest)`: the tuple `(values, s32 indices)` of each row's `k` first
/// elements in the order described in the module docs.
pub(super) fn top_k(ctx: &Ctx<'_>, operand: &Literal, k: i64, largest: bool) -> Result<Literal> {
    let (shape, data) = array(ctx, operand)?;
    let canonical = canonical_bf16_nans(data);
    let data = canonical.as_ref().unwrap_or(data);
    let dims = dims_usize(ctx, &shape.dims)?;
    let Some((&len, outer)) = dims.split_last() else {
        return Err(ctx.err(format!("the operand {shape} has no last dimension")));
    };
    if shape.ty.is_complex() {
        return Err(ctx.err(format!("{} elements have no order", shape.ty)));
    }
    let k = usize::try_from(k)
        .ok()
        .filter(|&k| k <= len)
        .ok_or_else(|| ctx.err(format!("k = {k} is not in 0..={len} for {shape}")))?;
    if len > 0 && i32::try_from(len - 1).is_err() {
        return Err(ctx.err(format!(
            "the indices of a last dimension of {len} do not fit s32"
        )));
    }
    let rows: usize = outer.iter().product();
    let mut out_dims = shape.dims.clone();
    if let Some(last) = out_dims.last_mut() {
        *last = k as i64;
    }
    let mut indices: Vec<i32> = Vec::with_capacity(rows * k);
    let mut row: Vec<usize> = Vec::with_capacity(len);
    let mut buf: Vec<usize> = Vec::with_capacity(len);
    let values = with_array_data!(data, v: T => {
        let mut values: Vec<T> = Vec::with_capacity(rows * k);
        for r in 0..rows {
            let x = &v[r * len..(r + 1) * len];
            row.clear();
            row.extend(0..len);
            let mut less = |a: usize, b: usize| -> Result<bool> {
                let o = <T as Scalar>::total_cmp(x[a], x[b]);
                Ok(if largest { o == Ordering::Greater } else { o == Ordering::Less })
            };
            merge_sort(&mut row, &mut buf, &mut less)?;
            for &i in &row[..k] {
                values.push(x[i]);
                // Fits: checked above.
                indices.push(i as i32);
            }
        }
        T::wrap(values)
    });
    Ok(Literal::Tuple(vec![
        Literal::Array {
            shape: ArrayShape::new(shape.ty, &out_dims),
            data: values,
        },
        Literal::Array {
            shape: ArrayShape::new(ElementType::S32, &out_dims),
            data: ArrayData::S32(indices),
        },
    ]))
}

#[cfg(test)]
mod tests;
