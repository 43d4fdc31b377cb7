// RUN: dist-opt %s --dist-gpu-streams --split-input-file | FileCheck %s

// A step's device work goes on one stream, in program order: allocations,
// launches, copies and frees on a chain of tokens rooted at one gpu.wait
// (the lowering's stream), the collective given that stream instead of null,
// the group lookup (dist.no_stream_sync) unwaited. The host waits before it
// reads the scalar copied back, before a call into unmarked host code
// (after a loop that queued kernels), and before it returns, which also
// destroys the stream.
// CHECK-LABEL: func.func @step
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[BUF:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<16xf32>
// CHECK: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @kernels::@fill
// CHECK-NOT: mgpuStreamSynchronize
// CHECK: %[[G:.*]] = call @dist_get_group(%{{.*}})
// CHECK-NOT: mgpuStreamSynchronize
// CHECK: %[[S2:.*]] = builtin.unrealized_conversion_cast %[[T2]] : !gpu.async.token to !llvm.ptr
// CHECK: call @dist_all_reduce(%[[G]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S2]])
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<16xf32>
// CHECK-NOT: mgpuStreamSynchronize
// CHECK: %[[T3:.*]] = gpu.memcpy async [%[[T2]]] %[[HOST]], %[[BUF]]
// CHECK: %[[S3:.*]] = builtin.unrealized_conversion_cast %[[T3]]
// CHECK: call @mgpuStreamSynchronize(%[[S3]])
// CHECK-NEXT: memref.load %[[HOST]]
// CHECK: scf.for
// CHECK-NEXT: gpu.launch_func async [%[[T3]]] @kernels::@fill
// CHECK-NOT: mgpuStreamSynchronize
// CHECK: }
// CHECK: call @mgpuStreamSynchronize
// CHECK-NEXT: call @host_code()
// CHECK: %[[T4:.*]] = gpu.dealloc async [%[[T3]]] %[[BUF]]
// CHECK: %[[S4:.*]] = builtin.unrealized_conversion_cast %[[T4]]
// CHECK: call @mgpuStreamSynchronize(%[[S4]])
// CHECK: call @mgpuStreamDestroy(%{{.*}})
// CHECK-NEXT: return
// A function without device work is left alone.
// CHECK-LABEL: func.func @host_only
// CHECK-NOT: gpu.wait
// CHECK-NOT: mgpuStream
// CHECK: return
// CHECK-DAG: func.func private @mgpuStreamSynchronize(!llvm.ptr) attributes {dist.no_stream_sync}
// CHECK-DAG: func.func private @mgpuStreamDestroy(!llvm.ptr) attributes {dist.no_stream_sync}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%buf: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func private @dist_get_group(!llvm.ptr) -> !llvm.ptr attributes {dist.no_stream_sync}
  func.func private @dist_all_reduce(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) attributes {dist.stream_argument = 5 : i64}
  func.func private @host_code()

  func.func @step(%mesh: !llvm.ptr, %data: !llvm.ptr, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : i64
    %sum = arith.constant 0 : i32
    %f32 = arith.constant 0 : i32
    %buf = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<16xf32>)
    %group = call @dist_get_group(%mesh) : (!llvm.ptr) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    call @dist_all_reduce(%group, %data, %c16, %f32, %sum, %null) : (!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr) -> ()
    %host = memref.alloca() : memref<16xf32>
    gpu.memcpy %host, %buf : memref<16xf32>, memref<16xf32>
    %x = memref.load %host[%c0] : memref<16xf32>
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<16xf32>)
    }
    call @host_code() : () -> ()
    gpu.dealloc %buf : memref<16xf32>
    return %x : f32
  }

  func.func @host_only(%a: memref<4xf32>, %v: f32) {
    %c0 = arith.constant 0 : index
    memref.store %v, %a[%c0] : memref<4xf32>
    call @host_code() : () -> ()
    return
  }
}

// -----

// A cuBLAS product (dist.stream_argument on its declaration) is queued on the stream
// between the kernels that make and use its operands: no host wait between.
// CHECK-LABEL: func.func @product
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[T1:.*]] = gpu.launch_func async [%[[T0]]]
// CHECK: %[[S:.*]] = builtin.unrealized_conversion_cast %[[T1]]
// CHECK-NEXT: call @dist_cublas_sgemm(%{{.*}}, %[[S]])
// CHECK-NEXT: gpu.launch_func async [%[[T1]]]
// CHECK-NEXT: builtin.unrealized_conversion_cast
// CHECK-NEXT: call @mgpuStreamSynchronize
// CHECK-NEXT: builtin.unrealized_conversion_cast
// CHECK-NEXT: call @mgpuStreamDestroy
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func private @dist_cublas_sgemm(!llvm.ptr, !llvm.ptr) attributes {dist.stream_argument = 1 : i64}

  func.func @product(%a: !llvm.ptr) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    %null = llvm.mlir.zero : !llvm.ptr
    call @dist_cublas_sgemm(%a, %null) : (!llvm.ptr, !llvm.ptr) -> ()
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
