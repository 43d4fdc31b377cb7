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
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

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

/// Bytes each rank sends for `bytes` over `g` ranks (see the pass docs).
static int64_t sentPerRank(Operation *op, int64_t bytes, int64_t g) {
  if (g <= 1)
    return 0;
  if (isa<AllReduceOp>(op))
    return 2 * (g - 1) * bytes / g;
  if (isa<PermuteOp>(op))
    return bytes;
  return (g - 1) * bytes / g;
}

/// How often `op` runs per execution of its function: the product of the
/// constant trip counts of the scf.for loops around it.
static std::optional<int64_t> getExecutions(Operation *op) {
  int64_t executions = 1;
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips)
      return std::nullopt;
    executions *= trips->getSExtValue();
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
    cost.executions = getExecutions(op);
    if (type.hasStaticShape()) {
      cost.elements = type.getNumElements();
      cost.bytes = *cost.elements * cost.elementBytes;
      if (cost.executions)
        cost.sentPerRank =
            sentPerRank(op, *cost.bytes, cost.groupSize) * *cost.executions;
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
    if (!cost.bytes)
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
    if (cost.sentPerRank) {
      group.sentPerRank += *cost.sentPerRank;
      total += *cost.sentPerRank;
    } else {
      group.anyUnknown = anyUnknown = true;
    }
  }

  InFlightDiagnostic summary = emitRemark(getOperation().getLoc());
  summary << "dist-comm-report: " << costs.size()
          << (costs.size() == 1 ? " collective" : " collectives")
          << "; each rank sends " << total << " B"
          << (anyUnknown ? " plus unknown (dynamic shapes or trip counts)" : "");
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
