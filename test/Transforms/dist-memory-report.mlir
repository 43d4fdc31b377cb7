// RUN: dist-opt %s --split-input-file --dist-memory-report -o /dev/null 2>&1 | FileCheck %s
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-auto-partition --dist-lower-to-llvm=memory-report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DP
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-sharding=stage=1 --dist-auto-partition --dist-lower-to-llvm=memory-report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE1
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-sharding=stage=3 --dist-auto-partition --dist-lower-to-llvm=memory-report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE3

// A bufferized step, by hand. Arguments: a parameter (128 B), its state
// (a 64 B block) and a batch (64 B). The peak is at the second gather:
// the returned parameter and the block gathered into it (parameters
// 128 + 64 + 128), the reduce-scattered gradient block (64; the full
// gradient is freed by then), a gather that is not returned
// (communication, 128). The 32 B temporary was freed before.
dist.mesh @mesh [dp = 2]
// CHECK: remark: dist-memory-report: peak 640 B live per rank: parameters 320 B, gradients 64 B, optimizer state 64 B, activations 64 B, communication buffers 128 B (1 allocation(s) of dynamic size not counted)
func.func @step(%w: memref<8x4xf32> {dist.param}, %m: memref<4x4xf32> {dist.state_of = 0 : i64},
                %x: memref<16xf32>, %n: index) -> (memref<8x4xf32> {dist.updates = 0 : i64}) {
  %zero = arith.constant 0.0 : f32
  %g = memref.alloc() : memref<8x4xf32>
  linalg.fill {dist.grad_of = 0 : i64} ins(%zero : f32) outs(%g : memref<8x4xf32>)
  %gb = memref.alloc() : memref<4x4xf32>
  dist.buffer.reduce_scatter %g into %gb on @mesh [dp] sum dim = 0 : memref<8x4xf32>, memref<4x4xf32>
  memref.dealloc %g : memref<8x4xf32>
  %t = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<2x4xf32>)
  memref.dealloc %t : memref<2x4xf32>
  %wb = memref.alloc() : memref<4x4xf32>
  %w2 = memref.alloc() : memref<8x4xf32>
  dist.buffer.all_gather %wb into %w2 on @mesh [dp] dim = 0 : memref<4x4xf32>, memref<8x4xf32>
  %c = memref.alloc() : memref<8x4xf32>
  dist.buffer.all_gather %wb into %c on @mesh [dp] dim = 0 : memref<4x4xf32>, memref<8x4xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %c : memref<8x4xf32>
  memref.dealloc %d : memref<?xf32>
  memref.dealloc %gb : memref<4x4xf32>
  memref.dealloc %wb : memref<4x4xf32>
  return %w2 : memref<8x4xf32>
}

// -----

// An allocation inside a loop body freed there counts once; a subview
// counts as its buffer (its dealloc frees the buffer).
// CHECK: remark: dist-memory-report: peak 96 B live per rank: parameters 0 B, gradients 0 B, optimizer state 0 B, activations 96 B, communication buffers 0 B{{$}}
func.func @loop(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<8xf32>
    %v = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
    memref.dealloc %a : memref<8xf32>
  }
  return
}

// The sharded steps of dist-sharding.mlir (w 4x6, b 3, w's velocity, dp 2)
// through the lowering: data parallel keeps all of w's state (96 B and its
// next value), stage 1 half of it and stage 3 also half of w.
// DP: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: parameters 216 B, gradients {{[0-9]+}} B, optimizer state 192 B,
// STAGE1: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: parameters {{[0-9]+}} B, gradients {{[0-9]+}} B, optimizer state 96 B,
// STAGE3: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: parameters {{[0-9]+}} B, gradients {{[0-9]+}} B, optimizer state 96 B,
