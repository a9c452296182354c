#!/usr/bin/env bash
# The benchmark (README: "Benchmark against XLA"): generated code vs XLA:CPU in the same run.
# Builds with -C target-cpu=native so `wide` uses the widest vectors of this CPU (AVX-512 here).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${XLA_ORACLE_PYTHON:-}" ]; then
  bash oracle/setup.sh
  export XLA_ORACLE_PYTHON="$PWD/target/oracle-venv/bin/python"
fi
# A target dir of its own: native flags would otherwise invalidate the test build's artefacts.
export CARGO_TARGET_DIR="$PWD/target/native"
RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native" cargo bench -p xla-aot --bench vs_xla "$@"
