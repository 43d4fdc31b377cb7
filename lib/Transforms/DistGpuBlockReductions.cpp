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
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
  int64_t power = llvm::bit_floor(uint64_t(quarter));
  return std::clamp<int64_t>(power, 32, maxThreads);
}

/// Consecutive elements a thread reads with one load of each input the row
/// indexes (16 bytes of the widest, at most the row's share of a thread):
/// the block's loads must tile the row, and each input must be row-major
/// from a start aligned for them. 1 when not.
int64_t chooseLanes(linalg::LinalgOp op, unsigned reduction, int64_t extent,
                    int64_t threads) {
  int64_t widest = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!op.getMatchingIndexingMap(input).isFunctionOfDim(reduction) ||
        op.getMatchingBlockArgument(input).use_empty())
      continue;
    auto type = cast<MemRefType>(input->get().getType());
    if (!isRowMajorFromStart(type))
      return 1;
    widest = std::max(widest, getElementBytes(type.getElementType()));
  }
  if (widest == 0)
    return 1;
  int64_t lanes = kGpuAccessBytes / widest;
  while (lanes > 1 && extent % (threads * lanes) != 0)
    lanes /= 2;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!op.getMatchingIndexingMap(input).isFunctionOfDim(reduction) ||
        op.getMatchingBlockArgument(input).use_empty())
      continue;
    int64_t bytes = lanes * getElementBytes(getElementTypeOrSelf(input->get()));
    while (lanes > 1 && knownStartAlignment(input->get()) < bytes) {
      lanes /= 2;
      bytes /= 2;
    }
  }
  return std::max<int64_t>(lanes, 1);
}

/// Replaces `op` (on buffers; isBlockRowReduction) by a kernel launch with a
/// block per output: thread t combines elements t, t + B, t + 2B, ... of
/// the row in that order (with L lanes: elements tL to tL + L - 1, then
/// (t + B)L to ..., one vector load of each input a step), gpu.all_reduce
/// combines the block's partial results, and thread 0 combines the result
/// with the output's initial value.
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
  auto indicesOf = [&](OpOperand *operand) {
    SmallVector<Value> indices;
    for (AffineExpr result : op.getMatchingIndexingMap(operand).getResults())
      indices.push_back(ivs[cast<AffineDimExpr>(result).getPosition()]);
    return indices;
  };
  auto load = [&](OpBuilder &at, OpOperand *operand) -> Value {
    if (!isa<ShapedType>(operand->get().getType()))
      return operand->get();
    return memref::LoadOp::create(at, loc, operand->get(), indicesOf(operand));
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
  // Applies the body to the element `lane` past `start` in the row,
  // `mapping` holding the inputs there.
  auto applyBody = [&](OpBuilder &at, Value start, int64_t lane,
                       IRMapping &mapping, Value accumulated) {
    mapping.map(op.getRegionOutputArgs().front(), accumulated);
    for (Operation &bodyOp : reductionBody->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
        Value position = ivs[index.getDim()];
        if (index.getDim() == reduction && lane != 0)
          position = arith::AddIOp::create(
              at, loc, start, arith::ConstantIndexOp::create(at, loc, lane));
        mapping.map(index.getResult(), position);
        continue;
      }
      at.clone(bodyOp, mapping);
    }
    return mapping.lookup(reductionBody->getTerminator()->getOperand(0));
  };

  int64_t lanes = chooseLanes(op, reduction, extent, threads);
  Value step = arith::ConstantIndexOp::create(kernel, loc, threads);
  scf::ForOp partial;
  if (extent % threads == 0) {
    // The loop counts the thread's elements (a constant trip count:
    // unrolled, its loads issued together); with lanes, thread t's
    // iteration i reads `lanes` consecutive elements from (i B + t) lanes.
    Value width = arith::ConstantIndexOp::create(kernel, loc, lanes);
    partial = scf::ForOp::create(
        kernel, loc, arith::ConstantIndexOp::create(kernel, loc, 0),
        arith::ConstantIndexOp::create(kernel, loc,
                                       extent / (threads * lanes)),
        arith::ConstantIndexOp::create(kernel, loc, 1), ValueRange{neutral},
        [&](OpBuilder &at, Location, Value iv, ValueRange accumulated) {
          Value start = arith::AddIOp::create(
              at, loc, arith::MulIOp::create(at, loc, iv, step), thread);
          if (lanes > 1)
            start = arith::MulIOp::create(at, loc, start, width);
          ivs[reduction] = start;
          SmallVector<std::pair<BlockArgument, Value>> loaded;
          for (OpOperand *input : op.getDpsInputOperands()) {
            BlockArgument argument = op.getMatchingBlockArgument(input);
            if (argument.use_empty() || rowInvariant.contains(argument))
              continue;
            if (lanes == 1) {
              loaded.push_back({argument, load(at, input)});
              continue;
            }
            Value buffer = input->get();
            auto type = VectorType::get({lanes}, argument.getType());
            int64_t bytes = lanes * getElementBytes(argument.getType());
            loaded.push_back(
                {argument,
                 vector::LoadOp::create(
                     at, loc, type, buffer, indicesOf(input),
                     /*nontemporal=*/false,
                     llvm::MaybeAlign(std::min(
                         bytes, knownStartAlignment(buffer))))});
          }
          Value result = accumulated.front();
          for (int64_t lane = 0; lane < lanes; ++lane) {
            IRMapping mapping = rowInvariant;
            for (auto [argument, value] : loaded)
              mapping.map(argument,
                          lanes == 1 ? value
                                     : vector::ExtractOp::create(at, loc,
                                                                 value, lane)
                                           .getResult());
            result = applyBody(at, start, lane, mapping, result);
          }
          scf::YieldOp::create(at, loc, result);
        });
  } else {
    // The loop steps through the row from the thread's first element.
    partial = scf::ForOp::create(
        kernel, loc, thread,
        arith::ConstantIndexOp::create(kernel, loc, extent), step,
        ValueRange{neutral},
        [&](OpBuilder &at, Location, Value position, ValueRange accumulated) {
          ivs[reduction] = position;
          IRMapping mapping = rowInvariant;
          for (OpOperand *input : op.getDpsInputOperands()) {
            BlockArgument argument = op.getMatchingBlockArgument(input);
            if (!argument.use_empty() && !mapping.contains(argument))
              mapping.map(argument, load(at, input));
          }
          scf::YieldOp::create(
              at, loc, applyBody(at, position, 0, mapping, accumulated.front()));
        });
  }

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
  memref::StoreOp::create(atFirst, loc, result, output->get(),
                          indicesOf(output));
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
