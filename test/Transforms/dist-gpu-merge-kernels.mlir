// RUN: dist-opt %s --dist-gpu-merge-kernels | FileCheck %s

// Tests that outlined kernels (one gpu.module each, as gpu-kernel-outlining
// makes them) move into one gpu.module, renamed after their modules, and
// that the launches follow; a module holding something besides its kernel
// stays as it is.

// CHECK-LABEL: func.func @step
// CHECK: gpu.launch_func  @dist_kernels::@step_kernel blocks
// CHECK: gpu.launch_func  @dist_kernels::@step_kernel_0 blocks
// CHECK: gpu.launch_func  @other::@k blocks
// CHECK: gpu.module @dist_kernels {
// CHECK-NEXT: gpu.func @step_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK: gpu.func @step_kernel_0(%{{.*}}: memref<4xf32>) kernel
// CHECK-NOT: gpu.module @step_kernel
// CHECK: gpu.module @other
module attributes {gpu.container_module} {
  func.func @step(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @other::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @step_kernel {
    gpu.func @step_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @step_kernel_0 {
    gpu.func @step_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @other {
    gpu.func @helper() {
      gpu.return
    }
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
