//===- DistGpuVectorizeLoops.cpp - Several elements per GPU thread ---------===//
//
// A GPU kernel made from an elementwise loop nest gives each thread one
// element: a bf16 op loads 2 bytes a thread, too few bytes in flight to
// keep the memory busy, and pays the thread's index arithmetic per element.
// Stepping the innermost loop by V elements and making the body's loads,
// arithmetic and stores V wide gives each thread 16-byte accesses
// (ld.global.v4) and V elements per index computation.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUVECTORIZELOOPS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// What vectorizing a loop nest's innermost dimension needs to know of its
/// body, or std::nullopt when the body is not straight-line elementwise
/// code over contiguous accesses.
struct VectorPlan {
  /// The loop dimension counted in vectors.
  unsigned dimension = 0;
  /// Elements per thread.
  int64_t width = 0;
  /// Whether the body holds a sequential loop (min-threads applies).
  bool hasSequentialLoop = false;
  /// Values that differ between the iterations of the innermost loop.
  llvm::SmallPtrSet<Value, 16> varying;
};

/// The loads and stores of `op` (a memref.load or store): its buffer and
/// indices.
std::pair<Value, ValueRange> accessOf(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return {load.getMemRef(), load.getIndices()};
  auto store = cast<memref::StoreOp>(op);
  return {store.getMemRef(), store.getIndices()};
}

/// Collects what vectorizing along `iv` needs of `block` (the nest's body,
/// or the inside of a sequential loop in it) into `plan`, `accesses` and
/// `widestAccess`; false if it cannot be vectorized. Idempotent, so that a
/// sequential loop's inside can be planned again once more of its
/// iteration arguments turn out to vary.
bool planBlock(Block &block, Value iv, VectorPlan &plan,
               llvm::SetVector<Operation *> &accesses, int64_t &widestAccess) {
  auto varies = [&](Value value) { return plan.varying.contains(value); };
  for (Operation &op : block.without_terminator()) {
    // A sequential loop (a reduction's, after dist-promote-accumulators):
    // each lane runs the same iterations, its iteration arguments vary
    // when their initial value or what the body yields for them does.
    if (auto inner = dyn_cast<scf::ForOp>(op)) {
      plan.hasSequentialLoop = true;
      if (llvm::any_of(inner->getOperands().take_front(3), varies))
        return false;
      for (auto [argument, init] :
           llvm::zip(inner.getRegionIterArgs(), inner.getInitArgs()))
        if (varies(init))
          plan.varying.insert(argument);
      while (true) {
        if (!planBlock(*inner.getBody(), iv, plan, accesses, widestAccess))
          return false;
        bool changed = false;
        for (auto [argument, yielded] :
             llvm::zip(inner.getRegionIterArgs(), inner.getYieldedValues()))
          if (varies(yielded) && plan.varying.insert(argument).second)
            changed = true;
        if (!changed)
          break;
      }
      for (auto [argument, result] :
           llvm::zip(inner.getRegionIterArgs(), inner.getResults())) {
        if (!varies(argument))
          continue;
        if (!argument.getType().isIntOrFloat())
          return false;
        plan.varying.insert(result);
      }
      continue;
    }
    if (op.getNumRegions() != 0)
      return false;
    bool opVaries = llvm::any_of(op.getOperands(), varies);
    if (isa<memref::LoadOp, memref::StoreOp>(op)) {
      auto [buffer, indices] = accessOf(&op);
      // A 0-d buffer's one element is uniform.
      bool contiguous = !indices.empty() && indices.back() == iv;
      for (auto [position, index] : llvm::enumerate(indices))
        if (varies(index) && !(contiguous && position + 1 == indices.size()))
          return false;
      if (auto store = dyn_cast<memref::StoreOp>(op); store && !contiguous)
        return false;
      if (contiguous) {
        // Whole bytes: a vector of i1 is stored packed, a buffer of i1
        // a byte per element.
        auto type = cast<MemRefType>(buffer.getType());
        if (!isRowMajorFromStart(type) ||
            !type.getElementType().isIntOrFloat() ||
            type.getElementTypeBitWidth() % 8 != 0)
          return false;
        widestAccess = std::max<int64_t>(widestAccess,
                                         type.getElementTypeBitWidth() / 8);
        accesses.insert(&op);
        if (isa<memref::LoadOp>(op))
          plan.varying.insert(op.getResult(0));
      }
      continue;
    }
    if (isa<arith::ConstantOp>(op))
      continue;
    if (!OpTrait::hasElementwiseMappableTraits(&op) || !isPure(&op) ||
        op.getNumResults() != 1 ||
        !op.getResult(0).getType().isIntOrIndexOrFloat())
      return false;
    if (opVaries)
      plan.varying.insert(op.getResult(0));
  }
  return true;
}

/// The plan for vectorizing `loop` along dimension `dimension` (see
/// VectorPlan), std::nullopt if it cannot be: a body of loads, stores,
/// constants, elementwise-mappable pure ops (arith, math) and sequential
/// loops of the same with uniform bounds; a static extent along the
/// dimension that some width V >= 2 divides; every access indexed by the
/// dimension's variable in its last index alone (varying accesses then are
/// V consecutive elements), in a row-major buffer whose last extent V
/// divides too; stores all varying (a store every lane makes to the same
/// element would race).
std::optional<VectorPlan> planVectorization(scf::ParallelOp loop,
                                            unsigned dimension,
                                            int64_t minThreads) {
  Value iv = loop.getInductionVars()[dimension];
  if (!matchPattern(loop.getLowerBound()[dimension], m_Zero()) ||
      !matchPattern(loop.getStep()[dimension], m_One()))
    return std::nullopt;
  APInt extentValue;
  if (!matchPattern(loop.getUpperBound()[dimension],
                    m_ConstantInt(&extentValue)))
    return std::nullopt;
  int64_t extent = extentValue.getSExtValue();

  VectorPlan plan;
  plan.dimension = dimension;
  plan.varying.insert(iv);
  int64_t widestAccess = 0;
  llvm::SetVector<Operation *> accesses;
  if (!planBlock(*loop.getBody(), iv, plan, accesses, widestAccess) ||
      accesses.empty() || widestAccess == 0)
    return std::nullopt;
  // A reduction's threads each run a long loop: too few of them leave
  // multiprocessors idle. The nest's iterations (dynamic extents: many).
  int64_t iterations = std::numeric_limits<int32_t>::max();
  if (std::optional<SmallVector<int64_t>> extents =
          getConstantIntValues(getAsOpFoldResult(loop.getUpperBound())))
    iterations = std::min(iterations, computeProduct(*extents));
  // The widest access fills 16 bytes; narrower ones take as many elements.
  for (int64_t width = kGpuAccessBytes / widestAccess; width >= 2; width /= 2) {
    bool fits = extent % width == 0 &&
                (!plan.hasSequentialLoop || iterations / width >= minThreads);
    for (Operation *access : accesses) {
      auto type = cast<MemRefType>(accessOf(access).first.getType());
      fits = fits && type.getShape().back() % width == 0;
    }
    if (fits) {
      plan.width = width;
      return plan;
    }
  }
  return std::nullopt;
}

/// Rewrites `loop`'s planned dimension to count vectors of the plan's
/// width, its varying values into vectors of that many elements:
/// contiguous loads and stores become vector.load/store aligned to the
/// vector's bytes (at most 16), elementwise ops take vector operands
/// (uniform ones broadcast), a sequential loop carries vectors where its
/// iteration arguments vary, and the dimension's variable, where arithmetic
/// reads it, its V consecutive values.
void vectorize(RewriterBase &rewriter, scf::ParallelOp loop,
               const VectorPlan &plan) {
  unsigned dimension = plan.dimension;
  Value counter = loop.getInductionVars()[dimension];
  int64_t width = plan.width;
  Location loc = loop.getLoc();
  // The loop counts vectors (unit steps, which the tiling and the mapping
  // expect); the body's first element is counter * V.
  rewriter.setInsertionPoint(loop);
  APInt extent;
  (void)matchPattern(loop.getUpperBound()[dimension], m_ConstantInt(&extent));
  Value vectors = arith::ConstantIndexOp::create(rewriter, loc,
                                                 extent.getSExtValue() / width);
  rewriter.modifyOpInPlace(loop, [&] {
    loop.getUpperBoundMutable().slice(dimension, 1).assign(vectors);
  });
  rewriter.setInsertionPointToStart(loop.getBody());
  Value iv = arith::MulIOp::create(
      rewriter, loc, counter,
      arith::ConstantIndexOp::create(rewriter, loc, width));
  rewriter.replaceAllUsesExcept(counter, iv, iv.getDefiningOp());

  IRMapping vectorized;
  auto vectorTypeOf = [&](Type scalar) {
    return VectorType::get({width}, scalar);
  };
  // The vector of a value of the body: its vectorized form, or the
  // broadcast of a uniform scalar (where the value is defined: inside a
  // sequential loop, not once per iteration).
  std::function<Value(Value)> vectorOf = [&](Value value) -> Value {
    if (Value vector = vectorized.lookupOrNull(value))
      return vector;
    OpBuilder::InsertionGuard guard(rewriter);
    if (value == iv) {
      rewriter.setInsertionPointAfterValue(iv);
      SmallVector<APInt> offsets;
      for (int64_t lane = 0; lane < width; ++lane)
        offsets.push_back(APInt(64, lane));
      VectorType type = vectorTypeOf(iv.getType());
      Value lanes = arith::ConstantOp::create(
          rewriter, loc, type, DenseElementsAttr::get(type, offsets));
      Value base = vector::BroadcastOp::create(
          rewriter, loc, vectorTypeOf(iv.getType()), iv);
      Value indices = arith::AddIOp::create(rewriter, loc, base, lanes);
      vectorized.map(iv, indices);
      return indices;
    }
    return vector::BroadcastOp::create(rewriter, loc,
                                       vectorTypeOf(value.getType()), value);
  };
  // Element (..., j) with j and the last extent multiples of V is V
  // elements past a row start V elements aligned: the vector's bytes, as
  // far as the buffer's start is known to be aligned.
  auto alignmentOf = [&](Value buffer) {
    int64_t elementBytes =
        cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() / 8;
    int64_t bytes = std::min(width * elementBytes, kGpuAccessBytes);
    return llvm::MaybeAlign(
        std::max(elementBytes, std::min(bytes, knownStartAlignment(buffer))));
  };

  SmallVector<Operation *> replaced;
  std::function<void(Block &)> vectorizeBlock = [&](Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
      rewriter.setInsertionPoint(&op);
      loc = op.getLoc();
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        if (load.getIndices().empty() || load.getIndices().back() != iv)
          continue;
        auto vector = vector::LoadOp::create(
            rewriter, loc, vectorTypeOf(load.getType()), load.getMemRef(),
            load.getIndices(), /*nontemporal=*/false,
            alignmentOf(load.getMemRef()));
        vectorized.map(load.getResult(), vector.getResult());
        replaced.push_back(load);
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        vector::StoreOp::create(rewriter, loc, vectorOf(store.getValue()),
                                store.getMemRef(), store.getIndices(),
                                /*nontemporal=*/false,
                                alignmentOf(store.getMemRef()));
        replaced.push_back(store);
        continue;
      }
      // A sequential loop carries vectors in place of its varying
      // iteration arguments (their types change in place).
      if (auto inner = dyn_cast<scf::ForOp>(op)) {
        for (unsigned position = 0; position < inner.getNumRegionIterArgs();
             ++position) {
          BlockArgument argument = inner.getRegionIterArgs()[position];
          if (!plan.varying.contains(argument))
            continue;
          Value init = vectorOf(inner.getInitArgs()[position]);
          Type type = init.getType();
          rewriter.modifyOpInPlace(inner, [&] {
            inner.getInitArgsMutable()[position].assign(init);
            argument.setType(type);
            inner.getResult(position).setType(type);
          });
          vectorized.map(argument, argument);
          vectorized.map(inner.getResult(position), inner.getResult(position));
        }
        vectorizeBlock(*inner.getBody());
        auto yield = cast<scf::YieldOp>(inner.getBody()->getTerminator());
        rewriter.setInsertionPoint(yield);
        for (unsigned position = 0; position < inner.getNumRegionIterArgs();
             ++position)
          if (plan.varying.contains(inner.getRegionIterArgs()[position])) {
            Value yielded = vectorOf(yield.getOperand(position));
            rewriter.modifyOpInPlace(
                yield, [&] { yield->setOperand(position, yielded); });
          }
        continue;
      }
      if (op.getNumResults() != 1 || !plan.varying.contains(op.getResult(0)))
        continue;
      SmallVector<Value> operands;
      for (Value operand : op.getOperands())
        operands.push_back(vectorOf(operand));
      // A clone keeps the op's attributes and properties (predicates,
      // fastmath flags).
      Operation *vectorOp = rewriter.clone(op);
      vectorOp->setOperands(operands);
      vectorOp->getResult(0).setType(vectorTypeOf(op.getResult(0).getType()));
      vectorized.map(op.getResult(0), vectorOp->getResult(0));
      replaced.push_back(&op);
    }
  };
  vectorizeBlock(*loop.getBody());
  // Users first: every replaced value's users are replaced too.
  for (Operation *op : llvm::reverse(replaced))
    rewriter.eraseOp(op);
}

struct DistGpuVectorizeLoopsPass
    : public dist::impl::DistGpuVectorizeLoopsBase<DistGpuVectorizeLoopsPass> {
  using DistGpuVectorizeLoopsBase::DistGpuVectorizeLoopsBase;
  void runOnOperation() override {
    if (minThreads < 1) {
      getOperation()->emitError()
          << "dist-gpu-vectorize-loops: min-threads must be at least 1, got "
          << static_cast<int64_t>(minThreads);
      return signalPassFailure();
    }
    FailureOr<SmallVector<scf::ParallelOp>> loops =
        collectHostParallelLoops(getOperation(), getArgument());
    if (failed(loops))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    // Along the dimension most accesses index last: the one that
    // dist-gpu-linearize-loops then gives consecutive threads.
    for (scf::ParallelOp loop : *loops)
      if (std::optional<unsigned> dimension = findContiguousDimension(loop))
        if (std::optional<VectorPlan> plan =
                planVectorization(loop, *dimension, minThreads))
          vectorize(rewriter, loop, *plan);
  }
};

} // namespace
