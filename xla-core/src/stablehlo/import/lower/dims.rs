//! `stablehlo.dynamic_reshape(operand, output_shape)`: our DynamicReshape takes one `s32[]`
//! size per result dimension, so the 1-D `output_shape` is cut into scalars (slice, reshape,
//! convert to s32); the bounds and which dimensions are dynamic come from the declared
//! result type (`tensor<?x3xf32, #stablehlo.bounds<8, ?>>`).

use super::super::ast::{Operation, Type};
use super::super::{ImportError, Result};
use super::{bind_results, shape_err, Scope};
use crate::element::ElementType;

/// Lowers one `stablehlo.dynamic_reshape`.
pub(super) fn dynamic_reshape(s: &mut Scope, op: &Operation) -> Result<()> {
    let invalid = |message: String| ImportError::Invalid {
        message,
        pos: op.pos,
    };
    let ([x, shape], Some(Type::Tensor(out))) = (&op.operands[..], op.result_types.first()) else {
        return Err(invalid(
            "stablehlo.dynamic_reshape takes (operand, output_shape) and returns one tensor".into(),
        ));
    };
    let x = s.get(x, op.pos)?;
    let shape = s.get(shape, op.pos)?;
    let err = |e| shape_err(&op.name, e, op.pos);
    let n = out.rank() as i64;
    match s.b.shape(shape).as_array() {
        Some(a) if a.dims == [n] && a.ty.is_integral() => {}
        _ => {
            return Err(invalid(format!(
                "stablehlo.dynamic_reshape: output_shape must be a 1-D integer tensor of {n} \
                 elements, got {}",
                s.b.shape(shape)
            )))
        }
    }
    let mut sizes = Vec::with_capacity(out.rank());
    for k in 0..n {
        let one = s.b.slice(shape, &[k], &[k + 1], None).map_err(err)?;
        let scalar = s.b.reshape(one, None, &[]).map_err(err)?;
        let size = if s.b.element_type(scalar) == Some(ElementType::S32) {
            scalar
        } else {
            s.b.convert(scalar, ElementType::S32).map_err(err)?
        };
        sizes.push(size);
    }
    let r =
        s.b.dynamic_reshape(x, &sizes, &out.dims, &out.dynamic)
            .map_err(err)?;
    bind_results(s, op, r, false)
}
