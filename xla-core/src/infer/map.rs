//! Map (XLA's `InferMapShape`, in its order of checks): `Map(operands..., computation,
//! dimensions)` applies a scalar computation elementwise. N >= 1 arrays of one set of
//! dimensions (element types may differ); `dimensions` is every dimension in order
//! (`[0, 1, .., rank-1]`, the only form XLA supports); the computation takes N scalars, the
//! i-th of operand i's element type, and returns one scalar of type S. The result has the
//! operands' dimensions and element type S.

use super::{expect_array, list};
use crate::error::{count, Blame, Error, Result};
use crate::ir::Computation;
use crate::shape::{ArrayShape, Shape};

/// The result shape of `Map(operands..., computation, dimensions)`.
pub fn map(operands: &[&Shape], computation: &Computation, dimensions: &[i64]) -> Result<Shape> {
    let op = "Map";
    if operands.is_empty() {
        return Err(Error::new(op, "needs at least one operand"));
    }
    let arrays = operands
        .iter()
        .enumerate()
        .map(|(i, s)| expect_array(op, "each operand", s, Blame::Operand(i)))
        .collect::<Result<Vec<&ArrayShape>>>()?;
    let first = arrays[0];
    for (i, a) in arrays.iter().enumerate().skip(1) {
        if !a.same_dims(first) {
            return Err(Error::new(
                op,
                format!("all operands must have the same dimensions: {first} vs {a}"),
            )
            .blame(Blame::Operand(i)));
        }
    }
    let all: Vec<i64> = (0..first.rank() as i64).collect();
    if dimensions != all.as_slice() {
        return Err(Error::new(
            op,
            format!(
                "dimensions must be every dimension of the rank-{} operands in order, {}; got {}",
                first.rank(),
                list(&all),
                list(dimensions)
            ),
        )
        .blame(Blame::Attribute("dimensions")));
    }
    let params = &computation.params;
    if params.len() != arrays.len() {
        return Err(Error::new(
            op,
            format!(
                "the computation must take one scalar per operand: `{}` takes {}, for {}",
                computation.name,
                count(params.len(), "parameter", "parameters"),
                count(arrays.len(), "operand", "operands")
            ),
        )
        .blame(Blame::Computation));
    }
    for (i, (p, a)) in params.iter().zip(&arrays).enumerate() {
        let scalar = Shape::scalar(a.ty);
        if *p != scalar {
            return Err(Error::new(
                op,
                format!(
                    "parameter {i} of the computation must be the scalar {scalar} of operand \
                     {i} {a}, got {p}"
                ),
            )
            .blame(Blame::Computation));
        }
    }
    let result = computation.result_shape();
    match result.as_array() {
        Some(r) if r.is_scalar() => Ok(Shape::Array(first.with_type(r.ty))),
        _ => Err(Error::new(
            op,
            format!("the computation must return a scalar, got {result}"),
        )
        .blame(Blame::Computation)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::Builder;
    use crate::element::ElementType::{self, Pred, F32, S32};
    use crate::ir::BinaryOp;

    fn comp(
        params: &[Shape],
        f: impl FnOnce(&mut Builder, &[crate::builder::XlaOp]),
    ) -> Computation {
        let mut b = Builder::new("f");
        let ps: Vec<_> = params
            .iter()
            .enumerate()
            .map(|(i, s)| b.parameter(i, s.clone(), "p").unwrap())
            .collect();
        f(&mut b, &ps);
        let root = crate::builder::XlaOp(crate::ir::InstrId(b.len() as u32 - 1));
        b.build(root).unwrap()
    }

    fn s(ty: ElementType, d: &[i64]) -> Shape {
        Shape::array(ty, d)
    }

    #[test]
    fn result_takes_the_computation_type() {
        let c = comp(&[s(F32, &[]), s(F32, &[])], |b, p| {
            b.compare(crate::ir::ComparisonDirection::Lt, false, p[0], p[1], None)
                .unwrap();
        });
        let x = s(F32, &[2, 3]);
        assert_eq!(map(&[&x, &x], &c, &[0, 1]).unwrap(), s(Pred, &[2, 3]));
    }

    #[test]
    fn each_rule() {
        let add = comp(&[s(F32, &[]), s(F32, &[])], |b, p| {
            b.binary(BinaryOp::Add, p[0], p[1], None).unwrap();
        });
        let x = s(F32, &[2, 3]);
        let e = map(&[], &add, &[]).unwrap_err();
        assert!(e.message.contains("at least one operand"), "{e}");
        let e = map(&[&x, &s(F32, &[3, 2])], &add, &[0, 1]).unwrap_err();
        assert_eq!(e.blame, Blame::Operand(1));
        assert!(e.message.contains("f32[2,3] vs f32[3,2]"), "{e}");
        let e = map(&[&x, &x], &add, &[1, 0]).unwrap_err();
        assert!(e.message.contains("[0, 1]; got [1, 0]"), "{e}");
        let e = map(&[&x], &add, &[0, 1]).unwrap_err();
        assert!(
            e.message.contains("takes 2 parameters, for 1 operand"),
            "{e}"
        );
        let xi = s(S32, &[2, 3]);
        let e = map(&[&x, &xi], &add, &[0, 1]).unwrap_err();
        assert!(
            e.message
                .contains("parameter 1 of the computation must be the scalar s32[]"),
            "{e}"
        );
        let vec_out = comp(&[s(F32, &[])], |b, p| {
            b.broadcast(p[0], &[2]).unwrap();
        });
        let e = map(&[&x], &vec_out, &[0, 1]).unwrap_err();
        assert!(
            e.message.contains("must return a scalar, got f32[2]"),
            "{e}"
        );
    }
}
