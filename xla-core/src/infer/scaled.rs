//! ScaledDot (XLA's `ScaledDot`, block-scaled operands): `(lhs, lhs_scale, rhs, rhs_scale)`,
//! each scale of its operand's rank and element type with every dimension dividing the
//! operand's (the block size), then DotGeneral's rules on lhs and rhs.

use super::expect_array;
use crate::element::ElementType;
use crate::error::{Blame, Error, Result};
use crate::ir::DotDimensionNumbers;
use crate::shape::{ArrayShape, Shape};

/// `ScaledDot(lhs, lhs_scale, rhs, rhs_scale, dimension_numbers)`: each scale has its
/// operand's element type and rank, each scale dimension `s` divides the operand's `x`
/// (block `x / s`; both may be 0); the result is DotGeneral's on lhs and rhs.
pub fn scaled_dot(
    operands: [&Shape; 4],
    dimension_numbers: &DotDimensionNumbers,
    preferred_element_type: Option<ElementType>,
) -> Result<ArrayShape> {
    let op = "ScaledDot";
    let [lhs, lhs_scale, rhs, rhs_scale] = operands;
    for (side, x, s, i) in [("lhs", lhs, lhs_scale, 0), ("rhs", rhs, rhs_scale, 2)] {
        let x = expect_array(op, side, x, Blame::Operand(i))?;
        let what = format!("{side}_scale");
        let s = expect_array(op, &what, s, Blame::Operand(i + 1))?;
        let err = |rule: String| {
            Error::new(op, format!("{rule} ({side} {x} vs {what} {s})"))
                .blame(Blame::Operand(i + 1))
        };
        if s.ty != x.ty {
            return Err(err(format!(
                "{what} must have {side}'s element type {}, got {}",
                x.ty, s.ty
            )));
        }
        if s.rank() != x.rank() {
            return Err(err(format!(
                "{what} must have {side}'s rank {}, got rank {}",
                x.rank(),
                s.rank()
            )));
        }
        for (d, (&xd, &sd)) in x.dims.iter().zip(&s.dims).enumerate() {
            let divides = if sd == 0 { xd == 0 } else { xd % sd == 0 };
            if !divides {
                return Err(err(format!(
                    "{what} dimension {d} ({sd}) must divide {side}'s ({xd}): each scale covers a block of {side}"
                )));
            }
        }
    }
    // DotGeneral's rules, with rhs blamed as ScaledDot's operand 2.
    super::dot::dot_general_named(op, lhs, rhs, dimension_numbers, preferred_element_type).map_err(
        |mut e| {
            if e.blame == Blame::Operand(1) {
                e.blame = Blame::Operand(2);
            }
            e
        },
    )
}
