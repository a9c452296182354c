//! Whole-model programs shared by `tests/oracle_models.rs` (checked against XLA) and the
//! benchmark rows of `benches/models` (timed against it): one transformer encoder block.

use xla_aot::xla;

xla! {
    /// A pre-LayerNorm transformer encoder block (GPT-2 style, one sequence): LayerNorm,
    /// 4-head self-attention (no mask), residual, LayerNorm, MLP 256 -> 1024 -> 256 with
    /// tanh-GELU, residual.
    pub fn transformer_block(
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
    pub fn layer_norm(x: f32[128, 256], g: f32[256], b: f32[256]) -> f32[128, 256] {
        let mean = Div(Reduce(x, 0.0, dimensions = [1], |a, b| a + b), 256.0);
        let xc = Sub(x, mean, broadcast_dimensions = [0]);
        let var = Div(Reduce(Mul(xc, xc), 0.0, dimensions = [1], |a, b| a + b), 256.0);
        let n = Mul(xc, Rsqrt(Add(var, 1e-5)), broadcast_dimensions = [0]);
        Add(Mul(n, g, broadcast_dimensions = [1]), b, broadcast_dimensions = [1])
    }
}
