//! BatchNormTraining, BatchNormInference and BatchNormGrad on the builder, and their expansion
//! into primitive ops ([`expand_batch_norm`]): the one definition of their arithmetic, which
//! the evaluator runs and the macro inlines, written as XLA's `BatchNormExpander` writes it
//! (XLA:CPU runs that pass before anything else sees the op), so the order of roundings is
//! XLA's: `var = E[x^2] - E[x]^2`, `rsqrt(var + epsilon)`, means as divisions by the element
//! count converted from s32 to the operand's type.

use std::sync::Arc;

use super::{Builder, XlaOp};
use crate::element::ElementType;
use crate::error::Result;
use crate::infer;
use crate::ir::{BatchNormKind, BinaryOp, Computation, Op, UnaryOp};
use crate::literal::Literal;
use crate::shape::Shape;

impl Builder {
    /// `BatchNormTraining(operand, scale, offset, epsilon, feature_index)`: the tuple
    /// `(y, mean, var)` with per-feature `mean = E[x]`, `var = E[x^2] - E[x]^2` over every
    /// other dimension and `y = (x - mean) * rsqrt(var + epsilon) * scale + offset`.
    pub fn batch_norm_training(
        &mut self,
        operand: XlaOp,
        scale: XlaOp,
        offset: XlaOp,
        epsilon: f32,
        feature_index: i64,
    ) -> Result<XlaOp> {
        let ops = [operand, scale, offset];
        self.batch_norm(BatchNormKind::Training, &ops, epsilon, feature_index)
    }

    /// `BatchNormInference(operand, scale, offset, mean, variance, epsilon, feature_index)`:
    /// `y = x * s + (offset - mean * s)` with `s = scale * rsqrt(variance + epsilon)`.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm_inference(
        &mut self,
        operand: XlaOp,
        scale: XlaOp,
        offset: XlaOp,
        mean: XlaOp,
        variance: XlaOp,
        epsilon: f32,
        feature_index: i64,
    ) -> Result<XlaOp> {
        let ops = [operand, scale, offset, mean, variance];
        self.batch_norm(BatchNormKind::Inference, &ops, epsilon, feature_index)
    }

    /// `BatchNormGrad(operand, scale, mean, variance, grad_output, epsilon, feature_index)`:
    /// the tuple `(grad_operand, grad_scale, grad_offset)`, `grad_offset = sum(dy)`,
    /// `grad_scale = sum(dy (x - mean)) rsqrt(var + eps)`, `grad_operand = scale rsqrt(var +
    /// eps) / N (N dy - sum(dy) - (x - mean) sum(dy (x - mean)) / (var + eps))`.
    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm_grad(
        &mut self,
        operand: XlaOp,
        scale: XlaOp,
        mean: XlaOp,
        variance: XlaOp,
        grad_output: XlaOp,
        epsilon: f32,
        feature_index: i64,
    ) -> Result<XlaOp> {
        let ops = [operand, scale, mean, variance, grad_output];
        self.batch_norm(BatchNormKind::Grad, &ops, epsilon, feature_index)
    }

    /// Any of the three, operands in [`BatchNormKind::operand_names`] order.
    pub fn batch_norm(
        &mut self,
        kind: BatchNormKind,
        operands: &[XlaOp],
        epsilon: f32,
        feature_index: i64,
    ) -> Result<XlaOp> {
        let shapes = self.shape_list(operands)?;
        let out = infer::batch_norm(kind, &shapes, feature_index)?;
        let op = Op::BatchNorm {
            kind,
            feature_index,
            epsilon,
        };
        Ok(self.push(op, operands.iter().map(|o| o.0).collect(), out))
    }
}

/// The computation `kind` stands for on operands of `shapes`: parameters in
/// [`BatchNormKind::operand_names`] order, XLA's BatchNormExpander's instructions, the op's
/// result. `Err` when the shapes break a rule of [`infer::batch_norm`].
pub fn expand_batch_norm(
    kind: BatchNormKind,
    feature_index: i64,
    epsilon: f32,
    shapes: &[&Shape],
) -> Result<Computation> {
    infer::batch_norm(kind, shapes, feature_index)?;
    let mut b = Builder::new(kind.name());
    let mut params = Vec::with_capacity(shapes.len());
    for (i, (s, n)) in shapes.iter().zip(kind.operand_names()).enumerate() {
        params.push(b.parameter(i, (*s).clone(), n)?);
    }
    let x = b
        .shape(params[0])
        .as_array()
        .cloned()
        .expect("checked array");
    let mut e = Expander {
        ty: x.ty,
        dims: x.dims.clone(),
        fi: feature_index,
        b,
    };
    let root = match kind {
        BatchNormKind::Training => e.training(&params, epsilon)?,
        BatchNormKind::Inference => e.inference(&params, epsilon)?,
        BatchNormKind::Grad => e.grad(&params, epsilon)?,
    };
    e.b.build(root)
}

/// The builder of one expansion with the operand's type, dimensions and feature index.
struct Expander {
    ty: ElementType,
    dims: Vec<i64>,
    fi: i64,
    b: Builder,
}

impl Expander {
    /// `x op y`, operands of equal shapes.
    fn bin(&mut self, op: BinaryOp, x: XlaOp, y: XlaOp) -> Result<XlaOp> {
        self.b.binary(op, x, y, None)
    }

    /// A scalar of the operand's type: `value` converted, as XLA converts its literals.
    fn scalar(&mut self, value: Literal) -> Result<XlaOp> {
        let c = self.b.constant(value);
        self.b.convert(c, self.ty)
    }

    /// The scalar `s` broadcast to the operand's dimensions.
    fn splat(&mut self, s: XlaOp) -> Result<XlaOp> {
        let dims = self.dims.clone();
        self.b.broadcast_in_dim(s, &dims, &[])
    }

    /// The scalar `s` broadcast to one value per feature.
    fn splat_features(&mut self, s: XlaOp) -> Result<XlaOp> {
        let f = [self.dims[self.fi as usize]];
        self.b.broadcast_in_dim(s, &f, &[])
    }

    /// The per-feature `v` broadcast along the operand's feature dimension.
    fn per_feature(&mut self, v: XlaOp) -> Result<XlaOp> {
        let dims = self.dims.clone();
        self.b.broadcast_in_dim(v, &dims, &[self.fi])
    }

    /// The number of elements per feature, an s32 product converted to the operand's type
    /// (f16 turns 65520 and more into inf, as XLA's does).
    fn count(&mut self) -> Result<XlaOp> {
        let n = self
            .dims
            .iter()
            .enumerate()
            .filter(|&(d, _)| d as i64 != self.fi)
            .fold(1i32, |acc, (_, &s)| acc.wrapping_mul(s as i32));
        self.scalar(Literal::scalar(n))
    }

    /// The sum over every dimension but the feature's, from a zero of the operand's type.
    fn sum(&mut self, v: XlaOp) -> Result<XlaOp> {
        let zero = self.scalar(Literal::scalar(0f32))?;
        let add = Arc::new(add_computation(self.ty)?);
        let dims: Vec<i64> = (0..self.dims.len() as i64)
            .filter(|&d| d != self.fi)
            .collect();
        self.b.reduce(&[v], &[zero], &add, &dims)
    }

    /// The sums of `a` and of `b` (arrays of the operand's shape). For f32/f64 one variadic
    /// Reduce: each output folds exactly as its own Reduce would (in order; the evaluator and
    /// XLA fold variadic and single reduces of these types alike), and generated code reads
    /// the operand once for both, as XLA's multi-output fusion of the expander's two reduces
    /// does. f16/bf16 keep two Reduces, which fold in XLA's windows (`reduce_order`).
    fn sums(&mut self, a: XlaOp, b: XlaOp) -> Result<(XlaOp, XlaOp)> {
        if crate::reduce_order::follows_tree(&[self.ty]) {
            return Ok((self.sum(a)?, self.sum(b)?));
        }
        let zero = self.scalar(Literal::scalar(0f32))?;
        let add = Arc::new(add_pair_computation(self.ty)?);
        let dims: Vec<i64> = (0..self.dims.len() as i64)
            .filter(|&d| d != self.fi)
            .collect();
        let r = self.b.reduce(&[a, b], &[zero, zero], &add, &dims)?;
        Ok((
            self.b.get_tuple_element(r, 0)?,
            self.b.get_tuple_element(r, 1)?,
        ))
    }

    /// `v / count`, the count broadcast to `v`'s dimensions.
    fn mean(&mut self, v: XlaOp, count: XlaOp) -> Result<XlaOp> {
        let dims = self.b.shape(v).as_array().expect("array").dims.clone();
        let n = self.b.broadcast_in_dim(count, &dims, &[])?;
        self.bin(BinaryOp::Div, v, n)
    }

    fn training(&mut self, p: &[XlaOp], epsilon: f32) -> Result<XlaOp> {
        use BinaryOp::{Add, Mul, Sub};
        let (x, scale, offset) = (p[0], p[1], p[2]);
        let eps = self.scalar(Literal::scalar(epsilon))?;
        let eps = self.splat_features(eps)?;
        let count = self.count()?;
        let scale_b = self.per_feature(scale)?;
        let offset_b = self.per_feature(offset)?;
        let squared = self.bin(Mul, x, x)?;
        let (sum, squared_sum) = self.sums(x, squared)?;
        let mean = self.mean(sum, count)?;
        let mean_b = self.per_feature(mean)?;
        let square_mean = self.mean(squared_sum, count)?;
        let mean_square = self.bin(Mul, mean, mean)?;
        let var = self.bin(Sub, square_mean, mean_square)?;
        // XLA adds epsilon and takes rsqrt after broadcasting; per feature then broadcast is
        // the same arithmetic on the same values, once per feature instead of per element.
        let var_eps = self.bin(Add, var, eps)?;
        let rsqrt = self.b.unary(UnaryOp::Rsqrt, var_eps)?;
        let rsqrt = self.per_feature(rsqrt)?;
        let centred = self.bin(Sub, x, mean_b)?;
        let normalized = self.bin(Mul, centred, rsqrt)?;
        let scaled = self.bin(Mul, normalized, scale_b)?;
        let y = self.bin(Add, scaled, offset_b)?;
        self.b.tuple(&[y, mean, var])
    }

    fn inference(&mut self, p: &[XlaOp], epsilon: f32) -> Result<XlaOp> {
        use BinaryOp::{Add, Mul, Sub};
        let (x, scale, offset, mean, var) = (p[0], p[1], p[2], p[3], p[4]);
        let eps = self.scalar(Literal::scalar(epsilon))?;
        let eps = self.splat_features(eps)?;
        let var_eps = self.bin(Add, var, eps)?;
        let rsqrt = self.b.unary(UnaryOp::Rsqrt, var_eps)?;
        let true_scale = self.bin(Mul, scale, rsqrt)?;
        let mean_scaled = self.bin(Mul, mean, true_scale)?;
        let true_shift = self.bin(Sub, offset, mean_scaled)?;
        let scale_b = self.per_feature(true_scale)?;
        let scaled = self.bin(Mul, x, scale_b)?;
        let shift_b = self.per_feature(true_shift)?;
        self.bin(Add, scaled, shift_b)
    }

    fn grad(&mut self, p: &[XlaOp], epsilon: f32) -> Result<XlaOp> {
        use BinaryOp::{Add, Div, Mul, Sub};
        let (x, scale, mean, var, dy) = (p[0], p[1], p[2], p[3], p[4]);
        let count = self.count()?;
        let eps = self.scalar(Literal::scalar(epsilon))?;
        let eps_f = self.splat_features(eps)?;
        let scale_b = self.per_feature(scale)?;
        let mean_b = self.per_feature(mean)?;
        // XLA computes `var + eps` and its rsqrt at the operand's shape too (the same values
        // broadcast): here once per feature.
        let var_eps = self.bin(Add, var, eps_f)?;
        let rsqrt = self.b.unary(UnaryOp::Rsqrt, var_eps)?;
        let rsqrt_b = self.per_feature(rsqrt)?;
        let centred = self.bin(Sub, x, mean_b)?;
        let dy_centred = self.bin(Mul, dy, centred)?;
        let (sum_dy_centred, grad_offset) = self.sums(dy_centred, dy)?;
        let grad_scale = self.bin(Mul, sum_dy_centred, rsqrt)?;
        let i2 = self.per_feature(grad_offset)?;
        let i3 = self.per_feature(sum_dy_centred)?;
        let i4 = self.bin(Mul, i3, centred)?;
        let var_eps_b = self.per_feature(var_eps)?;
        let i5 = self.bin(Div, i4, var_eps_b)?;
        let scale_rsqrt = self.bin(Mul, scale_b, rsqrt_b)?;
        let scale_rsqrt = self.mean(scale_rsqrt, count)?;
        let n = self.splat(count)?;
        let i1 = self.bin(Mul, dy, n)?;
        let i1_i2 = self.bin(Sub, i1, i2)?;
        let i6 = self.bin(Sub, i1_i2, i5)?;
        let grad_x = self.bin(Mul, scale_rsqrt, i6)?;
        self.b.tuple(&[grad_x, grad_scale, grad_offset])
    }
}

/// `(a0, a1, b0, b1: T[]) -> (a0 + b0, a1 + b1)`: two sums in one Reduce.
fn add_pair_computation(ty: ElementType) -> Result<Computation> {
    let mut b = Builder::new("add_pair");
    let p: Vec<XlaOp> = (0..4)
        .map(|i| b.parameter(i, Shape::scalar(ty), &format!("p{i}")))
        .collect::<Result<_>>()?;
    let s0 = b.binary(BinaryOp::Add, p[0], p[2], None)?;
    let s1 = b.binary(BinaryOp::Add, p[1], p[3], None)?;
    let t = b.tuple(&[s0, s1])?;
    b.build(t)
}

/// `(a: T[], b: T[]) -> a + b`.
fn add_computation(ty: ElementType) -> Result<Computation> {
    let mut b = Builder::new("add");
    let x = b.parameter(0, Shape::scalar(ty), "a")?;
    let y = b.parameter(1, Shape::scalar(ty), "b")?;
    let s = b.binary(BinaryOp::Add, x, y, None)?;
    b.build(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::evaluate;

    fn run(kind: BatchNormKind, args: &[Literal], fi: i64, eps: f32) -> Literal {
        let shapes: Vec<Shape> = args.iter().map(Literal::shape).collect();
        let mut b = Builder::new("bn");
        let ps: Vec<XlaOp> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| b.parameter(i, s.clone(), "p").unwrap())
            .collect();
        let r = b.batch_norm(kind, &ps, eps, fi).unwrap();
        evaluate(&b.build(r).unwrap(), args).unwrap()
    }

    fn f32s(l: &Literal) -> Vec<f32> {
        l.as_slice::<f32>().unwrap().to_vec()
    }

    #[test]
    fn training_normalises_each_feature() {
        let x = Literal::from_vec(&[2, 2], vec![1f32, 2., 3., 4.]).unwrap();
        let one = Literal::from_vec(&[2], vec![1f32, 1.]).unwrap();
        let zero = Literal::from_vec(&[2], vec![0f32, 0.]).unwrap();
        let Literal::Tuple(out) = run(BatchNormKind::Training, &[x, one, zero], 1, 0.0) else {
            panic!("a tuple")
        };
        assert_eq!(f32s(&out[0]), [-1., -1., 1., 1.]);
        assert_eq!(f32s(&out[1]), [2., 3.]);
        assert_eq!(f32s(&out[2]), [1., 1.]);
    }

    #[test]
    fn inference_and_grad_follow_the_formulas() {
        // Features along dimension 0: x = [[1, 3], [2, 6]], mean [2, 4], var [1, 4], eps 0.
        let x = Literal::from_vec(&[2, 2], vec![1f32, 3., 2., 6.]).unwrap();
        let v = |a: f32, b: f32| Literal::from_vec(&[2], vec![a, b]).unwrap();
        let y = run(
            BatchNormKind::Inference,
            &[x.clone(), v(2., 1.), v(1., 0.), v(2., 4.), v(1., 4.)],
            0,
            0.0,
        );
        // 2 (x - 2) + 1 and (x - 4) / 2.
        assert_eq!(f32s(&y), [-1., 3., -1., 1.]);
        let dy = Literal::from_vec(&[2, 2], vec![1f32, 1., 2., 0.]).unwrap();
        let Literal::Tuple(g) = run(
            BatchNormKind::Grad,
            &[x, v(2., 1.), v(2., 4.), v(1., 4.), dy],
            0,
            0.0,
        ) else {
            panic!("a tuple")
        };
        // grad_offset = sum(dy); grad_scale = sum(dy (x - mean)) / sqrt(var).
        assert_eq!(f32s(&g[2]), [2., 2.]);
        assert_eq!(f32s(&g[1]), [0., -2.]);
        // Feature 0: scale 2, rsqrt 1, N 2: (2 / 2) (2 dy - 2 - (x - 2) 0 / 1) = [0, 0].
        // Feature 1: (1 / 2 / 2) (2 dy - 2 - (x - 4) (-4) / 4) = (1/4) [4 - 2 - 2, 0 - 2 + 2].
        assert_eq!(f32s(&g[0]), [0., 0., 0., 0.]);
    }

    #[test]
    fn f16_count_overflows_to_inf_as_xla() {
        // 65536 elements per feature: the count is inf in f16, so the mean of halves (a
        // finite sum) is 0, XLA's too.
        let half = half::f16::from_f32(0.5);
        let x = Literal::from_vec(&[65536, 1], vec![half; 65536]).unwrap();
        let f = Literal::from_vec(&[1], vec![half::f16::ONE]).unwrap();
        let Literal::Tuple(out) = run(BatchNormKind::Training, &[x, f.clone(), f], 1, 0.0) else {
            panic!("a tuple")
        };
        assert_eq!(out[1].as_slice::<half::f16>().unwrap(), [half::f16::ZERO]);
    }
}
