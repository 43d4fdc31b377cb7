// RUN: dist-opt %s --dist-gpu-emulate-kernels --split-input-file --verify-diagnostics

// Threads run one after another: a barrier inside a loop or a branch would
// need a thread stopped halfway; only the kernel's top level is cut.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sync(%a: memref<4xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        // expected-error @below {{cannot emulate 'gpu.barrier' in kernel @sync on the host (threads run one after another, each to its end; only a barrier or a block-wide reduction at the kernel's top level is a point where they meet)}}
        gpu.barrier
      }
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

// -----

// A buffer made by each thread (an allocation) cannot cross a meeting: it
// is neither a value kept a thread nor a view made again.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scratch(%a: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{cannot emulate kernel @scratch on the host: a value of type 'memref<4xf32>' crosses a meeting of its threads (only scalars and vectors are kept, views made again)}}
      %own = memref.alloca() : memref<4xf32>
      gpu.barrier
      %x = memref.load %own[%c0] : memref<4xf32>
      memref.store %x, %a[%c0] : memref<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @branchy(%a: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<4xf32>
      // expected-error @below {{cannot emulate kernel @branchy on the host: a block-wide reduction whose combining region has several blocks}}
      %sum = gpu.all_reduce %x uniform {
      ^bb0(%l: f32, %r: f32):
        cf.br ^bb1
      ^bb1:
        %s = arith.addf %l, %r : f32
        gpu.yield %s : f32
      } : (f32) -> f32
      memref.store %sum, %a[%c0] : memref<4xf32>
      gpu.return
    }
  }
}
