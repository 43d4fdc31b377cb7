//===- DistCommReport.cpp - Bytes moved by each collective ----------------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
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
  /// Set when a count does not fit in 64 bits (it is then unknown).
  bool tooLarge = false;
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

/// The tensor whose size the cost formulas use: the operand, except for
/// all_gather (its result).
static RankedTensorType getMeasuredType(Operation *op) {
  if (isa<AllGatherOp>(op))
    return cast<RankedTensorType>(op->getResult(0).getType());
  return cast<RankedTensorType>(op->getOperand(0).getType());
}

/// Bytes each rank sends for `bytes` over `g` ranks (see the pass docs),
/// computed in 128 bits: at most 2 * `bytes`.
static __int128 sentPerRank(Operation *op, int64_t bytes, int64_t g) {
  if (g <= 1)
    return 0;
  if (isa<AllReduceOp>(op))
    return (__int128)2 * (g - 1) * bytes / g;
  if (isa<PermuteOp>(op))
    return bytes;
  return (__int128)(g - 1) * bytes / g;
}

/// `value` if it fits in 64 bits; otherwise `tooLarge` is set.
static std::optional<int64_t> fitOrFlag(__int128 value, bool &tooLarge) {
  if (value > std::numeric_limits<int64_t>::max()) {
    tooLarge = true;
    return std::nullopt;
  }
  return (int64_t)value;
}

/// How often `op` runs per execution of its function: the product of the
/// constant trip counts of the scf.for loops around it (std::nullopt for a
/// trip count that is not constant; `tooLarge` when the product overflows).
static std::optional<int64_t> getExecutions(Operation *op, bool &tooLarge) {
  int64_t executions = 1;
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
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

static std::string formatGroup(ArrayAttr axes) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(axes.getAsValueRange<StringAttr>(), os);
  os << "]";
  return text;
}

void DistCommReportPass::runOnOperation() {
  SymbolTableCollection symbolTables;
  std::vector<CollectiveCost> costs;
  getOperation().walk([&](Operation *op) {
    if (!isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp, ReduceOp,
             BroadcastOp, PermuteOp>(op))
      return;
    auto meshName = op->getAttrOfType<FlatSymbolRefAttr>("mesh");
    auto axes = op->getAttrOfType<ArrayAttr>("axes");
    MeshOp mesh = lookupMesh(op, meshName, &symbolTables);
    CollectiveCost cost;
    cost.op = op;
    cost.group = formatGroup(axes);
    cost.groupSize = mesh.getGroupSize(llvm::to_vector(axes.getAsRange<StringAttr>()));
    RankedTensorType type = getMeasuredType(op);
    Type element = type.getElementType();
    if (auto complex = dyn_cast<ComplexType>(element))
      element = complex.getElementType(), cost.elementBytes = 2;
    else
      cost.elementBytes = 1;
    cost.elementBytes *=
        element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8 : 8;
    cost.executions = getExecutions(op, cost.tooLarge);
    if (type.hasStaticShape()) {
      __int128 elements = 1;
      for (int64_t size : type.getShape())
        if ((elements *= size) > std::numeric_limits<int64_t>::max())
          break;
      cost.elements = fitOrFlag(elements, cost.tooLarge);
      if (cost.elements)
        cost.bytes = fitOrFlag((__int128)*cost.elements * cost.elementBytes,
                               cost.tooLarge);
      if (cost.bytes && cost.executions)
        cost.sentPerRank = fitOrFlag(
            sentPerRank(op, *cost.bytes, cost.groupSize) * *cost.executions,
            cost.tooLarge);
    }
    costs.push_back(cost);
  });

  int64_t total = 0;
  bool anyUnknown = false;
  llvm::MapVector<StringRef, GroupTotal> perGroup;
  for (const CollectiveCost &cost : costs) {
    InFlightDiagnostic remark = emitRemark(cost.op->getLoc());
    remark << cost.op->getName() << " over " << cost.group << " ("
           << cost.groupSize << " ranks): ";
    std::string element;
    llvm::raw_string_ostream(element) << getMeasuredType(cost.op).getElementType();
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
                     : std::string());
    GroupTotal &group = perGroup[cost.group];
    ++group.collectives;
    // A total that would overflow stays as it was, and counts as unknown.
    int64_t groupSum, totalSum;
    if (cost.sentPerRank &&
        !llvm::AddOverflow(group.sentPerRank, *cost.sentPerRank, groupSum) &&
        !llvm::AddOverflow(total, *cost.sentPerRank, totalSum)) {
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
          << (anyUnknown ? " plus unknown (dynamic shapes or trip counts, or "
                           "counts over 2^63)"
                         : "");
  for (auto &[group, totals] : perGroup)
    summary << "; " << group << ": " << totals.collectives
            << (totals.collectives == 1 ? " collective, " : " collectives, ")
            << totals.sentPerRank << " B";
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
    if (cost.bytes) {
      entry["elements"] = *cost.elements;
      entry["bytes"] = *cost.bytes;
    }
    if (cost.sentPerRank)
      entry["sent_per_rank"] = *cost.sentPerRank;
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
