// End-to-end: examples/mlp_train_step.mlir itself (one dp x mp training
// step of a two-layer MLP: batch over dp, w1 column- and w2 row-parallel over
// mp) reshaped to 2-D meshes of 2, 4 and 8 devices, and a 4x2 mesh that
// splits the batch of 8 four ways. Its sizes (batch 8, hidden 32, w2 32x4)
// divide every one of these meshes. This file only holds the RUN lines and
// checks; the program is the example.

// RUN: dist-run %dist_src_root/examples/mlp_train_step.mlir --mesh 1x2 | FileCheck %s -DRANKS=2 -DDP=1 -DMP=2
// RUN: dist-run %dist_src_root/examples/mlp_train_step.mlir --mesh 2x2 | FileCheck %s -DRANKS=4 -DDP=2 -DMP=2
// RUN: dist-run %dist_src_root/examples/mlp_train_step.mlir --mesh mesh_2x2=2x4 | FileCheck %s -DRANKS=8 -DDP=2 -DMP=4
// RUN: dist-run %dist_src_root/examples/mlp_train_step.mlir --mesh 4x2 | FileCheck %s -DRANKS=8 -DDP=4 -DMP=2
// Without a BLAS: the matmuls are dist-vectorize-matmul's register tiles.
// RUN: dist-run %dist_src_root/examples/mlp_train_step.mlir --mesh 2x2 --blas=false | FileCheck %s -DRANKS=4 -DDP=2 -DMP=2

// CHECK: dist-run: @mlp_train_step on [[RANKS]] rank(s), mesh @mesh_2x2 [dp = [[DP]], mp = [[MP]]]
// CHECK-NEXT: result #0 tensor<16x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<32x4xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #2 tensor<f32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 3 of 3 result(s) match the serial run
// CHECK-NOT: FAIL
