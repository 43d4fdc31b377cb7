//===- DistVerify.cpp - Check a program at a phase boundary ---------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/StepState.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

#define DEBUG_TYPE "dist-verify"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTVERIFY
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
enum class Phase { Global, Partitioned };

struct DistVerifyPass : public dist::impl::DistVerifyBase<DistVerifyPass> {
  using DistVerifyBase::DistVerifyBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (phase == "global")
      parsedPhase = Phase::Global;
    else if (phase == "partitioned")
      parsedPhase = Phase::Partitioned;
    else
      return emitError(UnknownLoc::get(context))
             << "dist-verify: unknown phase '" << phase
             << "'; expected 'global' or 'partitioned'";
    return success();
  }

  void runOnOperation() override;

  Phase parsedPhase = Phase::Global;
  int64_t numMeshes = 0, numAnnotations = 0, numShardedBoundaryValues = 0,
          numCollectives = 0;
};
} // namespace

/// The buffer a view reads or writes: views are followed to their source.
static Value getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// True if `op` (or an op nested in it) may read or write one of `roots`:
/// through its declared effects, or, without them, through any operand.
static Operation *findTouch(Operation *op, const DenseSet<Value> &roots) {
  Operation *found = nullptr;
  op->walk([&](Operation *nested) {
    auto touches = [&](Value value) {
      return value && isa<BaseMemRefType>(value.getType()) &&
             roots.contains(getRootBuffer(value));
    };
    bool hit = false;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      hit = llvm::any_of(instances, [&](auto &instance) {
        return touches(instance.getValue());
      });
    } else {
      hit = llvm::any_of(nested->getOperands(), touches);
    }
    if (hit) {
      found = nested;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// An async collective on buffers owns them until its wait: no op between
/// the two may touch them.
static LogicalResult checkBuffersInFlight(CollectiveOpInterface op) {
  Value token = op.getAsyncToken();
  if (!token || !op.isBufferForm() || !token.hasOneUse())
    return success();
  Operation *wait = *token.user_begin();
  if (wait->getBlock() != op->getBlock())
    return success(); // The op's verifier reports it.
  DenseSet<Value> roots;
  for (Value buffer : op->getOperands())
    roots.insert(getRootBuffer(buffer));
  for (Operation *between = op->getNextNode(); between && between != wait;
       between = between->getNextNode())
    if (Operation *touch = findTouch(between, roots)) {
      InFlightDiagnostic diag =
          touch->emitOpError()
          << "touches a buffer of an async " << op->getName()
          << " before its dist.wait";
      diag.attachNote(op.getLoc()) << "the collective started here";
      diag.attachNote(wait->getLoc()) << "and completes here";
      return diag;
    }
  return success();
}

/// "1 mesh", "2 meshes".
static std::string count(int64_t n, StringRef singular, StringRef plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural).str();
}

/// The markings of a training step hold together: every `dist.grad_of` and
/// `dist.state_of` names a parameter argument (`dist.param`); a state result
/// updates an argument that is state of the same parameter; a result that
/// updates a parameter has that parameter's gradient in the function.
static LogicalResult checkTrainingMarkings(FunctionOpInterface func) {
  Operation *funcOp = func;
  unsigned numArgs = func.getNumArguments();
  auto isParam = [&](int64_t arg) {
    return arg >= 0 && arg < (int64_t)numArgs &&
           func.getArgAttr(arg, DistDialect::getParamAttrName());
  };
  auto stateOf = [](DictionaryAttr attrs) -> std::optional<int64_t> {
    if (auto index = dyn_cast_or_null<IntegerAttr>(
            attrs ? attrs.get(DistDialect::getStateOfAttrName()) : Attribute()))
      return index.getInt();
    return std::nullopt;
  };
  auto notParam = [&](InFlightDiagnostic &&diag, int64_t arg) -> LogicalResult {
    if (arg >= (int64_t)numArgs)
      return diag << " argument " << arg << ", but the function has "
                  << numArgs << " argument(s)";
    return diag << " argument " << arg << ", which is not a parameter ('"
                << DistDialect::getParamAttrName() << "')";
  };
  // The parameters whose gradient some op makes.
  llvm::SmallDenseSet<int64_t> withGradient;
  WalkResult walk = func->walk([&](Operation *op) {
    auto grad = op->getAttrOfType<IntegerAttr>(DistDialect::getGradOfAttrName());
    if (!grad)
      return WalkResult::advance();
    if (!isParam(grad.getInt())) {
      (void)notParam(op->emitOpError() << "is marked the gradient of",
                     grad.getInt());
      return WalkResult::interrupt();
    }
    withGradient.insert(grad.getInt());
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (unsigned i = 0; i < numArgs; ++i)
    if (std::optional<int64_t> param = stateOf(func.getArgAttrDict(i));
        param && !isParam(*param))
      return notParam(funcOp->emitOpError()
                          << "argument " << i << " is optimizer state of",
                      *param);
  // Packed state (dist-sharding ownership=whole) names its parameters.
  for (unsigned i = 0; i < numArgs; ++i) {
    auto pool =
        func.getArgAttrOfType<ArrayAttr>(i, DistDialect::getStatePoolAttrName());
    for (Attribute entry : pool ? pool.getValue() : ArrayRef<Attribute>()) {
      auto member = cast<DictionaryAttr>(entry);
      auto param = member.getAs<StringAttr>("param");
      bool found = llvm::any_of(llvm::seq(numArgs), [&](unsigned a) {
        return isParam(a) &&
               func.getArgAttr(a, DistDialect::getNameAttrName()) == param;
      });
      if (!found)
        return funcOp->emitOpError()
               << "argument " << i << " packs " << member.get("name")
               << " as optimizer state of " << param
               << ", but no parameter argument has that name ('"
               << DistDialect::getNameAttrName() << "')";
    }
  }
  for (unsigned i = 0; i < numArgs; ++i)
    if (auto param = func.getArgAttrOfType<IntegerAttr>(
            i, DistDialect::getGradAccumulatorOfAttrName());
        param && !isParam(param.getInt()))
      return notParam(funcOp->emitOpError()
                          << "argument " << i << " accumulates the gradient of",
                      param.getInt());
  for (unsigned r = 0, e = func.getNumResults(); r < e; ++r) {
    std::optional<unsigned> updated = getUpdatedArgument(func, r);
    if (std::optional<int64_t> param = stateOf(func.getResultAttrDict(r))) {
      if (!isParam(*param))
        return notParam(funcOp->emitOpError()
                            << "result " << r << " is optimizer state of",
                        *param);
      if (!updated)
        return funcOp->emitOpError()
               << "result " << r << " is optimizer state of argument "
               << *param << " but updates no argument ('"
               << DistDialect::getUpdatesAttrName() << "' or '"
               << DistDialect::getNameAttrName() << "')";
      if (stateOf(func.getArgAttrDict(*updated)) != param)
        return funcOp->emitOpError()
               << "result " << r << " is optimizer state of argument "
               << *param << " but updates argument " << *updated
               << ", which is not ('" << DistDialect::getStateOfAttrName()
               << " = " << *param << "')";
    }
    if (updated && isParam(*updated) && !withGradient.contains(*updated))
      return funcOp->emitOpError()
             << "result " << r << " updates parameter argument " << *updated
             << ", but no op computes its gradient ('"
             << DistDialect::getGradOfAttrName() << " = " << *updated << "')";
  }
  return success();
}

void DistVerifyPass::runOnOperation() {
  numMeshes = numAnnotations = numShardedBoundaryValues = numCollectives = 0;
  bool failedCheck = false;
  getOperation().walk([&](Operation *op) {
    if (isa<MeshOp>(op)) {
      ++numMeshes;
      return;
    }
    if (isa<AnnotateOp>(op)) {
      ++numAnnotations;
      if (parsedPhase == Phase::Partitioned) {
        op->emitOpError() << "remains in a partitioned program; dist-partition "
                             "replaces every annotation";
        failedCheck = true;
      }
      return;
    }
    if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
      ++numCollectives;
      if (parsedPhase == Phase::Global) {
        op->emitOpError() << "is a collective in a global program; "
                             "collectives appear only after dist-partition";
        failedCheck = true;
      } else if (failed(checkBuffersInFlight(collective))) {
        failedCheck = true;
      }
      return;
    }
    if (isa<ProcessIndexOp>(op) && parsedPhase == Phase::Global) {
      op->emitOpError() << "asks for a process index in a global program; "
                           "it has a meaning only in a per-rank program";
      failedCheck = true;
      return;
    }
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      StringRef name = DistDialect::getShardingAttrName();
      // dist-partition renames the boundary shardings dist.partitioned_as.
      auto checkBoundary = [&](bool sharded, StringRef what, unsigned i) {
        if (!sharded)
          return;
        ++numShardedBoundaryValues;
        if (parsedPhase != Phase::Partitioned)
          return;
        func->emitOpError()
            << what << " " << i << " has a " << name
            << " (a global program's annotation) in a partitioned program; "
               "partition it first (dist-auto-partition)";
        failedCheck = true;
      };
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        checkBoundary(bool(func.getArgAttr(i, name)), "argument", i);
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
        checkBoundary(bool(func.getResultAttr(i, name)), "result", i);
      if (!func.isExternal() && failed(checkTrainingMarkings(func)))
        failedCheck = true;
    }
  });
  if (failedCheck)
    return signalPassFailure();
  if (summary)
    mlir::emitRemark(getOperation().getLoc())
        << "dist-verify: " << phase << " program: "
        << count(numMeshes, "mesh", "meshes") << ", "
        << count(numAnnotations, "annotation", "annotations") << ", "
        << count(numShardedBoundaryValues, "sharded function boundary value",
                 "sharded function boundary values")
        << ", " << count(numCollectives, "collective", "collectives");
}
