//===- DistDecomposeAggregates.cpp - Decompose aggregate linalg ops -------===//

#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTDECOMPOSEAGGREGATES
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;

namespace {

/// tensor.gather as a linalg.generic over the result: each element reads its
/// indices (one per gathered dim) and then the source. Bufferization has no
/// model for tensor.gather; this form bufferizes and lowers to loops.
static FailureOr<Value> decomposeGather(RewriterBase &rewriter,
                                        tensor::GatherOp gather) {
  auto resultType = gather.getResultType();
  auto sourceType = gather.getSourceType();
  auto indicesType = gather.getIndicesType();
  if (!resultType.hasStaticShape())
    return gather.emitOpError()
           << "cannot be decomposed with a dynamic result shape";
  ArrayRef<int64_t> gatherDims = gather.getGatherDims();
  int64_t batchRank = indicesType.getRank() - 1;
  int64_t sourceRank = sourceType.getRank();
  bool rankReduced = resultType.getRank() == batchRank + sourceRank -
                                                 (int64_t)gatherDims.size();
  Location loc = gather.getLoc();
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType());
  Value source = gather.getSource(), indices = gather.getIndices();
  int64_t resultRank = resultType.getRank();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(resultRank)},
      SmallVector<utils::IteratorType>(resultRank,
                                       utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange) {
        SmallVector<Value> coords;
        for (int64_t d = 0; d < resultRank; ++d)
          coords.push_back(linalg::IndexOp::create(b, loc, d));
        SmallVector<Value> indexCoords(coords.begin(),
                                       coords.begin() + batchRank);
        indexCoords.push_back(Value());
        SmallVector<Value> sourceCoords(sourceRank);
        for (auto [j, dim] : llvm::enumerate(gatherDims)) {
          indexCoords.back() = arith::ConstantIndexOp::create(b, loc, j);
          Value index = tensor::ExtractOp::create(b, loc, indices, indexCoords);
          if (!index.getType().isIndex())
            index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
          sourceCoords[dim] = index;
        }
        int64_t next = batchRank;
        for (int64_t d = 0; d < sourceRank; ++d) {
          bool gathered = llvm::is_contained(gatherDims, d);
          if (gathered && rankReduced)
            continue;
          if (!gathered)
            sourceCoords[d] = coords[next];
          ++next;
        }
        Value element = tensor::ExtractOp::create(b, loc, source, sourceCoords);
        linalg::YieldOp::create(b, loc, element);
      });
  return generic.getResult(0);
}

/// scf.index_switch as a chain of scf.if, one per case, the default last.
/// MLIR 22's one-shot bufferization of scf.index_switch lets an op write in
/// place into a buffer a case yields although that buffer is read later (a
/// wrong result); scf.if's is right.
static void decomposeIndexSwitch(RewriterBase &rewriter,
                                 scf::IndexSwitchOp switchOp) {
  Location loc = switchOp.getLoc();
  TypeRange types = switchOp.getResultTypes();
  // Moves `region`'s block into `into` (an scf.if region, emptied first).
  auto takeRegion = [&](Region &region, Region &into) {
    into.getBlocks().clear();
    rewriter.inlineRegionBefore(region, into, into.end());
  };
  // Builds the chain from case `i` on at the rewriter's insertion point.
  std::function<SmallVector<Value>(unsigned)> build =
      [&](unsigned i) -> SmallVector<Value> {
    Value index = arith::ConstantIndexOp::create(rewriter, loc,
                                                 switchOp.getCases()[i]);
    Value matches = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, switchOp.getArg(), index);
    auto ifOp = scf::IfOp::create(rewriter, loc, types, matches,
                                  /*withElseRegion=*/true);
    takeRegion(switchOp.getCaseRegions()[i], ifOp.getThenRegion());
    if (i + 1 == switchOp.getNumCases()) {
      takeRegion(switchOp.getDefaultRegion(), ifOp.getElseRegion());
    } else {
      OpBuilder::InsertionGuard guard(rewriter);
      Region &elseRegion = ifOp.getElseRegion();
      elseRegion.getBlocks().clear();
      rewriter.setInsertionPointToEnd(rewriter.createBlock(&elseRegion));
      SmallVector<Value> rest = build(i + 1);
      scf::YieldOp::create(rewriter, loc, rest);
    }
    return SmallVector<Value>(ifOp.getResults());
  };
  rewriter.setInsertionPoint(switchOp);
  if (switchOp.getNumCases() == 0) {
    // Only the default: its body, inline.
    Block &body = switchOp.getDefaultBlock();
    Operation *yield = body.getTerminator();
    SmallVector<Value> results(yield->getOperands());
    rewriter.inlineBlockBefore(&body, switchOp);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(switchOp, results);
    return;
  }
  rewriter.replaceOp(switchOp, build(0));
}

struct DistDecomposeAggregatesPass
    : public dist::impl::DistDecomposeAggregatesBase<
          DistDecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      // Upstream's decompositions build tensor ops.
      if (llvm::any_of(op->getOperandTypes(), llvm::IsaPred<BaseMemRefType>)) {
        op->emitOpError() << "works on buffers; dist-decompose-aggregates "
                             "decomposes aggregates on tensors (run it before "
                             "bufferization)";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
      if (failed(results)) {
        op->emitOpError() << "could not be decomposed into structured ops";
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *results);
    }
    SmallVector<tensor::GatherOp> gathers;
    getOperation()->walk([&](tensor::GatherOp op) { gathers.push_back(op); });
    for (tensor::GatherOp op : gathers) {
      rewriter.setInsertionPoint(op);
      FailureOr<Value> result = decomposeGather(rewriter, op);
      if (failed(result))
        return signalPassFailure();
      rewriter.replaceOp(op, *result);
    }
    SmallVector<scf::IndexSwitchOp> switches;
    getOperation()->walk([&](scf::IndexSwitchOp op) { switches.push_back(op); });
    for (scf::IndexSwitchOp op : switches)
      decomposeIndexSwitch(rewriter, op);
  }
};
} // namespace
