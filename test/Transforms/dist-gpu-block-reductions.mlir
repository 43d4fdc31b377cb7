// RUN: dist-opt %s --split-input-file --dist-gpu-block-reductions | FileCheck %s
// RUN: dist-opt %s --split-input-file --dist-gpu-block-reductions='min-extent=4096' | FileCheck %s --check-prefix=LONG

// Tests that a row sum becomes a launch with a block per row of 256
// threads (1024 / 4), each thread summing its elements from the neutral
// element: 4 consecutive ones (16 bytes) with one vector load, elements
// 4t to 4t + 3 (one step, as the block's loads tile the row: no loop),
// then a uniform block-wide reduction with the op's combiner, every thread
// adding the output's value, and, once all have read it (a barrier),
// thread 0 storing the sum.
// LONG-LABEL: func.func @row_sum
// LONG-NOT: gpu.launch
// LONG: linalg.generic
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[X:.*]]: memref<2048x1024xf32>, %[[SUM:.*]]: memref<2048xf32>)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[ROWS:.*]] = arith.constant 2048 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK-NEXT: %[[LANES:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[K:.*]] = arith.muli %[[T]], %[[LANES]] : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[V:.*]] = vector.load %[[X]][%[[B]], %[[K]]] {alignment = 16 : i64} : memref<2048x1024xf32>, vector<4xf32>
// CHECK-NEXT: %[[V0:.*]] = vector.extract %[[V]][0]
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[V0]], %[[ZERO]] : f32
// CHECK-NEXT: %[[V1:.*]] = vector.extract %[[V]][1]
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[V1]], %[[S0]] : f32
// CHECK-NEXT: vector.extract %[[V]][2]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: vector.extract %[[V]][3]
// CHECK-NEXT: %[[PARTIAL:.*]] = arith.addf
// CHECK-NEXT: %[[ALL:.*]] = gpu.all_reduce %[[PARTIAL]] uniform {
// CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
// CHECK-NEXT: %[[LR:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT: gpu.yield %[[LR]]
// CHECK: %[[INIT:.*]] = memref.load %[[SUM]][%[[B]]]
// CHECK-NEXT: %[[OUT:.*]] = arith.addf %[[INIT]], %[[ALL]] : f32
// CHECK-NEXT: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[OUT]], %[[SUM]][%[[B]]]
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @row_sum(%x: memref<2048x1024xf32>, %sum: memref<2048xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2048x1024xf32>) outs(%sum : memref<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests a row of 8192: 256 threads of 4 lanes take 8 steps each, more than
// run without a loop: a loop of 8 counted iterations, iteration i taking
// elements 4 (256 i + t) to 4 (256 i + t) + 3.
// CHECK-LABEL: func.func @long_row
// CHECK: gpu.launch
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[STEP:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[LANES:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 8 : index
// CHECK: %[[PARTIAL:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK-NEXT: %[[IB:.*]] = arith.muli %[[I]], %[[STEP]] : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[IB]], %{{.*}} : index
// CHECK-NEXT: %[[K:.*]] = arith.muli %[[J]], %[[LANES]] : index
// CHECK-NEXT: vector.load %{{.*}}[%{{.*}}, %[[K]]] {alignment = 16 : i64} : memref<2048x8192xf32>, vector<4xf32>
// CHECK: scf.yield
// CHECK: gpu.all_reduce %[[PARTIAL]] uniform
func.func @long_row(%x: memref<2048x8192xf32>, %sum: memref<2048xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2048x8192xf32>) outs(%sum : memref<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that the outputs of several parallel dimensions are numbered
// row-major from the block id, that an input the row does not index (a
// bias) is read once a thread before its loop, that `linalg.index` of the reduced dimension is the
// thread's position, and that a max starts from its neutral element (NaN
// for maxnumf); the block is 64 threads for a row of 300 (a power of two
// near a quarter), which does not divide it: the loop steps through the
// row from the thread's first element.
// CHECK-LABEL: func.func @causal_max
// CHECK-SAME: (%[[X:.*]]: memref<4x512x300xf32>, %[[BIAS:.*]]: memref<4x512xf32>, %[[MAX:.*]]: memref<4x512xf32>)
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c2048
// CHECK-SAME: threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
// CHECK: %[[C512:.*]] = arith.constant 512 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.remui %[[B]], %[[C512]] : index
// CHECK-NEXT: %[[BATCH:.*]] = arith.divui %[[B]], %[[C512]] : index
// CHECK-NEXT: %[[C:.*]] = memref.load %[[BIAS]][%[[BATCH]], %[[ROW]]]
// CHECK-NEXT: %[[NAN:.*]] = arith.constant 0xFFC00000 : f32
// CHECK: scf.for %[[K:.*]] = %[[T]] to %c300 step %c64{{.*}} iter_args(%{{.*}} = %[[NAN]])
// CHECK-NEXT: memref.load %[[X]][%[[BATCH]], %[[ROW]], %[[K]]]
// CHECK-NEXT: arith.cmpi ugt, %[[K]], %[[ROW]]
// CHECK-NEXT: arith.addf %{{.*}}, %[[C]]
// CHECK: arith.maxnumf
// CHECK: gpu.all_reduce
// CHECK: arith.maxnumf
// CHECK: memref.store %{{.*}}, %[[MAX]][%[[BATCH]], %[[ROW]]]
func.func @causal_max(%x: memref<4x512x300xf32>, %bias: memref<4x512xf32>, %max: memref<4x512xf32>) {
  %neg = arith.constant -1.0e+30 : f32
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %bias : memref<4x512x300xf32>, memref<4x512xf32>) outs(%max : memref<4x512xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %j = linalg.index 2 : index
    %i = linalg.index 1 : index
    %masked = arith.cmpi ugt, %j, %i : index
    %shifted = arith.addf %a, %c : f32
    %v = arith.select %masked, %neg, %shifted : f32
    %m = arith.maxnumf %v, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Tests the lanes: bf16 rows of 2048 summed in f32 take 8 lanes (256
// threads, 8 elements a thread: one 16-byte load of 8 bf16; rows of 1024
// would take 128 threads); an input that is a view at a dynamic offset
// (its start's alignment unknown) is read an element at a time, the
// thread's 4 steps without a loop.
// CHECK-LABEL: func.func @bf16_rows
// CHECK: threads({{.*}}) in (%{{.*}} = %c256,
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<4096x2048xbf16>, vector<8xbf16>
// CHECK-COUNT-8: arith.extf
// CHECK: gpu.all_reduce
// CHECK-LABEL: func.func @bf16_short_rows
// CHECK: threads({{.*}}) in (%{{.*}} = %c128,
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<4096x1024xbf16>, vector<8xbf16>
// CHECK-LABEL: func.func @unknown_start
// CHECK-NOT: vector.load
// CHECK-NOT: scf.for
// CHECK-COUNT-4: memref.load %{{.*}} : memref<4096x1024xf32, strided<[1024, 1], offset: ?>>
// CHECK-NOT: scf.for
// CHECK: gpu.all_reduce
func.func @bf16_rows(%x: memref<4096x2048xbf16>, %sum: memref<4096xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4096x2048xbf16>) outs(%sum : memref<4096xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %f = arith.extf %a : bf16 to f32
    %s = arith.addf %f, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @bf16_short_rows(%x: memref<4096x1024xbf16>, %sum: memref<4096xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4096x1024xbf16>) outs(%sum : memref<4096xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %f = arith.extf %a : bf16 to f32
    %s = arith.addf %f, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @unknown_start(%x: memref<4096x1024xf32, strided<[1024, 1], offset: ?>>, %sum: memref<4096xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4096x1024xf32, strided<[1024, 1], offset: ?>>) outs(%sum : memref<4096xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that the ops on the same rows join the reduction's kernel: a
// softmax (the max's fill, the max, its rounding, the sum's fill, the sum of
// exponentials, the normalization) is one launch. Every thread computes the
// row values in registers (the fills' values are the reductions' initial
// values: nothing read from memory, so no barrier); the thread's elements
// are loaded once (one vector load: rows of 512 take 128 threads of 4) and
// serve the max, the sum and the normalization, which ends in a vector
// store; thread 0 writes only the row value read after the kernel (the
// rounded max), not the buffers only freed.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: memref<1024x512xf32>, %[[Y:.*]]: memref<1024x512xf32>, %[[KEPT:.*]]: memref<1024xbf16>)
// CHECK: %[[NEG:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ROUNDED_BUFFER:.*]] = memref.alloc() : memref<1024xbf16>
// CHECK: memref.alloc() : memref<1024xf32>
// CHECK: gpu.launch
// CHECK: %[[V:.*]] = vector.load %[[X]]
// CHECK: %[[MAXES:.*]] = gpu.all_reduce
// CHECK: arith.maximumf
// CHECK: %[[MAX:.*]] = arith.maximumf %[[NEG]], %[[MAXES]] : f32
// CHECK-NEXT: %[[ROUNDED:.*]] = arith.truncf %[[MAX]] : f32 to bf16
// CHECK-NOT: vector.load
// CHECK: vector.extract %[[V]][0]
// CHECK: %[[EXPS:.*]] = gpu.all_reduce
// CHECK: %[[SUM:.*]] = arith.addf %[[ZERO]], %[[EXPS]] : f32
// CHECK-NOT: gpu.barrier
// CHECK-NOT: scf.for
// CHECK-NOT: vector.load
// CHECK: vector.extract %[[V]][0]
// CHECK: arith.divf %{{.*}}, %[[SUM]] : f32
// CHECK: vector.from_elements
// CHECK: vector.store %{{.*}}, %[[Y]][%{{.*}}] {alignment = 16 : i64} : memref<1024x512xf32>, vector<4xf32>
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[ROUNDED]], %[[ROUNDED_BUFFER]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.terminator
// CHECK: memref.dealloc
// CHECK-NOT: linalg.
// CHECK: memref.copy %[[ROUNDED_BUFFER]], %[[KEPT]]
func.func @softmax(%x: memref<1024x512xf32>, %y: memref<1024x512xf32>, %kept: memref<1024xbf16>) {
  %neg = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.0 : f32
  %maxes = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%neg : f32) outs(%maxes : memref<1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x512xf32>) outs(%maxes : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  %rounded = memref.alloc() : memref<1024xbf16>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%maxes : memref<1024xf32>) outs(%rounded : memref<1024xbf16>) {
  ^bb0(%m: f32, %o: bf16):
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %maxes : memref<1024xf32>
  %sums = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%zero : f32) outs(%sums : memref<1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %rounded : memref<1024x512xf32>, memref<1024xbf16>) outs(%sums : memref<1024xf32>) {
  ^bb0(%a: f32, %m: bf16, %acc: f32):
    %mf = arith.extf %m : bf16 to f32
    %d = arith.subf %a, %mf : f32
    %e = math.exp %d : f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %rounded, %sums : memref<1024x512xf32>, memref<1024xbf16>, memref<1024xf32>) outs(%y : memref<1024x512xf32>) {
  ^bb0(%a: f32, %m: bf16, %s: f32, %o: f32):
    %mf = arith.extf %m : bf16 to f32
    %d = arith.subf %a, %mf : f32
    %e = math.exp %d : f32
    %r = arith.divf %e, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %sums : memref<1024xf32>
  memref.copy %rounded, %kept : memref<1024xbf16> to memref<1024xbf16>
  memref.dealloc %rounded : memref<1024xbf16>
  return
}

// -----

// Tests a fill written as a linalg.generic yielding a constant from above
// (as bufferization leaves a tensor fill): it joins as the product's
// initial value, the constant itself, not a load of the buffer it no longer
// writes (a fuzzed program's product read uninitialized memory).
// CHECK-LABEL: func.func @generic_fill
// CHECK-SAME: (%[[X:.*]]: memref<1024x512xf32>, %[[PRODUCT:.*]]: memref<1024xf32>)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: gpu.launch
// CHECK: %[[ALL:.*]] = gpu.all_reduce
// CHECK: arith.mulf
// CHECK: gpu.yield
// CHECK-NEXT: } : (f32) -> f32
// CHECK-NEXT: %[[OUT:.*]] = arith.mulf %[[ONE]], %[[ALL]] : f32
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[OUT]], %[[PRODUCT]]
// CHECK-NOT: linalg.
func.func @generic_fill(%x: memref<1024x512xf32>, %product: memref<1024xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%product : memref<1024xf32>) {
  ^bb0(%o: f32):
    linalg.yield %one : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x512xf32>) outs(%product : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %acc : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// Tests that row values written to a view are stored: the buffer it views
// is read after the kernel by another name.
// CHECK-LABEL: func.func @view_output
// CHECK: %[[ALL:.*]] = memref.alloc() : memref<2x1024xf32>
// CHECK: %[[ROW:.*]] = memref.subview %[[ALL]]
// CHECK: gpu.launch
// CHECK: %[[SUM:.*]] = gpu.all_reduce
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[ROW]]
// CHECK: memref.copy %[[ALL]]
func.func @view_output(%x: memref<1024x512xf32>, %out: memref<2x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %all = memref.alloc() : memref<2x1024xf32>
  linalg.fill ins(%zero : f32) outs(%all : memref<2x1024xf32>)
  %row = memref.subview %all[1, 0] [1, 1024] [1, 1] : memref<2x1024xf32> to memref<1024xf32, strided<[1], offset: 1024>>
  linalg.fill ins(%zero : f32) outs(%row : memref<1024xf32, strided<[1], offset: 1024>>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x512xf32>) outs(%row : memref<1024xf32, strided<[1], offset: 1024>>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  memref.copy %all, %out : memref<2x1024xf32> to memref<2x1024xf32>
  memref.dealloc %all : memref<2x1024xf32>
  return
}

// -----

// Tests that an elementwise op with two outputs joins too (a layernorm's
// normalized value and its affine map, after the mean, the variance and
// rsqrt per row): one launch, both outputs written with vector stores.
// CHECK-LABEL: func.func @layernorm
// CHECK: gpu.launch
// CHECK-COUNT-2: gpu.all_reduce
// CHECK: math.rsqrt
// CHECK-NOT: scf.for
// CHECK: vector.store %{{.*}}, %arg1[
// CHECK-NEXT: vector.from_elements
// CHECK-NEXT: vector.store %{{.*}}, %arg2[
// CHECK: gpu.terminator
// CHECK-NOT: linalg.
// CHECK: return
#x2 = affine_map<(i, j) -> (i, j)>
#r2 = affine_map<(i, j) -> (i)>
#c2 = affine_map<(i, j) -> (j)>
#id1 = affine_map<(i) -> (i)>
func.func @layernorm(%x: memref<2048x1024xf32>, %normalized: memref<2048x1024xf32>, %y: memref<2048x1024xf32>, %gamma: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 9.765625E-4 : f32
  %eps = arith.constant 1.0E-5 : f32
  %mean = memref.alloc() : memref<2048xf32>
  linalg.fill ins(%zero : f32) outs(%mean : memref<2048xf32>)
  linalg.generic {indexing_maps = [#x2, #r2], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2048x1024xf32>) outs(%mean : memref<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %scale : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %var = memref.alloc() : memref<2048xf32>
  linalg.fill ins(%zero : f32) outs(%var : memref<2048xf32>)
  linalg.generic {indexing_maps = [#x2, #r2, #r2], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : memref<2048x1024xf32>, memref<2048xf32>) outs(%var : memref<2048xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %q = arith.mulf %d, %d : f32
    %p = arith.mulf %q, %scale : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %inv = memref.alloc() : memref<2048xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%var : memref<2048xf32>) outs(%inv : memref<2048xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = arith.addf %v, %eps : f32
    %r = math.rsqrt %e : f32
    linalg.yield %r : f32
  }
  memref.dealloc %var : memref<2048xf32>
  linalg.generic {indexing_maps = [#x2, #r2, #r2, #c2, #x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %inv, %gamma : memref<2048x1024xf32>, memref<2048xf32>, memref<2048xf32>, memref<1024xf32>)
      outs(%normalized, %y : memref<2048x1024xf32>, memref<2048x1024xf32>) {
  ^bb0(%a: f32, %m: f32, %i: f32, %g: f32, %o1: f32, %o2: f32):
    %d = arith.subf %a, %m : f32
    %n = arith.mulf %d, %i : f32
    %r = arith.mulf %n, %g : f32
    linalg.yield %n, %r : f32, f32
  }
  memref.dealloc %inv : memref<2048xf32>
  memref.dealloc %mean : memref<2048xf32>
  return
}

// -----

// Tests where a group stops: a call between the reduction and the next op
// (it may write what the op reads) keeps them apart; an op reading the
// reduction's result through another view (a row value kept in registers
// is not in memory yet) does not join; a second reduction writing a buffer
// the first read from memory does not join either.
// CHECK-LABEL: func.func @apart
// CHECK: gpu.launch
// CHECK: gpu.all_reduce
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: call @touch
// CHECK-NEXT: linalg.generic
// CHECK-LABEL: func.func @other_view
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: memref.expand_shape
// CHECK-NEXT: linalg.generic
// CHECK-LABEL: func.func @overwrites_input
// CHECK-COUNT-2: gpu.launch
func.func private @touch(memref<1024x512xf32>)
func.func @apart(%x: memref<1024x512xf32>, %y: memref<1024x512xf32>) {
  %sums = memref.alloc() : memref<1024xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x512xf32>) outs(%sums : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  call @touch(%x) : (memref<1024x512xf32>) -> ()
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %sums : memref<1024x512xf32>, memref<1024xf32>) outs(%y : memref<1024x512xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %sums : memref<1024xf32>
  return
}
func.func @other_view(%x: memref<1024x512xf32>, %y: memref<1024x512xf32>) {
  %sums = memref.alloc() : memref<1024xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x512xf32>) outs(%sums : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  %view = memref.expand_shape %sums [[0, 1]] output_shape [1024, 1] : memref<1024xf32> into memref<1024x1xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %view : memref<1024x512xf32>, memref<1024x1xf32>) outs(%y : memref<1024x512xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  }
  memref.dealloc %sums : memref<1024xf32>
  return
}
func.func @overwrites_input(%x: memref<1024x512xf32>, %scale: memref<1024xf32>) {
  %sums = memref.alloc() : memref<1024xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %scale : memref<1024x512xf32>, memref<1024xf32>) outs(%sums : memref<1024xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x512xf32>) outs(%scale : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  memref.dealloc %sums : memref<1024xf32>
  return
}

// -----

// Tests what is left to loops: a column sum (the reduced dimension is not
// the inputs' last), a bf16 result (warps shuffle 32-bit values), a short
// row (fewer than 256 elements), too few rows (fewer than 1024), ops on
// tensors, and a subtraction (no combiner with a neutral element).
// CHECK-LABEL: func.func @left
// CHECK-NOT: gpu.launch
// CHECK-COUNT-5: linalg.generic
// CHECK: linalg.reduce
// CHECK-NOT: gpu.launch
func.func @left(%x: memref<2048x1024xf32>, %cols: memref<1024xf32>,
                %h: memref<2048x1024xbf16>, %hsum: memref<2048xbf16>,
                %short: memref<2048x128xf32>, %rows: memref<2048xf32>,
                %few: memref<512x1024xf32>, %fewsum: memref<512xf32>,
                %t: tensor<2048x1024xf32>, %tsum: tensor<2048xf32>) -> tensor<2048xf32> {
  linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2048x1024xf32>) outs(%cols : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<2048x1024xbf16>) outs(%hsum : memref<2048xbf16>) {
  ^bb0(%a: bf16, %acc: bf16):
    %s = arith.addf %a, %acc : bf16
    linalg.yield %s : bf16
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%short : memref<2048x128xf32>) outs(%rows : memref<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%few : memref<512x1024xf32>) outs(%fewsum : memref<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<2048x1024xf32>) outs(%tsum : tensor<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2048xf32>
  linalg.reduce ins(%x : memref<2048x1024xf32>) outs(%rows : memref<2048xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %d = arith.subf %acc, %a : f32
      linalg.yield %d : f32
    }
  return %r : tensor<2048xf32>
}
