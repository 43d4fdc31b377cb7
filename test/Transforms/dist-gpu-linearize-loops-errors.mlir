// RUN: dist-opt %s --dist-gpu-linearize-loops --split-input-file --verify-diagnostics

// A loop nest already mapped to the GPU: collapsing it would drop the
// mapping's choice for each dimension.
func.func @mapped(%out: memref<4x4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @below {{'scf.parallel' op is already mapped to the GPU; run dist-gpu-linearize-loops before gpu-map-parallel-loops}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    memref.store %v, %out[%i, %j] : memref<4x4xf32>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>,
                #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// What it cannot linearize (a loop with a reduction, a loop inside a kernel
// already formed) it leaves, without a diagnostic.
func.func @kept(%out: memref<4x4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) init (%zero) -> f32 {
    %x = memref.load %out[%i, %j] : memref<4x4xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
      memref.store %zero, %out[%i, %j] : memref<4x4xf32>
      scf.reduce
    }
    gpu.terminator
  }
  return %sum : f32
}
