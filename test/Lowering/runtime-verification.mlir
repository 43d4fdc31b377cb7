// RUN: dist-opt %s --dist-lower-to-llvm=runtime-verification=true | FileCheck %s
// RUN: dist-opt %s --dist-lower-to-llvm | FileCheck %s --check-prefix=OFF

// Tests that dist-lower-to-llvm{runtime-verification} checks the user's
// loads: the read at a computed index gets a bounds check that prints an
// out-of-bounds message with the op's location before aborting, and without
// the option there is none.
// The message, in hex: "ERROR: Runtime op verification failed", then
// "out-of-bounds access".
// CHECK: llvm.mlir.global private constant @assert_msg(dense<"0x4552524F523A2052756E74696D65206F7020766572696669636174696F6E206661696C6564
// CHECK-SAME: 6F75742D6F662D626F756E647320616363657373
// CHECK-LABEL: llvm.func @read
// CHECK: llvm.call @puts
// CHECK: llvm.call @abort
// OFF-NOT: assert_msg
// OFF-NOT: @abort
func.func @read(%x: tensor<8xf32>, %i: index) -> f32 {
  %v = tensor.extract %x[%i] : tensor<8xf32>
  return %v : f32
}
