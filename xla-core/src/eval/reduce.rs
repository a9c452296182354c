//! Variadic `Reduce`: N arrays of equal dims and N scalar inits; for each position of the kept
//! dimensions, `acc = f(acc_0..acc_{N-1}, x_0..x_{N-1})` over the reduced positions, starting
//! from the inits.
//!
//! XLA leaves the order unspecified. A single f16/bf16 output folds in XLA:CPU's tree of windows
//! of 32 ([`crate::reduce_order`]: every application of the reducer rounds to f16/bf16, as in
//! XLA, so the order decides the accuracy); everything else is a sequential left fold in
//! row-major order of the reduced dimensions (XLA:CPU's order for variadic reduces too). A
//! reducer that is a single binary op of its two parameters (the common `|a, b| a + b`) is
//! applied directly; any other reducer is evaluated recursively on scalar literals. `Map`
//! applies its computation the same way, element by element.

use std::sync::Arc;

use super::{array, dims_usize, evaluate, row_major_strides, strided_offsets, Ctx};
use crate::error::Result;
use crate::ir::{BinaryOp, Computation, Op};
use crate::literal::{ArrayData, ArrayElement, Literal};
use crate::reduce_order::{self, follows_tree};
use crate::scalar::Scalar;
use crate::shape::ArrayShape;
use crate::with_array_data;

/// One array operand with its data and its init's data.
pub(super) type WithInit<'a> = (&'a ArrayShape, &'a ArrayData, &'a ArrayData);

/// The operands of a variadic reduction (Reduce, ReduceWindow): N arrays of equal dims, then N
/// scalar inits of their types; at least one pair.
pub(super) fn arrays_and_inits<'a>(
    ctx: &Ctx<'_>,
    operands: &[&'a Literal],
) -> Result<Vec<WithInit<'a>>> {
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
    Ok(arrays)
}

/// `Reduce(operands..., inits..., dimensions, computation)`.
pub(super) fn reduce(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    dimensions: &[i64],
    computation: &Arc<Computation>,
) -> Result<Literal> {
    let arrays = arrays_and_inits(ctx, operands)?;
    let (n, shape) = (arrays.len(), arrays[0].0);
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

    let simple = simple_reducer(computation);
    let results: Vec<ArrayData> = match (n, simple) {
        (1, _) if follows_tree(&[shape.ty]) => {
            let (_, data, init) = arrays[0];
            let levels = reduce_order::levels(&red_sizes);
            vec![with_array_data!(data, v: T => {
                let init = typed_scalar::<T>(ctx, init)?;
                let apply = |acc: T, x: T| -> Result<T> {
                    match simple {
                        Some((op, false)) => Ok(T::binary(op, acc, x)),
                        Some((op, true)) => Ok(T::binary(op, x, acc)),
                        None => {
                            let args = [Literal::scalar(acc), Literal::scalar(x)];
                            let r = evaluate(computation, &args)?;
                            r.as_slice::<T>()
                                .filter(|s| s.len() == 1)
                                .map(|s| s[0])
                                .ok_or_else(|| {
                                    ctx.err(format!(
                                        "the reducer returned {} where {}[] was expected",
                                        r.shape(),
                                        shape.ty
                                    ))
                                })
                        }
                    }
                };
                let mut values = Vec::with_capacity(inner.len());
                let mut out = Vec::with_capacity(bases.len());
                for &b in &bases {
                    values.clear();
                    values.extend(inner.iter().map(|&r| v[b + r]));
                    out.push(reduce_order::fold(&values, &levels, init, &apply)?);
                }
                T::wrap(out)
            })]
        }
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
        _ => fold_groups(
            ctx,
            &arrays,
            bases.iter().map(|&b| inner.iter().map(move |&r| b + r)),
            computation,
        )?,
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
pub(super) fn typed_scalar<T: ArrayElement>(ctx: &Ctx<'_>, data: &ArrayData) -> Result<T> {
    T::unwrap(data)
        .and_then(|v| v.first().copied())
        .ok_or_else(|| ctx.err(format!("init must be a {} scalar", T::TYPE)))
}

/// `Some((op, swapped))` if the reducer is `op(p0, p1)` (`swapped`: `op(p1, p0)`) of two scalar
/// parameters of one type, with nothing else to compute.
pub(super) fn simple_reducer(comp: &Computation) -> Option<(BinaryOp, bool)> {
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

/// Any reducer: for each group of flat positions, the accumulators start at the inits and the
/// computation, evaluated on scalar literals, folds in each position's elements in order
/// (Reduce's groups are the reduced elements of each output, ReduceWindow's the taps).
pub(super) fn fold_groups<G: IntoIterator<Item = usize>>(
    ctx: &Ctx<'_>,
    arrays: &[WithInit<'_>],
    groups: impl IntoIterator<Item = G>,
    computation: &Computation,
) -> Result<Vec<ArrayData>> {
    let n = arrays.len();
    let mut outs: Vec<ArrayData> = arrays
        .iter()
        .map(|(s, _, _)| ArrayData::zeros(s.ty, 0))
        .collect();
    // The argument vector is reused: accumulators in 0..n, elements in n..2n.
    let mut args: Vec<Literal> = Vec::with_capacity(2 * n);
    for group in groups {
        args.clear();
        args.extend(arrays.iter().map(|(_, _, init)| scalar_at(init, 0)));
        args.extend(arrays.iter().map(|(_, data, _)| scalar_at(data, 0)));
        for r in group {
            for (i, (_, data, _)) in arrays.iter().enumerate() {
                args[n + i] = scalar_at(data, r);
            }
            match (n, evaluate(computation, &args)?) {
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
pub(super) fn scalar_at(data: &ArrayData, i: usize) -> Literal {
    with_array_data!(data, v: T => Literal::scalar::<T>(v.get(i).copied().unwrap_or_default()))
}

/// `Map(operands..., computation)`: `out[i] = computation(operands[0][i], ...)` for every
/// element `i` (row-major), of the instruction's element type.
pub(super) fn map(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    computation: &Computation,
) -> Result<Literal> {
    let out_shape = ctx.out_array()?.clone();
    let n = out_shape.element_count() as usize;
    let mut datas = Vec::with_capacity(operands.len());
    for o in operands {
        let (s, d) = o
            .as_array()
            .ok_or_else(|| ctx.err("a tuple operand where an array is required"))?;
        if s.element_count() as usize != n {
            return Err(ctx.err(format!(
                "operand {s} does not have the result's {n} elements"
            )));
        }
        datas.push(d);
    }
    let mut out = ArrayData::zeros(out_shape.ty, 0);
    for i in 0..n {
        let args: Vec<Literal> = datas.iter().map(|d| scalar_at(d, i)).collect();
        let r = evaluate(computation, &args)?;
        push_scalar(ctx, &mut out, &r)?;
    }
    Ok(Literal::Array {
        shape: out_shape,
        data: out,
    })
}

/// Append the scalar `lit` to `out` (same element type).
pub(super) fn push_scalar(ctx: &Ctx<'_>, out: &mut ArrayData, lit: &Literal) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use half::{bf16, f16};

    use crate::builder::Builder;
    use crate::element::ElementType::{self, Bf16, S32};
    use crate::error::Result;
    use crate::eval::evaluate;
    use crate::ir::{BinaryOp, Computation};
    use crate::literal::{ArrayElement, Literal};
    use crate::shape::Shape;

    /// `|a, b| a + b` of `ty`, or `|a, b| a + b * b` when `square`.
    fn add(ty: ElementType, square: bool) -> Result<Arc<Computation>> {
        let mut b = Builder::new("add");
        let a = b.parameter(0, Shape::scalar(ty), "a")?;
        let x = b.parameter(1, Shape::scalar(ty), "b")?;
        let x = if square {
            b.binary(BinaryOp::Mul, x, x, None)?
        } else {
            x
        };
        let r = b.binary(BinaryOp::Add, a, x, None)?;
        Ok(Arc::new(b.build(r)?))
    }

    /// `Reduce(x, 0, dimensions)` of `x: ty[dims]` with `reducer`, evaluated on `x`.
    fn sum<T: ArrayElement>(
        dims: &[i64],
        rdims: &[i64],
        reducer: &Arc<Computation>,
        x: Vec<T>,
    ) -> Result<Vec<T>> {
        let mut b = Builder::new("sum");
        let p = b.parameter(0, Shape::array(T::TYPE, dims), "x")?;
        let zero = b.constant(Literal::scalar(T::default()));
        let r = b.reduce(&[p], &[zero], reducer, rdims)?;
        let out = evaluate(&b.build(r)?, &[Literal::from_vec(dims, x)?])?;
        Ok(out.as_slice::<T>().unwrap_or_default().to_vec())
    }

    #[test]
    fn narrow_sums_fold_in_xla_windows() -> Result<()> {
        let one = bf16::ONE;
        // 1024 = 32 windows of 32 ones, each sum exact in bf16, as XLA:CPU gives; a running
        // bf16 sum would stop at 256, where the spacing reaches 2.
        let plain = add(Bf16, false)?;
        let got = sum(&[1024], &[0], &plain, vec![one; 1024])?;
        assert_eq!(got, vec![bf16::from_f32(1024.0)]);
        // The same over rows and over columns.
        let got = sum(&[2, 1024], &[1], &plain, vec![one; 2048])?;
        assert_eq!(got, vec![bf16::from_f32(1024.0); 2]);
        let got = sum(&[1024, 3], &[0], &plain, vec![one; 3072])?;
        assert_eq!(got, vec![bf16::from_f32(1024.0); 3]);
        // No reduced dim above 32: XLA folds all 1024 in one window, and stops at 256 too.
        let got = sum(&[32, 32], &[0, 1], &plain, vec![one; 1024])?;
        assert_eq!(got, vec![bf16::from_f32(256.0)]);
        // Any reducer follows the windows (evaluated on literals here): a + b*b squares each
        // window's 32 into 1024, as XLA gives (32768).
        let squares = add(Bf16, true)?;
        let got = sum(&[1024], &[0], &squares, vec![one; 1024])?;
        assert_eq!(got, vec![bf16::from_f32(32768.0)]);
        // f16 over 4099: windows 18, 32 x 127, 17 (padding 14 + 15), then 5 partials of the
        // 129: every partial below 2048 is exact, and 4099 rounds to 4100 at the end.
        let got = sum(
            &[4099],
            &[0],
            &add(ElementType::F16, false)?,
            vec![f16::ONE; 4099],
        )?;
        assert_eq!(got, vec![f16::from_f32(4100.0)]);
        Ok(())
    }

    #[test]
    fn variadic_narrow_sums_fold_in_order() -> Result<()> {
        // XLA:CPU does not split variadic reduces: its (bf16 sum, s32 count) of 1024 ones is
        // (256, 1024), and so is ours.
        let mut b = Builder::new("sum_count");
        let ps: Vec<_> = [Bf16, S32, Bf16, S32]
            .iter()
            .enumerate()
            .map(|(i, &t)| b.parameter(i, Shape::scalar(t), "p"))
            .collect::<Result<_>>()?;
        let s = b.binary(BinaryOp::Add, ps[0], ps[2], None)?;
        let c = b.binary(BinaryOp::Add, ps[1], ps[3], None)?;
        let t = b.tuple(&[s, c])?;
        let reducer = Arc::new(b.build(t)?);
        let mut b = Builder::new("main");
        let x = b.parameter(0, Shape::array(Bf16, &[1024]), "x")?;
        let n = b.parameter(1, Shape::array(S32, &[1024]), "n")?;
        let z = b.constant(Literal::scalar(bf16::ZERO));
        let zi = b.constant(Literal::scalar(0i32));
        let r = b.reduce(&[x, n], &[z, zi], &reducer, &[0])?;
        let args = [
            Literal::from_vec(&[1024], vec![bf16::ONE; 1024])?,
            Literal::from_vec(&[1024], vec![1i32; 1024])?,
        ];
        let out = evaluate(&b.build(r)?, &args)?;
        let want = Literal::Tuple(vec![
            Literal::scalar(bf16::from_f32(256.0)),
            Literal::scalar(1024i32),
        ]);
        assert_eq!(out, want);
        Ok(())
    }
}
