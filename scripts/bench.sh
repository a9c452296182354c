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
# Builds with -C target-cpu=native so `wide` uses the widest vectors of this CPU. With
# BENCH_BUILD=default (or `both`) the same tables come from a default build as well (no target
# flags: SSE2 for the fused loops, the kernels still choose AVX2 / AVX-512 at run time), in
# target/default; each table's first lines name the build's vector width and XLA's ISA.
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
base_flags="${RUSTFLAGS:-}"
which="${1:-all}"
[ $# -gt 0 ] && shift
run() {
  case "$which" in
    programs) cargo bench -p xla-aot --bench vs_xla -- "$@" ;;
    kernels) cargo bench -p xla-aot --bench kernels -- "$@" ;;
    all)
      cargo bench -p xla-aot --bench vs_xla
      cargo bench -p xla-aot --bench kernels
      ;;
  esac
}
case "$which" in
  programs|kernels|all) ;;
  *) echo "usage: [BENCH_BUILD=native|default|both] bash scripts/bench.sh [programs [filter ...] | kernels [filter] | compile [N ...] | mpi [RANKS]]" >&2; exit 2 ;;
esac
build="${BENCH_BUILD:-native}"
case "$build" in native|default|both) ;; *) echo "BENCH_BUILD must be native, default or both" >&2; exit 2 ;; esac
if [ "$build" != default ]; then
  echo "== native build (-C target-cpu=native)"
  CARGO_TARGET_DIR="$PWD/target/native" RUSTFLAGS="$base_flags -C target-cpu=native" run "$@"
fi
if [ "$build" != native ]; then
  echo "== default build (no target flags)"
  CARGO_TARGET_DIR="$PWD/target/default" RUSTFLAGS="$base_flags" run "$@"
fi
