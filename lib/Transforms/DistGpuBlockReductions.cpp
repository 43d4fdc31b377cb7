//===- DistGpuBlockReductions.cpp - A thread block per row reduction ------===//
//
// A row reduction (softmax's and layernorm's row sums, a loss over the
// vocabulary) lowered as loops gives each thread a row (or a chunk of one,
// with a second kernel combining the chunks). A block of threads per row
// reads the row's consecutive elements together, combines its threads'
// partial results with warp shuffles (upstream's gpu.all_reduce lowering)
// and writes the output once: one kernel, no partial results in memory.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "dist-gpu-block-reductions"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUBLOCKREDUCTIONS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// Clones `combiner` (a binary op of the reduction's body) on `lhs` and
/// `rhs`: every reduction getSplittableCombiner accepts is commutative.
Value cloneCombiner(OpBuilder &builder, Operation *combiner, Value lhs,
                    Value rhs) {
  IRMapping mapping;
  mapping.map(combiner->getOperand(0), lhs);
  mapping.map(combiner->getOperand(1), rhs);
  return builder.clone(*combiner, mapping)->getResult(0);
}

/// Threads of a block for a row of `extent` elements: a power of two with
/// about four elements a thread, at least a warp and at most `maxThreads`.
int64_t chooseBlockSize(int64_t extent, int64_t maxThreads) {
  int64_t quarter = std::max<int64_t>(extent / 4, 1);
  return std::clamp<int64_t>(int64_t(llvm::bit_floor(uint64_t(quarter))), 32, maxThreads);
}

/// Replaces `op` (on buffers; isBlockRowReduction) by a kernel launch with a
/// block per output: thread t combines elements t, t + B, t + 2B, ... of
/// the row (in that order), gpu.all_reduce combines the block's partial results, and
/// thread 0 combines the result with the output's initial value.
void buildBlockReduction(linalg::LinalgOp op, int64_t maxThreads) {
  Location loc = op.getLoc();
  OpBuilder builder(op);
  Operation *combiner = getSplittableCombiner(op);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  unsigned reduction = reductionDims.front();
  int64_t outputs = 1;
  for (auto [dim, range] : llvm::enumerate(ranges))
    if (dim != reduction)
      outputs *= range;
  int64_t extent = ranges[reduction];
  int64_t threads = chooseBlockSize(extent, maxThreads);

  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto launch = gpu::LaunchOp::create(
      builder, loc, arith::ConstantIndexOp::create(builder, loc, outputs), one,
      one, arith::ConstantIndexOp::create(builder, loc, threads), one, one);
  Block &body = launch.getBody().front();
  OpBuilder kernel = OpBuilder::atBlockBegin(&body);
  Value block = launch.getBlockIds().x;
  Value thread = launch.getThreadIds().x;

  // The output's indices from the block id, row-major.
  SmallVector<Value> ivs(ranges.size());
  Value rest = block;
  std::optional<unsigned> outermost;
  for (unsigned dim = 0; dim < ranges.size(); ++dim)
    if (dim != reduction && !outermost)
      outermost = dim;
  for (int dim = ranges.size() - 1; dim >= 0; --dim) {
    if (unsigned(dim) == reduction)
      continue;
    if (unsigned(dim) == *outermost) {
      ivs[dim] = rest;
      break;
    }
    Value size = arith::ConstantIndexOp::create(kernel, loc, ranges[dim]);
    ivs[dim] = arith::RemUIOp::create(kernel, loc, rest, size);
    rest = arith::DivUIOp::create(kernel, loc, rest, size);
  }
  auto load = [&](OpBuilder &at, OpOperand *operand) -> Value {
    if (!isa<ShapedType>(operand->get().getType()))
      return operand->get();
    SmallVector<Value> indices;
    for (AffineExpr result : op.getMatchingIndexingMap(operand).getResults())
      indices.push_back(ivs[cast<AffineDimExpr>(result).getPosition()]);
    return memref::LoadOp::create(at, loc, operand->get(), indices);
  };

  // Inputs the row does not index (a row's maximum, a bias) are read once
  // a thread, before its loop.
  IRMapping rowInvariant;
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument argument = op.getMatchingBlockArgument(input);
    if (!argument.use_empty() &&
        !op.getMatchingIndexingMap(input).isFunctionOfDim(reduction))
      rowInvariant.map(argument, load(kernel, input));
  }

  // Each thread's partial result over its elements of the row.
  Block *reductionBody = op.getBlock();
  Type element = op.getRegionOutputArgs().front().getType();
  Value neutral = arith::ConstantOp::create(
      kernel, loc, *arith::getNeutralElement(combiner));
  // When the block divides the row, the loop counts the thread's elements
  // (a constant trip count: unrolled, its loads issued together); else it
  // steps through the row from the thread's first element.
  bool divides = extent % threads == 0;
  Value step = arith::ConstantIndexOp::create(kernel, loc, threads);
  auto partial = scf::ForOp::create(
      kernel, loc,
      divides ? arith::ConstantIndexOp::create(kernel, loc, 0) : thread,
      arith::ConstantIndexOp::create(kernel, loc,
                                     divides ? extent / threads : extent),
      divides ? arith::ConstantIndexOp::create(kernel, loc, 1) : step,
      ValueRange{neutral},
      [&](OpBuilder &at, Location, Value iv, ValueRange accumulated) {
        ivs[reduction] =
            divides ? arith::AddIOp::create(
                          at, loc, arith::MulIOp::create(at, loc, iv, step),
                          thread)
                    : iv;
        IRMapping mapping = rowInvariant;
        for (OpOperand *input : op.getDpsInputOperands()) {
          BlockArgument argument = op.getMatchingBlockArgument(input);
          if (!argument.use_empty() && !mapping.contains(argument))
            mapping.map(argument, load(at, input));
        }
        mapping.map(op.getRegionOutputArgs().front(), accumulated.front());
        for (Operation &bodyOp : reductionBody->without_terminator()) {
          if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
            mapping.map(index.getResult(), ivs[index.getDim()]);
            continue;
          }
          at.clone(bodyOp, mapping);
        }
        scf::YieldOp::create(
            at, loc,
            mapping.lookup(reductionBody->getTerminator()->getOperand(0)));
      });

  // The block's result, then the output.
  auto combined = gpu::AllReduceOp::create(kernel, loc, element,
                                           partial.getResult(0),
                                           /*op=*/nullptr,
                                           kernel.getUnitAttr());
  Block *combining =
      kernel.createBlock(&combined.getBody(), {}, {element, element},
                         {loc, loc});
  OpBuilder inRegion = OpBuilder::atBlockBegin(combining);
  gpu::YieldOp::create(inRegion, loc,
                       cloneCombiner(inRegion, combiner,
                                     combining->getArgument(0),
                                     combining->getArgument(1)));
  kernel.setInsertionPointAfter(combined);
  Value first = arith::CmpIOp::create(
      kernel, loc, arith::CmpIPredicate::eq, thread,
      arith::ConstantIndexOp::create(kernel, loc, 0));
  auto write = scf::IfOp::create(kernel, loc, first, /*withElseRegion=*/false);
  OpBuilder atFirst = write.getThenBodyBuilder();
  OpOperand *output = op.getDpsInitOperand(0);
  Value initial = load(atFirst, output);
  Value result = cloneCombiner(atFirst, combiner, initial, combined);
  SmallVector<Value> indices;
  for (AffineExpr expr : op.getMatchingIndexingMap(output).getResults())
    indices.push_back(ivs[cast<AffineDimExpr>(expr).getPosition()]);
  memref::StoreOp::create(atFirst, loc, result, output->get(), indices);
  kernel.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(kernel, loc);
}

struct DistGpuBlockReductionsPass
    : public dist::impl::DistGpuBlockReductionsBase<
          DistGpuBlockReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (minExtent < 1 || minOutputs < 1 || maxThreads < 32 ||
        maxThreads > 1024 || !llvm::isPowerOf2_64(maxThreads)) {
      emitError(getOperation()->getLoc())
          << "dist-gpu-block-reductions: min-extent and min-outputs must be "
             "at least 1 and max-threads a power of two from 32 to 1024, got "
          << minExtent << ", " << minOutputs << " and " << maxThreads;
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> reductions;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Device code is not this pass's to change.
      if (isa<gpu::GPUModuleOp, gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
          linalgOp && linalgOp.hasPureBufferSemantics() &&
          isBlockRowReduction(linalgOp, minExtent, minOutputs))
        reductions.push_back(linalgOp);
      return WalkResult::advance();
    });
    for (linalg::LinalgOp op : reductions) {
      buildBlockReduction(op, maxThreads);
      op->erase();
      ++numBlockReductions;
    }
  }
};

} // namespace
