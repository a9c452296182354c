//! RaggedDot in `jax.lax.ragged_dot`'s mode (XLA's `RaggedDotDimensionNumbers` with the lhs's
//! row dimension ragged): `lhs[m, k]`, `rhs[g, k, n]`, `group_sizes[g]` -> `out[m, n]`.

use super::expect_array;
use crate::error::{Blame, Error, Result};
use crate::shape::{ArrayShape, Shape};

/// `RaggedDot(lhs, rhs, group_sizes)`: lhs of rank 2, rhs of rank 3 (groups, contracting,
/// columns), group_sizes a vector of one integer per group; lhs and rhs of one element type
/// and one contracting size; result `[m, n]` of that type.
pub fn ragged_dot(lhs: &Shape, rhs: &Shape, group_sizes: &Shape) -> Result<ArrayShape> {
    let op = "RaggedDot";
    let l = expect_array(op, "lhs", lhs, Blame::Operand(0))?;
    let r = expect_array(op, "rhs", rhs, Blame::Operand(1))?;
    let g = expect_array(op, "group_sizes", group_sizes, Blame::Operand(2))?;
    let shapes = format!("lhs {l}, rhs {r}, group_sizes {g}");
    let err = |i: usize, rule: String| {
        Error::new(op, format!("{rule} ({shapes})")).blame(Blame::Operand(i))
    };
    if l.rank() != 2 {
        return Err(err(
            0,
            format!(
                "lhs must have rank 2 [rows, contracting], got rank {}",
                l.rank()
            ),
        ));
    }
    if r.rank() != 3 {
        return Err(err(
            1,
            format!(
                "rhs must have rank 3 [groups, contracting, columns], got rank {}",
                r.rank()
            ),
        ));
    }
    if g.rank() != 1 {
        return Err(err(
            2,
            format!("group_sizes must have rank 1, got rank {}", g.rank()),
        ));
    }
    if !g.ty.is_integral() || g.ty.is_pred() {
        return Err(err(
            2,
            format!("group_sizes must be integers, got {}", g.ty),
        ));
    }
    if l.ty != r.ty {
        return Err(err(
            1,
            format!("lhs and rhs element types differ: {} vs {}", l.ty, r.ty),
        ));
    }
    if l.dims[1] != r.dims[1] {
        return Err(err(
            1,
            format!(
                "contracting dimension sizes differ: {} vs {}",
                l.dims[1], r.dims[1]
            ),
        ));
    }
    if g.dims[0] != r.dims[0] {
        return Err(err(
            2,
            format!(
                "group_sizes has {} groups but rhs has {}",
                g.dims[0], r.dims[0]
            ),
        ));
    }
    Ok(ArrayShape::new(l.ty, &[l.dims[0], r.dims[2]]))
}

/// The dimension numbers of the one supported mode (`jax.lax.ragged_dot`'s, ragged
/// non-contracting): XLA's RaggedDotDimensionNumbers fields and their values.
pub const MODE: [(&str, &[i64]); 6] = [
    ("lhs_batch_dimensions", &[]),
    ("rhs_batch_dimensions", &[]),
    ("lhs_contracting_dimensions", &[1]),
    ("rhs_contracting_dimensions", &[1]),
    ("lhs_ragged_dimensions", &[0]),
    ("rhs_group_dimensions", &[0]),
];

/// Dimension numbers given (as attributes or by `chlo.ragged_dot`) must be [`MODE`]'s: the
/// ragged-contracting and ragged-batch modes and batch dimensions are not built.
pub fn check_mode(given: &[(&'static str, Option<Vec<i64>>)]) -> Result<()> {
    for ((name, v), (_, want)) in given.iter().zip(MODE) {
        match v {
            Some(v) if v.as_slice() != want => {
                return Err(Error::new(
                    "RaggedDot",
                    format!(
                        "{name} = {v:?} is not supported: only jax.lax.ragged_dot's mode (lhs \
                         [m, k] ragged along m, rhs [g, k, n]) is, where {name} = {want:?}"
                    ),
                )
                .blame(Blame::Attribute(name)));
            }
            _ => {}
        }
    }
    Ok(())
}
