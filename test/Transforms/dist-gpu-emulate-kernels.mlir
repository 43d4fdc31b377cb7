// RUN: dist-opt %s --split-input-file --dist-gpu-emulate-kernels | FileCheck %s

// Tests that each kernel becomes a host function taking its operands, then
// block id, thread id, block size and grid size (x, y, z each); that each
// launch becomes a wait for its stream, a count of the launch, a check that
// its buffers are device memory, and a loop nest over blocks (z, y, x) and threads (z, y, x)
// calling it; that a launch's token is its dependency; and that the GPU
// module's constants move to the host with it.

// CHECK: llvm.mlir.global internal constant @__dist_emulated_name_kernels_scale("kernels::scale\00")
// CHECK: memref.global "private" constant @factor : memref<1xf32> = dense<2.000000e+00>
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[BUF:.*]]: memref<1024xf32>, %[[N:.*]]: index)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[STREAM:.*]] = gpu.wait async
// CHECK: %[[PTR:.*]] = builtin.unrealized_conversion_cast %[[STREAM]] : !gpu.async.token to !llvm.ptr
// CHECK-NEXT: call @mgpuStreamSynchronize(%[[PTR]])
// CHECK: %[[NAME:.*]] = llvm.mlir.addressof @__dist_emulated_name_kernels_scale
// CHECK-NEXT: call @dist_cuda_emulated_launch(%[[NAME]]) : (!llvm.ptr) -> ()
// CHECK: %[[START:.*]] = llvm.inttoptr
// CHECK: %[[OPERAND:.*]] = arith.constant 0 : i64
// CHECK: %[[BYTES:.*]] = arith.index_cast
// CHECK-NEXT: call @dist_cuda_check_kernel_operand(%[[START]], %[[BYTES]], %[[OPERAND]], %[[NAME]])
// CHECK: scf.for %[[BZ:.*]] = %{{.*}} to %[[C1]]
// CHECK-NEXT: scf.for %[[BY:.*]] = %{{.*}} to %[[C1]]
// CHECK-NEXT: scf.for %[[BX:.*]] = %{{.*}} to %[[C4]]
// CHECK-NEXT: scf.for %[[TZ:.*]] = %{{.*}} to %[[C1]]
// CHECK-NEXT: scf.for %[[TY:.*]] = %{{.*}} to %[[C1]]
// CHECK-NEXT: scf.for %[[TX:.*]] = %{{.*}} to %[[C256]]
// CHECK-NEXT: func.call @__dist_emulated_kernels_scale(%[[BUF]], %[[N]], %[[BX]], %[[BY]], %[[BZ]], %[[TX]], %[[TY]], %[[TZ]], %[[C256]], %[[C1]], %[[C1]], %[[C4]], %[[C1]], %[[C1]])
// The second launch waits for the stream the first one's token stood for.
// CHECK: builtin.unrealized_conversion_cast %[[STREAM]] : !gpu.async.token to !llvm.ptr
// CHECK: func.call @__dist_emulated_kernels_scale
// CHECK: %[[LAST:.*]] = builtin.unrealized_conversion_cast %[[STREAM]] : !gpu.async.token to !llvm.ptr
// CHECK-NEXT: call @mgpuStreamSynchronize(%[[LAST]])
// CHECK-NEXT: return
// CHECK-NOT: gpu.launch_func

// CHECK-LABEL: func.func private @__dist_emulated_kernels_scale
// CHECK-SAME: (%[[B:arg[0-9]+]]: memref<1024xf32>, %[[LIMIT:arg[0-9]+]]: index, %[[BLOCK_X:arg[0-9]+]]: index, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index, %[[THREAD_X:arg[0-9]+]]: index, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index, %[[DIM_X:arg[0-9]+]]: index,
// CHECK: %[[BASE:.*]] = arith.muli %[[BLOCK_X]], %[[DIM_X]] : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[BASE]], %[[THREAD_X]] : index
// CHECK-NEXT: arith.cmpi ult, %[[I]], %[[LIMIT]] : index
// CHECK: memref.get_global @factor
// CHECK: memref.store %{{.*}}, %[[B]][%[[I]]]
// CHECK: return
// CHECK: func.func private @dist_cuda_check_kernel_operand(!llvm.ptr, i64, i64, !llvm.ptr) attributes {dist.no_stream_sync}
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  memref.global "private" constant @factor : memref<1xf32> = dense<2.0>
  func.func private @mgpuStreamSynchronize(!llvm.ptr) attributes {dist.no_stream_sync}
  func.func @step(%buffer: memref<1024xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %stream = gpu.wait async
    %done = gpu.launch_func async [%stream] @kernels::@scale blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%buffer : memref<1024xf32>, %n : index)
    %after = gpu.launch_func async [%done] @kernels::@scale blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%buffer : memref<1024xf32>, %n : index)
    %0 = builtin.unrealized_conversion_cast %after : !gpu.async.token to !llvm.ptr
    call @mgpuStreamSynchronize(%0) : (!llvm.ptr) -> ()
    return
  }
  gpu.module @kernels {
    memref.global "private" constant @factor : memref<1xf32> = dense<2.0>
    gpu.func @scale(%buffer: memref<1024xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %block = gpu.block_id x
      %thread = gpu.thread_id x
      %size = gpu.block_dim x
      %base = arith.muli %block, %size : index
      %i = arith.addi %base, %thread : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %factor = memref.get_global @factor : memref<1xf32>
        %f = memref.load %factor[%c0] : memref<1xf32>
        %x = memref.load %buffer[%i] : memref<1024xf32>
        %y = arith.mulf %x, %f : f32
        memref.store %y, %buffer[%i] : memref<1024xf32>
      }
      gpu.return
    }
  }
}

// -----

// Tests that a kernel whose threads meet (a block-wide reduction, a
// barrier) at its top level becomes a host function per block: the launch
// loops over the grid only (thread ids 0), and the function runs each
// stretch between meetings in a loop over the block's threads (z, y, x),
// keeping what a later stretch reads (the thread's element, its ids) in a
// buffer a thread, and combines the reduction's operand over the threads
// in order; a view the later stretch reads is made again there.
// CHECK-LABEL: func.func @rows
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.for %[[BZ:.*]] = %[[C0:.*]] to %{{.*}}
// CHECK-NEXT: scf.for %[[BY:.*]] = %{{.*}} to %{{.*}}
// CHECK-NEXT: scf.for %[[BX:.*]] = %{{.*}} to %[[C4]]
// CHECK-NEXT: func.call @__dist_emulated_kernels_row_sum(%{{.*}}, %{{.*}}, %[[BX]], %[[BY]], %[[BZ]], %[[C0]], %[[C0]], %[[C0]], %[[C64]],
// CHECK-LABEL: func.func private @__dist_emulated_kernels_row_sum
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<4x64xf32>, %[[OUT:arg[0-9]+]]: memref<4xf32>, %[[B:arg[0-9]+]]: index, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index, %[[NX:arg[0-9]+]]: index, %[[NY:arg[0-9]+]]: index, %[[NZ:arg[0-9]+]]: index,
// CHECK: %[[XY:.*]] = arith.muli %[[NX]], %[[NY]]
// CHECK-NEXT: %[[N:.*]] = arith.muli %[[XY]], %[[NZ]]
// CHECK-NEXT: %[[KEPT_V:.*]] = memref.alloca(%[[N]]) : memref<?xf32>
// CHECK-COUNT-2: memref.alloca(%[[N]]) : memref<?xindex>
// CHECK: scf.for %[[TZ:.*]] = %{{.*}} to %[[NZ]]
// CHECK-NEXT: scf.for %[[TY:.*]] = %{{.*}} to %[[NY]]
// CHECK-NEXT: scf.for %[[TX:.*]] = %{{.*}} to %[[NX]]
// CHECK: %[[LINEAR:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK-NOT: memref.store %{{.*}}arith.constant
// CHECK: memref.store %[[TX]], %[[KEPT_T:.*]][%[[LINEAR]]]
// CHECK-NEXT: memref.subview
// CHECK-NEXT: %[[V:.*]] = memref.load %[[X]][%[[B]], %[[TX]]]
// CHECK-NEXT: memref.store %[[V]], %[[KEPT_V]][%[[LINEAR]]]
// CHECK: %[[FIRST:.*]] = memref.load %[[KEPT_V]][%{{.*}}]
// CHECK-NEXT: %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f32)
// CHECK-NEXT: %[[NEXT:.*]] = memref.load %[[KEPT_V]][%[[I]]]
// CHECK-NEXT: %[[ADDED:.*]] = arith.addf %[[ACC]], %[[NEXT]] : f32
// CHECK-NEXT: scf.yield %[[ADDED]]
// The barrier right after the reduction has no stretch before it; the last
// stretch reads the kept thread id and makes the view again.
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK: %[[T:.*]] = memref.load %[[KEPT_T]]
// CHECK: arith.cmpi eq, %[[T]]
// CHECK: %[[ROW:.*]] = memref.subview %[[OUT]]
// CHECK: memref.store %[[SUM]], %[[ROW]][]
// CHECK: return
// CHECK-NOT: gpu.
module attributes {gpu.container_module} {
  func.func @rows(%x: memref<4x64xf32>, %out: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@row_sum blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1) args(%x : memref<4x64xf32>, %out : memref<4xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @row_sum(%x: memref<4x64xf32>, %out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %block = gpu.block_id x
      %thread = gpu.thread_id x
      %row = memref.subview %out[%block] [1] [1] : memref<4xf32> to memref<f32, strided<[], offset: ?>>
      %v = memref.load %x[%block, %thread] : memref<4x64xf32>
      %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
      gpu.barrier
      %first = arith.cmpi eq, %thread, %c0 : index
      scf.if %first {
        memref.store %sum, %row[] : memref<f32, strided<[], offset: ?>>
      }
      gpu.return
    }
  }
}
