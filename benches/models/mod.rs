//! Whole models against XLA:CPU (rows of `bash scripts/bench.sh programs`): the README's MLP
//! and one transformer encoder block, each as one `xla!` fn against the same program's
//! StableHLO compiled by XLA (what `jax.jit` runs on CPU); and two models exported from JAX,
//! compiled by `stablehlo!`, against XLA running JAX's own text. The transformer block is
//! defined in `tests/models`, where `tests/oracle_models.rs` checks it against XLA.

use xla_aot::{Tensor, D1, D2, D3, D4};
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
    /// Issue 15's models of `tests/stablehlo/export.py` at bench sizes: conv, batch norm,
    /// ReLU, max-pool, dense; a transformer encoder block; a `lax.scan` RNN.
    fn jax_cnn_block = "benches/models/cnn_block_8x56x56x16.mlir";
    fn jax_encoder = "benches/models/encoder_128x256.mlir";
    mod jax_rnn = "benches/models/rnn_64x32x128.mlir";
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

/// `rows x cols` weights scaled by 1/sqrt(rows) (the fan-in), so activations stay O(1).
fn weights(seed: u64, rows: usize, cols: usize) -> Vec<f32> {
    let s = 1.0 / (rows as f32).sqrt();
    data(seed, rows * cols).into_iter().map(|v| v * s).collect()
}

/// The model rows: the MLP at batch 64, the transformer block and the JAX models.
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
        let x: Tensor<f32, D2<S, E>> = Tensor::from_vec(data(50, S * E)).unwrap();
        let g1: Tensor<f32, D1<E>> = Tensor::from_vec(data(51, E)).unwrap();
        let b1: Tensor<f32, D1<E>> = Tensor::from_vec(data(52, E)).unwrap();
        let wqkv: Tensor<f32, D2<E, { 3 * E }>> = Tensor::from_vec(weights(53, E, 3 * E)).unwrap();
        let bqkv: Tensor<f32, D1<{ 3 * E }>> = Tensor::from_vec(data(54, 3 * E)).unwrap();
        let wo: Tensor<f32, D2<E, E>> = Tensor::from_vec(weights(55, E, E)).unwrap();
        let bo: Tensor<f32, D1<E>> = Tensor::from_vec(data(56, E)).unwrap();
        let g2: Tensor<f32, D1<E>> = Tensor::from_vec(data(57, E)).unwrap();
        let b2: Tensor<f32, D1<E>> = Tensor::from_vec(data(58, E)).unwrap();
        let w1: Tensor<f32, D2<E, F>> = Tensor::from_vec(weights(59, E, F)).unwrap();
        let c1: Tensor<f32, D1<F>> = Tensor::from_vec(data(60, F)).unwrap();
        let w2: Tensor<f32, D2<F, E>> = Tensor::from_vec(weights(61, F, E)).unwrap();
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
    jax_models(oracle, rows);
}

/// Issue 15's JAX models through `stablehlo!`, against XLA running JAX's text.
fn jax_models(oracle: &mut Oracle, rows: &mut Vec<Row>) {
    {
        const X: usize = 8 * 56 * 56 * 16;
        let x: Tensor<f32, D4<8, 56, 56, 16>> = Tensor::from_vec(data(70, X)).unwrap();
        let k: Tensor<f32, D4<3, 3, 16, 32>> = Tensor::from_vec(weights(71, 144, 32)).unwrap();
        let c = |seed, lo: f32| -> Tensor<f32, D1<32>> {
            Tensor::from_vec(data(seed, 32).into_iter().map(|v| lo + v.abs()).collect()).unwrap()
        };
        let (mean, var, scale, offset) = (c(72, -0.5), c(73, 0.5), c(74, 0.5), c(75, -0.5));
        let w: Tensor<f32, D2<{ 28 * 28 * 32 }, 10>> =
            Tensor::from_vec(weights(76, 28 * 28 * 32, 10)).unwrap();
        let b: Tensor<f32, D1<10>> = Tensor::from_vec(data(77, 10)).unwrap();
        let mut out = Tensor::<f32, D2<8, 10>>::zeros();
        let mut scratch = jax_cnn_block::Scratch::new();
        let lits = [
            x.to_literal(),
            k.to_literal(),
            mean.to_literal(),
            var.to_literal(),
            scale.to_literal(),
            offset.to_literal(),
            w.to_literal(),
            b.to_literal(),
        ];
        rows.extend(row(
            oracle,
            "JAX CNN block by stablehlo! (8x56x56x16, conv BN max-pool dense)",
            include_str!("cnn_block_8x56x56x16.mlir"),
            &lits,
            || jax_cnn_block(&x, &k, &mean, &var, &scale, &offset, &w, &b).to_literal(),
            || {
                jax_cnn_block::into(
                    &x,
                    &k,
                    &mean,
                    &var,
                    &scale,
                    &offset,
                    &w,
                    &b,
                    &mut out,
                    &mut scratch,
                )
            },
            ((X + 144 * 32 + 28 * 28 * 32 * 10) * 4) as f64,
            (2 * X / 16 * 32 * 144 + 2 * 8 * 28 * 28 * 32 * 10) as f64,
        ));
    }
    {
        let x: Tensor<f32, D2<S, E>> = Tensor::from_vec(data(80, S * E)).unwrap();
        let wqkv: Tensor<f32, D2<E, { 3 * E }>> = Tensor::from_vec(weights(81, E, 3 * E)).unwrap();
        let wo: Tensor<f32, D2<E, E>> = Tensor::from_vec(weights(82, E, E)).unwrap();
        let v = |seed| -> Tensor<f32, D1<E>> { Tensor::from_vec(data(seed, E)).unwrap() };
        let (g1, b1, c2, g2, b2) = (v(83), v(84), v(85), v(86), v(87));
        let w1: Tensor<f32, D2<E, F>> = Tensor::from_vec(weights(88, E, F)).unwrap();
        let c1: Tensor<f32, D1<F>> = Tensor::from_vec(data(89, F)).unwrap();
        let w2: Tensor<f32, D2<F, E>> = Tensor::from_vec(weights(90, F, E)).unwrap();
        let mut out = Tensor::<f32, D2<S, E>>::zeros();
        let mut scratch = jax_encoder::Scratch::new();
        let lits = [
            x.to_literal(),
            wqkv.to_literal(),
            wo.to_literal(),
            g1.to_literal(),
            b1.to_literal(),
            w1.to_literal(),
            c1.to_literal(),
            w2.to_literal(),
            c2.to_literal(),
            g2.to_literal(),
            b2.to_literal(),
        ];
        let flops = 2 * S * E * 3 * E + 2 * 2 * H * S * S * HD + 2 * S * E * E + 2 * 2 * S * E * F;
        rows.extend(row(
            oracle,
            "JAX encoder block by stablehlo! (128x256, 4 heads)",
            include_str!("encoder_128x256.mlir"),
            &lits,
            || jax_encoder(&x, &wqkv, &wo, &g1, &b1, &w1, &c1, &w2, &c2, &g2, &b2).to_literal(),
            || {
                jax_encoder::into(
                    &x,
                    &wqkv,
                    &wo,
                    &g1,
                    &b1,
                    &w1,
                    &c1,
                    &w2,
                    &c2,
                    &g2,
                    &b2,
                    &mut out,
                    &mut scratch,
                )
            },
            ((S * E * 2 + E * 3 * E + E * E + 2 * E * F + F + 5 * E) * 4) as f64,
            flops as f64,
        ));
    }
    {
        const T: usize = 64;
        const B: usize = 32;
        const I: usize = 128;
        const N: usize = 256;
        let xs: Tensor<f32, D3<T, B, I>> = Tensor::from_vec(data(91, T * B * I)).unwrap();
        let h0: Tensor<f32, D2<B, N>> = Tensor::from_vec(data(92, B * N)).unwrap();
        let wx: Tensor<f32, D2<I, N>> = Tensor::from_vec(weights(93, I, N)).unwrap();
        let wh: Tensor<f32, D2<N, N>> = Tensor::from_vec(weights(94, N, N)).unwrap();
        let b: Tensor<f32, D1<N>> = Tensor::from_vec(data(95, N)).unwrap();
        let mut hs = Tensor::<f32, D3<T, B, N>>::zeros();
        let mut last = Tensor::<f32, D2<B, N>>::zeros();
        let mut scratch = jax_rnn::main::Scratch::new();
        let lits = [
            xs.to_literal(),
            h0.to_literal(),
            wx.to_literal(),
            wh.to_literal(),
            b.to_literal(),
        ];
        rows.extend(row(
            oracle,
            "JAX lax.scan RNN by stablehlo! (64 steps, 32x128 -> 256)",
            include_str!("rnn_64x32x128.mlir"),
            &lits,
            || jax_rnn::main(&xs, &h0, &wx, &wh, &b).0.to_literal(),
            || jax_rnn::main::into(&xs, &h0, &wx, &wh, &b, &mut hs, &mut last, &mut scratch),
            ((T * B * I + B * N + I * N + N * N + N + T * B * N + B * N) * 4) as f64,
            (2 * T * B * N * (I + N)) as f64,
        ));
    }
}
