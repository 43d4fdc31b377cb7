// RUN: dist-opt %s --dist-gpu-merge-kernels -split-input-file -verify-diagnostics -o /dev/null

// dist-gpu-merge-kernels takes no options and refuses nothing: with fewer
// than two modules holding only their kernel there is nothing to merge.
// expected-no-diagnostics
module attributes {gpu.container_module} {
  gpu.module @only {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
