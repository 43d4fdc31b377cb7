//===- ShardingUtils.h - Shardings against meshes and types -----*- C++ -*-===//
//
// What every pass needs about a sharding: checking it against a mesh and a
// tensor type, the local type of a sharded tensor, and axis names as indices.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_DIALECT_DIST_IR_SHARDINGUTILS_H
#define DIST_DIALECT_DIST_IR_SHARDINGUTILS_H

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Support/MeshMath.h"
#include "dist/Support/ReshardPlan.h"

namespace mlir {
class SymbolTableCollection;
namespace dist {

/// The mesh `sharding` refers to, looked up from `from`; null if missing.
MeshOp lookupMesh(Operation *from, FlatSymbolRefAttr meshName,
                  SymbolTableCollection *symbolTables = nullptr);

/// The shape of `mesh` as plain integers.
meshmath::Shape getMeshShape(MeshOp mesh);

/// Axis positions of `sharding`'s dims on `mesh` (names must exist).
std::vector<meshmath::AxisList> getDimAxisIndices(ShardingAttr sharding,
                                              MeshOp mesh);

/// The layout `sharding` describes on `mesh` as plain integers (axis
/// positions per dim, partial axes and kind): what the reshard planner and
/// the host-side sharding of dist/Support work on. Axis names must exist.
meshmath::Layout getLayout(ShardingAttr sharding, MeshOp mesh);

/// Checks `sharding` against `mesh` and the tensor type `type`: the mesh's
/// axes exist and the rank matches (a dim that its axes do not divide is
/// split into padded blocks, see meshmath::localDimSize). Errors are
/// reported through `emitError`, prefixed with `what` (e.g. "argument 0").
LogicalResult verifySharding(ShardingAttr sharding, Type type, MeshOp mesh,
                             function_ref<InFlightDiagnostic()> emitError);

/// The type each rank holds of a tensor of type `globalType` laid out by
/// `sharding` on `mesh`: blocks of `ceil(size / n)` along a dim split `n`
/// ways, plus a halo's or overlap's extra rows. Fails (without diagnostics)
/// if the ranks differ or a halo does not fit the dim.
FailureOr<RankedTensorType> getLocalType(RankedTensorType globalType,
                                         ShardingAttr sharding, MeshOp mesh);

/// The global type of a tensor whose local type is `localType` (for padded
/// splits, a multiple of the block; see `dist.global_shape`).
RankedTensorType getGlobalType(RankedTensorType localType,
                               ShardingAttr sharding, MeshOp mesh);

} // namespace dist
} // namespace mlir

#endif // DIST_DIALECT_DIST_IR_SHARDINGUTILS_H
