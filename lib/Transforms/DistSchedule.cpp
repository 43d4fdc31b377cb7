//===- DistSchedule.cpp - Overlap async collectives with compute ----------===//
//
// Moves each async collective's start as early as its operands allow and its
// wait as late as its users allow, within its block, keeping the order in
// which collectives start (every rank runs the same program, so a matched
// order stays matched). Optional bounds on the collectives and bytes in
// flight make a start wait for the oldest outstanding collective first.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Transforms/Passes.h"
#include "LoweringUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "dist-schedule"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTSCHEDULE
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// An async collective of one block and its wait (null when the wait is in
/// another block: such a start keeps its place in the order but is not
/// counted in flight).
struct InFlight {
  CollectiveOpInterface start;
  WaitOp wait;
  int64_t bytes;
};

struct DistSchedulePass
    : public dist::impl::DistScheduleBase<DistSchedulePass> {
  using DistScheduleBase::DistScheduleBase;
  void runOnOperation() override;

private:
  void scheduleBlock(Block &block);
  /// Before each start that would exceed a bound, waits for the oldest
  /// outstanding collectives.
  void applyBounds(MutableArrayRef<InFlight> collectives, int64_t byteLimit);
  /// A dist.progress before each linalg op run while collectives are in
  /// flight.
  void insertProgress(Block &block, ArrayRef<InFlight> collectives);
};
} // namespace

/// The wait of an async collective, if it is in the collective's block.
static WaitOp waitOf(CollectiveOpInterface op) {
  for (Operation *user : op.getAsyncToken().getUsers())
    if (auto wait = dyn_cast<WaitOp>(user))
      if (wait->getBlock() == op->getBlock())
        return wait;
  return nullptr;
}

/// Ops a start may not move above: blocking collectives and ops with side
/// effects (a call) other than waits. Earlier async starts are kept ahead by
/// the caller.
static bool isBarrier(Operation *op) {
  if (isa<WaitOp>(op))
    return false;
  // A blocking collective keeps its place in the order collectives start.
  if (auto collective = dyn_cast<CollectiveOpInterface>(op))
    return !collective.getAsyncToken();
  return !isMemoryEffectFree(op);
}

/// The op of `block` before which `wait` goes: the first op that uses one
/// of its results (directly or in its regions), else the terminator.
static Operation *firstUseOf(WaitOp wait) {
  Operation *first = findFirstUserInBlock(wait);
  return first ? first : wait->getBlock()->getTerminator();
}

void DistSchedulePass::scheduleBlock(Block &block) {
  SmallVector<InFlight> collectives;
  for (Operation &op : block)
    if (auto collective = dyn_cast<CollectiveOpInterface>(&op))
      if (collective.getAsyncToken())
        collectives.push_back(
            {collective, waitOf(collective), collective.getPayloadBytes().value_or(0)});
  if (collectives.empty())
    return;

  // Starts as early as their operands, barriers and the previous start allow.
  Operation *previousStart = nullptr;
  for (InFlight &c : collectives) {
    Operation *start = c.start;
    Operation *after = previousStart;
    for (Operation *op = start->getPrevNode(); op && op != previousStart;
         op = op->getPrevNode()) {
      bool needed = isBarrier(op) ||
                    llvm::any_of(op->getResults(), [&](Value result) {
                      return llvm::is_contained(start->getOperands(), result);
                    });
      if (needed) {
        after = op;
        break;
      }
    }
    Operation *target = after ? after->getNextNode() : &block.front();
    if (target != start) {
      start->moveBefore(target);
      ++numStartsHoisted;
    }
    previousStart = start;
  }

  // Waits just before their first use.
  for (InFlight &c : collectives) {
    if (!c.wait)
      continue;
    Operation *use = firstUseOf(c.wait);
    if (c.wait->getNextNode() != use) {
      c.wait->moveBefore(use);
      ++numWaitsSunk;
    }
  }

  // Bounds: before each start, wait for the oldest outstanding collectives
  // (the earliest waits) until this one fits.
  int64_t byteLimit = maxMBInFlight > 0
                          ? (int64_t)(maxMBInFlight * 1024.0 * 1024.0)
                          : 0;
  if (maxInFlight > 0 || byteLimit > 0)
    applyBounds(collectives, byteLimit);
  if (progress)
    insertProgress(block, collectives);
}

void DistSchedulePass::insertProgress(Block &block,
                                      ArrayRef<InFlight> collectives) {
  llvm::SmallPtrSet<Operation *, 8> starts, waits;
  for (const InFlight &c : collectives)
    if (c.wait) {
      starts.insert(c.start);
      waits.insert(c.wait);
    }
  int64_t inFlight = 0;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (starts.contains(&op))
      ++inFlight;
    else if (waits.contains(&op))
      --inFlight;
    else if (inFlight > 0 && isa<linalg::LinalgOp>(op)) {
      OpBuilder builder(&op);
      ProgressOp::create(builder, op.getLoc());
      ++numProgressCalls;
    }
  }
}

void DistSchedulePass::applyBounds(MutableArrayRef<InFlight> collectives,
                                   int64_t byteLimit) {
  for (size_t i = 0; i < collectives.size(); ++i) {
    Operation *start = collectives[i].start;
    while (true) {
      SmallVector<size_t> outstanding;
      int64_t bytes = collectives[i].bytes;
      for (size_t j = 0; j < i; ++j)
        if (collectives[j].wait &&
            start->isBeforeInBlock(collectives[j].wait)) {
          outstanding.push_back(j);
          bytes += collectives[j].bytes;
        }
      bool tooMany = maxInFlight > 0 &&
                     (int64_t)outstanding.size() >= (int64_t)maxInFlight;
      bool tooLarge =
          byteLimit > 0 && bytes > byteLimit && !outstanding.empty();
      if (!tooMany && !tooLarge)
        break;
      size_t oldest = *llvm::min_element(outstanding, [&](size_t a, size_t b) {
        return collectives[a].wait->isBeforeInBlock(collectives[b].wait);
      });
      collectives[oldest].wait->moveBefore(start);
      ++numWaitsForBound;
    }
  }
}

void DistSchedulePass::runOnOperation() {
  if (maxInFlight < 0 || maxMBInFlight < 0) {
    getOperation().emitError()
        << "dist-schedule: max-in-flight and max-mb-in-flight must be at "
           "least 0 (0: no bound), got "
        << static_cast<int64_t>(maxInFlight) << " and "
        << static_cast<double>(maxMBInFlight);
    return signalPassFailure();
  }
  WalkResult onBuffers =
      getOperation().walk([&](CollectiveOpInterface op) {
        if (op.isBufferForm()) {
          op.emitOpError() << "is a collective on buffers; dist-schedule "
                              "works on tensors (run it before "
                              "bufferization)";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
  if (onBuffers.wasInterrupted())
    return signalPassFailure();
  SmallVector<Block *> blocks;
  getOperation().walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks)
    scheduleBlock(*block);
}
