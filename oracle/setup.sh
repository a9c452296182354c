#!/usr/bin/env bash
# Sets up the XLA oracle: a Python venv at target/oracle-venv with pinned jax/jaxlib/numpy/mpmath.
# Idempotent: when the venv exists and `import jax` works with the pinned version, it returns at
# once. Override the interpreter used to create the venv with PYTHON=... (needs Python >= 3.11).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="$PWD/target/oracle-venv"
JAX_VERSION=0.10.2
NUMPY_VERSION=2.4.6
# mpmath: the exact (arbitrary-precision) reference the accuracy tests measure ours and XLA against.
MPMATH_VERSION=1.3.0
check() {
  "$VENV/bin/python" - <<PY 2>/dev/null
import jax, jaxlib, numpy, ml_dtypes, mpmath
assert jax.__version__ == "$JAX_VERSION" and jaxlib.__version__ == "$JAX_VERSION", jax.__version__
assert mpmath.__version__ == "$MPMATH_VERSION", mpmath.__version__
jax.devices("cpu")
PY
}
if [ -x "$VENV/bin/python" ] && check; then
  echo "XLA oracle venv ready: $VENV (jax $JAX_VERSION)"
  exit 0
fi
echo "Setting up the XLA oracle venv in $VENV (jax/jaxlib $JAX_VERSION, numpy $NUMPY_VERSION)..."
mkdir -p target
[ -x "$VENV/bin/python" ] || "${PYTHON:-python3}" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  "jax==$JAX_VERSION" "jaxlib==$JAX_VERSION" "numpy==$NUMPY_VERSION" "mpmath==$MPMATH_VERSION"
if ! check; then
  echo "error: the venv at $VENV cannot import jax $JAX_VERSION on CPU" >&2
  exit 1
fi
echo "XLA oracle venv ready: $VENV"
