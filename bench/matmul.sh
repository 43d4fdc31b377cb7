#!/usr/bin/env bash
# The CPU matmul that dist-lower-to-llvm generates vs OpenBLAS sgemm, N^3 f32
# (N = 1024 by default), in one run: once with blas=true (the pipeline calls
# cblas_sgemm) and once with blas=false (dist-vectorize-matmul's register
# tiles). Usage: bash bench/matmul.sh [repeat] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${1:-5}
n=${2:-1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s/1024/$n/g" > "$work/matmul.mlir" <<'MLIR'
func.func @matmul(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    attributes {llvm.emit_c_interface} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                     outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
MLIR
for blas in true false; do
  build/bin/dist-opt "$work/matmul.mlir" --dist-lower-to-llvm=blas=$blas \
    | /usr/lib/llvm-22/bin/mlir-translate --mlir-to-llvmir -o "$work/matmul.ll"
  clang-22 -O3 -march=native -Wno-override-module "$work/matmul.ll" -DMATMUL_N=$n bench/matmul_driver.c \
    -I/usr/include/x86_64-linux-gnu -lopenblas -lm -o "$work/matmul-$blas"
  echo -n "blas=$blas: "
  OPENBLAS_NUM_THREADS=1 "$work/matmul-$blas" "$repeat"
done
