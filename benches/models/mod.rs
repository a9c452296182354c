//! Whole models against XLA:CPU (rows of `bash scripts/bench.sh programs`): the README's MLP
//! and one transformer encoder block, each as one `xla!` fn against the same program's
//! StableHLO compiled by XLA (what `jax.jit` runs on CPU); and two models exported from JAX,
//! compiled by `stablehlo!`, against XLA running JAX's own text. The transformer block is
//! defined in `tests/models`, where `tests/oracle_models.rs` checks it against XLA.

use xla_aot::{Tensor, D1, D2, D4};
use xla_oracle::Oracle;

use super::common::data;
use super::{mlp, row, Row};

/// The programs, shared with the oracle test of whole models.
#[path = "../../tests/models/mod.rs"]
mod programs;
use programs::transformer_block;

// JAX models through `stablehlo!`; XLA runs JAX's own text for them.
xla_aot::stablehlo! {
    /// The example's classifier (5x4 -> 16 tanh -> 3, softmax; weights in the text).
    mod jax_classifier = "examples/models/classifier.mlir";
    /// The small CNN of `tests/stablehlo/export.py` (2x8x8x3, two 3x3 convs, mean, dense).
    fn jax_cnn = "tests/stablehlo/cnn.mlir";
}

/// Sequence length of [`transformer_block`].
const S: usize = 128;
/// Model width.
const E: usize = 256;
/// Heads.
const H: usize = 4;
/// Width of one head.
const HD: usize = 64;
/// MLP width.
const F: usize = 1024;

/// The model rows: the MLP at batch 64, the transformer block and the two JAX models.
pub fn rows(oracle: &mut Oracle, rows: &mut Vec<Row>) {
    {
        let x: Tensor<f32, D2<64, 784>> = Tensor::from_vec(data(40, 64 * 784)).unwrap();
        let w1: Tensor<f32, D2<784, 128>> = Tensor::from_vec(data(41, 784 * 128)).unwrap();
        let b1: Tensor<f32, D1<128>> = Tensor::from_vec(data(42, 128)).unwrap();
        let w2: Tensor<f32, D2<128, 10>> = Tensor::from_vec(data(43, 128 * 10)).unwrap();
        let b2: Tensor<f32, D1<10>> = Tensor::from_vec(data(44, 10)).unwrap();
        let mut out = Tensor::<f32, D2<64, 10>>::zeros();
        let mut scratch = mlp::Scratch::new();
        let args = [
            x.to_literal(),
            w1.to_literal(),
            b1.to_literal(),
            w2.to_literal(),
            b2.to_literal(),
        ];
        rows.extend(row(
            oracle,
            "MLP 64x784 -> 128 -> 10 (README)",
            &mlp::stablehlo(),
            &args,
            || mlp(&x, &w1, &b1, &w2, &b2).to_literal(),
            || mlp::into(&x, &w1, &b1, &w2, &b2, &mut out, &mut scratch),
            ((64 * 784 + 784 * 128 + 128 * 10 + 64 * 10) * 4) as f64,
            (2 * 64 * (784 * 128 + 128 * 10)) as f64,
        ));
    }
    {
        // Weights scaled by 1/sqrt(fan-in) so activations stay O(1) through the block.
        let w = |seed, rows: usize, cols: usize| -> Vec<f32> {
            let s = 1.0 / (rows as f32).sqrt();
            data(seed, rows * cols).into_iter().map(|v| v * s).collect()
        };
        let x: Tensor<f32, D2<S, E>> = Tensor::from_vec(data(50, S * E)).unwrap();
        let g1: Tensor<f32, D1<E>> = Tensor::from_vec(data(51, E)).unwrap();
        let b1: Tensor<f32, D1<E>> = Tensor::from_vec(data(52, E)).unwrap();
        let wqkv: Tensor<f32, D2<E, { 3 * E }>> = Tensor::from_vec(w(53, E, 3 * E)).unwrap();
        let bqkv: Tensor<f32, D1<{ 3 * E }>> = Tensor::from_vec(data(54, 3 * E)).unwrap();
        let wo: Tensor<f32, D2<E, E>> = Tensor::from_vec(w(55, E, E)).unwrap();
        let bo: Tensor<f32, D1<E>> = Tensor::from_vec(data(56, E)).unwrap();
        let g2: Tensor<f32, D1<E>> = Tensor::from_vec(data(57, E)).unwrap();
        let b2: Tensor<f32, D1<E>> = Tensor::from_vec(data(58, E)).unwrap();
        let w1: Tensor<f32, D2<E, F>> = Tensor::from_vec(w(59, E, F)).unwrap();
        let c1: Tensor<f32, D1<F>> = Tensor::from_vec(data(60, F)).unwrap();
        let w2: Tensor<f32, D2<F, E>> = Tensor::from_vec(w(61, F, E)).unwrap();
        let c2: Tensor<f32, D1<E>> = Tensor::from_vec(data(62, E)).unwrap();
        let mut out = Tensor::<f32, D2<S, E>>::zeros();
        let mut scratch = transformer_block::Scratch::new();
        let args = [
            x.to_literal(),
            g1.to_literal(),
            b1.to_literal(),
            wqkv.to_literal(),
            bqkv.to_literal(),
            wo.to_literal(),
            bo.to_literal(),
            g2.to_literal(),
            b2.to_literal(),
            w1.to_literal(),
            c1.to_literal(),
            w2.to_literal(),
            c2.to_literal(),
        ];
        let flops = 2 * S * E * 3 * E + 2 * 2 * H * S * S * HD + 2 * S * E * E + 2 * 2 * S * E * F;
        rows.extend(row(
            oracle,
            "transformer block 128x256 (4 heads)",
            &transformer_block::stablehlo(),
            &args,
            || {
                transformer_block(
                    &x, &g1, &b1, &wqkv, &bqkv, &wo, &bo, &g2, &b2, &w1, &c1, &w2, &c2,
                )
                .to_literal()
            },
            || {
                transformer_block::into(
                    &x,
                    &g1,
                    &b1,
                    &wqkv,
                    &bqkv,
                    &wo,
                    &bo,
                    &g2,
                    &b2,
                    &w1,
                    &c1,
                    &w2,
                    &c2,
                    &mut out,
                    &mut scratch,
                )
            },
            ((S * E * 2 + 2 * E * 3 + E * 3 * E + E * E + 2 * E + E * F + F + F * E + E) * 4)
                as f64,
            flops as f64,
        ));
    }
    {
        let x: Tensor<f32, D2<5, 4>> = Tensor::from_vec(data(60, 20)).unwrap();
        let mut out = Tensor::<f32, D2<5, 3>>::zeros();
        let mut scratch = jax_classifier::main::Scratch::new();
        rows.extend(row(
            oracle,
            "JAX classifier by stablehlo! (5x4 -> 16 tanh -> 3 softmax)",
            include_str!("../../examples/models/classifier.mlir"),
            &[x.to_literal()],
            || jax_classifier::main(&x).to_literal(),
            || jax_classifier::main::into(&x, &mut out, &mut scratch),
            ((20 + 4 * 16 + 16 + 16 * 3 + 3 + 15) * 4) as f64,
            2.0 * (5.0 * 4.0 * 16.0 + 5.0 * 16.0 * 3.0),
        ));
    }
    {
        let x: Tensor<f32, D4<2, 8, 8, 3>> = Tensor::from_vec(data(61, 2 * 64 * 3)).unwrap();
        let k1: Tensor<f32, D4<3, 3, 3, 4>> = Tensor::from_vec(data(62, 9 * 12)).unwrap();
        let k2: Tensor<f32, D4<3, 3, 4, 6>> = Tensor::from_vec(data(63, 9 * 24)).unwrap();
        let w: Tensor<f32, D2<6, 5>> = Tensor::from_vec(data(64, 30)).unwrap();
        let mut out = Tensor::<f32, D2<2, 5>>::zeros();
        let mut scratch = jax_cnn::Scratch::new();
        let lits = [
            x.to_literal(),
            k1.to_literal(),
            k2.to_literal(),
            w.to_literal(),
        ];
        rows.extend(row(
            oracle,
            "JAX CNN by stablehlo! (2x8x8x3 -> 4 -> 6 /2 -> 5)",
            include_str!("../../tests/stablehlo/cnn.mlir"),
            &lits,
            || jax_cnn(&x, &k1, &k2, &w).to_literal(),
            || jax_cnn::into(&x, &k1, &k2, &w, &mut out, &mut scratch),
            ((2 * 64 * 3 + 108 + 216 + 30 + 10) * 4) as f64,
            2.0 * (2.0 * 64.0 * 4.0 * 27.0 + 2.0 * 9.0 * 6.0 * 36.0 + 2.0 * 6.0 * 5.0),
        ));
    }
}
