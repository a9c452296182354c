#!/usr/bin/env bash
# MPICH for the `mpi` feature (README: "Collectives across processes (MPI)"): installs Debian's
# mpich and libmpich-dev (the MPI library, mpicc and mpiexec) and libclang-dev (rsmpi's build
# runs bindgen on mpi.h) with apt-get when mpiexec or mpicc is missing. Needs root (or sudo);
# fails loudly if it cannot install them.
set -euo pipefail
if command -v mpiexec >/dev/null && command -v mpicc >/dev/null; then
  exit 0
fi
echo "MPI: mpiexec/mpicc not found, installing mpich libmpich-dev libclang-dev with apt-get"
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
if ! { "${sudo[@]}" apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq mpich libmpich-dev libclang-dev; }; then
  echo "MPI: could not install MPICH with apt-get; install mpich, libmpich-dev and libclang-dev" >&2
  exit 1
fi
command -v mpiexec >/dev/null && command -v mpicc >/dev/null || {
  echo "MPI: mpiexec or mpicc still missing after apt-get" >&2
  exit 1
}
