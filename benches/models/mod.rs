//! Whole models against XLA:CPU (rows of `bash scripts/bench.sh programs`): the README's MLP
//! and one transformer encoder block, each as one `xla!` fn against the same program's
//! StableHLO compiled by XLA (what `jax.jit` runs on CPU).

use xla_aot::{xla, Tensor, D1, D2};
use xla_oracle::Oracle;

use super::common::data;
use super::{mlp, row, Row};

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

xla! {
    /// A pre-LayerNorm transformer encoder block (GPT-2 style, one sequence): LayerNorm,
    /// 4-head self-attention (no mask), residual, LayerNorm, MLP 256 -> 1024 -> 256 with
    /// tanh-GELU, residual.
    fn transformer_block(
        x: f32[128, 256],
        g1: f32[256], b1: f32[256],
        wqkv: f32[256, 768], bqkv: f32[768],
        wo: f32[256, 256], bo: f32[256],
        g2: f32[256], b2: f32[256],
        w1: f32[256, 1024], c1: f32[1024],
        w2: f32[1024, 256], c2: f32[256],
    ) -> f32[128, 256] {
        let h = layer_norm(x, g1, b1);
        let qkv = Reshape(Add(Dot(h, wqkv), bqkv, broadcast_dimensions = [1]),
            new_sizes = [128, 3, 4, 64]);
        let q = Reshape(Slice(qkv, start_indices = [0, 0, 0, 0], limit_indices = [128, 1, 4, 64]),
            new_sizes = [128, 4, 64]);
        let k = Reshape(Slice(qkv, start_indices = [0, 1, 0, 0], limit_indices = [128, 2, 4, 64]),
            new_sizes = [128, 4, 64]);
        let v = Reshape(Slice(qkv, start_indices = [0, 2, 0, 0], limit_indices = [128, 3, 4, 64]),
            new_sizes = [128, 4, 64]);
        // scores[h, i, j] = q[i, h, :] . k[j, h, :] / sqrt(64)
        let s = Mul(DotGeneral(q, k, lhs_contracting_dimensions = [2],
            rhs_contracting_dimensions = [2], lhs_batch_dimensions = [1],
            rhs_batch_dimensions = [1]), 0.125);
        let m = Reduce(s, f32::NEG_INFINITY, dimensions = [2], |a, b| Max(a, b));
        let e = Exp(Sub(s, m, broadcast_dimensions = [0, 1]));
        let p = Div(e, Reduce(e, 0.0, dimensions = [2], |a, b| a + b),
            broadcast_dimensions = [0, 1]);
        // o[h, i, :] = sum_j p[h, i, j] v[j, h, :], heads side by side per position
        let o = DotGeneral(p, v, lhs_contracting_dimensions = [2],
            rhs_contracting_dimensions = [0], lhs_batch_dimensions = [0],
            rhs_batch_dimensions = [1]);
        let o = Reshape(Transpose(o, permutation = [1, 0, 2]), new_sizes = [128, 256]);
        let x = Add(x, Add(Dot(o, wo), bo, broadcast_dimensions = [1]));
        let u = Add(Dot(layer_norm(x, g2, b2), w1), c1, broadcast_dimensions = [1]);
        // GELU, tanh form: u/2 (1 + tanh(sqrt(2/pi) (u + 0.044715 u^3)))
        let t = Tanh(Mul(Add(u, Mul(Mul(Mul(u, u), u), 0.044715)), 0.7978846));
        let g = Mul(Mul(u, 0.5), Add(t, 1.0));
        Add(x, Add(Dot(g, w2), c2, broadcast_dimensions = [1]))
    }

    /// LayerNorm over the last dim: (x - mean) / sqrt(var + 1e-5) * g + b.
    fn layer_norm(x: f32[128, 256], g: f32[256], b: f32[256]) -> f32[128, 256] {
        let mean = Div(Reduce(x, 0.0, dimensions = [1], |a, b| a + b), 256.0);
        let xc = Sub(x, mean, broadcast_dimensions = [0]);
        let var = Div(Reduce(Mul(xc, xc), 0.0, dimensions = [1], |a, b| a + b), 256.0);
        let n = Mul(xc, Rsqrt(Add(var, 1e-5)), broadcast_dimensions = [0]);
        Add(Mul(n, g, broadcast_dimensions = [1]), b, broadcast_dimensions = [1])
    }
}

/// The model rows: the MLP at batch 64 and the transformer block.
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
}
