//===- DataFlowShardingModels.cpp - Edges of scf region ops and calls -----===//
//
// scf's region ops say through RegionBranchOpInterface which values they
// forward where; their edges follow from that. A func.call's edges are its
// callee's boundary layouts, fixed.
//
//===----------------------------------------------------------------------===//

#include "dist/Dialect/Dist/IR/DistDialect.h"
#include "dist/Extensions/ShardingRules.h"
#include "dist/Interfaces/DataFlowSharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dist;

namespace {
template <typename OpTy>
struct RegionBranchDataFlowModel
    : public DataFlowShardingOpInterface::ExternalModel<
          RegionBranchDataFlowModel<OpTy>, OpTy> {
  LogicalResult getDataFlowEdges(Operation *op, SymbolTableCollection *,
                                 SmallVectorImpl<DataFlowEdge> &edges) const {
    return getRegionBranchEdges(cast<RegionBranchOpInterface>(op), edges);
  }
};

/// The layout of a function's argument or result: its `dist.sharding`, or,
/// once the function is partitioned, its `dist.partitioned_as`.
static ShardingAttr getBoundaryLayout(DictionaryAttr attrs) {
  if (!attrs)
    return {};
  if (auto s = dyn_cast_or_null<ShardingAttr>(
          attrs.get(DistDialect::getShardingAttrName())))
    return s;
  return dyn_cast_or_null<ShardingAttr>(
      attrs.get(DistDialect::getPartitionedAsAttrName()));
}

/// One layout per callee: each operand goes in as the callee's argument is
/// laid out, each result comes out as the callee's result is. A callee not
/// defined in the module takes and gives whole values.
struct CallDataFlowModel
    : public DataFlowShardingOpInterface::ExternalModel<CallDataFlowModel,
                                                        func::CallOp> {
  LogicalResult getDataFlowEdges(Operation *op,
                                 SymbolTableCollection *symbolTables,
                                 SmallVectorImpl<DataFlowEdge> &edges) const {
    auto call = cast<func::CallOp>(op);
    func::FuncOp callee =
        symbolTables ? symbolTables->lookupNearestSymbolFrom<func::FuncOp>(
                           call, call.getCalleeAttr())
                     : SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                           call, call.getCalleeAttr());
    auto fixedEdge = [&](DictionaryAttr attrs) {
      DataFlowEdge edge;
      edge.isFixed = true;
      if (callee) {
        edge.fixedLayout = getBoundaryLayout(attrs);
        edge.fixedAt = callee.getLoc();
      }
      return edge;
    };
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      DataFlowEdge edge =
          fixedEdge(callee && i < callee.getNumArguments()
                        ? callee.getArgAttrDict(i)
                        : DictionaryAttr());
      edge.sources.push_back(&operand);
      edges.push_back(std::move(edge));
    }
    for (OpResult result : op->getResults()) {
      unsigned i = result.getResultNumber();
      DataFlowEdge edge =
          fixedEdge(callee && i < callee.getNumResults()
                        ? callee.getResultAttrDict(i)
                        : DictionaryAttr());
      edge.targets.push_back(result);
      edge.result = i;
      edges.push_back(std::move(edge));
    }
    return success();
  }
};
} // namespace

void dist::registerDataFlowShardingModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, scf::SCFDialect *) {
    scf::ForOp::attachInterface<RegionBranchDataFlowModel<scf::ForOp>>(*context);
    scf::IfOp::attachInterface<RegionBranchDataFlowModel<scf::IfOp>>(*context);
    scf::WhileOp::attachInterface<RegionBranchDataFlowModel<scf::WhileOp>>(
        *context);
    scf::IndexSwitchOp::attachInterface<
        RegionBranchDataFlowModel<scf::IndexSwitchOp>>(*context);
    scf::ExecuteRegionOp::attachInterface<
        RegionBranchDataFlowModel<scf::ExecuteRegionOp>>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, func::FuncDialect *) {
    func::CallOp::attachInterface<CallDataFlowModel>(*context);
  });
}
