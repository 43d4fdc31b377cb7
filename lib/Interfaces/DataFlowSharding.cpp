//===- DataFlowSharding.cpp - Layouts across regions and calls ------------===//

#include "dist/Interfaces/DataFlowSharding.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::dist;

#include "dist/Interfaces/DataFlowShardingInterface.cpp.inc"

LogicalResult
mlir::dist::getRegionBranchEdges(RegionBranchOpInterface op,
                                 SmallVectorImpl<DataFlowEdge> &edges) {
  // Every forwarding: a use and the successor inputs it becomes.
  SmallVector<std::pair<OpOperand *, Value>> flows;
  auto forward = [&](Operation *from, ArrayRef<OpOperand *> uses,
                     RegionSuccessor successor) -> LogicalResult {
    ValueRange inputs = successor.getSuccessorInputs();
    if (uses.size() != inputs.size())
      return from->emitOpError()
             << "forwards " << uses.size() << " value(s) to a successor with "
             << inputs.size() << " input(s); dist cannot pair them";
    for (auto [use, input] : llvm::zip(uses, inputs))
      flows.emplace_back(use, input);
    return success();
  };

  SmallVector<RegionSuccessor> successors;
  op.getSuccessorRegions(RegionBranchPoint::parent(), successors);
  for (RegionSuccessor &successor : successors) {
    OperandRange operands = op.getEntrySuccessorOperands(successor);
    SmallVector<OpOperand *> uses;
    unsigned begin = operands.empty() ? 0 : operands.getBeginOperandIndex();
    for (unsigned i = 0, e = operands.size(); i < e; ++i)
      uses.push_back(&op->getOpOperand(begin + i));
    if (failed(forward(op, uses, successor)))
      return failure();
  }
  for (Region &region : op->getRegions()) {
    if (region.empty())
      continue;
    if (!region.hasOneBlock())
      return op->emitOpError()
             << "has a region with " << region.getBlocks().size()
             << " blocks; dist partitions region ops whose regions have one "
                "block";
    Operation *terminator = region.front().getTerminator();
    auto branching = dyn_cast<RegionBranchTerminatorOpInterface>(terminator);
    if (!branching)
      return terminator->emitOpError()
             << "does not say which values it forwards "
                "(RegionBranchTerminatorOpInterface); dist cannot lay them out";
    successors.clear();
    op.getSuccessorRegions(RegionBranchPoint(branching), successors);
    for (RegionSuccessor &successor : successors) {
      MutableOperandRange operands =
          branching.getMutableSuccessorOperands(successor);
      SmallVector<OpOperand *> uses;
      for (unsigned i = 0, e = operands.size(); i < e; ++i)
        uses.push_back(&operands[i]);
      if (failed(forward(terminator, uses, successor)))
        return failure();
    }
  }

  // Inputs fed by one use share its layout: join them.
  llvm::EquivalenceClasses<Value> joined;
  llvm::MapVector<OpOperand *, Value> firstInputOf;
  for (auto [use, input] : flows) {
    joined.insert(input);
    auto [it, inserted] = firstInputOf.insert({use, input});
    if (!inserted)
      joined.unionSets(it->second, input);
  }
  // One edge per class, results' edges first and in result order.
  llvm::MapVector<Value, DataFlowEdge> byLeader;
  auto edgeOf = [&](Value input) -> DataFlowEdge & {
    return byLeader[joined.getLeaderValue(input)];
  };
  for (OpResult result : op->getResults())
    if (joined.contains(result)) {
      DataFlowEdge &edge = edgeOf(result);
      if (!edge.result)
        edge.result = result.getResultNumber();
    }
  llvm::SmallPtrSet<void *, 16> seen;
  for (auto [use, input] : flows) {
    DataFlowEdge &edge = edgeOf(input);
    if (seen.insert(input.getAsOpaquePointer()).second)
      edge.targets.push_back(input);
  }
  for (auto &[use, input] : firstInputOf)
    edgeOf(input).sources.push_back(use);
  for (auto &entry : byLeader)
    edges.push_back(std::move(entry.second));
  return success();
}
