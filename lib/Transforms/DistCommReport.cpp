//===- DistCommReport.cpp - Bytes moved by each collective ----------------===//

#include "LoweringUtils.h"
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <numeric>

#define DEBUG_TYPE "dist-comm-report"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTCOMMREPORT
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// One collective's traffic.
struct CollectiveCost {
  Operation *op;
  std::string group; // "[dp, mp]"
  int64_t groupSize;
  std::optional<int64_t> elements;
  int64_t elementBytes;
  std::optional<int64_t> bytes;
  std::optional<int64_t> sentPerRank;
  /// Executions per run of the function: the product of the trip counts of
  /// the enclosing loops (std::nullopt if one is not constant).
  std::optional<int64_t> executions = 1;
  /// It runs on one call of the function in every `period` (inside the
  /// update of dist-gradient-merge: k), `executions` times then.
  int64_t period = 1;
  /// Set when a count does not fit in 64 bits (it is then unknown).
  bool tooLarge = false;
  /// A bucket of several tensors is reduced as one buffer: lowering copies
  /// them in and back out (bytes per run of the function; 0 for one tensor).
  int64_t bucketTensors = 1;
  int64_t packCopyBytes = 0;
};

struct GroupTotal {
  int64_t collectives = 0;
  int64_t sentPerRank = 0;
  bool anyUnknown = false;
};

struct DistCommReportPass
    : public dist::impl::DistCommReportBase<DistCommReportPass> {
  using DistCommReportBase::DistCommReportBase;
  void runOnOperation() override;
};

} // namespace

/// `value` if it fits in 64 bits; otherwise `tooLarge` is set.
static std::optional<int64_t> fitOrFlag(__int128 value, bool &tooLarge) {
  if (value > std::numeric_limits<int64_t>::max()) {
    tooLarge = true;
    return std::nullopt;
  }
  return (int64_t)value;
}

/// How often `op` runs per execution of its function: the product of the
/// constant trip counts of the loops around it (std::nullopt for a trip
/// count that is not constant, as a while loop's; `tooLarge` when the
/// product overflows).
static std::optional<int64_t> getExecutions(Operation *op, bool &tooLarge) {
  int64_t executions = 1;
  for (auto loop = op->getParentOfType<LoopLikeOpInterface>(); loop;
       loop = loop->getParentOfType<LoopLikeOpInterface>()) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips)
      return std::nullopt;
    if (trips->getActiveBits() > 63 ||
        llvm::MulOverflow(executions, (int64_t)trips->getZExtValue(),
                          executions)) {
      tooLarge = true;
      return std::nullopt;
    }
  }
  return executions;
}

/// On one call in how many `op` runs: the product of the periods of the
/// conditions (`dist.true_once_every`) of the scf.if ops whose `then` region
/// holds it (`tooLarge` when the product overflows).
static int64_t getPeriod(Operation *op, bool &tooLarge) {
  int64_t period = 1;
  for (auto ifOp = op->getParentOfType<scf::IfOp>(); ifOp;
       ifOp = ifOp->getParentOfType<scf::IfOp>()) {
    Operation *condition = ifOp.getCondition().getDefiningOp();
    auto every = condition ? condition->getAttrOfType<IntegerAttr>(
                                 DistDialect::getTrueOnceEveryAttrName())
                           : IntegerAttr();
    if (!every || !ifOp.getThenRegion().isAncestor(op->getParentRegion()))
      continue;
    if (llvm::MulOverflow(period, every.getInt(), period)) {
      tooLarge = true;
      return 1;
    }
  }
  return period;
}

/// "[dp, mp]", and " comm 1" for a communicator other than the first.
static std::string formatGroup(ArrayAttr axes, uint64_t comm) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(axes.getAsValueRange<StringAttr>(), os);
  os << "]";
  if (comm != 0)
    os << " comm " << comm;
  return text;
}

void DistCommReportPass::runOnOperation() {
  SymbolTableCollection symbolTables;
  std::vector<CollectiveCost> costs;
  getOperation().walk([&](CollectiveOpInterface op) {
    CollectiveCost cost;
    cost.op = op;
    cost.group = formatGroup(op.getAxes(), op.getComm());
    cost.groupSize = op.getGroupSize(symbolTables);
    cost.elementBytes = op.getElementBytes();
    cost.executions = getExecutions(op, cost.tooLarge);
    cost.period = getPeriod(op, cost.tooLarge);
    bool isStatic = llvm::all_of(op.getPayloadTypes(), [](ShapedType type) {
      return type.hasStaticShape();
    });
    if (isStatic) {
      cost.elements = op.getPayloadElements();
      cost.bytes = op.getPayloadBytes();
      if (!cost.bytes)
        cost.tooLarge = true;
      std::optional<int64_t> sent;
      if (cost.bytes)
        sent = op.getBytesSentPerRank(*cost.bytes, cost.groupSize);
      if (cost.bytes && !sent)
        cost.tooLarge = true;
      if (sent && cost.executions)
        cost.sentPerRank =
            fitOrFlag((__int128)*sent * *cost.executions, cost.tooLarge);
      cost.bucketTensors = op.getCollectiveInputs().size();
      if (op.isInPlace() && cost.bucketTensors > 1 && cost.bytes &&
          cost.executions) {
        // Members that dist-place-buckets made views of the bucket's buffer
        // are not copied.
        int64_t copied = *cost.bytes;
        if (std::optional<BucketPlacement> placement =
                getBucketPlacement(op))
          for (auto [i, placed] : llvm::enumerate(placement->placed))
            if (placed)
              copied -= placement->slotOffsets[i + 1] -
                        placement->slotOffsets[i];
        cost.packCopyBytes =
            fitOrFlag((__int128)2 * copied * *cost.executions, cost.tooLarge)
                .value_or(0);
      }
    }
    costs.push_back(cost);
  });

  // Totals are over a window of `calls` calls, in which every collective
  // runs a whole number of times (1 unless some run once every k calls).
  int64_t calls = 1;
  for (CollectiveCost &cost : costs) {
    int64_t window = calls / std::gcd(calls, cost.period);
    if (llvm::MulOverflow(window, cost.period, window))
      cost.tooLarge = true;
    else
      calls = window;
  }
  auto perWindow = [&](const CollectiveCost &cost, int64_t bytes)
      -> std::optional<int64_t> {
    int64_t scaled;
    if (llvm::MulOverflow(bytes, calls / cost.period, scaled))
      return std::nullopt;
    return scaled;
  };
  int64_t total = 0, packCopies = 0;
  bool anyUnknown = false;
  llvm::MapVector<StringRef, GroupTotal> perGroup;
  for (const CollectiveCost &cost : costs) {
    InFlightDiagnostic remark = emitRemark(cost.op->getLoc());
    remark << cost.op->getName() << " over " << cost.group << " ("
           << cost.groupSize << " ranks): ";
    std::string element;
    llvm::raw_string_ostream(element)
        << cast<CollectiveOpInterface>(cost.op).getElementType();
    if (cost.tooLarge && cost.bytes)
      remark << *cost.elements << " x " << element << " = " << *cost.bytes
             << " B, sent more than 2^63 times or bytes: bytes unknown";
    else if (cost.tooLarge)
      remark << "more than 2^63 elements or bytes: bytes unknown";
    else if (!cost.bytes)
      remark << "dynamic shape, bytes unknown";
    else if (!cost.executions)
      remark << *cost.elements << " x " << element << " = " << *cost.bytes
             << " B, in a loop without a constant trip count: bytes unknown";
    else
      remark << *cost.elements << " x " << element << " = " << *cost.bytes
             << " B; each rank sends " << *cost.sentPerRank << " B"
             << (*cost.executions != 1
                     ? " (" + std::to_string(*cost.executions) + " executions)"
                     : std::string())
             << (cost.period != 1
                     ? " once every " + std::to_string(cost.period) + " calls"
                     : std::string());
    if (cost.packCopyBytes) {
      remark << "; packing its " << cost.bucketTensors
             << " tensors into one buffer copies " << cost.packCopyBytes << " B";
      packCopies += perWindow(cost, cost.packCopyBytes).value_or(0);
    }
    GroupTotal &group = perGroup[cost.group];
    ++group.collectives;
    // A total that would overflow stays as it was, and counts as unknown.
    int64_t groupSum, totalSum;
    std::optional<int64_t> sent =
        cost.sentPerRank && !cost.tooLarge ? perWindow(cost, *cost.sentPerRank)
                                           : std::nullopt;
    if (sent && !llvm::AddOverflow(group.sentPerRank, *sent, groupSum) &&
        !llvm::AddOverflow(total, *sent, totalSum)) {
      group.sentPerRank = groupSum;
      total = totalSum;
      continue;
    }
    group.anyUnknown = anyUnknown = true;
  }

  InFlightDiagnostic summary = emitRemark(getOperation().getLoc());
  summary << "dist-comm-report: " << costs.size()
          << (costs.size() == 1 ? " collective" : " collectives")
          << "; each rank sends " << total << " B"
          << (calls != 1 ? llvm::formatv(" per {0} calls ({1:f2} B per call)",
                                         calls, (double)total / calls)
                               .str()
                         : std::string())
          << (anyUnknown ? " plus unknown (dynamic shapes or trip counts, or "
                           "counts over 2^63)"
                         : "");
  for (auto &[group, totals] : perGroup)
    summary << "; " << group << ": " << totals.collectives
            << (totals.collectives == 1 ? " collective, " : " collectives, ")
            << totals.sentPerRank << " B";
  if (packCopies)
    summary << "; packing buckets copies " << packCopies << " B";
  summary.report();

  if (jsonFile.empty())
    return;
  llvm::json::Array collectives;
  for (const CollectiveCost &cost : costs) {
    llvm::json::Object entry;
    entry["op"] = cost.op->getName().getStringRef().str();
    entry["group"] = cost.group;
    entry["ranks"] = cost.groupSize;
    if (cost.executions)
      entry["executions"] = *cost.executions;
    entry["every"] = cost.period;
    if (cost.bytes) {
      entry["elements"] = *cost.elements;
      entry["bytes"] = *cost.bytes;
    }
    if (cost.sentPerRank)
      entry["sent_per_rank"] = *cost.sentPerRank;
    entry["tensors"] = cost.bucketTensors;
    entry["pack_copy_bytes"] = cost.packCopyBytes;
    collectives.push_back(std::move(entry));
  }
  llvm::json::Object groups;
  for (auto &[group, totals] : perGroup) {
    llvm::json::Object entry;
    entry["collectives"] = totals.collectives;
    entry["sent_per_rank"] = totals.sentPerRank;
    groups[group] = std::move(entry);
  }
  llvm::json::Object report;
  report["collectives"] = std::move(collectives);
  report["sent_per_rank"] = total;
  report["calls"] = calls;
  report["pack_copy_bytes"] = packCopies;
  report["complete"] = !anyUnknown;
  report["groups"] = std::move(groups);
  std::string error;
  auto output = openOutputFile(jsonFile, &error);
  if (!output) {
    emitError(getOperation().getLoc())
        << "dist-comm-report: cannot write '" << jsonFile << "': " << error;
    return signalPassFailure();
  }
  output->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)))
              << "\n";
  output->keep();
}
