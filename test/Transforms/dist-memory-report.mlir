// RUN: dist-opt %s --split-input-file --dist-memory-report -o /dev/null 2>&1 | FileCheck %s
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-auto-partition --dist-lower-to-llvm=memory-report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=DP
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-auto-partition --dist-lower-to-llvm="memory-report=true update-in-place=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DPIP
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-sharding=stage=1 --dist-auto-partition --dist-lower-to-llvm="memory-report=true update-in-place=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE1
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-sharding=stage=3 --dist-auto-partition --dist-lower-to-llvm="memory-report=true update-in-place=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE3
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-sharding=stage=2 --dist-auto-partition --dist-lower-to-llvm="memory-report=true update-in-place=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE2
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-sharding=stage=2 --dist-auto-partition --dist-chunk-collectives=max-mb=0.00003 --dist-lower-to-llvm="memory-report=true update-in-place=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE2C
// RUN: dist-opt %S/dist-sharding.mlir --dist-data-parallel --dist-sharding=stage=3 --dist-auto-partition --dist-chunk-collectives=max-mb=0.00003 --dist-lower-to-llvm="memory-report=true update-in-place=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGE3C
// RUN: dist-opt %s --split-input-file --dist-memory-report=list-peak=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIST

// A bufferized step, by hand. Arguments: a parameter (128 B), its state
// (a 64 B block) and a batch (64 B). The peak is at the second gather:
// the returned parameter and the block gathered into it (parameters
// 128 + 64 + 128), the reduce-scattered gradient block (64; the full
// gradient is freed by then), a gather that is not returned
// (communication, 128). The 32 B temporary was freed before.
dist.mesh @mesh [dp = 2]
// The model states (parameters, gradients, state) peak there too: 448 B.
// CHECK: remark: dist-memory-report: peak 640 B live per rank: parameters 320 B, gradients 64 B, optimizer state 64 B, activations 64 B, communication buffers 128 B; model states at their peak 448 B: parameters 320 B, gradients 64 B, optimizer state 64 B (1 allocation(s) of dynamic size not counted)
// With list-peak, a note per buffer live at the peak: the arguments, then
// the allocations in the order they are made (the full gradient and the
// temporary are freed by then).
// LIST: remark: dist-memory-report: peak 640 B
// LIST: note: live at the peak: argument 0, parameters, 128 B
// LIST-NEXT: note: live at the peak: argument 1, optimizer state, 64 B
// LIST-NEXT: note: live at the peak: argument 2, activations, 64 B
// LIST: dist-memory-report.mlir:[[#@LINE+11]]:{{.*}} note: live at the peak: gradients, 64 B
// LIST: dist-memory-report.mlir:[[#@LINE+16]]:{{.*}} note: live at the peak: parameters, 64 B
// LIST: dist-memory-report.mlir:[[#@LINE+16]]:{{.*}} note: live at the peak: parameters, 128 B
// LIST: dist-memory-report.mlir:[[#@LINE+17]]:{{.*}} note: live at the peak: communication buffers, 128 B
// LIST-NOT: note: live at the peak
// LIST: remark: dist-memory-report: peak 96 B
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
// CHECK: remark: dist-memory-report: peak 96 B live per rank: parameters 0 B, gradients 0 B, optimizer state 0 B, activations 96 B, communication buffers 0 B; model states at their peak 0 B: parameters 0 B, gradients 0 B, optimizer state 0 B{{$}}
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

// The sharded steps of dist-sharding.mlir (w 4x6 and b 3, 108 B of f32
// parameters; w's velocity, 96 B; dp 2) through the lowering. Functional,
// data parallelism holds the next parameters and state beside the current
// ones (twice the bytes). Updated in place, its model states at their peak
// are ZeRO's: every parameter (108 B), every gradient (108 B) and all the
// state (96 B); stage 1 keeps half of the state (48 B) and holds the
// reduce-scattered gradient blocks (48 B) beside the full gradients; stage 3
// keeps half of w (48 B + b's 12 B).
// DP: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: parameters 216 B, gradients {{[0-9]+}} B, optimizer state 192 B,
// DPIP: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: {{.*}}; model states at their peak 312 B: parameters 108 B, gradients 108 B, optimizer state 96 B{{$}}
// STAGE1: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: {{.*}}; model states at their peak 312 B: parameters 108 B, gradients 156 B, optimizer state 48 B{{$}}
// STAGE3: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: {{.*}}; model states at their peak 252 B: parameters 60 B, gradients 144 B, optimizer state 48 B{{$}}
// Stages 2 and 3 reduce-scatter w's gradient: its full 96 B exist on each
// rank beside its 48 B block while the collective runs (144 B). In chunks of
// at most 31 B (dist-chunk-collectives: 6 column chunks of 16 B) the full
// gradient never exists; at the peak are the chunks' blocks (48 B) being
// put into w's block (48 B), and b's gradient (12 B).
// STAGE2: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: {{.*}}; model states at their peak 300 B: parameters 108 B, gradients 144 B, optimizer state 48 B{{$}}
// STAGE2C: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: {{.*}}; model states at their peak 264 B: parameters 108 B, gradients 108 B, optimizer state 48 B{{$}}
// STAGE3C: remark: dist-memory-report: peak {{[0-9]+}} B live per rank: {{.*}}; model states at their peak 216 B: parameters 60 B, gradients 108 B, optimizer state 48 B{{$}}
