//===- DistMemoryReport.cpp - Peak bytes live per rank --------------------===//
//
// A static estimate of a bufferized per-rank program's memory: arguments are
// live for the whole call, every allocation from where it is made to its
// dealloc (or the end), in program order; the peak and what it is made of
// (parameters, gradients, optimizer state, activations, communication
// buffers) are reported as a remark on each function.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Dialect/Dist/IR/CollectiveOpInterface.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Dialect/Dist/IR/StepState.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTMEMORYREPORT
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

enum Category {
  Parameters,
  Gradients,
  OptimizerState,
  Activations,
  Communication,
  kNumCategories
};

const char *const kCategoryNames[kNumCategories] = {
    "parameters", "gradients", "optimizer state", "activations",
    "communication buffers"};

struct Footprint {
  int64_t bytes[kNumCategories] = {};
  int64_t total() const {
    int64_t sum = 0;
    for (int64_t b : bytes)
      sum += b;
    return sum;
  }
};

struct DistMemoryReportPass
    : public dist::impl::DistMemoryReportBase<DistMemoryReportPass> {
  using DistMemoryReportBase::DistMemoryReportBase;
  void runOnOperation() override;
};
} // namespace

static bool allocates(Operation *op, Value result) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.getEffectOnValue<MemoryEffects::Allocate>(result);
}

static Category categoryOfArgument(func::FuncOp func, unsigned i) {
  if (func.getArgAttr(i, DistDialect::getParamAttrName()))
    return Parameters;
  if (func.getArgAttr(i, DistDialect::getStateOfAttrName()) ||
      func.getArgAttr(i, DistDialect::getStatePoolAttrName()))
    return OptimizerState;
  if (func.getArgAttr(i, DistDialect::getGradAccumulatorOfAttrName()))
    return Gradients;
  return Activations;
}

static void reportFunction(func::FuncOp func, bool listPeak) {
  llvm::DenseMap<Value, Category> category;
  // A returned buffer is the next value of what its result updates.
  func.walk([&](func::ReturnOp ret) {
    for (auto [r, operand] : llvm::enumerate(ret.getOperands()))
      if (std::optional<unsigned> arg = getUpdatedArgument(func, r))
        category.try_emplace(getRootBuffer(operand),
                             categoryOfArgument(func, *arg));
  });
  // In program order: what backward writes into is a gradient; a
  // collective's input has the kind of its returned output (an updated
  // block gathered into the next parameter); a fresh output holds a
  // gradient block when it reads one, and is a communication buffer
  // otherwise.
  auto isGradient = [&](Value buffer) {
    auto it = category.find(getRootBuffer(buffer));
    return it != category.end() && it->second == Gradients;
  };
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    // A buffer copied into an argument's buffer is its next value (the
    // next state, written into its owner's row of packed state); one a
    // gradient is copied into is a gradient (the chunks of a reduce-scatter
    // put together, dist-chunk-collectives).
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      if (auto arg = dyn_cast<BlockArgument>(getRootBuffer(copy.getTarget()));
          arg && arg.getOwner()->getParentOp() == func &&
          categoryOfArgument(func, arg.getArgNumber()) != Activations)
        category.try_emplace(getRootBuffer(copy.getSource()),
                             categoryOfArgument(func, arg.getArgNumber()));
      if (isGradient(copy.getSource()))
        category.try_emplace(getRootBuffer(copy.getTarget()), Gradients);
    }
    if (op->hasAttr(DistDialect::getGradOfAttrName()))
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
        for (Value init : dps.getDpsInits())
          category.try_emplace(getRootBuffer(init), Gradients);
    if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
      if (collective.isInPlace())
        return;
      // The block gathered into a returned parameter (or state) is one too.
      for (Value output : collective.getCollectiveOutputs())
        if (auto it = category.find(getRootBuffer(output)); it != category.end())
          for (Value input : collective.getCollectiveInputs())
            category.try_emplace(getRootBuffer(input), it->second);
      bool readsGradient =
          llvm::any_of(collective.getCollectiveInputs(), isGradient);
      for (Value output : collective.getCollectiveOutputs())
        if (isa<MemRefType>(output.getType()))
          category.try_emplace(getRootBuffer(output),
                               readsGradient ? Gradients : Communication);
    }
  });

  // The model states (ZeRO's term: parameters, gradients, optimizer state)
  // peak on their own, where activations may not.
  auto modelStates = [](const Footprint &f) {
    return f.bytes[Parameters] + f.bytes[Gradients] + f.bytes[OptimizerState];
  };
  Footprint live, peak, statesPeak;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (std::optional<int64_t> bytes = getStaticBytes(func.getArgument(i).getType()))
      live.bytes[categoryOfArgument(func, i)] += *bytes;
  peak = statesPeak = live;
  int64_t unsized = 0;
  // In allocation order, so that the listing at the peak is too.
  llvm::MapVector<Value, std::pair<Category, int64_t>> alive;
  llvm::MapVector<Value, std::pair<Category, int64_t>> aliveAtPeak;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Value result : op->getResults()) {
      if (!allocates(op, result))
        continue;
      std::optional<int64_t> bytes = getStaticBytes(result.getType());
      if (!bytes) {
        ++unsized;
        continue;
      }
      Category c = Activations;
      if (auto it = category.find(result); it != category.end())
        c = it->second;
      live.bytes[c] += *bytes;
      alive[result] = {c, *bytes};
    }
    if (live.total() > peak.total()) {
      peak = live;
      if (listPeak)
        aliveAtPeak = alive;
    }
    if (modelStates(live) > modelStates(statesPeak))
      statesPeak = live;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return;
    for (Value operand : op->getOperands()) {
      if (!effects.getEffectOnValue<MemoryEffects::Free>(operand))
        continue;
      auto it = alive.find(getRootBuffer(operand));
      if (it == alive.end())
        continue;
      live.bytes[it->second.first] -= it->second.second;
      alive.erase(it->first);
    }
  });

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "dist-memory-report: peak " << peak.total() << " B live per rank:";
  for (int c = 0; c < kNumCategories; ++c)
    os << (c ? ", " : " ") << kCategoryNames[c] << " " << peak.bytes[c]
       << " B";
  os << llvm::formatv("; model states at their peak {0} B: parameters {1} B, "
                      "gradients {2} B, optimizer state {3} B",
                      modelStates(statesPeak), statesPeak.bytes[Parameters],
                      statesPeak.bytes[Gradients],
                      statesPeak.bytes[OptimizerState]);
  if (unsized)
    os << llvm::formatv(" ({0} allocation(s) of dynamic size not counted)",
                        unsized);
  // At the function's location only: the op itself would print the whole
  // function as a note.
  InFlightDiagnostic remark = emitRemark(func.getLoc()) << text;
  if (!listPeak)
    return;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (std::optional<int64_t> bytes =
            getStaticBytes(func.getArgument(i).getType()))
      remark.attachNote(func.getLoc())
          << "live at the peak: argument " << i << ", "
          << kCategoryNames[categoryOfArgument(func, i)] << ", " << *bytes
          << " B";
  for (auto &[buffer, kind] : aliveAtPeak)
    remark.attachNote(buffer.getLoc())
        << "live at the peak: " << kCategoryNames[kind.first] << ", "
        << kind.second << " B";
}

void DistMemoryReportPass::runOnOperation() {
  ModuleOp module = getOperation();
  bool ok = true;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    for (BlockArgument arg : func.getArguments())
      if (isa<TensorType>(arg.getType())) {
        emitError(func.getLoc())
            << "function @" << func.getSymName() << " takes tensors (argument " << arg.getArgNumber()
            << "): dist-memory-report reads a bufferized program; run it "
               "after bufferization (dist-lower-to-llvm{memory-report=true})";
        ok = false;
        return;
      }
    reportFunction(func, listPeak);
  });
  if (!ok)
    signalPassFailure();
}
