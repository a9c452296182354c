"""Writes CHLO's complex decompositions as XLA compiles them: for each CHLO op JAX emits on
complex numbers and each of c64 and c128, the scalar function `lax.<op>` lowered by JAX, turned
into an XLA computation (which runs CHLO's legalization to StableHLO and StableHLO's complex
math expander, the passes XLA:CPU runs on the op) and printed back as StableHLO text.
The importer (`lower/chlo.rs`) maps `chlo.<op>` of a complex tensor onto `Map` of the function.

Run with the oracle venv's python (it has jax), from the repository root:
    target/oracle-venv/bin/python xla-core/src/stablehlo/import/lower/chlo_complex/export.py
It rewrites `<op>_<type>.mlir` next to this script.
"""

import os
import re

import jax
import numpy as np
from jax import lax
from jax._src.lib import xla_client as xc

jax.config.update("jax_enable_x64", True)

HERE = os.path.dirname(os.path.abspath(__file__))
# Not cosh: chlo.cosh is our Cosh op (the export writes it), imported as itself.
OPS = ["acos", "asin", "atan", "acosh", "asinh", "atanh", "sinh"]
TYPES = {"c64": np.complex64, "c128": np.complex128}


def strip_locations(text):
    """Drops `loc(...)` suffixes and `#loc` definitions (they name this script's lines)."""
    lines = [l for l in text.splitlines() if not l.startswith("#loc")]
    text = "\n".join(lines) + "\n"
    return re.sub(r" loc\((?:[^()]|\([^()]*\))*\)", "", text)


def main():
    for op in OPS:
        for tname, dtype in TYPES.items():
            lowered = jax.jit(getattr(lax, op)).lower(np.zeros((), dtype))
            chlo = lowered.as_text()
            assert f"chlo.{op} " in chlo, chlo  # the op JAX emits is the one decomposed
            hlo = lowered.compiler_ir("hlo")
            text = strip_locations(xc._xla.mlir.xla_computation_to_mlir_module(hlo))
            with open(os.path.join(HERE, f"{op}_{tname}.mlir"), "w") as fh:
                fh.write(text)


if __name__ == "__main__":
    main()
