//===- DistGpuStridedCopies.cpp - Strided copies as kernels ---------------===//
//
// The GPU lowering makes a copy one transfer of contiguous bytes; a copy
// into or out of a strided view has none, so it becomes linalg.copy, which
// the pipeline turns into a kernel like any other linalg op.
//
//===----------------------------------------------------------------------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUSTRIDEDCOPIES
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Whether the GPU lowering copies `value` as one block of bytes: only a
/// buffer with the identity layout (upstream's gpu.memcpy lowering takes
/// the size from the source and refuses any other layout there, even a
/// contiguous view at a dynamic offset; a strided target would be
/// overwritten past its elements).
/// (Unranked buffers have no loops to copy with: they are left.)
bool isOneBlock(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return !type || type.getLayout().isIdentity();
}

struct DistGpuStridedCopiesPass
    : public dist::impl::DistGpuStridedCopiesBase<DistGpuStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      if (!isOneBlock(copy.getSource()) || !isOneBlock(copy.getTarget()))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};

} // namespace
