// RUN: dist-opt %s --dist-gpu-strided-copies -verify-diagnostics -o /dev/null

// dist-gpu-strided-copies takes no options and refuses nothing: a copy of
// unranked buffers (no layout to judge) is left as it is.
// expected-no-diagnostics
func.func @unranked(%a: memref<*xf32>, %b: memref<*xf32>) {
  memref.copy %a, %b : memref<*xf32> to memref<*xf32>
  return
}
