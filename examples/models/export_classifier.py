"""Exports the JAX classifier that `examples/src/bin/jax_classifier.rs` compiles with `stablehlo!`.

Run with a python that has jax (the oracle venv has it):
    target/oracle-venv/bin/python examples/models/export_classifier.py
It rewrites `examples/models/classifier.mlir` (what `jax.jit(classifier).lower(x).as_text()`
prints; the weights are constants in the text) and prints JAX's probabilities on the example's
batch, which the example checks its own against.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# Four measurements of five flowers (the example's batch).
BATCH = np.array(
    [
        [5.1, 3.5, 1.4, 0.2],
        [6.2, 2.9, 4.3, 1.3],
        [7.7, 3.0, 6.1, 2.3],
        [4.9, 3.1, 1.5, 0.1],
        [6.0, 2.2, 5.0, 1.5],
    ],
    dtype=np.float32,
)


def params():
    """Fixed weights (a seeded draw): the point is the pipeline, not the accuracy."""
    rng = np.random.default_rng(0)
    w1 = rng.normal(0, 0.5, (4, 16)).astype(np.float32)
    b1 = rng.normal(0, 0.1, (16,)).astype(np.float32)
    w2 = rng.normal(0, 0.5, (16, 3)).astype(np.float32)
    b2 = rng.normal(0, 0.1, (3,)).astype(np.float32)
    return w1, b1, w2, b2


def classifier(x):
    """4 features -> 16 tanh units -> 3 class probabilities (softmax), on a batch of 5."""
    w1, b1, w2, b2 = params()
    h = jnp.tanh(x @ w1 + b1)
    return jax.nn.softmax(h @ w2 + b2, axis=-1)


def main():
    lowered = jax.jit(classifier).lower(jax.ShapeDtypeStruct((5, 4), jnp.float32))
    with open(os.path.join(HERE, "classifier.mlir"), "w") as fh:
        fh.write(lowered.as_text(debug_info=False))
    probs = np.asarray(jax.jit(classifier)(BATCH))
    print("JAX's probabilities on the example's batch:")
    for row in probs:
        # The shortest text that reads back as the same f32.
        print("    [" + ", ".join(str(v) for v in row) + "],")


if __name__ == "__main__":
    main()
