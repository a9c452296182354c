//! Control flow: `While(condition, body, init)` and `Conditional(selector, operands...)` with one
//! computation per branch (XLA's `InferWhileShape` and `InferConditionalShape`).
//!
//! Blame: a computation that disagrees with the value it is given is blamed
//! ([`Blame::Computation`]); the value itself is blamed when it is the odd one out (a While's
//! `init` when the condition and body agree on another state, a branch operand that does not
//! fit its branch's parameter, a selector of the wrong type).

use super::compatible;
use crate::element::ElementType;
use crate::error::{count, Blame, Error, Result};
use crate::ir::Computation;
use crate::shape::Shape;

/// `shape` without layouts (results never carry one; dims, dynamic flags and types are kept).
fn logical(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(a.with_type(a.ty)),
        Shape::Tuple(elems) => Shape::Tuple(elems.iter().map(logical).collect()),
        Shape::Token => Shape::Token,
    }
}

/// True for a `ty[]` array.
fn is_scalar_of(shape: &Shape, ty: ElementType) -> bool {
    matches!(shape, Shape::Array(a) if a.is_scalar() && a.ty == ty)
}

/// `While(condition, body, init)`: `condition: T -> pred[]` and `body: T -> T`, each taking
/// exactly one parameter compatible with `init` (layouts ignored); the result is `T`, init's
/// shape.
pub fn while_loop(condition: &Computation, body: &Computation, init: &Shape) -> Result<Shape> {
    let op = "While";
    let takes_one = |role: &str, c: &Computation, at: usize| -> Result<()> {
        if c.params.len() == 1 {
            return Ok(());
        }
        Err(Error::new(
            op,
            format!(
                "the {role} `{}` must take 1 parameter (the state, {init}), takes {}",
                c.name,
                count(c.params.len(), "parameter", "parameters")
            ),
        )
        .blame(Blame::ComputationAt(at)))
    };
    takes_one("condition", condition, 0)?;
    takes_one("body", body, 1)?;
    let cond_param = &condition.params[0];
    let body_param = &body.params[0];
    let body_result = body.result_shape();
    let cond_result = condition.result_shape();
    if !is_scalar_of(cond_result, ElementType::Pred) {
        return Err(Error::new(
            op,
            format!(
                "the condition `{}` must return pred[], returns {cond_result} (the state is \
                 {init})",
                condition.name
            ),
        )
        .blame(Blame::ComputationAt(0)));
    }
    // When the condition and body agree on one state and only init differs, init is at fault.
    let agree = compatible(cond_param, body_param) && compatible(body_param, body_result);
    if agree && !compatible(init, body_param) {
        return Err(Error::new(
            op,
            format!(
                "init is {init} but the condition `{}` and body `{}` take the state {body_param}",
                condition.name, body.name
            ),
        )
        .blame(Blame::Operand(0)));
    }
    let checks = [
        ("condition", &condition.name, "takes", cond_param, 0),
        ("body", &body.name, "takes", body_param, 1),
        ("body", &body.name, "returns", body_result, 1),
    ];
    for (role, name, verb, shape, at) in checks {
        if !compatible(shape, init) {
            return Err(Error::new(
                op,
                format!("{role} `{name}` {verb} {shape} but the state is {init}"),
            )
            .blame(Blame::ComputationAt(at))
            .help(format!(
                "the condition's parameter, the body's parameter and result and init must all \
                 have one shape (the loop state); init is {init}"
            )));
        }
    }
    Ok(logical(init))
}

/// The selector of an explicit Conditional form: `pred[]` for `Conditional(pred, true_operand,
/// true_computation, false_operand, false_computation)`, `s32[]` for `Conditional(branch_index,
/// branches, operands)` (XLA's builder rejects the other type in each form).
pub fn conditional_selector(selector: &Shape, ty: ElementType) -> Result<()> {
    if is_scalar_of(selector, ty) {
        return Ok(());
    }
    let what = if ty == ElementType::Pred {
        "the predicate of a true/false Conditional"
    } else {
        "the branch index of an indexed Conditional"
    };
    Err(Error::new(
        "Conditional",
        format!("{what} must be {ty}[], got {selector}"),
    )
    .blame(Blame::Operand(0)))
}

/// `Conditional(selector, operands...)` with `branches[i]` applied to `operands[i]`: the
/// selector is `pred[]` (exactly 2 branches: true then false) or `s32[]` (at least 1 branch);
/// branch `i` takes one parameter compatible with `operands[i]`; all branches return one shape,
/// the result.
pub fn conditional(
    selector: &Shape,
    branches: &[&Computation],
    operands: &[&Shape],
) -> Result<Shape> {
    let op = "Conditional";
    let pred = is_scalar_of(selector, ElementType::Pred);
    if !pred && !is_scalar_of(selector, ElementType::S32) {
        return Err(Error::new(
            op,
            format!("the selector must be pred[] or s32[], got {selector}"),
        )
        .blame(Blame::Operand(0)));
    }
    if pred && branches.len() != 2 {
        return Err(Error::new(
            op,
            format!(
                "a pred[] selector needs exactly 2 branches (true, false), got {}",
                branches.len()
            ),
        ));
    }
    if branches.is_empty() {
        return Err(Error::new(
            op,
            "an s32[] branch index needs at least 1 branch, got none",
        ));
    }
    if operands.len() != branches.len() {
        return Err(Error::new(
            op,
            format!(
                "{} need one operand each, got {}",
                count(branches.len(), "branch", "branches"),
                count(operands.len(), "operand", "operands")
            ),
        ));
    }
    // "the true branch `t`" / "branch 2 `b2`".
    let label = |j: usize| match (pred, j) {
        (true, 0) => format!("the true branch `{}`", branches[0].name),
        (true, _) => format!("the false branch `{}`", branches[1].name),
        (false, _) => format!("branch {j} `{}`", branches[j].name),
    };
    for (j, (b, operand)) in branches.iter().zip(operands).enumerate() {
        if b.params.len() != 1 {
            return Err(Error::new(
                op,
                format!(
                    "{} must take 1 parameter (its operand, {operand}), takes {}",
                    label(j),
                    count(b.params.len(), "parameter", "parameters")
                ),
            )
            .blame(Blame::ComputationAt(j)));
        }
        if !compatible(&b.params[0], operand) {
            return Err(Error::new(
                op,
                format!(
                    "the operand of {} is {operand} but its parameter is {}",
                    label(j),
                    b.params[0]
                ),
            )
            .blame(Blame::Operand(j + 1)));
        }
    }
    let first = branches[0].result_shape();
    for (j, b) in branches.iter().enumerate().skip(1) {
        let r = b.result_shape();
        if !compatible(r, first) {
            return Err(Error::new(
                op,
                format!(
                    "{} returns {r} but {} returns {first}; all branches must return one shape",
                    label(j),
                    label(0)
                ),
            )
            .blame(Blame::ComputationAt(j)));
        }
    }
    Ok(logical(first))
}

#[cfg(test)]
mod tests;
