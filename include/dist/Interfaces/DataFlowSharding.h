//===- DataFlowSharding.h - Layouts across regions and calls ----*- C++ -*-===//
//
// A data-flow op (DataFlowShardingOpInterface) passes values on unchanged:
// an scf.for's init becomes its iter arg, what the body yields becomes the
// next iter arg and the result. Such values form an *edge* and share one
// layout. Propagation and partitioning handle every data-flow op through its
// edges alone.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_INTERFACES_DATAFLOWSHARDING_H
#define DIST_INTERFACES_DATAFLOWSHARDING_H

#include "dist/Dialect/Dist/IR/DistAttrs.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::dist {

/// Values that one data-flow op ties to one layout.
struct DataFlowEdge {
  /// The uses through which values flow in: the op's own operands (an
  /// scf.for init) or operands of terminators in its regions (an scf.yield).
  SmallVector<OpOperand *, 2> sources;
  /// The values the flow defines: block arguments of the op's regions (an
  /// iter arg) or the op's results.
  SmallVector<Value, 2> targets;
  /// The op result among `targets` whose `dist.shardings` entry records the
  /// edge's layout; none if no result is a target (the layout is then
  /// recorded in the op's `dist.edge_shardings`, one entry per such edge in
  /// edge order).
  std::optional<unsigned> result;
  /// Set if the layout is given, not chosen by propagation (a call: the
  /// callee's boundary layouts). A null `fixedLayout` is then replicated.
  bool isFixed = false;
  ShardingAttr fixedLayout;
  /// Where a fixed layout comes from (the callee), for diagnostics.
  std::optional<Location> fixedAt;

  /// True if `source` is an operand of a terminator inside the op: a value
  /// made by the op's regions. Only such values pass a pending (partial)
  /// reduction on to the targets; values entering from outside pass their
  /// layout only.
  bool isInnerSource(OpOperand *source, Operation *op) const {
    return source->getOwner() != op;
  }
};

/// The edges of a RegionBranchOpInterface op with single-block regions: each
/// forwarded operand (entry operands and terminator successor operands) is
/// joined with the successor inputs it becomes (block arguments or results),
/// and joined sets form edges. Fails with a located error for a region with
/// several blocks or a terminator that does not say what it forwards.
LogicalResult getRegionBranchEdges(RegionBranchOpInterface op,
                                   SmallVectorImpl<DataFlowEdge> &edges);

} // namespace mlir::dist

#include "dist/Interfaces/DataFlowShardingInterface.h.inc"

#endif // DIST_INTERFACES_DATAFLOWSHARDING_H
