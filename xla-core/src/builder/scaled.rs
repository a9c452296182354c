//! ScaledDot on the builder and its expansion ([`expand_scaled_dot`]): each operand multiplied
//! by its scale repeated over blocks, then DotGeneral, as XLA's ScaledDotRewriter writes it.
//! XLA:CPU takes no scaled dot from StableHLO, so the export writes the expansion too.

use super::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::{Error, Result};
use crate::infer;
use crate::ir::{BinaryOp, Computation, DotDimensionNumbers, Op};
use crate::shape::{ArrayShape, Shape};

impl Builder {
    /// `ScaledDot(lhs, lhs_scale, rhs, rhs_scale, dimension_numbers)`:
    /// `DotGeneral(lhs * blocks(lhs_scale), rhs * blocks(rhs_scale))`, where `blocks(s)[i] =
    /// s[i / b]` per dimension with block `b = operand_dim / scale_dim`.
    pub fn scaled_dot(
        &mut self,
        operands: [XlaOp; 4],
        dimension_numbers: &DotDimensionNumbers,
        preferred_element_type: Option<ElementType>,
    ) -> Result<XlaOp> {
        let shapes = self.shapes(operands)?;
        let out = infer::scaled_dot(shapes, dimension_numbers, preferred_element_type)?;
        let op = Op::ScaledDot {
            dimension_numbers: dimension_numbers.clone(),
            preferred_element_type,
        };
        let ids = operands.iter().map(|o| o.0).collect();
        Ok(self.push(op, ids, Shape::Array(out)))
    }
}

/// The computation ScaledDot stands for on operands of `shapes` (lhs, lhs_scale, rhs,
/// rhs_scale): each scale broadcast to `[s0, b0, s1, b1, ...]` (a block dimension only where
/// the sizes differ) and reshaped to the operand's dimensions, multiplied in, then DotGeneral.
/// `Err` when the shapes break a rule of [`infer::scaled_dot`].
pub fn expand_scaled_dot(
    shapes: &[&Shape],
    dimension_numbers: &DotDimensionNumbers,
    preferred_element_type: Option<ElementType>,
) -> Result<Computation> {
    let op = "ScaledDot";
    let &[l, ls, r, rs] = shapes else {
        return Err(Error::new(
            op,
            format!(
                "takes (lhs, lhs_scale, rhs, rhs_scale), got {} operands",
                shapes.len()
            ),
        ));
    };
    infer::scaled_dot([l, ls, r, rs], dimension_numbers, preferred_element_type)?;
    let mut b = Builder::new(op);
    let names = ["lhs", "lhs_scale", "rhs", "rhs_scale"];
    let mut p = Vec::with_capacity(4);
    for (i, (s, n)) in shapes.iter().zip(names).enumerate() {
        p.push(b.parameter(i, (*s).clone(), n)?);
    }
    let x = dequantize(&mut b, p[0], p[1])?;
    let y = dequantize(&mut b, p[2], p[3])?;
    let root = b.dot_general(x, y, dimension_numbers, preferred_element_type)?;
    b.build(root)
}

/// `x * blocks(s)`: `s` repeated over each block of `x` (XLA's BroadcastAndReshape).
fn dequantize(b: &mut Builder, x: XlaOp, s: XlaOp) -> Result<XlaOp> {
    let xd = array(b, x)?.dims.clone();
    let sd = array(b, s)?.dims.clone();
    let (mut wide, mut at) = (Vec::new(), Vec::new());
    for (&xn, &sn) in xd.iter().zip(&sd) {
        at.push(wide.len() as i64);
        wide.push(sn);
        if xn != sn {
            wide.push(xn / sn);
        }
    }
    let spread = b.broadcast_in_dim(s, &wide, &at)?;
    let scale = b.reshape(spread, None, &xd)?;
    b.binary(BinaryOp::Mul, x, scale, None)
}

fn array(b: &Builder, x: XlaOp) -> Result<&ArrayShape> {
    b.try_shape(x)?
        .as_array()
        .ok_or_else(|| Error::new("ScaledDot", "operands must be arrays"))
}
