#!/usr/bin/env bash
# The benchmarks against XLA:CPU, in the same run (README: "Benchmarks against XLA").
#   bash scripts/bench.sh                   both tables
#   bash scripts/bench.sh programs [filter ...]
#                                           generated code (xla! programs) vs XLA; a filter
#                                           keeps the rows whose names contain it
#   bash scripts/bench.sh kernels [filter]  the kernel library vs XLA and the machine's peaks
#   bash scripts/bench.sh compile [N ...]   compile time of one xla! fn of N ops (no XLA)
#   bash scripts/bench.sh mpi [RANKS]       bytes/s of the MPI transport's exchanges against
#                                           memcpy, on RANKS (default 2) MPI ranks (no XLA;
#                                           installs MPICH if missing, see scripts/mpi_setup.sh)
# Builds with -C target-cpu=native so `wide` uses the widest vectors of this CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = compile ]; then
  shift
  exec bash scripts/compile_bench.sh "$@"
fi
if [ "${1:-}" = mpi ]; then
  bash scripts/mpi_setup.sh
  export CARGO_TARGET_DIR="$PWD/target/native"
  export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native"
  cargo build --release -p xla-kernels --features mpi --example mpi_bench
  exec mpiexec -n "${2:-2}" "$CARGO_TARGET_DIR/release/examples/mpi_bench"
fi
if [ -z "${XLA_ORACLE_PYTHON:-}" ]; then
  bash oracle/setup.sh
  export XLA_ORACLE_PYTHON="$PWD/target/oracle-venv/bin/python"
fi
# A target dir of its own: native flags would otherwise invalidate the test build's artefacts.
export CARGO_TARGET_DIR="$PWD/target/native"
export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native"
which="${1:-all}"
[ $# -gt 0 ] && shift
case "$which" in
  programs) cargo bench -p xla-aot --bench vs_xla -- "$@" ;;
  kernels) cargo bench -p xla-aot --bench kernels -- "$@" ;;
  all)
    cargo bench -p xla-aot --bench vs_xla
    cargo bench -p xla-aot --bench kernels
    ;;
  *) echo "usage: bash scripts/bench.sh [programs [filter ...] | kernels [filter] | compile [N ...] | mpi [RANKS]]" >&2; exit 2 ;;
esac
