// RUN: dist-opt %s --dist-gpu-serial-kernels -split-input-file -verify-diagnostics -o /dev/null

// dist-gpu-serial-kernels takes no options and refuses nothing: host code
// it cannot run as a kernel (a call) stays on the host, and only the buffer
// accesses beside it become kernels; what still touches device memory from
// the host is refused later by dist-gpu-allocs.
// expected-no-diagnostics
func.func private @runtime(memref<4xf32>)
func.func @left_alone(%buf: memref<4xf32>) {
  scf.execute_region {
    func.call @runtime(%buf) : (memref<4xf32>) -> ()
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %buf[%c0] : memref<4xf32>
    scf.yield
  }
  return
}
