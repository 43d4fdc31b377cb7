// RUN: dist-opt %s --split-input-file --dist-update-in-place | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-lower-to-llvm=update-in-place=true --mlir-print-ir-after=dist-update-in-place-buffers -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: dist-opt %s --split-input-file --dist-lower-to-llvm --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

#map = affine_map<(d0) -> (d0)>

// An SGD step with momentum: the weight (by dist.updates) and the momentum
// (by dist.name) are made in their arguments (the ops' empty inits become
// the arguments, read before or by the op only) and returned through a
// materialization into them; the third result is not a next value.
func.func @sgd(%w: tensor<8xf32> {dist.name = "w"}, %m: tensor<8xf32> {dist.name = "m"},
               %g: tensor<8xf32>)
    -> (tensor<8xf32> {dist.updates = 0 : i64}, tensor<8xf32> {dist.name = "m"},
        tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %m2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%m, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %w2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%w, %m2 : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %w2, %m2, %g : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: func.func @sgd(%arg0: tensor<8xf32> {dist.name = "w"}, %arg1: tensor<8xf32> {dist.name = "m"}, %arg2: tensor<8xf32>)
// CHECK-NOT: tensor.empty
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<8xf32>, tensor<8xf32>) outs(%arg1 : tensor<8xf32>)
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%arg0, %[[M]] : tensor<8xf32>, tensor<8xf32>) outs(%arg0 : tensor<8xf32>)
// CHECK: %[[WI:.*]] = bufferization.materialize_in_destination %[[W]] in %arg0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK: %[[MI:.*]] = bufferization.materialize_in_destination %[[M]] in %arg1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK: return %[[WI]], %[[MI]], %arg2

// Bufferized: both updates write their argument's buffer element by element
// (no allocation for them), and the function returns only the third result.
// BUFFERS-LABEL: func.func @sgd(%arg0: memref<8xf32> {dist.name = "w"}, %arg1: memref<8xf32> {dist.name = "m"}, %arg2: memref<8xf32>) -> memref<8xf32> {
// BUFFERS-NOT: memref.alloc
// BUFFERS: linalg.generic {{.*}} ins(%arg1, %arg2 : memref<8xf32>, memref<8xf32>) outs(%arg1 : memref<8xf32>)
// BUFFERS: linalg.generic {{.*}} ins(%arg0, %arg1 : memref<8xf32>, memref<8xf32>) outs(%arg0 : memref<8xf32>)
// BUFFERS-NOT: memref.copy
// BUFFERS: return %{{.*}} : memref<8xf32>

// Without the option, each next value has its own buffer and is returned.
// OFF-LABEL: func.func @sgd
// OFF-COUNT-2: memref.alloc
// OFF: return %{{.*}}, %{{.*}}, %{{.*}} : memref<8xf32>, memref<8xf32>, memref<8xf32>

// -----

#map = affine_map<(d0) -> (d0)>

// The old weight is read after the new one is made: the new value keeps its
// empty init (making it in place would overwrite what that read needs), so
// bufferization makes it in a buffer of its own and copies it into the
// argument at the end (still no result).
func.func @read_after(%w: tensor<8xf32>, %g: tensor<8xf32>)
    -> (tensor<8xf32> {dist.updates = 0 : i64}, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %w2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%w, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %d = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%w, %w2 : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %w2, %d : tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: func.func @read_after
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
// CHECK: bufferization.materialize_in_destination %[[NEW]] in %arg0
// BUFFERS-LABEL: func.func @read_after(%arg0: memref<8xf32>, %arg1: memref<8xf32>) -> memref<8xf32> {
// BUFFERS: %[[NEW:.*]] = memref.alloc
// BUFFERS: linalg.generic {{.*}} outs(%[[NEW]] : memref<8xf32>)
// BUFFERS: linalg.generic {{.*}} ins(%arg0, %[[NEW]] : memref<8xf32>, memref<8xf32>)
// BUFFERS: memref.copy %[[NEW]], %arg0
// BUFFERS: return %{{.*}} : memref<8xf32>

// -----

// Left alone: a scalar next value (passed by value, it has no buffer).
func.func @left_alone(%v: tensor<4xf32>, %s: f32)
    -> (tensor<4xf32>, f32 {dist.updates = 1 : i64}) {
  %0 = arith.addf %v, %v : tensor<4xf32>
  %1 = arith.addf %s, %s : f32
  return %0, %1 : tensor<4xf32>, f32
}
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: materialize_in_destination
// CHECK: return

// -----

// A returned argument that updates itself is already in place: no
// materialization, and bufferized, no result.
func.func @unchanged(%w: tensor<8xf32>) -> (tensor<8xf32> {dist.updates = 0 : i64}) {
  return %w : tensor<8xf32>
}
// CHECK-LABEL: func.func @unchanged
// CHECK-NEXT: return %arg0 : tensor<8xf32>
// BUFFERS-LABEL: func.func @unchanged(%arg0: memref<8xf32>) {
// BUFFERS-NEXT: return{{$}}

// -----

// Values that may share the updated argument's buffer are returned as they
// are: a loop started from the argument (its result may be the argument's
// buffer), and a next value beside another result that is a view of the
// argument (writing the argument in place would change that result).
func.func @loop(%w: tensor<8xf32>, %g: tensor<8xf32>)
    -> (tensor<8xf32> {dist.updates = 0 : i64}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %w) -> (tensor<8xf32>) {
    %n = arith.subf %acc, %g : tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @loop
// CHECK-NOT: materialize_in_destination
// CHECK: return %{{.*}} : tensor<8xf32>

func.func @view_returned(%w: tensor<8xf32>, %g: tensor<8xf32>)
    -> (tensor<8xf32> {dist.updates = 0 : i64}, tensor<2x4xf32>) {
  %next = arith.subf %w, %g : tensor<8xf32>
  %view = tensor.expand_shape %w [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %next, %view : tensor<8xf32>, tensor<2x4xf32>
}
// CHECK-LABEL: func.func @view_returned
// CHECK-NOT: materialize_in_destination
// CHECK: return
// BUFFERS-LABEL: func.func @view_returned(%arg0: memref<8xf32>, %arg1: memref<8xf32>) -> (memref<8xf32> {dist.updates = 0 : i64}, memref<2x4xf32>)

// -----

// The new value reads the old one transposed (through an scf.if that yields
// the argument: a value that may share its buffer): made in place, it would
// read elements it has already overwritten, so it keeps its empty init, and
// the bufferized step makes it in a buffer of its own, copied into the
// argument at the end (fuzz seed 2483 with --steps: wrong from step 1).
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#swap3 = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
func.func @transposed_read(%w: tensor<2x2x2xf32>, %c: i1)
    -> (tensor<2x2x2xf32> {dist.updates = 0 : i64}) {
  %same = scf.if %c -> (tensor<2x2x2xf32>) {
    scf.yield %w : tensor<2x2x2xf32>
  } else {
    scf.yield %w : tensor<2x2x2xf32>
  }
  %e = tensor.empty() : tensor<2x2x2xf32>
  %next = linalg.generic {indexing_maps = [#id3, #swap3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%same, %same : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%e : tensor<2x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x2x2xf32>
  return %next : tensor<2x2x2xf32>
}
// CHECK-LABEL: func.func @transposed_read
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<2x2x2xf32>)
// CHECK: bufferization.materialize_in_destination %[[NEW]] in %arg0
// BUFFERS-LABEL: func.func @transposed_read(%arg0: memref<2x2x2xf32>, %arg1: i1) {
// BUFFERS: %[[NEW:.*]] = memref.alloc
// BUFFERS: linalg.generic {{.*}} outs(%[[NEW]] : memref<2x2x2xf32>)
// BUFFERS: memref.copy %[[NEW]], %arg0

// -----

// Read element by element (the output's own indexing), the old value may be
// overwritten as it is read: made in place.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @elementwise_read(%w: tensor<2x2x2xf32>, %c: i1)
    -> (tensor<2x2x2xf32> {dist.updates = 0 : i64}) {
  %same = scf.if %c -> (tensor<2x2x2xf32>) {
    scf.yield %w : tensor<2x2x2xf32>
  } else {
    scf.yield %w : tensor<2x2x2xf32>
  }
  %e = tensor.empty() : tensor<2x2x2xf32>
  %next = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%same : tensor<2x2x2xf32>) outs(%e : tensor<2x2x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x2x2xf32>
  return %next : tensor<2x2x2xf32>
}
// CHECK-LABEL: func.func @elementwise_read
// CHECK-NOT: tensor.empty
// CHECK: linalg.generic {{.*}} outs(%arg0 : tensor<2x2x2xf32>)
