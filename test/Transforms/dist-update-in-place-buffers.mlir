// RUN: dist-opt %s --allow-unregistered-dialect --dist-update-in-place-buffers | FileCheck %s

// The first result is the buffer of the argument it updates: dropped, and the self-copy that materializing it left is erased.
// The second result is the buffer of another argument than the one it
// updates, the third updates nothing: both stay. The caller reads the
// dropped result from the operand it passed (a copy of it into that operand
// is a self-copy and goes too).
func.func @step(%w: memref<8xf32>, %m: memref<8xf32>, %g: memref<8xf32>)
    -> (memref<8xf32> {dist.updates = 0 : i64}, memref<8xf32> {dist.updates = 1 : i64},
        memref<8xf32>) {
  linalg.sub ins(%w, %g : memref<8xf32>, memref<8xf32>) outs(%w : memref<8xf32>)
  memref.copy %w, %w : memref<8xf32> to memref<8xf32>
  return %w, %g, %m : memref<8xf32>, memref<8xf32>, memref<8xf32>
}
// CHECK-LABEL: func.func @step(%arg0: memref<8xf32>, %arg1: memref<8xf32>, %arg2: memref<8xf32>) -> (memref<8xf32> {dist.updates = 1 : i64}, memref<8xf32>) {
// CHECK-NEXT: linalg.sub
// CHECK-NEXT: return %arg2, %arg1 : memref<8xf32>, memref<8xf32>

func.func @caller(%w: memref<8xf32>, %m: memref<8xf32>, %g: memref<8xf32>, %out: memref<8xf32>) {
  %r:3 = call @step(%w, %m, %g) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> (memref<8xf32>, memref<8xf32>, memref<8xf32>)
  memref.copy %r#0, %out : memref<8xf32> to memref<8xf32>
  memref.copy %r#0, %w : memref<8xf32> to memref<8xf32>
  "test.use"(%r#1, %r#2) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}
// CHECK-LABEL: func.func @caller
// CHECK-NEXT: %[[R:.*]]:2 = call @step(%arg0, %arg1, %arg2) : (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> (memref<8xf32>, memref<8xf32>)
// CHECK-NEXT: memref.copy %arg0, %arg3
// CHECK-NEXT: "test.use"(%[[R]]#0, %[[R]]#1)

// A gathered next parameter copied into its argument at the end becomes the
// argument: the gather writes %w (nothing reads %w after the allocation),
// and the result goes. The second buffer is copied into %v, which the add
// reads after the allocation: it stays a buffer of its own.
dist.mesh @mesh [dp = 2]
func.func @gathered(%w: memref<8xf32>, %v: memref<8xf32>, %block: memref<4xf32>)
    -> (memref<8xf32> {dist.updates = 0 : i64}, memref<8xf32> {dist.updates = 1 : i64}) {
  %next = memref.alloc() : memref<8xf32>
  dist.buffer.all_gather %block into %next on @mesh [dp] dim = 0 : memref<4xf32>, memref<8xf32>
  memref.copy %next, %w : memref<8xf32> to memref<8xf32>
  %other = memref.alloc() : memref<8xf32>
  linalg.add ins(%v, %v : memref<8xf32>, memref<8xf32>) outs(%other : memref<8xf32>)
  memref.copy %other, %v : memref<8xf32> to memref<8xf32>
  return %w, %v : memref<8xf32>, memref<8xf32>
}
// CHECK-LABEL: func.func @gathered(%arg0: memref<8xf32>, %arg1: memref<8xf32>, %arg2: memref<4xf32>) {
// CHECK-NEXT: dist.buffer.all_gather %arg2 into %arg0
// CHECK-NEXT: %[[OTHER:.*]] = memref.alloc
// CHECK-NEXT: linalg.add ins(%arg1, %arg1 : memref<8xf32>, memref<8xf32>) outs(%[[OTHER]] : memref<8xf32>)
// CHECK-NEXT: memref.copy %[[OTHER]], %arg1
// CHECK-NEXT: return

// A buffer copied into %w stays its own when an op between the allocation
// and the copy reads %w through a value that may share its buffer (an
// scf.if yielding it): writing %w earlier would change what that op reads.
func.func @read_through_if(%w: memref<4xf32>, %c: i1)
    -> (memref<4xf32> {dist.updates = 0 : i64}) {
  %same = scf.if %c -> (memref<4xf32>) {
    scf.yield %w : memref<4xf32>
  } else {
    scf.yield %w : memref<4xf32>
  }
  %next = memref.alloc() : memref<4xf32>
  "test.reverse"(%same, %next) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %next, %w : memref<4xf32> to memref<4xf32>
  return %w : memref<4xf32>
}
// CHECK-LABEL: func.func @read_through_if(%arg0: memref<4xf32>, %arg1: i1) {
// CHECK: %[[NEXT:.*]] = memref.alloc
// CHECK-NEXT: "test.reverse"(%{{.*}}, %[[NEXT]])
// CHECK-NEXT: memref.copy %[[NEXT]], %arg0
