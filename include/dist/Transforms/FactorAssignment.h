//===- FactorAssignment.h - Mesh axes for an op's factors -------*- C++ -*-===//
//
// Given an op's sharding rule and what is known of the shardings of its
// operands and results, decides which mesh axes split each factor and which
// partial state the results carry; then projects that decision back onto
// every operand (the layout the op needs) and result (the layout it makes).
// dist-propagate and dist-partition both call it, so the partitioner
// re-derives exactly the decision propagation converged to.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TRANSFORMS_FACTORASSIGNMENT_H
#define DIST_TRANSFORMS_FACTORASSIGNMENT_H

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Interfaces/ShardingRule.h"

namespace mlir::dist {

/// What is known about one operand or result of an op.
struct TensorInfo {
  /// Null if unknown (or not a tensor).
  ShardingAttr sharding;
  /// A user's sharding (function boundary, dist.annotate): it wins conflicts.
  bool isUserFixed = false;
  /// The value may still be made partial by its consumers (a loop's iter
  /// arg: its init is masked, or is zero already), so an additive op may
  /// keep a partial input pending with it.
  bool mayBecomePartial = false;
  /// False for scalars and other non-tensor operands.
  bool isTensor = false;
  /// Number of elements (for the cost model: resharding a big tensor costs
  /// more than a small one); 0 if dynamic or not a tensor.
  int64_t numElements = 0;
};

struct FactorAssignment {
  FlatSymbolRefAttr mesh;
  /// Per factor, the mesh axes that split it (major to minor).
  SmallVector<SmallVector<StringAttr>, 4> factorAxes;
  /// Per factor, `factorAxes` as the layout of a dim it indexes; and the
  /// layout of a dim no factor indexes (whole).
  SmallVector<DimShardingAttr> factorDims;
  DimShardingAttr wholeDim;
  /// Axes over which the results are partial, and with which reduction.
  SmallVector<StringAttr> partialAxes;
  ReductionKind partialKind = ReductionKind::sum;
  /// Partial axes that come from partial inputs flowing through (as opposed
  /// to a split reduction factor), and those inputs.
  SmallVector<StringAttr> passThroughAxes;
  SmallVector<unsigned> passThroughOperands;
};

/// Decides the assignment; std::nullopt if nothing is known (no mesh).
/// `mesh` is needed for axis sizes (a factor is split only as far as its
/// size divides).
/// With `extend`, a compatible, more split candidate extends the best one
/// (propagation); without, the best-ranked candidate is taken as is (the
/// partitioner, which must reproduce the recorded result layouts).
std::optional<FactorAssignment>
decideFactors(const ShardingRule &rule, ArrayRef<TensorInfo> operands,
              ArrayRef<TensorInfo> results, MeshOp mesh, bool extend = true);

/// The layout operand `index` must have for the op to compute its part
/// locally (partial for accumulators and the passed-through input).
ShardingAttr projectOperand(const ShardingRule &rule,
                            const FactorAssignment &assignment,
                            ArrayRef<TensorInfo> operands, unsigned index);

/// The layout the op gives result `index`. `known`, the result's current
/// layout if any, is returned as is when it is that layout (cheaper than
/// building it again).
ShardingAttr projectResult(const ShardingRule &rule,
                           const FactorAssignment &assignment, unsigned index,
                           ShardingAttr known = {});

/// True if `refined` keeps everything `current` says and only adds to it
/// (more axes at the minor end of dims, more partial axes of the same kind):
/// the only kind of update propagation makes, so it terminates.
bool isRefinement(ShardingAttr current, ShardingAttr refined);

/// The mesh a sharding-annotated op works on: the mesh of the first known
/// sharding among `infos`; null if none.
FlatSymbolRefAttr getCommonMesh(ArrayRef<TensorInfo> operands,
                                ArrayRef<TensorInfo> results);

/// A replicated sharding of rank `rank` on `mesh`.
ShardingAttr getReplicated(FlatSymbolRefAttr mesh, int64_t rank);

/// `sharding` without its partial axes.
ShardingAttr dropPartial(ShardingAttr sharding);

} // namespace mlir::dist

#endif // DIST_TRANSFORMS_FACTORASSIGNMENT_H
