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


PROGRAMS = {
    "tests/stablehlo/mlp.mlir": (mlp, [spec(8, 16), spec(16, 32), spec(32), spec(32, 4), spec(4)]),
    "tests/stablehlo/softmax.mlir": (softmax, [spec(4, 10)]),
    "tests/stablehlo/cnn.mlir": (
        cnn,
        [spec(2, 8, 8, 3), spec(3, 3, 3, 4), spec(3, 3, 4, 6), spec(6, 5)],
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
