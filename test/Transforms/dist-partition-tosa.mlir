// RUN: dist-opt %s --dist-propagate --dist-partition -split-input-file | FileCheck %s

// TOSA programs: the sharding rules of lib/Extensions/TosaShardingRules.cpp
// give local TOSA ops and only the collectives the math needs.

dist.mesh @m [mp = 2]

// Tests a Megatron MLP in TOSA: w1 split by columns, w2 by rows. The second
// matmul's result is a partial sum that flows through the negation and the
// transposes (linear) and is reduced once, before the bias is added.
// CHECK-LABEL: func.func @tosa_megatron
// CHECK-SAME: tensor<1x16x16xf32> {{.*}}tensor<1x16x16xf32>
// CHECK: %[[H:.*]] = tosa.matmul %arg0, %arg1, {{.*}} -> tensor<1x8x16xf32>
// CHECK: tosa.sigmoid %[[H]] : (tensor<1x8x16xf32>)
// CHECK: %[[O:.*]] = tosa.matmul {{.*}}, %arg2, {{.*}} -> tensor<1x8x16xf32>
// CHECK-NOT: dist.all_reduce
// CHECK: %[[N:.*]] = tosa.negate %[[O]]
// CHECK: %[[T:.*]] = tosa.transpose %[[N]]
// CHECK: %[[TT:.*]] = tosa.transpose %[[T]]
// CHECK: %[[R:.*]] = dist.all_reduce %[[TT]] on @m [mp] sum
// CHECK-NOT: dist.all_reduce
// CHECK: tosa.add %[[R]], %arg3
func.func @tosa_megatron(%x: tensor<1x8x16xf32>,
    %w1: tensor<1x16x32xf32> {dist.sharding = #dist.sharding<@m, [{}, {}, {mp}]>},
    %w2: tensor<1x32x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {mp}, {}]>},
    %bias: tensor<1x1x16xf32>) -> tensor<1x8x16xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x32xf32>
  %s = tosa.sigmoid %h : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %g = tosa.mul %h, %s, %shift : (tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<1xi8>) -> tensor<1x8x32xf32>
  %o = tosa.matmul %g, %w2, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %n = tosa.negate %o, %zp, %zp : (tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %t = tosa.transpose %n {perms = array<i32: 0, 2, 1>} : (tensor<1x8x16xf32>) -> tensor<1x16x8xf32>
  %tt = tosa.transpose %t {perms = array<i32: 0, 2, 1>} : (tensor<1x16x8xf32>) -> tensor<1x8x16xf32>
  %a = tosa.add %tt, %bias : (tensor<1x8x16xf32>, tensor<1x1x16xf32>) -> tensor<1x8x16xf32>
  return %a : tensor<1x8x16xf32>
}

// -----

dist.mesh @m [mp = 2]

// Tests reductions over a split dim: partial results with the op's combiner
// (sum, max), reduced where a consumer needs the value.
// CHECK-LABEL: func.func @tosa_split_reductions
// CHECK-SAME: tensor<8x8xf32>
// CHECK: %[[S:.*]] = tosa.reduce_sum %arg0 {axis = 1 : i32} : (tensor<8x8xf32>) -> tensor<8x1xf32>
// CHECK: %[[M:.*]] = tosa.reduce_max %arg0 {axis = 1 : i32} : (tensor<8x8xf32>) -> tensor<8x1xf32>
// CHECK-DAG: dist.all_reduce %[[S]] on @m [mp] sum
// CHECK-DAG: dist.all_reduce %[[M]] on @m [mp] max
func.func @tosa_split_reductions(
    %x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {mp}]>})
    -> (tensor<8x1xf32>, tensor<8x1xf32>) {
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  return %s, %m : tensor<8x1xf32>, tensor<8x1xf32>
}

// -----

dist.mesh @m [mp = 2]

// Tests a reshape of split rows: the local reshape gets the local shape.
// CHECK-LABEL: func.func @tosa_reshape
// CHECK-SAME: tensor<1x4x16xf32>
// CHECK: %[[SHAPE:.*]] = tosa.const_shape {values = dense<[4, 16]> : tensor<2xindex>}
// CHECK: tosa.reshape %arg0, %[[SHAPE]] : (tensor<1x4x16xf32>, !tosa.shape<2>) -> tensor<4x16xf32>
// CHECK-NOT: dist.
// CHECK: return
func.func @tosa_reshape(
    %x: tensor<1x8x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {mp}, {}]>})
    -> tensor<8x16xf32> {
  %shape = tosa.const_shape {values = dense<[8, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %shape : (tensor<1x8x16xf32>, !tosa.shape<2>) -> tensor<8x16xf32>
  %e = tosa.exp %r : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// -----

dist.mesh @m [dp = 2]

// Tests a slice of the columns of a batch split over dp: the rows stay
// split, the local slice gets the local size, and nothing is communicated.
// CHECK-LABEL: func.func @tosa_slice
// CHECK-SAME: tensor<2x8xf32>
// CHECK: %[[START:.*]] = tosa.const_shape {values = dense<[0, 2]> : tensor<2xindex>}
// CHECK: %[[SIZE:.*]] = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>}
// CHECK: tosa.slice %arg0, %[[START]], %[[SIZE]] : (tensor<2x8xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
// CHECK-NOT: dist.
// CHECK: return
func.func @tosa_slice(
    %x: tensor<4x8xf32> {dist.sharding = #dist.sharding<@m, [{dp}, {}]>})
    -> tensor<4x4xf32> {
  %st = tosa.const_shape {values = dense<[0, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sz = tosa.const_shape {values = dense<[4, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s = tosa.slice %x, %st, %sz : (tensor<4x8xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

dist.mesh @m [a = 4]

// Tests the tensor reshapes with a leading unit dim (the rule TOSA's reshape
// shares): the rows stay split through collapse and expand, no collective.
// CHECK-LABEL: func.func @tensor_reshape_leading_unit
// CHECK-SAME: tensor<1x2x16xf32>
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<1x2x16xf32> into tensor<2x16xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 2, 16] : tensor<2x16xf32> into tensor<1x2x16xf32>
// CHECK-NOT: dist.
// CHECK: return
func.func @tensor_reshape_leading_unit(
    %x: tensor<1x8x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {a}, {}]>})
    -> tensor<1x8x16xf32> {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
  %e = math.exp %c : tensor<8x16xf32>
  %b = tensor.expand_shape %e [[0, 1], [2]] output_shape [1, 8, 16] : tensor<8x16xf32> into tensor<1x8x16xf32>
  return %b : tensor<1x8x16xf32>
}
