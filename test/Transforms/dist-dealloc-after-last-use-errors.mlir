// RUN: dist-opt %s --allow-unregistered-dialect --dist-dealloc-after-last-use -verify-diagnostics | FileCheck %s

// The pass rejects nothing: a buffer it cannot follow keeps its dealloc.
// Here %a is yielded from an scf.if (the result aliases it), %b is
// allocated in another block than its dealloc's, and %c goes through an op
// that returns a buffer (which may alias it).
// expected-no-diagnostics

func.func @escapes(%x: memref<8xf32>, %out: memref<8xf32>, %p: i1) {
  %a = memref.alloc() : memref<8xf32>
  linalg.copy ins(%x : memref<8xf32>) outs(%a : memref<8xf32>)
  %r = scf.if %p -> memref<8xf32> {
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  linalg.copy ins(%r : memref<8xf32>) outs(%out : memref<8xf32>)
  %c = memref.alloc() : memref<8xf32>
  %m = "test.pass_through"(%c) : (memref<8xf32>) -> memref<8xf32>
  linalg.copy ins(%m : memref<8xf32>) outs(%out : memref<8xf32>)
  linalg.copy ins(%x : memref<8xf32>) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %c : memref<8xf32>
  return
}
// CHECK-LABEL: func.func @escapes
// CHECK: "test.pass_through"
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return

func.func @other_block(%x: memref<8xf32>, %p: i1) {
  %b = memref.alloc() : memref<8xf32>
  scf.if %p {
    linalg.copy ins(%x : memref<8xf32>) outs(%b : memref<8xf32>)
    memref.dealloc %b : memref<8xf32>
  }
  return
}
// CHECK-LABEL: func.func @other_block
// CHECK: scf.if
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: memref.dealloc
