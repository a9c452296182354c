//! BatchNormTraining, BatchNormInference and BatchNormGrad (XLA's
//! `InferBatchNorm{Training,Inference,Grad}Shape`, in XLA's order of checks).
//!
//! Every op takes an operand `x` of rank >= 1 with a floating element type, a `feature_index`
//! in `[0, rank)`, and rank-1 feature inputs (scale, offset, mean, variance) of `x`'s element
//! type whose size is `x`'s feature dimension. BatchNormGrad's `grad_output` has `x`'s shape.
//! Results: Training `(x's shape, T[F], T[F])`, Inference `x`'s shape, Grad `(x's shape, T[F],
//! T[F])`. XLA accepts feature inputs of another float precision (f32 scale for an f16
//! operand); like StableHLO's spec we ask for the operand's element type exactly.

use super::expect_array;
use crate::error::{Blame, Error, Result};
use crate::ir::BatchNormKind;
use crate::shape::{ArrayShape, Shape};

/// The result shape of `kind` on `operands` (in the order of
/// [`BatchNormKind::operand_names`]) with features along `feature_index`.
pub fn batch_norm(kind: BatchNormKind, operands: &[&Shape], feature_index: i64) -> Result<Shape> {
    let op = kind.name();
    let names = kind.operand_names();
    if operands.len() != names.len() {
        return Err(Error::new(
            op,
            format!(
                "takes {} operands ({}), got {}",
                names.len(),
                names.join(", "),
                operands.len()
            ),
        ));
    }
    let arrays = operands
        .iter()
        .zip(names)
        .enumerate()
        .map(|(i, (s, n))| expect_array(op, n, s, Blame::Operand(i)))
        .collect::<Result<Vec<&ArrayShape>>>()?;
    let x = arrays[0];
    let rank = x.rank() as i64;
    if feature_index < 0 || feature_index >= rank {
        let why = if rank == 0 {
            format!("the operand {x} is a scalar: it has no feature dimension")
        } else {
            format!("feature_index = {feature_index} is out of range for the rank-{rank} operand {x} (0..{rank})")
        };
        return Err(Error::new(op, why).blame(Blame::Attribute("feature_index")));
    }
    if !x.ty.is_float() {
        return Err(Error::new(
            op,
            format!("the operand must have a floating-point element type, got {x}"),
        )
        .blame(Blame::Operand(0)));
    }
    let features = x.dims[feature_index as usize];
    // Grad's grad_output (last) is shaped like the operand; every other input is per feature.
    let per_feature = match kind {
        BatchNormKind::Grad => arrays.len() - 1,
        BatchNormKind::Training | BatchNormKind::Inference => arrays.len(),
    };
    for (i, a) in arrays.iter().enumerate().take(per_feature).skip(1) {
        feature_input(op, names[i], i, a, x, feature_index, features)?;
    }
    if kind == BatchNormKind::Grad {
        let g = arrays[4];
        if g.ty != x.ty || !g.same_dims(x) {
            return Err(Error::new(
                op,
                format!("grad_output must have the operand's shape: {g} vs {x}"),
            )
            .blame(Blame::Operand(4)));
        }
    }
    let x_shape = Shape::Array(ArrayShape::new(x.ty, &x.dims));
    let per = Shape::Array(ArrayShape::new(x.ty, &[features]));
    Ok(match kind {
        BatchNormKind::Inference => x_shape,
        BatchNormKind::Training | BatchNormKind::Grad => {
            Shape::Tuple(vec![x_shape, per.clone(), per])
        }
    })
}

/// Feature input `name` (operand `i`): rank 1, the operand's element type, `features` long.
fn feature_input(
    op: &str,
    name: &str,
    i: usize,
    a: &ArrayShape,
    x: &ArrayShape,
    feature_index: i64,
    features: i64,
) -> Result<()> {
    let blame = Blame::Operand(i);
    if a.rank() != 1 {
        return Err(Error::new(
            op,
            format!(
                "{name} must have rank 1 (one value per feature), got the rank-{} {a}",
                a.rank()
            ),
        )
        .blame(blame));
    }
    if a.ty != x.ty {
        return Err(Error::new(
            op,
            format!("{name} must have the operand's element type: {a} vs {x}"),
        )
        .blame(blame));
    }
    if a.dims[0] != features {
        return Err(Error::new(
            op,
            format!(
                "{name} must have one value per feature: {a} vs {features} features (dimension \
                 {feature_index} of the operand {x})"
            ),
        )
        .blame(blame));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::ElementType::{F16, F32, S32};
    use crate::ir::BatchNormKind::{Grad, Inference, Training};

    fn s(ty: crate::element::ElementType, dims: &[i64]) -> Shape {
        Shape::array(ty, dims)
    }

    fn err(kind: BatchNormKind, shapes: &[Shape], fi: i64) -> Error {
        let refs: Vec<&Shape> = shapes.iter().collect();
        batch_norm(kind, &refs, fi).expect_err("must be refused")
    }

    #[test]
    fn result_shapes() {
        let x = s(F32, &[2, 3, 4]);
        let f = s(F32, &[3]);
        let t = batch_norm(Training, &[&x, &f, &f], 1).unwrap();
        assert_eq!(t, Shape::Tuple(vec![x.clone(), f.clone(), f.clone()]));
        let i = batch_norm(Inference, &[&x, &f, &f, &f, &f], 1).unwrap();
        assert_eq!(i, x);
        let g = batch_norm(Grad, &[&x, &f, &f, &f, &x], 1).unwrap();
        assert_eq!(g, Shape::Tuple(vec![x.clone(), f.clone(), f]));
        let h = s(F16, &[5]);
        assert!(batch_norm(Training, &[&s(F16, &[5]), &h, &h], 0).is_ok());
    }

    #[test]
    fn each_rule_names_op_rule_and_shapes() {
        let x = s(F32, &[2, 3, 4]);
        let f = s(F32, &[3]);
        let e = err(Training, &[x.clone(), f.clone(), f.clone()], 3);
        assert_eq!(e.blame, Blame::Attribute("feature_index"));
        assert!(
            e.message
                .contains("feature_index = 3 is out of range for the rank-3 operand f32[2,3,4]"),
            "{e}"
        );
        let e = err(Training, &[x.clone(), f.clone(), f.clone()], -1);
        assert!(e.message.contains("feature_index = -1"), "{e}");
        let e = err(
            Inference,
            &[s(F32, &[]), f.clone(), f.clone(), f.clone(), f.clone()],
            0,
        );
        assert!(e.message.contains("scalar"), "{e}");
        let xi = s(S32, &[2, 3]);
        let fi = s(S32, &[3]);
        let e = err(Training, &[xi, fi.clone(), fi], 1);
        assert_eq!(e.blame, Blame::Operand(0));
        assert!(
            e.message
                .contains("floating-point element type, got s32[2,3]"),
            "{e}"
        );
        let e = err(Training, &[x.clone(), s(F32, &[3, 1]), f.clone()], 1);
        assert_eq!(e.blame, Blame::Operand(1));
        assert!(e.message.contains("scale must have rank 1"), "{e}");
        let e = err(
            Inference,
            &[x.clone(), f.clone(), f.clone(), s(F16, &[3]), f.clone()],
            1,
        );
        assert_eq!(e.blame, Blame::Operand(3));
        assert!(
            e.message
                .contains("mean must have the operand's element type: f16[3] vs f32[2,3,4]"),
            "{e}"
        );
        let e = err(
            Inference,
            &[x.clone(), f.clone(), f.clone(), f.clone(), s(F32, &[4])],
            1,
        );
        assert_eq!(e.blame, Blame::Operand(4));
        assert!(
            e.message
                .contains("variance must have one value per feature: f32[4] vs 3 features"),
            "{e}"
        );
        let e = err(
            Grad,
            &[
                x.clone(),
                f.clone(),
                f.clone(),
                f.clone(),
                s(F32, &[2, 3, 5]),
            ],
            1,
        );
        assert_eq!(e.blame, Blame::Operand(4));
        assert!(
            e.message
                .contains("grad_output must have the operand's shape: f32[2,3,5] vs f32[2,3,4]"),
            "{e}"
        );
        let e = err(Grad, &[x.clone(), f.clone(), f.clone(), f], 1);
        assert!(e.message.contains("takes 5 operands"), "{e}");
    }
}
