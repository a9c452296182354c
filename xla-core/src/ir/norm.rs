//! Which batch-normalisation op an `Op::BatchNorm` is: [`BatchNormKind`].

/// Which of XLA's three batch-normalisation ops an [`Op::BatchNorm`](super::Op::BatchNorm) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchNormKind {
    /// `(operand, scale, offset)` -> `(output, batch_mean, batch_var)`:
    /// `y = (x - mean) * rsqrt(var + epsilon) * scale + offset` with the batch's own moments.
    Training,
    /// `(operand, scale, offset, mean, variance)` -> output:
    /// `y = x * (scale * rsqrt(var + epsilon)) + (offset - mean * scale * rsqrt(var + epsilon))`.
    Inference,
    /// `(operand, scale, mean, variance, grad_output)` -> `(grad_operand, grad_scale,
    /// grad_offset)`, the gradients of `Training`'s output.
    Grad,
}

impl BatchNormKind {
    /// Every variant, in declaration order.
    pub const ALL: [BatchNormKind; 3] = [
        BatchNormKind::Training,
        BatchNormKind::Inference,
        BatchNormKind::Grad,
    ];

    /// The user-facing op name (`BatchNormTraining`).
    pub fn name(self) -> &'static str {
        match self {
            BatchNormKind::Training => "BatchNormTraining",
            BatchNormKind::Inference => "BatchNormInference",
            BatchNormKind::Grad => "BatchNormGrad",
        }
    }

    /// The names of its operands, in order (`operand` first).
    pub fn operand_names(self) -> &'static [&'static str] {
        match self {
            BatchNormKind::Training => &["operand", "scale", "offset"],
            BatchNormKind::Inference => &["operand", "scale", "offset", "mean", "variance"],
            BatchNormKind::Grad => &["operand", "scale", "mean", "variance", "grad_output"],
        }
    }
}
