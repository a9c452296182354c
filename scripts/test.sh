#!/usr/bin/env bash
# The project's test command (README: "Run the tests"); CI runs exactly this.
# 1. sets up the XLA oracle (a Python venv with jax/jaxlib) unless XLA_ORACLE_PYTHON names one,
# 2. runs every test of the workspace: unit tests, oracle tests against XLA, generated-code
#    tests, trybuild compile-fail tests,
# 3. on a CPU with AVX-512, runs the oracle tests again with XLA capped at AVX2
#    (XLA_ORACLE_MAX_ISA), since XLA:CPU emits different code (summation orders, rsqrt, ...) for
#    each: the bounds must hold against both, whichever CPU kind CI runs on.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${XLA_ORACLE_PYTHON:-}" ]; then
  bash oracle/setup.sh
  export XLA_ORACLE_PYTHON="$PWD/target/oracle-venv/bin/python"
fi
echo "XLA oracle: $XLA_ORACLE_PYTHON"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
cargo test --workspace --no-fail-fast "$@"
if grep -qw avx512f /proc/cpuinfo; then
  echo "Oracle tests again with XLA:CPU capped at AVX2 (this CPU has AVX-512):"
  XLA_ORACLE_MAX_ISA=AVX2 cargo test -p xla-aot --no-fail-fast --test 'oracle_*' "$@"
fi
