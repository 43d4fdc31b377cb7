// RUN: dist-opt %s --dist-approximate-math | FileCheck %s
// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// f32 exp, log, tanh and erf become arithmetic; sqrt is not approximated.
func.func @f32(%x: f32) -> (f32, f32, f32, f32, f32) {
  %e = math.exp %x : f32
  %l = math.log %x : f32
  %t = math.tanh %x : f32
  %r = math.erf %x : f32
  %s = math.sqrt %x : f32
  return %e, %l, %t, %r, %s : f32, f32, f32, f32, f32
}
// CHECK-LABEL: func.func @f32
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: math.fma
// CHECK: math.sqrt
// CHECK: return

// Vectors too.
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %e = math.exp %x : vector<8xf32>
  return %e : vector<8xf32>
}
// CHECK-LABEL: func.func @vector
// CHECK-NOT: math.exp
// CHECK: math.fma {{.*}} : vector<8xf32>

// bf16 is computed in f32 and rounded back; f64 keeps libm.
func.func @widths(%x: bf16, %y: f64) -> (bf16, f64) {
  %e = math.exp %x : bf16
  %f = math.exp %y : f64
  return %e, %f : bf16, f64
}
// CHECK-LABEL: func.func @widths
// CHECK: arith.extf %arg0 : bf16 to f32
// CHECK-NOT: math.exp %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: math.exp %arg1 : f64

// Through the pipeline, a softmax-like loop calls no libm exp.
#id = affine_map<(d0) -> (d0)>
func.func @loop(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
// LLVM-LABEL: llvm.func @loop
// LLVM-NOT: llvm.intr.exp
// LLVM-NOT: @expf
// LLVM: llvm.return
