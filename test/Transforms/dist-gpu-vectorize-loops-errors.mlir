// RUN: dist-opt %s --dist-gpu-vectorize-loops -split-input-file -verify-diagnostics

// A loop nest the GPU mapping already took: its per-dimension choices
// assume the loop's extents, which vectorizing would change.
func.func @mapped(%x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{'scf.parallel' op is already mapped to the GPU; run dist-gpu-vectorize-loops before gpu-map-parallel-loops}}
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %a = memref.load %x[%i] : memref<64xf32>
    memref.store %a, %x[%i] : memref<64xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// min-threads counts threads: at least one.
// RUN: not dist-opt %s --split-input-file --dist-gpu-vectorize-loops=min-threads=0 2>&1 | FileCheck %s --check-prefix=MIN
// MIN: error: dist-gpu-vectorize-loops: min-threads must be at least 1, got 0
func.func @any() {
  return
}
