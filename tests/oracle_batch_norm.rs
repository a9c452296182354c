//! BatchNormTraining, BatchNormInference and BatchNormGrad against XLA:CPU: the generated code
//! (the macro inlines XLA's BatchNormExpander decomposition, `xla_core::builder::
//! expand_batch_norm`, into reductions and fused elementwise loops) and the evaluator, on
//! f32/f64/f16/bf16, features first, in the middle and last, rank 2, a large epsilon; and a CNN
//! block (convolution, BatchNormInference, ReLU).
//!
//! Tolerance: normwise (`Tol::Normwise`: each element within `r` times the largest magnitude of its
//! array). XLA's sums run in another order than ours and its algebraic simplifier turns the
//! divisions by the element count into multiplications by its reciprocal, so results differ in
//! the last bits; `E[x^2] - E[x]^2` then amplifies the sums' rounding relative to the variance.
//! The bounds are a few units of each type's epsilon times the sums' lengths here (<= 240).
//!
//! Run: `XLA_ORACLE_PYTHON=target/oracle-venv/bin/python cargo test -p xla-aot --test
//! oracle_batch_norm`.

#![allow(dead_code)]

mod common;

use common::{check_all, Case, Tol};
use xla_aot::core::ElementType;
use xla_oracle::Dist;

xla_aot::xla! {
    pub fn train_f32(x: f32[4, 6, 5, 3], scale: f32[6], offset: f32[6])
        -> (f32[4, 6, 5, 3], f32[6], f32[6])
    {
        BatchNormTraining(x, scale, offset, epsilon = 0.001, feature_index = 1)
    }
    pub fn train_first(x: f32[7, 5, 6], scale: f32[7], offset: f32[7]) -> (f32[7, 5, 6], f32[7], f32[7]) {
        BatchNormTraining(x, scale, offset, epsilon = 1e-5, feature_index = 0)
    }
    pub fn train_last(x: f32[5, 6, 8], scale: f32[8], offset: f32[8]) -> (f32[5, 6, 8], f32[8], f32[8]) {
        BatchNormTraining(x, scale, offset, epsilon = 1e-5, feature_index = 2)
    }
    pub fn train_rank2(x: f32[64, 8], scale: f32[8], offset: f32[8]) -> (f32[64, 8], f32[8], f32[8]) {
        BatchNormTraining(x, scale, offset, epsilon = 1e-5, feature_index = 1)
    }
    pub fn train_big_eps(x: f32[4, 6, 5, 3], scale: f32[6], offset: f32[6])
        -> (f32[4, 6, 5, 3], f32[6], f32[6])
    {
        BatchNormTraining(x, scale, offset, epsilon = 10.0, feature_index = 1)
    }
    pub fn train_f64(x: f64[4, 6, 5, 3], scale: f64[6], offset: f64[6])
        -> (f64[4, 6, 5, 3], f64[6], f64[6])
    {
        BatchNormTraining(x, scale, offset, epsilon = 0.001, feature_index = 1)
    }
    pub fn train_f16(x: f16[4, 6, 5, 3], scale: f16[6], offset: f16[6])
        -> (f16[4, 6, 5, 3], f16[6], f16[6])
    {
        BatchNormTraining(x, scale, offset, epsilon = 0.001, feature_index = 1)
    }
    pub fn train_bf16(x: bf16[4, 6, 5, 3], scale: bf16[6], offset: bf16[6])
        -> (bf16[4, 6, 5, 3], bf16[6], bf16[6])
    {
        BatchNormTraining(x, scale, offset, epsilon = 0.001, feature_index = 1)
    }
}

xla_aot::xla! {
    pub fn infer_f32(x: f32[4, 6, 5, 3], scale: f32[6], offset: f32[6], mean: f32[6], var: f32[6])
        -> f32[4, 6, 5, 3]
    {
        BatchNormInference(x, scale, offset, mean, var, epsilon = 0.001, feature_index = 1)
    }
    pub fn infer_first(x: f32[7, 5, 6], scale: f32[7], offset: f32[7], mean: f32[7], var: f32[7])
        -> f32[7, 5, 6]
    {
        BatchNormInference(x, scale, offset, mean, var, epsilon = 1e-5, feature_index = 0)
    }
    pub fn infer_last(x: f32[5, 6, 8], scale: f32[8], offset: f32[8], mean: f32[8], var: f32[8])
        -> f32[5, 6, 8]
    {
        BatchNormInference(x, scale, offset, mean, var, epsilon = 1e-5, feature_index = 2)
    }
    pub fn infer_big_eps(x: f32[64, 8], scale: f32[8], offset: f32[8], mean: f32[8], var: f32[8])
        -> f32[64, 8]
    {
        BatchNormInference(x, scale, offset, mean, var, epsilon = 10.0, feature_index = 1)
    }
    pub fn infer_f64(x: f64[4, 6, 5, 3], scale: f64[6], offset: f64[6], mean: f64[6], var: f64[6])
        -> f64[4, 6, 5, 3]
    {
        BatchNormInference(x, scale, offset, mean, var, epsilon = 0.001, feature_index = 1)
    }
    pub fn infer_f16(x: f16[4, 6, 5, 3], scale: f16[6], offset: f16[6], mean: f16[6], var: f16[6])
        -> f16[4, 6, 5, 3]
    {
        BatchNormInference(x, scale, offset, mean, var, epsilon = 0.001, feature_index = 1)
    }
    pub fn infer_bf16(x: bf16[4, 6, 5, 3], scale: bf16[6], offset: bf16[6], mean: bf16[6],
        var: bf16[6]) -> bf16[4, 6, 5, 3]
    {
        BatchNormInference(x, scale, offset, mean, var, epsilon = 0.001, feature_index = 1)
    }
}

xla_aot::xla! {
    pub fn grad_f32(x: f32[4, 6, 5, 3], scale: f32[6], mean: f32[6], var: f32[6],
        dy: f32[4, 6, 5, 3]) -> (f32[4, 6, 5, 3], f32[6], f32[6])
    {
        BatchNormGrad(x, scale, mean, var, dy, epsilon = 0.001, feature_index = 1)
    }
    pub fn grad_first(x: f32[7, 5, 6], scale: f32[7], mean: f32[7], var: f32[7],
        dy: f32[7, 5, 6]) -> (f32[7, 5, 6], f32[7], f32[7])
    {
        BatchNormGrad(x, scale, mean, var, dy, epsilon = 1e-5, feature_index = 0)
    }
    pub fn grad_last(x: f32[5, 6, 8], scale: f32[8], mean: f32[8], var: f32[8],
        dy: f32[5, 6, 8]) -> (f32[5, 6, 8], f32[8], f32[8])
    {
        BatchNormGrad(x, scale, mean, var, dy, epsilon = 1e-5, feature_index = 2)
    }
    pub fn grad_rank2_big_eps(x: f32[64, 8], scale: f32[8], mean: f32[8], var: f32[8],
        dy: f32[64, 8]) -> (f32[64, 8], f32[8], f32[8])
    {
        BatchNormGrad(x, scale, mean, var, dy, epsilon = 10.0, feature_index = 1)
    }
    pub fn grad_f64(x: f64[4, 6, 5, 3], scale: f64[6], mean: f64[6], var: f64[6],
        dy: f64[4, 6, 5, 3]) -> (f64[4, 6, 5, 3], f64[6], f64[6])
    {
        BatchNormGrad(x, scale, mean, var, dy, epsilon = 0.001, feature_index = 1)
    }
    pub fn grad_f16(x: f16[4, 6, 5, 3], scale: f16[6], mean: f16[6], var: f16[6],
        dy: f16[4, 6, 5, 3]) -> (f16[4, 6, 5, 3], f16[6], f16[6])
    {
        BatchNormGrad(x, scale, mean, var, dy, epsilon = 0.001, feature_index = 1)
    }
    pub fn grad_bf16(x: bf16[4, 6, 5, 3], scale: bf16[6], mean: bf16[6], var: bf16[6],
        dy: bf16[4, 6, 5, 3]) -> (bf16[4, 6, 5, 3], bf16[6], bf16[6])
    {
        BatchNormGrad(x, scale, mean, var, dy, epsilon = 0.001, feature_index = 1)
    }
}

xla_aot::xla! {
    /// A CNN block in NCHW: 3x3 convolution (SAME) from 3 to 8 channels, BatchNormInference
    /// over the channels, ReLU, 3x3 max-pooling with stride 2 (SAME: a padded edge).
    pub fn conv_bn_relu(x: f32[2, 3, 12, 12], w: f32[8, 3, 3, 3], scale: f32[8], offset: f32[8],
        mean: f32[8], var: f32[8]) -> f32[2, 8, 6, 6]
    {
        let h = ConvWithGeneralDimensions(x, w, window_strides = [1, 1], padding = SAME,
            dimension_numbers = [NCHW, OIHW, NCHW]);
        let h = BatchNormInference(h, scale, offset, mean, var, epsilon = 1e-5, feature_index = 1);
        let r = Max(h, 0.0);
        ReduceWindow(r, f32::NEG_INFINITY, |a, b| Max(a, b), window_dimensions = [1, 1, 3, 3],
            window_strides = [1, 1, 2, 2], padding = SAME)
    }
}

/// The normwise bound of type `ty`.
fn tol(ty: ElementType) -> Tol {
    Tol::Normwise(match ty {
        ElementType::F64 => 1e-13,
        ElementType::F32 => 1e-5,
        ElementType::F16 => 1e-2,
        _ => 6e-2,
    })
}

/// Inputs (scale and offset too) in [-1, 1].
const CENTRED: &[Dist] = &[Dist::Range(-1.0, 1.0)];
/// Inputs in [2, 4]: mean 3, variance 1/3, so `E[x^2] - E[x]^2` cancels: the rounding of the
/// sums (ours and XLA's, in different orders) is multiplied by `E[x^2] / var` = 28 in the
/// variance and the outputs. The bound is scaled by 32 for that, and f16/bf16 are not tested
/// there: at their precision the variance itself is lost (bf16 `E[x^2]` = 9.3 +- 0.04 for a
/// variance of 0.33), in XLA's results as in ours.
const OFF_CENTRE: &[Dist] = &[Dist::Range(2.0, 4.0)];
/// Variances positive: x, scale, offset, mean in [-1, 1], the variance in [0.25, 2].
const INFER: &[Dist] = &[
    Dist::Range(-1.0, 1.0),
    Dist::Range(-1.0, 1.0),
    Dist::Range(-1.0, 1.0),
    Dist::Range(-1.0, 1.0),
    Dist::Range(0.25, 2.0),
];
/// x, scale, mean in [-1, 1], the variance in [0.25, 2], dy in [-1, 1].
const GRAD: &[Dist] = &[
    Dist::Range(-1.0, 1.0),
    Dist::Range(-1.0, 1.0),
    Dist::Range(-1.0, 1.0),
    Dist::Range(0.25, 2.0),
    Dist::Range(-1.0, 1.0),
];

#[test]
fn batch_norm_training_matches_xla() {
    use ElementType::*;
    let gens = [
        (gen!("bn_training/f32", train_f32), F32),
        (gen!("bn_training/feature_first", train_first), F32),
        (gen!("bn_training/feature_last", train_last), F32),
        (gen!("bn_training/rank2", train_rank2), F32),
        (gen!("bn_training/epsilon_10", train_big_eps), F32),
        (gen!("bn_training/f64", train_f64), F64),
        (gen!("bn_training/f16", train_f16), F16),
        (gen!("bn_training/bf16", train_bf16), Bf16),
    ];
    let mut cases = Vec::new();
    for (i, (g, ty)) in gens.into_iter().enumerate() {
        cases.push(Case::random(g, CENTRED, 10 * i as u64, tol(ty)));
        if let (F32 | F64, Tol::Normwise(r)) = (ty, tol(ty)) {
            cases.push(Case::random(
                g,
                OFF_CENTRE,
                10 * i as u64 + 1,
                Tol::Normwise(32.0 * r),
            ));
        }
    }
    check_all("BatchNormTraining", cases);
}

#[test]
fn batch_norm_inference_matches_xla() {
    use ElementType::*;
    let gens = [
        (gen!("bn_inference/f32", infer_f32), F32),
        (gen!("bn_inference/feature_first", infer_first), F32),
        (gen!("bn_inference/feature_last", infer_last), F32),
        (gen!("bn_inference/rank2_epsilon_10", infer_big_eps), F32),
        (gen!("bn_inference/f64", infer_f64), F64),
        (gen!("bn_inference/f16", infer_f16), F16),
        (gen!("bn_inference/bf16", infer_bf16), Bf16),
    ];
    let cases = gens
        .into_iter()
        .enumerate()
        .map(|(i, (g, ty))| Case::random(g, INFER, 100 + i as u64, tol(ty)))
        .collect();
    check_all("BatchNormInference", cases);
}

#[test]
fn batch_norm_grad_matches_xla() {
    use ElementType::*;
    let gens = [
        (gen!("bn_grad/f32", grad_f32), F32),
        (gen!("bn_grad/feature_first", grad_first), F32),
        (gen!("bn_grad/feature_last", grad_last), F32),
        (gen!("bn_grad/rank2_epsilon_10", grad_rank2_big_eps), F32),
        (gen!("bn_grad/f64", grad_f64), F64),
        (gen!("bn_grad/f16", grad_f16), F16),
        (gen!("bn_grad/bf16", grad_bf16), Bf16),
    ];
    let cases = gens
        .into_iter()
        .enumerate()
        .map(|(i, (g, ty))| Case::random(g, GRAD, 200 + i as u64, tol(ty)))
        .collect();
    check_all("BatchNormGrad", cases);
}

#[test]
fn conv_batch_norm_relu_block_matches_xla() {
    let g = gen!("cnn_block/conv_bn_relu", conv_bn_relu);
    let cases = (0..3)
        .map(|k| Case::random(g, INFER, 300 + k, tol(ElementType::F32)))
        .collect();
    check_all("Conv + BatchNormInference + ReLU + max-pool", cases);
}

xla_aot::xla! {
    /// Two sums of one operand space in one variadic Reduce (the generated code's pair path,
    /// `codegen_reduce/pair.rs`), with a tail shorter than a vector (40 per row).
    pub fn pair_sums(x: f32[8, 6, 40]) -> (f32[6], f32[6]) {
        Reduce(x, Mul(x, x), 0.0, 0.0, dimensions = [0, 2], |a, b, c, d| Tuple(a + c, b + d))
    }
    pub fn single_sum(x: f32[8, 6, 40]) -> f32[6] {
        Reduce(x, 0.0, dimensions = [0, 2], |a, b| a + b)
    }
    pub fn single_sum_of_squares(x: f32[8, 6, 40]) -> f32[6] {
        Reduce(Mul(x, x), 0.0, dimensions = [0, 2], |a, b| a + b)
    }
    pub fn pair_max_min(x: f64[3, 5, 70]) -> (f64[5], f64[5]) {
        Reduce(x, x, f64::NEG_INFINITY, f64::INFINITY, dimensions = [0, 2],
            |a, b, c, d| Tuple(Max(a, c), Min(b, d)))
    }
    pub fn single_max(x: f64[3, 5, 70]) -> f64[5] {
        Reduce(x, f64::NEG_INFINITY, dimensions = [0, 2], |a, b| Max(a, b))
    }
}

/// Each output of the one-pass pair of reductions has the bits of its own single Reduce.
#[test]
fn pair_reduction_outputs_equal_single_reductions() {
    use xla_aot::core::Literal;
    let x = common::random_arg(
        &xla_aot::core::Shape::array(ElementType::F32, &[8, 6, 40]),
        7,
        Dist::Range(-3.0, 3.0),
    );
    let args = std::slice::from_ref(&x);
    let Literal::Tuple(pair) = pair_sums::run_literals(args).unwrap() else {
        panic!("a tuple")
    };
    assert_eq!(pair[0], single_sum::run_literals(args).unwrap());
    assert_eq!(pair[1], single_sum_of_squares::run_literals(args).unwrap());
    let y = common::random_arg(
        &xla_aot::core::Shape::array(ElementType::F64, &[3, 5, 70]),
        8,
        Dist::Any,
    );
    let args = std::slice::from_ref(&y);
    let Literal::Tuple(mm) = pair_max_min::run_literals(args).unwrap() else {
        panic!("a tuple")
    };
    assert_eq!(mm[0], single_max::run_literals(args).unwrap());
}
