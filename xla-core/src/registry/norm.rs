//! Batch-norm specs: BatchNormTraining, BatchNormInference, BatchNormGrad.

use super::{op, req, AttrKind as K, AttrSpec, Form, OpKind, OpSpec, Typing};
use crate::ir::BatchNormKind;

const BATCH_NORM: &[AttrSpec] = &[req("epsilon", K::Float), req("feature_index", K::Int)];

pub(super) const NORM: [OpSpec; 3] = [
    op(
        "BatchNormTraining",
        OpKind::BatchNorm(BatchNormKind::Training),
        "stablehlo.batch_norm_training",
        Form::Operands(3),
        "(operand, scale, offset)",
        BATCH_NORM,
        Typing::Same { with_result: false },
    ),
    op(
        "BatchNormInference",
        OpKind::BatchNorm(BatchNormKind::Inference),
        "stablehlo.batch_norm_inference",
        Form::Operands(5),
        "(operand, scale, offset, mean, variance)",
        BATCH_NORM,
        Typing::Same { with_result: false },
    ),
    op(
        "BatchNormGrad",
        OpKind::BatchNorm(BatchNormKind::Grad),
        "stablehlo.batch_norm_grad",
        Form::Operands(5),
        "(operand, scale, mean, variance, grad_output)",
        BATCH_NORM,
        Typing::Same { with_result: false },
    ),
];
