// RUN: dist-opt %s --dist-decompose-aggregates | FileCheck %s

// Tests that softmax becomes the structured ops it stands for: a max
// reduction, exp(x - max), a sum reduction and a division.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maxnumf
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %s : tensor<2x16xf32>
}

// Tests that other ops stay.
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul
func.func @matmul(%a: tensor<2x4xf32>, %b: tensor<4x2xf32>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x4xf32>, tensor<4x2xf32>) outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// Tests that tensor.gather becomes a linalg.generic over its result: each
// element extracts its index (cast to index) and then the source element;
// the gathered dim's coordinate is the index, the others the result's.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<64x32xf32>, %[[I:.*]]: tensor<16x1xi32>)
// CHECK-NOT: tensor.gather
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16x32xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} outs(%[[E]] : tensor<16x32xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[RAW:.*]] = tensor.extract %[[I]][%[[B]], %c0] : tensor<16x1xi32>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[V:.*]] = tensor.extract %[[T]][%[[ROW]], %[[C]]] : tensor<64x32xf32>
// CHECK: linalg.yield %[[V]]
func.func @gather(%table: tensor<64x32xf32>, %ids: tensor<16x1xi32>) -> tensor<16x32xf32> {
  %g = tensor.gather %table[%ids] gather_dims([0]) : (tensor<64x32xf32>, tensor<16x1xi32>) -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}

// Tests the form that keeps the gathered dim (size 1), on two gathered dims.
// CHECK-LABEL: func.func @gather_keep_dims
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<5x1x1x3xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[K:.*]] = linalg.index 3 : index
// CHECK: %[[I0:.*]] = tensor.extract %{{.*}}[%[[B]], %c0{{.*}}] : tensor<5x2xindex>
// CHECK: %[[I1:.*]] = tensor.extract %{{.*}}[%[[B]], %c1{{.*}}] : tensor<5x2xindex>
// CHECK: tensor.extract %{{.*}}[%[[I0]], %[[I1]], %[[K]]] : tensor<4x6x3xf32>
func.func @gather_keep_dims(%s: tensor<4x6x3xf32>, %i: tensor<5x2xindex>) -> tensor<5x1x1x3xf32> {
  %g = tensor.gather %s[%i] gather_dims([0, 1]) : (tensor<4x6x3xf32>, tensor<5x2xindex>) -> tensor<5x1x1x3xf32>
  return %g : tensor<5x1x1x3xf32>
}

// -----

// Tests that scf.index_switch becomes a chain of scf.if, the default last
// (MLIR 22 bufferizes scf.index_switch wrongly: test/E2E/index_switch_in_place.mlir).
// CHECK-LABEL: func.func @index_switch
// CHECK-SAME: (%[[K:[^:]+]]: index, %[[X:[^:]+]]: tensor<4xf32>)
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[IS1:.+]] = arith.cmpi eq, %[[K]], %[[C1]] : index
// CHECK: %[[R:.+]] = scf.if %[[IS1]] -> (tensor<4xf32>) {
// CHECK: math.exp %[[X]]
// CHECK: } else {
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[IS3:.+]] = arith.cmpi eq, %[[K]], %[[C3]] : index
// CHECK: scf.if %[[IS3]] -> (tensor<4xf32>) {
// CHECK: math.tanh %[[X]]
// CHECK: } else {
// CHECK: scf.yield %[[X]]
// CHECK-NOT: scf.index_switch
// CHECK: return %[[R]]
func.func @index_switch(%k: index, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.index_switch %k -> tensor<4xf32>
  case 1 {
    %y = math.exp %x : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  case 3 {
    %y = math.tanh %x : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  default {
    scf.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests a switch with only a default: its body, inline.
// CHECK-LABEL: func.func @default_only
// CHECK-NEXT: %[[Y:.+]] = math.exp
// CHECK-NEXT: return %[[Y]]
func.func @default_only(%k: index, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.index_switch %k -> tensor<4xf32>
  default {
    %y = math.exp %x : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
