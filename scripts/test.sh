#!/usr/bin/env bash
# The project's test command (README: "Run the tests"); CI runs exactly this.
# 1. sets up the XLA oracle (a Python venv with jax/jaxlib) unless XLA_ORACLE_PYTHON names one,
# 2. runs every test of the workspace: unit tests, oracle tests against XLA, generated-code
#    tests, trybuild compile-fail tests (then the ndarray interop's, with its feature on),
# 3. checks that the crates a user downloads package and build on their own
#    (`cargo publish --workspace --dry-run`: xla-core, xla-kernels, xla-macros and xla-aot are
#    packaged and each is compiled from its package, the unpublished ones from a local overlay),
# 4. builds, lints and tests tests/user-crate, a crate outside the workspace that names only
#    xla-aot, as a user's would,
# 5. on a CPU with AVX-512 (alongside step 2, on its build), runs the oracle tests again
#    with XLA capped at AVX2 (XLA_ORACLE_MAX_ISA), since XLA:CPU emits different code
#    (summation orders, rsqrt, ...) for each: the bounds must hold against both, whichever CPU
#    kind CI runs on; then the GEMM kernels' tests at each instruction-set level below the CPU's
#    widest (XLA_KERNELS_MAX_ISA),
# 6. the collectives across processes (feature `mpi`, never in the workspace build): installs
#    MPICH with apt-get when mpiexec/mpicc are missing (scripts/mpi_setup.sh; fails loudly if it
#    cannot), then runs xla-kernels' tests/mpi.rs, which starts itself under `mpiexec -n 2` and
#    `-n 3` with a wall-clock limit.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${XLA_ORACLE_PYTHON:-}" ]; then
  bash oracle/setup.sh
  export XLA_ORACLE_PYTHON="$PWD/target/oracle-venv/bin/python"
fi
echo "XLA oracle: $XLA_ORACLE_PYTHON"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
suite_start=$SECONDS
# A full run builds every crate from scratch or nearly: incremental compilation's bookkeeping
# only costs time there (set CARGO_INCREMENTAL=1 to keep it).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
cargo test --workspace --no-run "$@"
# On a CPU with AVX-512, the oracle tests again with XLA:CPU capped at AVX2, alongside the
# workspace run: an oracle test binary talks to one Python process at a time, so its XLA
# compiles keep one core busy and leave the other mostly idle (the two runs in a row took
# 270 s each). The same --workspace and arguments as the build above, so nothing is rebuilt
# (with -p xla-aot cargo unified the dependencies' features differently and rebuilt, 2 min);
# cargo holds the build lock only while it builds. Its output is printed after the workspace
# run's, and both must pass.
avx2_pid=
avx2_log="$PWD/target/oracle-avx2.log"
if grep -qw avx512f /proc/cpuinfo; then
  XLA_ORACLE_MAX_ISA=AVX2 cargo test --workspace --no-fail-fast --test 'oracle_*' "$@" \
    > "$avx2_log" 2>&1 &
  avx2_pid=$!
fi
status=0
cargo test --workspace --no-fail-fast "$@" || status=$?
if [ -n "$avx2_pid" ]; then
  avx2_status=0
  wait "$avx2_pid" || avx2_status=$?
  echo "Oracle tests again with XLA:CPU capped at AVX2 (this CPU has AVX-512), run alongside:"
  cat "$avx2_log"
  [ "$avx2_status" = 0 ] || status=$avx2_status
fi
[ "$status" = 0 ] || exit "$status"
# The GEMM tests (and the convolutions': Winograd's point products and the direct kernels run
# on the GEMM's tokens of the level;
# the dispatched elementwise loops' "at_the_running_level" tests, the loop drivers' fused::
# tests, pooling's window:: tests, reduce::'s column sums and the rng:: ciphers, which run at the
# level's width)
# again at each instruction-set level below this CPU's widest (the workspace run
# used the widest; XLA_KERNELS_MAX_ISA caps the kernels' run-time dispatch). --workspace --lib
# keeps the workspace run's features and profile, so nothing is rebuilt.
isas=()
grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && isas+=(sse2)
grep -qw avx512f /proc/cpuinfo && isas+=(avx2)
grep -qw amx_tile /proc/cpuinfo && isas+=(avx512)
for isa in "${isas[@]}"; do
  echo "GEMM, convolution, pooling, rng and dispatched-loop tests with the kernels capped at $isa:"
  XLA_KERNELS_MAX_ISA=$isa cargo test -q --workspace --lib --no-fail-fast "$@" -- gemm:: conv:: at_the_running_level window:: fused:: rng:: reduce::
  XLA_KERNELS_MAX_ISA=$isa cargo test -q --workspace --test dispatched_loops --no-fail-fast "$@"
done
# The optional features, off in the workspace run, built once together (one more build of
# xla-kernels, not one per feature): the ndarray interop (feature `ndarray`: its tests (an
# integration test, so xla-kernels' library is the only build), doctests and the generated-fn
# round trip) and the MPI transport (feature `mpi`: rsmpi over
# MPICH, installed first if missing; tests/mpi.rs runs itself as 2 and 3 MPI ranks, a hang is
# killed and fails).
bash scripts/mpi_setup.sh
features=(--features ndarray,mpi)
cargo test -p xla-kernels "${features[@]}" --no-fail-fast --test ndarray_interop
cargo test -p xla-kernels "${features[@]}" --no-fail-fast --doc tensor::nd
cargo test -p xla-aot "${features[@]}" --no-fail-fast --test views
start=$SECONDS
cargo test -p xla-kernels "${features[@]}" --no-fail-fast --test mpi
# The data-parallel training example as 2 threads and as 2 MPI ranks: the same loss curve, digit
# for digit (each loss printed as the shortest decimal of its f32).
dp_train=$(cargo build -q -p xla-examples --features mpi --bin dp_train --message-format=json |
  python3 -c 'import json, sys; [print(m["executable"]) for m in map(json.loads, sys.stdin) if m.get("executable")]')
on_threads=$(timeout 300 "$dp_train" | grep '^step')
on_mpi=$(timeout 300 mpiexec -n 2 "$dp_train" --mpi | grep '^step')
if [ -z "$on_threads" ] || [ "$on_threads" != "$on_mpi" ]; then
  echo "dp_train: threads and MPI ranks disagree:"
  diff <(echo "$on_threads") <(echo "$on_mpi") || true
  exit 1
fi
echo "dp_train: the same $(echo "$on_threads" | wc -l) loss lines on 2 threads and 2 MPI ranks"
echo "MPI tests: $((SECONDS - start)) s"

# --allow-dirty: the check is of what would be packaged, also from a work tree with edits.
# Cargo takes registry packages as immutable: it unpacks the overlay's packages into
# $CARGO_HOME/registry/src/-<hash>/ once, and never rebuilds a registry package it has built,
# so with the same name and version a later run would verify an earlier run's sources. Hence
# the check's own target dir, where every xla-* build is ours to drop, and our unpacked
# packages removed from the cargo home before each run (third-party builds stay cached).
start=$SECONDS
publish_target="$PWD/target/publish-check"
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/xla-{core,kernels,macros,aot}-[0-9]* \
  "$publish_target"/debug/.fingerprint/xla-*
CARGO_TARGET_DIR="$publish_target" cargo publish --workspace --dry-run --allow-dirty
echo "publish dry-run: $((SECONDS - start)) s"

# The user crate resolves the workspace's dependency versions (the lock copied; its own is
# ignored by git) and builds in the workspace's target dir, so no third-party crate compiles
# twice; only our four crates do, since cargo keys a path package's artifacts by its path
# relative to the workspace root.
start=$SECONDS
cp Cargo.lock tests/user-crate/Cargo.lock
user=(--manifest-path tests/user-crate/Cargo.toml)
CARGO_TARGET_DIR="$PWD/target" cargo clippy "${user[@]}" --all-targets -- -D warnings
CARGO_TARGET_DIR="$PWD/target" cargo test "${user[@]}"
echo "user crate: $((SECONDS - start)) s"
echo "test command: $((SECONDS - suite_start)) s after the venv"
