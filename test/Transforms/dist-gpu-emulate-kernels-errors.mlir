// RUN: dist-opt %s --dist-gpu-emulate-kernels --split-input-file --verify-diagnostics

// Threads run one after another: a barrier would wait forever.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sync(%a: memref<4xf32>) kernel {
      // expected-error @below {{cannot emulate 'gpu.barrier' in kernel @sync on the host (threads run one after another, each to its end)}}
      gpu.barrier
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{cannot emulate kernel @shared on the host: it has workgroup or private memory (threads run one after another)}}
    gpu.func @shared(%a: memref<4xf32>) workgroup(%tile : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{cannot emulate device function @helper on the host: only kernels (functions launched from the host) are emulated}}
    gpu.func @helper(%a: memref<4xf32>) {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{cannot emulate a GPU module holding 'arith.constant' on the host: only kernels and symbols}}
    %c0 = arith.constant 0 : i32
  }
}

// -----

// The host function's name is taken.
module attributes {gpu.container_module} {
  func.func private @__dist_emulated_kernels_scale()
  gpu.module @kernels {
    // expected-error @below {{cannot emulate kernel @scale on the host: the host module already has a symbol named '__dist_emulated_kernels_scale'}}
    gpu.func @scale(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// A constant of the GPU module that the host has under its name, different.
module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<2xf32> = dense<1.0>
  gpu.module @kernels {
    // expected-error @below {{cannot move 'table' of the GPU module to the host: the host module has another symbol of that name}}
    memref.global "private" constant @table : memref<2xf32> = dense<2.0>
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @clusters(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{cannot emulate the launch of @kernels::@k on the host: it has cluster sizes}}
    gpu.launch_func @kernels::@k clusters in (%c1, %c1, %c1) blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @shared_memory(%a: memref<4xf32>, %bytes: i32) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{cannot emulate the launch of @kernels::@k on the host: it has dynamic shared memory}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %bytes args(%a : memref<4xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Waits for tokens but gives none: not a program dist-gpu-streams made.
module attributes {gpu.container_module} {
  func.func @dangling(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    // expected-error @below {{cannot emulate the launch of @kernels::@k: it waits for tokens but gives none (not a GPU program dist-gpu-streams made)}}
    gpu.launch_func [%t] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
