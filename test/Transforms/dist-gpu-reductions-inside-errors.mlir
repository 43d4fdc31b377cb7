// RUN: dist-opt %s --dist-gpu-reductions-inside --verify-diagnostics

// dist-gpu-reductions-inside refuses nothing: ops whose order needs no
// change, or that are kernels already, are left without a diagnostic.
// expected-no-diagnostics
module attributes {gpu.container_module} {
  func.func @kept(%x: memref<4x4xf32>, %out: memref<4xf32>) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<4x4xf32>) outs(%out : memref<4xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
    return
  }
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x4xf32>, %out: memref<4xf32>) kernel {
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                      iterator_types = ["reduction", "parallel"]}
          ins(%x : memref<4x4xf32>) outs(%out : memref<4xf32>) {
      ^bb0(%a: f32, %acc: f32):
        %s = arith.addf %a, %acc : f32
        linalg.yield %s : f32
      }
      gpu.return
    }
  }
}
