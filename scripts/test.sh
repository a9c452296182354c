#!/usr/bin/env bash
# The project's test command (README: "Run the tests"); CI runs exactly this.
# 1. sets up the XLA oracle (a Python venv with jax/jaxlib) unless XLA_ORACLE_PYTHON names one,
# 2. runs every test of the workspace: unit tests, oracle tests against XLA, generated-code
#    tests, trybuild compile-fail tests.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${XLA_ORACLE_PYTHON:-}" ]; then
  bash oracle/setup.sh
  export XLA_ORACLE_PYTHON="$PWD/target/oracle-venv/bin/python"
fi
echo "XLA oracle: $XLA_ORACLE_PYTHON"
cargo test --workspace --no-fail-fast "$@"
