#!/usr/bin/env bash
# Configures (once) and builds dist in build/ with the fastest tools found:
# clang-22 + lld + ccache, linking against libMLIR.so.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${DIST_BUILD_DIR:-build}

if [[ ! -f "$build_dir/build.ninja" ]]; then
  args=(-G Ninja -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DCMAKE_BUILD_TYPE=Release)
  if command -v clang++-22 >/dev/null; then
    args+=(-DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22)
  fi
  if command -v ld.lld-22 >/dev/null || command -v ld.lld >/dev/null; then
    args+=(-DLLVM_USE_LINKER=lld)
  fi
  cmake -S . -B "$build_dir" "${args[@]}" "$@"
fi
cmake --build "$build_dir"
