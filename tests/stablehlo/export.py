"""Exports the JAX programs the `stablehlo!` tests and example compile, as StableHLO text.

Run with the oracle venv's python (it has jax):
    target/oracle-venv/bin/python tests/stablehlo/export.py
It rewrites `tests/stablehlo/*.mlir`. Each file is what
`jax.jit(f).lower(*example_args).as_text()` prints (no debug locations), so the tests read
exactly what a user exporting a model from JAX gets.
"""

import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", False)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def spec(*shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype)


def mlp(x, w1, b1, w2, b2):
    """Two dense layers with a ReLU between them: (8, 16) -> (8, 4)."""
    h = jax.nn.relu(x @ w1 + b1)
    return h @ w2 + b2


def softmax(x):
    """A numerically stable softmax over the last axis of (4, 10)."""
    return jax.nn.softmax(x, axis=-1)


def cnn(x, k1, k2, w):
    """Two 3x3 convolutions (NHWC, SAME then VALID) with ReLU, a spatial mean and a dense layer."""
    dn = ("NHWC", "HWIO", "NHWC")
    y = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn)
    y = jax.nn.relu(y)
    y = lax.conv_general_dilated(y, k2, (2, 2), "VALID", dimension_numbers=dn)
    y = jax.nn.relu(y)
    y = jnp.mean(y, axis=(1, 2))
    return y @ w


def cnn_block(x, k, mean, var, scale, offset, w, b):
    """Issue 15's CNN: a 3x3 conv (NHWC), batch norm (inference statistics), ReLU, 3x3/2
    max-pooling (SAME, as flax's max_pool lowers it: reduce_window of max) and a dense layer."""
    dn = ("NHWC", "HWIO", "NHWC")
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=dn)
    y = (y - mean) * lax.rsqrt(var + 1e-5) * scale + offset
    y = jax.nn.relu(y)
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    return y.reshape(y.shape[0], -1) @ w + b


def layer_norm(x, g, b):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean(jnp.square(x - m), axis=-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


def encoder(x, wqkv, wo, g1, b1, w1, c1, w2, c2, g2, b2):
    """Issue 15's transformer encoder block (post-norm): 4-head self-attention, residual and
    layer norm, an MLP with exact (erf) GELU, residual and layer norm. x: [seq, model]."""
    s, e = x.shape
    h = 4
    q, k, v = jnp.split(x @ wqkv, 3, axis=-1)
    heads = lambda t: t.reshape(s, h, e // h).transpose(1, 0, 2)
    q, k, v = heads(q), heads(k), heads(v)
    a = jax.nn.softmax(q @ k.transpose(0, 2, 1) / np.sqrt(e // h), axis=-1) @ v
    y = layer_norm(x + a.transpose(1, 0, 2).reshape(s, e) @ wo, g1, b1)
    m = jax.nn.gelu(y @ w1 + c1, approximate=False) @ w2 + c2
    return layer_norm(y + m, g2, b2)


def rnn(xs, h0, wx, wh, b):
    """Issue 15's `lax.scan` RNN: h_t = tanh(x_t wx + h_{t-1} wh + b) over the leading (time)
    axis of xs; returns every h_t and the last."""
    def step(h, x):
        h = jnp.tanh(x @ wx + h @ wh + b)
        return h, h
    last, hs = lax.scan(step, h0, xs)
    return hs, last


def while_loop(x, n):
    """Newton's iteration for the square root of x, n times (a while loop with a counter)."""
    def body(i, y):
        return 0.5 * (y + x / y)
    return lax.fori_loop(0, n, body, jnp.ones_like(x))


def variance(x):
    """The variance over the last axis of (4, 32): `jnp.var` exports `chlo.square`."""
    return jnp.var(x, axis=-1)


def two_results(x, y):
    """Several results: (x * y, sum of x, max of y)."""
    return x * y, jnp.sum(x, axis=1), jnp.max(y)


def ragged_dot(lhs, rhs, group_sizes):
    """Grouped matmul: JAX lowers it on CPU to a mask and one dot (tests/oracle_ragged_dot.rs)."""
    return jax.lax.ragged_dot(lhs, rhs, group_sizes)


def ragged_dims(lc, rc, lb, rb, ragged, group):
    return lax.RaggedDotDimensionNumbers(((lc, rc), (lb, rb)), ragged, group)


def ragged_batched(lhs, rhs, group_sizes):
    """Mode 1 with a batch dimension: [b, m, k] x [g, b, k, n], sizes [b, g] -> [b, m, n]."""
    return lax.ragged_dot_general(lhs, rhs, group_sizes, ragged_dims([2], [2], [0], [1], [1], [0]))


def ragged_contracting(lhs, rhs, group_sizes):
    """Mode 2: [b, m, k] x [b, k, n], sizes [g] -> [g, b, m, n]."""
    return lax.ragged_dot_general(lhs, rhs, group_sizes, ragged_dims([2], [1], [0], [0], [2], []))


def ragged_batch(lhs, rhs, group_sizes):
    """Mode 3: [b, m, k] x [b, k, n], ragged along b -> [b, m, n]."""
    return lax.ragged_dot_general(lhs, rhs, group_sizes, ragged_dims([2], [1], [0], [0], [0], []))


def scaled_dot(lhs, lhs_scale, rhs, rhs_scale):
    """Block-scaled dot: a composite whose decomposition XLA:CPU runs (tests/oracle_ragged_dot.rs)."""
    return jax.lax.scaled_dot(lhs, rhs, lhs_scale=lhs_scale, rhs_scale=rhs_scale)


def encoder_specs(s, e, f):
    return [spec(s, e), spec(e, 3 * e), spec(e, e), spec(e), spec(e), spec(e, f), spec(f),
            spec(f, e), spec(e), spec(e), spec(e)]


PROGRAMS = {
    "tests/stablehlo/mlp.mlir": (mlp, [spec(8, 16), spec(16, 32), spec(32), spec(32, 4), spec(4)]),
    "tests/stablehlo/softmax.mlir": (softmax, [spec(4, 10)]),
    "tests/stablehlo/cnn.mlir": (
        cnn,
        [spec(2, 8, 8, 3), spec(3, 3, 3, 4), spec(3, 3, 4, 6), spec(6, 5)],
    ),
    "tests/stablehlo/cnn_block.mlir": (
        cnn_block,
        [spec(2, 12, 12, 3), spec(3, 3, 3, 8)] + [spec(8)] * 4 + [spec(6 * 6 * 8, 10), spec(10)],
    ),
    "tests/stablehlo/encoder.mlir": (encoder, encoder_specs(16, 32, 64)),
    "tests/stablehlo/rnn.mlir": (rnn, [spec(10, 4, 8), spec(4, 16), spec(8, 16), spec(16, 16), spec(16)]),
    # The model rows of `scripts/bench.sh programs` (benches/models): the same functions at
    # sizes where the work, not the call, is measured.
    "benches/models/cnn_block_8x56x56x16.mlir": (
        cnn_block,
        [spec(8, 56, 56, 16), spec(3, 3, 16, 32)] + [spec(32)] * 4
        + [spec(28 * 28 * 32, 10), spec(10)],
    ),
    "benches/models/encoder_128x256.mlir": (encoder, encoder_specs(128, 256, 1024)),
    "benches/models/rnn_64x32x128.mlir": (
        rnn,
        [spec(64, 32, 128), spec(32, 256), spec(128, 256), spec(256, 256), spec(256)],
    ),
    "tests/stablehlo/while_loop.mlir": (while_loop, [spec(6), spec(dtype=jnp.int32)]),
    "tests/stablehlo/variance.mlir": (variance, [spec(4, 32)]),
    "tests/stablehlo/two_results.mlir": (two_results, [spec(3, 5), spec(3, 5)]),
    "tests/stablehlo/ragged_dot_f32.mlir": (
        ragged_dot,
        [spec(7, 33), spec(3, 33, 5), spec(3, dtype=jnp.int32)],
    ),
    "tests/stablehlo/ragged_batched_f32.mlir": (
        ragged_batched,
        [spec(2, 9, 6), spec(3, 2, 6, 4), spec(2, 3, dtype=jnp.int32)],
    ),
    "tests/stablehlo/ragged_contracting_f32.mlir": (
        ragged_contracting,
        [spec(2, 5, 9), spec(2, 9, 4), spec(3, dtype=jnp.int32)],
    ),
    "tests/stablehlo/ragged_batch_f32.mlir": (
        ragged_batch,
        [spec(4, 5, 6), spec(4, 6, 3), spec(2, dtype=jnp.int32)],
    ),
    # The ragged-dot row of `scripts/bench.sh kernels` (benches/kernels/ragged.rs).
    "benches/kernels/ragged_dot_4096x512x512_g8.mlir": (
        ragged_dot,
        [spec(4096, 512), spec(8, 512, 512), spec(8, dtype=jnp.int32)],
    ),
    "tests/stablehlo/scaled_dot_f32.mlir": (
        scaled_dot,
        [spec(4, 64), spec(4, 2), spec(64, 6), spec(2, 6)],
    ),
}


def main():
    # An argument keeps only the paths containing it (`export.py ragged`).
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    for path, (f, args) in PROGRAMS.items():
        if only not in path:
            continue
        text = jax.jit(f).lower(*args).as_text(debug_info=False)
        out = os.path.join(ROOT, path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as fh:
            fh.write(text)
        print(f"{path}: {len(text)} bytes")


if __name__ == "__main__":
    main()
