// RUN: dist-opt %s --dist-comm-report -o /dev/null 2>&1 | FileCheck %s

// Tests that a bucket counts every tensor it carries (96 + 32 elements of f32
// = 512 B, one all_reduce), that collectives on another communicator are
// totalled apart, that an async collective counts like a blocking one, and
// that the buffer forms are counted too.
dist.mesh @mesh_4 [dp = 4]
func.func @buckets(%x: tensor<8x12xf32>, %y: tensor<32xf32>, %b: memref<64xf16>) {
  // CHECK: remark: dist.all_reduce over [dp] (4 ranks): 128 x f32 = 512 B; each rank sends 768 B
  %r:2 = dist.all_reduce %x, %y on @mesh_4 [dp] sum : tensor<8x12xf32>, tensor<32xf32>
  // CHECK: remark: dist.broadcast over [dp] comm 1 (4 ranks): 32 x f32 = 128 B; each rank sends 96 B
  %g, %t = dist.broadcast async %y on @mesh_4 [dp] comm = 1 root = 0 : tensor<32xf32>
  %w = dist.wait %t, %g : tensor<32xf32>
  // CHECK: remark: dist.buffer.reduce over [dp] (4 ranks): 64 x f16 = 128 B; each rank sends 96 B
  dist.buffer.reduce %b on @mesh_4 [dp] sum root = 3 : memref<64xf16>
  return
}
// CHECK: remark: dist-comm-report: 3 collectives; each rank sends 960 B; [dp]: 2 collectives, 864 B; [dp] comm 1: 1 collective, 96 B
