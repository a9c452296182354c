//! `SelectAndScatter`: for each window position `o` in row-major order, the kept element is
//! the first tap not on padding, replaced by each later tap `t` with `!select(kept, t)` (taps
//! row-major, padding skipped, as XLA's evaluator and XLA:CPU's emitter do); then
//! `out[kept] = scatter(out[kept], source[o])`. A window wholly on padding scatters nothing.

use super::window::window_taps;
use super::{array, dims_usize, evaluate, Ctx};
use crate::error::Result;
use crate::ir::{Computation, Window};
use crate::literal::{ArrayElement, Literal};
use crate::with_array_data;

/// `SelectAndScatter(operand, source, init_value)` with `select` and `scatter`.
pub(super) fn select_and_scatter(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    window: &Window,
    select: &Computation,
    scatter: &Computation,
) -> Result<Literal> {
    ctx.arity(operands, 3)?;
    let (xs, xd) = array(ctx, operands[0])?;
    let (ss, sd) = array(ctx, operands[1])?;
    let (is, id) = array(ctx, operands[2])?;
    let fits = [&window.dimensions, &window.strides]
        .iter()
        .all(|v| v.len() == xs.rank() && v.iter().all(|&x| x >= 1))
        && window.padding.len() == xs.rank()
        && ss.rank() == xs.rank()
        && is.dims.is_empty()
        && ss.ty == xs.ty
        && is.ty == xs.ty;
    if !fits {
        return Err(ctx.err(format!(
            "window {window:?} with source {ss} and init {is} does not fit operand {xs}"
        )));
    }
    let dims = dims_usize(ctx, &xs.dims)?;
    let taps = window_taps(&dims, window, &dims_usize(ctx, &ss.dims)?);
    let data = with_array_data!(xd, x: T => {
        let src = T::unwrap(sd).ok_or_else(|| ctx.err("source of another type"))?;
        let init = T::unwrap(id).and_then(|v| v.first().copied())
            .ok_or_else(|| ctx.err("init_value must be a scalar of the operand's type"))?;
        let mut out = vec![init; x.len()];
        let call = |c: &Computation, a: T, b: T| evaluate(c, &[Literal::scalar(a), Literal::scalar(b)]);
        for (o, w) in taps.iter().enumerate() {
            let Some((&first, rest)) = w.split_first() else { continue };
            let mut kept = first;
            for &t in rest {
                let keep = call(select, x[kept], x[t])?;
                match keep.as_slice::<bool>() {
                    Some([true]) => {}
                    Some([false]) => kept = t,
                    _ => return Err(ctx.err(format!("select returned {}, not a pred[]", keep.shape()))),
                }
            }
            let r = call(scatter, out[kept], src[o])?;
            out[kept] = r
                .as_slice::<T>()
                .and_then(|v| v.first().copied())
                .ok_or_else(|| ctx.err(format!("scatter returned {}, not a scalar of the operand's type", r.shape())))?;
        }
        T::wrap(out)
    });
    Ok(Literal::Array {
        shape: xs.with_type(xs.ty),
        data,
    })
}
