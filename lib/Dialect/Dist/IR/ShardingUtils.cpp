//===- ShardingUtils.cpp - Shardings against meshes and types -------------===//

#include "dist/Dialect/Dist/IR/ShardingUtils.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::dist;

MeshOp dist::lookupMesh(Operation *from, FlatSymbolRefAttr meshName,
                        SymbolTableCollection *symbolTables) {
  if (symbolTables)
    return symbolTables->lookupNearestSymbolFrom<MeshOp>(from, meshName);
  // Verifiers look up the mesh of every annotated op: scanning the nearest
  // symbol table for meshes is several times cheaper than the generic lookup
  // (same result: only the nearest table is searched).
  Operation *table = SymbolTable::getNearestSymbolTable(from);
  if (!table || table->getNumRegions() != 1 || table->getRegion(0).empty())
    return {};
  StringAttr name = meshName.getAttr();
  for (Operation &op : table->getRegion(0).front())
    if (auto mesh = dyn_cast<MeshOp>(op); mesh && mesh.getSymNameAttr() == name)
      return mesh;
  return {};
}

meshmath::Shape dist::getMeshShape(MeshOp mesh) {
  ArrayRef<int64_t> shape = mesh.getShape();
  return meshmath::Shape(shape.begin(), shape.end());
}

std::vector<meshmath::AxisList> dist::getDimAxisIndices(ShardingAttr sharding,
                                                    MeshOp mesh) {
  std::vector<meshmath::AxisList> result;
  result.reserve(sharding.getRank());
  for (DimShardingAttr dim : sharding.getDims()) {
    meshmath::AxisList axes;
    for (StringAttr axis : dim.getAxes())
      axes.push_back(*mesh.getAxisIndex(axis));
    result.push_back(std::move(axes));
  }
  return result;
}

meshmath::Layout dist::getLayout(ShardingAttr sharding, MeshOp mesh) {
  meshmath::Layout layout;
  layout.dims = getDimAxisIndices(sharding, mesh);
  for (StringAttr axis : sharding.getPartialAxes())
    layout.partial.push_back(*mesh.getAxisIndex(axis));
  layout.partialKind = static_cast<int>(sharding.getPartialKind());
  for (StringAttr axis : sharding.getOwnerAxes())
    layout.owned.push_back(*mesh.getAxisIndex(axis));
  layout.owner = sharding.getOwner();
  if (sharding.hasHalos())
    for (DimShardingAttr dim : sharding.getDims())
      layout.halos.push_back(dim.getHalo());
  return layout;
}

static std::string formatAxes(ArrayRef<StringAttr> axes) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(axes, os, [&](StringAttr a) { os << a.getValue(); });
  os << "]";
  return text;
}

LogicalResult dist::verifySharding(ShardingAttr sharding, Type type,
                                   MeshOp mesh,
                                   function_ref<InFlightDiagnostic()> emitError) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return emitError() << "a sharding needs a ranked tensor, got " << type;
  if (!mesh)
    return emitError() << "sharding refers to an unknown mesh "
                       << sharding.getMesh();
  for (DimShardingAttr dim : sharding.getDims())
    if (failed(mesh.getAxisIndices(dim.getAxes(), emitError)))
      return failure();
  if (failed(mesh.getAxisIndices(sharding.getPartialAxes(), emitError)) ||
      failed(mesh.getAxisIndices(sharding.getOwnerAxes(), emitError)))
    return failure();
  if (sharding.isOwned() &&
      sharding.getOwner() >= mesh.getGroupSize(sharding.getOwnerAxes()))
    return emitError() << "owner " << sharding.getOwner()
                       << " is not an index of its group: mesh axes "
                       << formatAxes(sharding.getOwnerAxes()) << " of "
                       << sharding.getMesh() << " make groups of "
                       << mesh.getGroupSize(sharding.getOwnerAxes());
  if (sharding.getRank() != tensorType.getRank())
    return emitError() << "sharding has " << sharding.getRank()
                       << " dims but the type " << type << " has rank "
                       << tensorType.getRank();
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    if (!dim.hasHalo())
      continue;
    int64_t size = tensorType.getDimSize(d);
    int64_t blocks = mesh.getGroupSize(dim.getAxes());
    if (meshmath::haloBlockSize(size, blocks, dim.getHalo()))
      continue;
    InFlightDiagnostic diag = emitError() << "dim " << d << " of " << type;
    if (ShapedType::isDynamic(size))
      return diag << " is dynamic; a halo or overlap needs a static size";
    int64_t core = size - dim.getOverlap();
    if (core <= 0 || core % blocks != 0)
      return diag << (dim.getOverlap() ? " less its overlap" : "") << " ("
                  << core << " rows) is not split evenly into " << blocks
                  << " blocks; halos and overlaps need even blocks";
    return diag << " has blocks of " << core / blocks
                << " rows, fewer than its halo [" << dim.getHaloLo() << ", "
                << dim.getHaloHi()
                << "] (halo rows come from the neighbouring blocks only)";
  }
  return success();
}

FailureOr<RankedTensorType> dist::getLocalType(RankedTensorType globalType,
                                               ShardingAttr sharding,
                                               MeshOp mesh) {
  if (sharding.getRank() != globalType.getRank())
    return failure();
  // The partitioner asks this for every value it rewrites: only split dims
  // cost anything.
  SmallVector<int64_t> shape;
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    if (dim.getAxes().empty())
      continue;
    if (shape.empty())
      shape.assign(globalType.getShape().begin(), globalType.getShape().end());
    meshmath::Halo halo = dim.getHalo();
    std::optional<int64_t> size = meshmath::haloBlockSize(
        shape[d], mesh.getGroupSize(dim.getAxes()), halo);
    if (!size)
      return failure();
    shape[d] = ShapedType::isDynamic(*size) ? *size : *size + halo.extra();
  }
  return shape.empty() ? globalType : globalType.clone(shape);
}

RankedTensorType dist::getGlobalType(RankedTensorType localType,
                                     ShardingAttr sharding, MeshOp mesh) {
  SmallVector<int64_t> shape(localType.getShape());
  for (auto [d, dim] : llvm::enumerate(sharding.getDims()))
    shape[d] = meshmath::globalDimSize(
        shape[d], mesh.getGroupSize(dim.getAxes()), dim.getHalo());
  return localType.clone(shape);
}
