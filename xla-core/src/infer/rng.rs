//! RngBitGenerator, RngUniform and RngNormal.
//!
//! `RngBitGenerator(algorithm, initial_state, shape)`: `(u64[k], T[dims])` for a state `u64[k]`,
//! `k = 2` for THREE_FRY, `k` in {2, 3} for PHILOX and DEFAULT (the states XLA:CPU's expander
//! accepts; it rejects other element types and sizes), `T` an integer or floating-point type
//! (XLA rejects pred and complex). The shape argument is the operand after the state, blamed as
//! `Operand(1)`.
//!
//! `RngUniform(a, b, shape)` and `RngNormal(mu, sigma, shape)`: scalar parameters of the
//! shape's element type; XLA:CPU implements uniform for f16, bf16, f32, f64, s32, s64, u32, u64
//! and normal for f16, bf16, f32, f64 (other types abort its compiler). The shape is
//! `Operand(2)`.

use super::expect_array;
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::ir::{RandomAlgorithm, RngDistribution};
use crate::shape::{ArrayShape, Shape};

/// A static, valid result shape; `what` names it in messages.
fn result_array<'a>(op: &str, shape: &'a Shape, blame: Blame) -> Result<&'a ArrayShape> {
    let a = expect_array(op, "the result shape", shape, blame.clone())?;
    a.validate()
        .map_err(|e| Error::new(op, e.message).blame(blame.clone()))?;
    if a.is_dynamic() {
        return Err(
            Error::new(op, format!("the result shape must be static, got {a}")).blame(blame),
        );
    }
    Ok(a)
}

/// The result of `RngBitGenerator(algorithm, initial_state, shape)`: `(state, shape)`.
pub fn rng_bit_generator(
    algorithm: RandomAlgorithm,
    state: &Shape,
    shape: &Shape,
) -> Result<Shape> {
    let op = "RngBitGenerator";
    let s = expect_array(op, "the initial state", state, Blame::Operand(0))?;
    let sizes: &[i64] = match algorithm {
        RandomAlgorithm::ThreeFry => &[2],
        RandomAlgorithm::Philox | RandomAlgorithm::Default => &[2, 3],
    };
    if s.ty != ElementType::U64 || s.rank() != 1 || !sizes.contains(&s.dims[0]) || s.is_dynamic() {
        let want = if sizes.len() == 1 {
            "u64[2]".to_string()
        } else {
            "u64[2] or u64[3]".to_string()
        };
        return Err(Error::new(
            op,
            format!(
                "the initial state of {} must be {want} (key, counter), got {s}",
                algorithm.name()
            ),
        )
        .blame(Blame::Operand(0)));
    }
    let a = result_array(op, shape, Blame::Operand(1))?;
    if a.ty.is_pred() || a.ty.is_complex() {
        return Err(Error::new(
            op,
            format!(
                "generates integer or floating-point bits, not {} (result {a})",
                a.ty
            ),
        )
        .blame(Blame::Operand(1)));
    }
    Ok(Shape::Tuple(vec![
        Shape::Array(s.with_type(s.ty)),
        Shape::Array(a.with_type(a.ty)),
    ]))
}

/// The element types XLA:CPU draws `distribution` in.
pub fn rng_types(distribution: RngDistribution) -> &'static [ElementType] {
    use ElementType as E;
    match distribution {
        RngDistribution::Uniform => &[
            E::F16,
            E::Bf16,
            E::F32,
            E::F64,
            E::S32,
            E::S64,
            E::U32,
            E::U64,
        ],
        RngDistribution::Normal => &[E::F16, E::Bf16, E::F32, E::F64],
    }
}

/// The result of `RngUniform(a, b, shape)` / `RngNormal(mu, sigma, shape)`: the shape, whose
/// element type the two scalar parameters share.
pub fn rng(
    distribution: RngDistribution,
    a: &Shape,
    b: &Shape,
    shape: &Shape,
) -> Result<ArrayShape> {
    let op = distribution.name();
    let names = match distribution {
        RngDistribution::Uniform => ["the lower bound `a`", "the upper bound `b`"],
        RngDistribution::Normal => ["the mean `mu`", "the standard deviation `sigma`"],
    };
    let out = result_array(op, shape, Blame::Operand(2))?;
    let types = rng_types(distribution);
    if !types.contains(&out.ty) {
        let list: Vec<&str> = types.iter().map(|t| t.name()).collect();
        return Err(Error::new(
            op,
            format!(
                "draws {} only (what XLA:CPU implements), got {out}",
                list.join(", ")
            ),
        )
        .blame(Blame::Operand(2)));
    }
    for (i, (p, name)) in [a, b].into_iter().zip(names).enumerate() {
        let what = name.to_string();
        let s = expect_array(op, &what, p, Blame::Operand(i))?;
        if !s.is_scalar() {
            return Err(Error::new(op, format!("{what} must be a scalar, got {s}"))
                .blame(Blame::Operand(i)));
        }
        if s.ty != out.ty {
            return Err(Error::new(
                op,
                format!("{what} must have the result's element type: {s} vs result {out}"),
            )
            .blame(Blame::Operand(i)));
        }
    }
    Ok(out.with_type(out.ty))
}

#[cfg(test)]
mod tests;
