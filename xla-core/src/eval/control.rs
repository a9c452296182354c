//! Control flow: `While` runs its condition and body through [`evaluate`] until the condition is
//! false (no iteration cap, as in XLA: a loop whose condition never turns false does not end);
//! `Conditional` evaluates only the chosen branch. An error inside a condition, body or branch
//! is returned at once, naming the computation (and the iteration, for loops).

use std::sync::Arc;

use super::Ctx;
use crate::error::Result;
use crate::ir::Computation;
use crate::literal::{ArrayData, Literal};

/// The value of a scalar literal of type pred or s32 (a selector or a condition's result).
enum Selector {
    Pred(bool),
    Index(i32),
}

/// Reads a `pred[]` or `s32[]` scalar.
fn selector(lit: &Literal) -> Option<Selector> {
    let (shape, data) = lit.as_array()?;
    if !shape.dims.is_empty() {
        return None;
    }
    match data {
        ArrayData::Pred(v) => v.first().copied().map(Selector::Pred),
        ArrayData::S32(v) => v.first().copied().map(Selector::Index),
        ArrayData::S8(_)
        | ArrayData::S16(_)
        | ArrayData::S64(_)
        | ArrayData::U8(_)
        | ArrayData::U16(_)
        | ArrayData::U32(_)
        | ArrayData::U64(_)
        | ArrayData::F16(_)
        | ArrayData::Bf16(_)
        | ArrayData::F32(_)
        | ArrayData::F64(_)
        | ArrayData::C64(_)
        | ArrayData::C128(_) => None,
    }
}

/// `While(init)`: `state = body(state)` while `condition(state)`; the final state.
pub(super) fn while_loop(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    condition: &Arc<Computation>,
    body: &Arc<Computation>,
) -> Result<Literal> {
    ctx.arity(operands, 1)?;
    let mut state = operands[0].clone();
    let mut iteration: u64 = 0;
    loop {
        let c = ctx
            .nested(condition, std::slice::from_ref(&state))
            .map_err(|e| {
                ctx.err(format!(
                    "condition `{}` at iteration {iteration}: {e}",
                    condition.name
                ))
            })?;
        match selector(&c) {
            Some(Selector::Pred(true)) => {}
            Some(Selector::Pred(false)) => return Ok(state),
            Some(Selector::Index(_)) | None => {
                return Err(ctx.err(format!(
                    "condition `{}` returned {}, not a pred[]",
                    condition.name,
                    c.shape()
                )))
            }
        }
        state = ctx
            .nested(body, std::slice::from_ref(&state))
            .map_err(|e| {
                ctx.err(format!(
                    "body `{}` at iteration {iteration}: {e}",
                    body.name
                ))
            })?;
        iteration += 1;
    }
}

/// `Conditional(selector, operands...)`: branch `i` on operand `i + 1`, `i` = 0 for a true pred,
/// 1 for false, the s32 index itself when in range, else the last branch.
pub(super) fn conditional(
    ctx: &Ctx<'_>,
    operands: &[&Literal],
    branches: &[Arc<Computation>],
) -> Result<Literal> {
    let n = branches.len();
    if n == 0 || operands.len() != n + 1 {
        return Err(ctx.err(format!(
            "{n} branches need a selector and {n} operands, got {} operands",
            operands.len()
        )));
    }
    let chosen = match selector(operands[0]) {
        Some(Selector::Pred(p)) if n == 2 => usize::from(!p),
        Some(Selector::Pred(_)) => {
            return Err(ctx.err(format!("a pred selector needs 2 branches, got {n}")))
        }
        Some(Selector::Index(i)) => usize::try_from(i).ok().filter(|&i| i < n).unwrap_or(n - 1),
        None => {
            return Err(ctx.err(format!(
                "the selector must be pred[] or s32[], got {}",
                operands[0].shape()
            )))
        }
    };
    let branch = &branches[chosen];
    ctx.nested(branch, &[operands[chosen + 1].clone()])
        .map_err(|e| ctx.err(format!("branch {chosen} `{}`: {e}", branch.name)))
}

#[cfg(test)]
mod tests;
