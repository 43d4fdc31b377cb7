//===- ShardingRules.h - Sharding rules for upstream dialects ---*- C++ -*-===//
//
// One registration function per dialect attaches ShardingRuleOpInterface
// (or, for region ops and calls, DataFlowShardingOpInterface) external models
// to that dialect's ops. registerAllDistExtensions calls
// them all.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_EXTENSIONS_SHARDINGRULES_H
#define DIST_EXTENSIONS_SHARDINGRULES_H

namespace mlir {
class DialectRegistry;
namespace dist {

/// Every linalg structured op: factors are its loops, from indexing maps.
void registerLinalgShardingRules(DialectRegistry &registry);
/// arith and math ops on tensors: elementwise.
void registerElementwiseShardingRules(DialectRegistry &registry);
/// tensor dialect ops.
void registerTensorShardingRules(DialectRegistry &registry);
void registerTosaShardingRules(DialectRegistry &registry);
/// DataFlowShardingOpInterface for scf.for, scf.if, scf.while,
/// scf.index_switch, scf.execute_region (one block) and func.call.
void registerDataFlowShardingModels(DialectRegistry &registry);

/// All of the above.
void registerAllDistExtensions(DialectRegistry &registry);

} // namespace dist
} // namespace mlir

#endif // DIST_EXTENSIONS_SHARDINGRULES_H
