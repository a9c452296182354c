"""Exports the JAX linear algebra programs `tests/stablehlo_linalg.rs` compiles: on CPU JAX
lowers cholesky and triangular solves to LAPACK custom calls (`lapack_?potrf_ffi`,
`lapack_?trsm_ffi`), which the importer maps to our Cholesky and TriangularSolve.

Run with the oracle venv's python (it has jax):
    target/oracle-venv/bin/python tests/stablehlo/export_linalg.py
It rewrites `tests/stablehlo/linalg_*.mlir`, each what `jax.jit(f).lower(*args).as_text()` prints.
"""

import os

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
from jax import lax

jax.config.update("jax_enable_x64", True)

HERE = os.path.dirname(os.path.abspath(__file__))


def spec(*shape, dtype):
    return jax.ShapeDtypeStruct(shape, dtype)


F32, F64, C64, C128 = jnp.float32, jnp.float64, jnp.complex64, jnp.complex128

PROGRAMS = {
    "chol_f32": (jnp.linalg.cholesky, [spec(5, 5, dtype=F32)]),
    "chol_f64": (jnp.linalg.cholesky, [spec(3, 4, 4, dtype=F64)]),
    "chol_c64": (lambda a: lax.linalg.cholesky(a), [spec(4, 4, dtype=C64)]),
    "chol_c128": (jnp.linalg.cholesky, [spec(2, 3, 3, dtype=C128)]),
    "solve_f32": (
        lambda a, b: jsl.solve_triangular(a, b, lower=True),
        [spec(5, 5, dtype=F32), spec(5, 3, dtype=F32)],
    ),
    "solve_f64": (
        lambda a, b: jsl.solve_triangular(a, b, trans=1, lower=False),
        [spec(4, 4, dtype=F64), spec(4, dtype=F64)],
    ),
    "solve_c64": (
        lambda a, b: lax.linalg.triangular_solve(
            a, b, left_side=False, lower=False, transpose_a=True, conjugate_a=True,
            unit_diagonal=True),
        [spec(2, 4, 4, dtype=C64), spec(2, 3, 4, dtype=C64)],
    ),
    "solve_c128": (
        lambda a, b: jsl.solve_triangular(a, b, trans=2, lower=True),
        [spec(4, 4, dtype=C128), spec(4, 2, dtype=C128)],
    ),
    # Least squares through the normal equations: a Cholesky and two triangular solves.
    "cho_solve_f32": (
        lambda a, b: jsl.cho_solve((jnp.linalg.cholesky(a), True), b),
        [spec(6, 6, dtype=F32), spec(6, 2, dtype=F32)],
    ),
}


def main():
    for name, (f, args) in PROGRAMS.items():
        text = jax.jit(f).lower(*args).as_text()
        with open(os.path.join(HERE, f"linalg_{name}.mlir"), "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
