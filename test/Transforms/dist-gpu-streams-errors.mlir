// RUN: dist-opt %s --dist-gpu-streams --split-input-file --verify-diagnostics

// Already ordered by tokens (gpu-async-region ran): refused, not reordered.
module attributes {gpu.container_module} {
  func.func @async_already() {
    // expected-error @below {{'gpu.wait' op is already ordered by async tokens; dist-gpu-streams orders the synchronous form (run it instead of gpu-async-region)}}
    %t = gpu.wait async
    %buf, %t1 = gpu.alloc async [%t] () : memref<4xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @async_alloc() {
    // expected-error @below {{'gpu.alloc' op is already ordered by async tokens}}
    %buf, %t = gpu.alloc async () : memref<4xf32>
    return
  }
}

// -----

// Kernels must be outlined first.
func.func @inline_kernel() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'gpu.launch' op is not outlined; run gpu-kernel-outlining before dist-gpu-streams}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    gpu.terminator
  }
  return
}

// -----

// The stream functions' names are taken by something else.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  // expected-error @below {{'func.func' op uses the name @mgpuStreamSynchronize, which the lowering calls as '(!llvm.ptr) -> ()'; rename it}}
  func.func @mgpuStreamSynchronize(%x: i32) {
    return
  }
  func.func @step() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
