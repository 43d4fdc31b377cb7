// RUN: dist-opt %s --dist-place-buckets --split-input-file | FileCheck %s
// RUN: dist-opt %s --dist-place-buckets --split-input-file --dist-comm-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: dist-opt %s --dist-place-buckets --split-input-file --dist-lower-to-runtime | FileCheck %s --check-prefix=LOWER
// RUN: dist-opt %s --dist-place-buckets=summary --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: remark: dist-place-buckets: 2 of 2 buffers (96 of 96 B) made in the bucket's buffer; copying the others in and back moves 0 B
// SUMMARY: remark: dist-place-buckets: 1 of 2 buffers (32 of 48 B) made in the bucket's buffer; copying the others in and back moves 32 B
// SUMMARY: remark: dist-place-buckets: 2 of 2 buffers (48 of 48 B)
// SUMMARY: remark: dist-place-buckets: 0 of 2 buffers (0 of 48 B) made in the bucket's buffer; copying the others in and back moves 96 B
// SUMMARY: remark: dist-place-buckets: 0 of 2 buffers (0 of 32 B)
// SUMMARY-NOT: remark

// Every member is a fresh buffer freed in the block: the bucket's buffer is
// allocated where the first member was, each member becomes the view of its
// slot (in operand order: %b at byte 0, %a at byte 64), and the bucket is
// freed where the last member was. Nothing is copied.
dist.mesh @mesh [dp = 4]
// CHECK-LABEL: func.func @all_placed
func.func @all_placed(%x: memref<4x4xf32>, %out: memref<4x4xf32>) {
  // CHECK: %[[BUCKET:.*]] = memref.alloc() {alignment = 64 : i64, dist.bucket_buffer} : memref<96xi8>
  // CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : index
  // CHECK-NEXT: %[[A:.*]] = memref.view %[[BUCKET]][%[[C64]]][] : memref<96xi8> to memref<8xf32>
  // CHECK: linalg.fill
  %a = memref.alloc() : memref<8xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<8xf32>)
  // CHECK: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-NEXT: %[[B:.*]] = memref.view %[[BUCKET]][%[[C0]]][] : memref<96xi8> to memref<4x4xf32>
  // CHECK-NEXT: linalg.copy ins(%{{.*}} : memref<4x4xf32>) outs(%[[B]] : memref<4x4xf32>)
  %b = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%x : memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  // CHECK: dist.buffer.all_reduce %[[B]], %[[A]] on @mesh [dp] sum
  dist.buffer.all_reduce %b, %a on @mesh [dp] sum : memref<4x4xf32>, memref<8xf32>
  linalg.copy ins(%b : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  // CHECK-NEXT: linalg.copy
  // CHECK-NEXT: memref.dealloc %[[BUCKET]] : memref<96xi8>
  // CHECK-NEXT: return
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<4x4xf32>
  return
}
// REPORT: remark: dist.buffer.all_reduce over [dp] (4 ranks): 24 x f32 = 96 B; each rank sends 144 B{{$}}
// The lowering reduces the bucket's buffer itself: no copy.
// LOWER-LABEL: func.func @all_placed
// LOWER-NOT: memref.copy
// LOWER: %[[WHOLE:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<96xi8> to memref<24xf32>
// LOWER: memref.extract_aligned_pointer_as_index %[[WHOLE]]
// LOWER: call @dist_all_reduce(%{{.*}}, %{{.*}}, %c24_i64
// LOWER-NOT: memref.copy
// LOWER: return

// -----

// A member that the function returns (bufferization reused a gradient's
// buffer for a result) keeps its memory and is copied into its slot and back;
// the report counts only its bytes (2 x 16 B).
dist.mesh @mesh [dp = 4]
// CHECK-LABEL: func.func @one_returned
func.func @one_returned() -> memref<4xf32> {
  // CHECK: %[[BUCKET:.*]] = memref.alloc() {alignment = 64 : i64, dist.bucket_buffer} : memref<48xi8>
  // CHECK: %[[A:.*]] = memref.view %[[BUCKET]]
  // CHECK: %[[R:.*]] = memref.alloc() : memref<4xf32>
  %a = memref.alloc() : memref<8xf32>
  %r = memref.alloc() : memref<4xf32>
  // CHECK: dist.buffer.all_reduce %[[A]], %[[R]] on @mesh [dp] sum
  dist.buffer.all_reduce %a, %r on @mesh [dp] sum : memref<8xf32>, memref<4xf32>
  // CHECK-NEXT: memref.dealloc %[[BUCKET]]
  // CHECK-NEXT: return %[[R]]
  memref.dealloc %a : memref<8xf32>
  return %r : memref<4xf32>
}
// REPORT: remark: dist.buffer.all_reduce over [dp] (4 ranks): 12 x f32 = 48 B; each rank sends 72 B; packing its 2 tensors into one buffer copies 32 B
// LOWER-LABEL: func.func @one_returned
// LOWER: %[[SLOT:.*]] = memref.view %{{.*}}[%c32{{.*}}][] : memref<48xi8> to memref<4xf32>
// LOWER-NEXT: memref.copy %{{.*}}, %[[SLOT]]
// LOWER: call @dist_all_reduce
// LOWER-NEXT: memref.copy %[[SLOT]], %{{.*}}

// -----

// An async bucket: the buffers must live until the wait; a member freed
// after it is placed.
dist.mesh @mesh [dp = 4]
// CHECK-LABEL: func.func @async
func.func @async(%out: memref<8xf32>) {
  // CHECK: memref.alloc() {alignment = 64 : i64, dist.bucket_buffer} : memref<48xi8>
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<4xf32>
  // CHECK: %[[T:.*]] = dist.buffer.all_reduce async
  %t = dist.buffer.all_reduce async %a, %b on @mesh [dp] sum : memref<8xf32>, memref<4xf32>
  // CHECK-NEXT: dist.wait %[[T]]
  dist.wait %t, %a, %b : memref<8xf32>, memref<4xf32>
  linalg.copy ins(%a : memref<8xf32>) outs(%out : memref<8xf32>)
  memref.dealloc %b : memref<4xf32>
  memref.dealloc %a : memref<8xf32>
  // CHECK: memref.dealloc %{{.*}} : memref<48xi8>
  // CHECK-NEXT: return
  return
}

// -----

// Nothing to place: a member made in another block, a member that an op
// aliases (a subview could outlive the dealloc), a buffer twice in one
// bucket, and a collective of one buffer.
dist.mesh @mesh [dp = 4]
// CHECK-LABEL: func.func @not_placed
// CHECK-NOT: dist.bucket_buffer
// CHECK: return
func.func @not_placed(%c: i1, %x: memref<8xf32>) {
  %a = scf.if %c -> memref<8xf32> {
    %n = memref.alloc() : memref<8xf32>
    scf.yield %n : memref<8xf32>
  } else {
    %n = memref.alloc() : memref<8xf32>
    scf.yield %n : memref<8xf32>
  }
  %b = memref.alloc() : memref<4xf32>
  %s = memref.subview %b[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  dist.buffer.all_reduce %a, %b on @mesh [dp] sum : memref<8xf32>, memref<4xf32>
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<4xf32>
  %d = memref.alloc() : memref<4xf32>
  dist.buffer.all_reduce %d, %d on @mesh [dp] sum : memref<4xf32>, memref<4xf32>
  memref.dealloc %d : memref<4xf32>
  %e = memref.alloc() : memref<4xf32>
  dist.buffer.all_reduce %e on @mesh [dp] sum : memref<4xf32>
  memref.dealloc %e : memref<4xf32>
  return
}
