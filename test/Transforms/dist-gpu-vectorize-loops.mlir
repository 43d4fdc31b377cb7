// RUN: dist-opt %s --dist-gpu-vectorize-loops | FileCheck %s
// RUN: dist-opt %s --dist-gpu-vectorize-loops=min-threads=1 | FileCheck %s --check-prefix=RED

// Softmax's exp over bf16 scores with a causal mask: the widest varying
// access is bf16, so each thread takes 8 elements (16 bytes). The loop
// counts vectors (64 / 8), the body's first element is counter * 8; the
// row's max (uniform along j) is broadcast, the mask compares j's 8 values.
// CHECK-LABEL: func.func @softmax_exp
// CHECK-SAME: (%[[S:.*]]: memref<4x16x64xbf16>, %[[MAX:.*]]: memref<4x16xf32>, %[[E:.*]]: memref<4x16x64xbf16>)
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: scf.parallel (%[[B:.*]], %[[I:.*]], %[[K:.*]]) = (%c0, %c0, %c0) to (%c4, %c16, %[[EIGHT]]) step (%c1, %c1, %c1)
// CHECK: %[[J:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK: %[[LANES:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
// CHECK: %[[JB:.*]] = vector.broadcast %[[J]] : index to vector<8xindex>
// CHECK: %[[JS:.*]] = arith.addi %[[JB]], %[[LANES]] : vector<8xindex>
// CHECK: %[[X:.*]] = vector.load %[[S]][%[[B]], %[[I]], %[[J]]] {alignment = 16 : i64} : memref<4x16x64xbf16>, vector<8xbf16>
// CHECK: %[[M:.*]] = memref.load %[[MAX]][%[[B]], %[[I]]] : memref<4x16xf32>
// CHECK: %[[XF:.*]] = arith.extf %[[X]] : vector<8xbf16> to vector<8xf32>
// CHECK: %[[IB:.*]] = vector.broadcast %[[I]] : index to vector<8xindex>
// CHECK: %[[KEEP:.*]] = arith.cmpi ule, %[[JS]], %[[IB]] : vector<8xindex>
// CHECK: arith.mulf {{.*}} : vector<8xf32>
// CHECK: %[[MB:.*]] = vector.broadcast %[[M]] : f32 to vector<8xf32>
// CHECK: arith.subf %{{.*}}, %[[MB]] fastmath<contract> : vector<8xf32>
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: arith.select %[[KEEP]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: vector.store %[[R]], %[[E]][%[[B]], %[[I]], %[[J]]] {alignment = 16 : i64} : memref<4x16x64xbf16>, vector<8xbf16>
// CHECK-NOT: memref.store
func.func @softmax_exp(%s: memref<4x16x64xbf16>, %max: memref<4x16xf32>, %e: memref<4x16x64xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %scale = arith.constant 1.250000e-01 : f32
  %zero = arith.constant 0.000000e+00 : f32
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c4, %c16, %c64) step (%c1, %c1, %c1) {
    %x = memref.load %s[%b, %i, %j] : memref<4x16x64xbf16>
    %m = memref.load %max[%b, %i] : memref<4x16xf32>
    %xf = arith.extf %x : bf16 to f32
    %keep = arith.cmpi ule, %j, %i : index
    %xs = arith.mulf %xf, %scale : f32
    %d = arith.subf %xs, %m fastmath<contract> : f32
    %ex = math.exp %d : f32
    %v = arith.select %keep, %ex, %zero : f32
    %r = arith.truncf %v : f32 to bf16
    memref.store %r, %e[%b, %i, %j] : memref<4x16x64xbf16>
    scf.reduce
  }
  return
}

// bf16 in, f32 out: the f32 store fills 16 bytes with 4 elements, the bf16
// load takes 4 too (8 bytes, aligned to 8). A bias read along j is a
// contiguous load of its own; a 0-d scale is uniform.
// CHECK-LABEL: func.func @widen_bias
// CHECK: scf.parallel (%{{.*}}, %[[K:.*]]) = (%c0, %c0) to (%c8, %c4{{.*}}) step (%c1, %c1)
// CHECK: %[[J:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[J]]] {alignment = 8 : i64} : memref<8x16xbf16>, vector<4xbf16>
// CHECK: vector.load %{{.*}}[%[[J]]] {alignment = 16 : i64} : memref<16xf32>, vector<4xf32>
// CHECK: memref.load %{{.*}}[] : memref<f32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[J]]] {alignment = 16 : i64} : memref<8x16xf32>, vector<4xf32>
func.func @widen_bias(%x: memref<8x16xbf16>, %bias: memref<16xf32>, %scale: memref<f32>, %y: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<8x16xbf16>
    %b = memref.load %bias[%j] : memref<16xf32>
    %s = memref.load %scale[] : memref<f32>
    %af = arith.extf %a : bf16 to f32
    %p = arith.mulf %af, %s : f32
    %r = arith.addf %p, %b : f32
    memref.store %r, %y[%i, %j] : memref<8x16xf32>
    scf.reduce
  }
  return
}

// An extent that 4 does not divide but 2 does: 2 elements a thread.
// CHECK-LABEL: func.func @narrower
// CHECK: scf.parallel (%[[K:.*]]) = (%c0) to (%c3{{.*}}) step (%c1)
// CHECK: vector.load {{.*}} : memref<6xf32>, vector<2xf32>
func.func @narrower(%x: memref<6xf32>, %y: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
    %a = memref.load %x[%i] : memref<6xf32>
    %r = arith.negf %a : f32
    memref.store %r, %y[%i] : memref<6xf32>
    scf.reduce
  }
  return
}

// Alignment is what the buffer's start is known to keep: a view 4 bytes
// into a bucket (a gradient placed in its bucket) keeps 4, one at an unknown
// shift only its elements' 4; the vectors are still 4 wide.
// CHECK-LABEL: func.func @bucket_views
// CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<16xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<16xf32>, vector<4xf32>
// CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<16xf32>, vector<4xf32>
// A loop's block argument may be any buffer: its element's alignment
// (though it starts as a function argument, which keeps 16).
// CHECK: scf.for
// CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<16xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<16xf32>, vector<4xf32>
func.func @bucket_views(%bucket: memref<128xi8>, %shift: index, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %g = memref.view %bucket[%c4][] : memref<128xi8> to memref<16xf32>
  %h = memref.view %bucket[%shift][] : memref<128xi8> to memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %a = memref.load %g[%i] : memref<16xf32>
    memref.store %a, %out[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %a = memref.load %h[%i] : memref<16xf32>
    memref.store %a, %out[%i] : memref<16xf32>
    scf.reduce
  }
  %last = scf.for %k = %c0 to %c4 step %c1 iter_args(%buf = %out) -> (memref<16xf32>) {
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %a = memref.load %buf[%i] : memref<16xf32>
      memref.store %a, %out[%i] : memref<16xf32>
      scf.reduce
    }
    scf.yield %buf : memref<16xf32>
  }
  return
}

// Left as they are: a row summed in one thread (the row varies in a leading
// index of the load), a transpose (j varies in a leading index), a view (its start may be unaligned), an extent no width
// divides, a store that does not vary with j (it would race), i1 elements
// (a vector of i1 is stored packed, a buffer of i1 a byte per element), a
// loop with reductions and device code.
// CHECK-LABEL: func.func @left
// CHECK-NOT: vector.
// CHECK: return
func.func @left(%x: memref<8x16xf32>, %t: memref<16x8xf32>, %v: memref<8x16xf32, strided<[16, 1], offset: 3>>,
                %p: memref<7xf32>, %row: memref<8xf32>, %sum: memref<8xf32>, %mask: memref<8xi1>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %s = scf.for %j = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
      %a = memref.load %x[%i, %j] : memref<8x16xf32>
      %n = arith.addf %acc, %a : f32
      scf.yield %n : f32
    }
    memref.store %s, %sum[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<8x16xf32>
    memref.store %a, %t[%j, %i] : memref<16x8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
    %a = memref.load %v[%i, %j] : memref<8x16xf32, strided<[16, 1], offset: 3>>
    memref.store %a, %x[%i, %j] : memref<8x16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c7) step (%c1) {
    %a = memref.load %p[%i] : memref<7xf32>
    %r = arith.negf %a : f32
    memref.store %r, %p[%i] : memref<7xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<8x16xf32>
    memref.store %a, %row[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %row[%i] : memref<8xf32>
    %positive = arith.cmpf ogt, %a, %zero : f32
    memref.store %positive, %mask[%i] : memref<8xi1>
    scf.reduce
  }
  %total = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %a = memref.load %row[%i] : memref<8xf32>
    scf.reduce(%a : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %a = memref.load %row[%i] : memref<8xf32>
      memref.store %a, %sum[%i] : memref<8xf32>
      scf.reduce
    }
    gpu.terminator
  }
  return %total : f32
}

// A column sum's partial sums (dist-split-reductions' (column, chunk) loop,
// its accumulator carried by dist-promote-accumulators): most accesses
// index the column last (the loads, 8 times each), so the column counts in
// vectors, though it is the outer dimension; the loop carries 4 partial
// sums at once, the accumulator's initial value a vector load. With the
// default min-threads the 16 x 4 iterations are too few: left.
// RED-LABEL: func.func @column_partials
// RED-SAME: (%[[IN:.*]]: memref<8x4x16xbf16>, %[[PART:.*]]: memref<4x16xf32>)
// RED: scf.parallel (%[[C:.*]], %[[P:.*]]) = (%c0, %c0) to (%c4{{.*}}, %c4) step
// RED: %[[J:.*]] = arith.muli %[[C]], %{{.*}} : index
// RED: %[[INIT:.*]] = vector.load %[[PART]][%[[P]], %[[J]]] {alignment = 16 : i64} : memref<4x16xf32>, vector<4xf32>
// RED: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c8 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4xf32>)
// RED: %[[X:.*]] = vector.load %[[IN]][%[[K]], %[[P]], %[[J]]] {alignment = 8 : i64} : memref<8x4x16xbf16>, vector<4xbf16>
// RED: %[[XF:.*]] = arith.extf %[[X]] : vector<4xbf16> to vector<4xf32>
// RED: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[XF]] : vector<4xf32>
// RED: scf.yield %[[NEXT]] : vector<4xf32>
// RED: vector.store %[[SUM]], %[[PART]][%[[P]], %[[J]]] {alignment = 16 : i64} : memref<4x16xf32>, vector<4xf32>
// CHECK-LABEL: func.func @column_partials
// CHECK-NOT: vector.
// CHECK: return
func.func @column_partials(%in: memref<8x4x16xbf16>, %part: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%c, %p) = (%c0, %c0) to (%c16, %c4) step (%c1, %c1) {
    %init = memref.load %part[%p, %c] : memref<4x16xf32>
    %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (f32) {
      %x = memref.load %in[%k, %p, %c] : memref<8x4x16xbf16>
      %xf = arith.extf %x : bf16 to f32
      %next = arith.addf %acc, %xf : f32
      scf.yield %next : f32
    }
    memref.store %sum, %part[%p, %c] : memref<4x16xf32>
    scf.reduce
  }
  return
}

// A causal row max's partials (16 interleaved partial maxima a row): the
// accumulator starts uniform (-inf, broadcast) and varies with what the
// body yields; the mask reads the lanes' positions k * 16 + p. The f32
// partials' stores take 4 elements (16 bytes), the bf16 loads 4 too.
// RED-LABEL: func.func @causal_partial_max
// RED: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// RED: scf.parallel (%[[R:.*]], %[[P:.*]]) = (%c0, %c0) to (%c64, %c4{{.*}}) step
// RED: %[[Q:.*]] = arith.muli %[[P]], %{{.*}} : index
// RED: %[[LANES:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// RED: %[[PS:.*]] = arith.addi %{{.*}}, %[[LANES]] : vector<4xindex>
// RED: %[[INIT:.*]] = vector.broadcast %[[NEG]] : f32 to vector<4xf32>
// RED: scf.for %[[K:.*]] = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4xf32>)
// RED: vector.load {{.*}}[%[[R]], %[[K]], %[[Q]]] {{.*}} : memref<64x4x16xbf16>, vector<4xbf16>
// RED: %[[BASE:.*]] = arith.muli %[[K]], %c16 : index
// RED: %[[BB:.*]] = vector.broadcast %[[BASE]] : index to vector<4xindex>
// RED: %[[POS:.*]] = arith.addi %[[BB]], %[[PS]] : vector<4xindex>
// RED: arith.cmpi ule, %[[POS]], %{{.*}} : vector<4xindex>
// RED: arith.maximumf %[[ACC]], %{{.*}} : vector<4xf32>
// RED: vector.store {{.*}} : memref<64x16xf32>, vector<4xf32>
func.func @causal_partial_max(%s: memref<64x4x16xbf16>, %part: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %neg = arith.constant 0xFF800000 : f32
  scf.parallel (%r, %p) = (%c0, %c0) to (%c64, %c16) step (%c1, %c1) {
    %max = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %neg) -> (f32) {
      %x = memref.load %s[%r, %k, %p] : memref<64x4x16xbf16>
      %xf = arith.extf %x : bf16 to f32
      %base = arith.muli %k, %c16 : index
      %pos = arith.addi %base, %p : index
      %keep = arith.cmpi ule, %pos, %r : index
      %masked = arith.select %keep, %xf, %neg : f32
      %next = arith.maximumf %acc, %masked : f32
      scf.yield %next : f32
    }
    memref.store %max, %part[%r, %p] : memref<64x16xf32>
    scf.reduce
  }
  return
}

// Left even with min-threads=1: a sequential loop whose bound varies
// across the lanes, and one whose body holds another region.
// RED-LABEL: func.func @reductions_left
// RED-NOT: vector.
// RED: return
func.func @reductions_left(%x: memref<8x16xf32>, %n: memref<16xindex>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
    %bound = memref.load %n[%j] : memref<16xindex>
    %s = scf.for %k = %c0 to %bound step %c1 iter_args(%acc = %zero) -> (f32) {
      %a = memref.load %x[%k, %j] : memref<8x16xf32>
      %next = arith.addf %acc, %a : f32
      scf.yield %next : f32
    }
    memref.store %s, %out[%j] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
    %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %a = memref.load %x[%k, %j] : memref<8x16xf32>
      %positive = arith.cmpf ogt, %a, %zero : f32
      %next = scf.if %positive -> (f32) {
        %sum = arith.addf %acc, %a : f32
        scf.yield %sum : f32
      } else {
        scf.yield %acc : f32
      }
      scf.yield %next : f32
    }
    memref.store %s, %out[%j] : memref<16xf32>
    scf.reduce
  }
  return
}
