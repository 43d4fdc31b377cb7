#!/usr/bin/env bash
# Installs what dist needs from Debian 12, and nothing when all of it is there
# (no `apt-get update` then). Safe to run any number of times.
set -euo pipefail

packages=(
  # LLVM/MLIR 22: headers, libMLIR.so, mlir-opt/mlir-tblgen/mlir-runner,
  # lit/FileCheck, clang and lld (the fastest compiler and linker here).
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22
  # Build tools and the unit-test framework.
  cmake ninja-build ccache python3 libgtest-dev
  # The CPU multi-process engine.
  libopenmpi-dev openmpi-bin
  # BLAS for fast matmuls in lowered programs; valgrind for the leak tests.
  libopenblas-dev valgrind
  # PyTorch 1.13 (CPU, into /usr/bin/python3): the reference for training
  # numerics and the peer in bench/.
  python3-torch
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
