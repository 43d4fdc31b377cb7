//===- MeshMath.cpp - Rank, coordinate and shard arithmetic ---------------===//

#include "dist/Support/MeshMath.h"

#include <cassert>

namespace meshmath {

int64_t numDevices(const Shape &meshShape) {
  int64_t n = 1;
  for (int64_t size : meshShape)
    n *= size;
  return n;
}

Shape delinearize(int64_t rank, const Shape &meshShape) {
  assert(rank >= 0 && rank < numDevices(meshShape) && "rank out of range");
  Shape coords(meshShape.size());
  for (size_t i = meshShape.size(); i-- > 0;) {
    coords[i] = rank % meshShape[i];
    rank /= meshShape[i];
  }
  return coords;
}

int64_t linearize(const Shape &coords, const Shape &meshShape) {
  assert(coords.size() == meshShape.size() && "rank mismatch");
  int64_t rank = 0;
  for (size_t i = 0; i < meshShape.size(); ++i) {
    assert(coords[i] >= 0 && coords[i] < meshShape[i] && "coordinate out of range");
    rank = rank * meshShape[i] + coords[i];
  }
  return rank;
}

int64_t groupSize(const Shape &meshShape, const AxisList &axes) {
  int64_t n = 1;
  for (int64_t axis : axes)
    n *= meshShape[axis];
  return n;
}

int64_t indexInGroup(const Shape &coords, const Shape &meshShape,
                     const AxisList &axes) {
  int64_t index = 0;
  for (int64_t axis : axes)
    index = index * meshShape[axis] + coords[axis];
  return index;
}

static std::vector<bool> axisMask(size_t rank, const AxisList &axes) {
  std::vector<bool> inGroup(rank, false);
  for (int64_t axis : axes)
    inGroup[axis] = true;
  return inGroup;
}

int64_t groupColor(int64_t rank, const Shape &meshShape, const AxisList &axes) {
  Shape coords = delinearize(rank, meshShape);
  std::vector<bool> inGroup = axisMask(meshShape.size(), axes);
  int64_t color = 0;
  for (size_t i = 0; i < meshShape.size(); ++i)
    if (!inGroup[i])
      color = color * meshShape[i] + coords[i];
  return color;
}

std::vector<int64_t> groupRanks(int64_t rank, const Shape &meshShape,
                                const AxisList &axes) {
  Shape coords = delinearize(rank, meshShape);
  int64_t size = groupSize(meshShape, axes);
  std::vector<int64_t> ranks(size);
  for (int64_t index = 0; index < size; ++index) {
    // Decompose the in-group index over `axes`, last axis fastest.
    int64_t rest = index;
    for (size_t i = axes.size(); i-- > 0;) {
      coords[axes[i]] = rest % meshShape[axes[i]];
      rest /= meshShape[axes[i]];
    }
    ranks[index] = linearize(coords, meshShape);
  }
  return ranks;
}

std::vector<std::vector<int64_t>> allGroups(const Shape &meshShape,
                                            const AxisList &axes) {
  int64_t size = groupSize(meshShape, axes);
  int64_t numGroups = numDevices(meshShape) / size;
  std::vector<std::vector<int64_t>> groups(numGroups);
  for (int64_t rank = 0, n = numDevices(meshShape); rank < n; ++rank) {
    std::vector<int64_t> &group = groups[groupColor(rank, meshShape, axes)];
    if (group.empty())
      group = groupRanks(rank, meshShape, axes);
  }
  return groups;
}

std::optional<int64_t> localDimSize(int64_t globalSize, int64_t factor) {
  if (globalSize < 0)
    return globalSize;
  if (factor <= 0)
    return std::nullopt;
  return (globalSize + factor - 1) / factor;
}

std::optional<int64_t> haloBlockSize(int64_t globalSize, int64_t factor,
                                     const Halo &halo) {
  if (halo.empty())
    return localDimSize(globalSize, factor);
  int64_t core = globalSize - halo.overlap;
  if (globalSize < 0 || factor <= 0 || core <= 0 || core % factor != 0)
    return std::nullopt;
  int64_t block = core / factor;
  if (halo.lo < 0 || halo.hi < 0 || halo.overlap < 0 || halo.lo > block ||
      halo.hi > block)
    return std::nullopt;
  return block;
}

std::optional<Shape> localShape(const Shape &globalShape,
                                const std::vector<AxisList> &dimAxes,
                                const Shape &meshShape,
                                const std::vector<Halo> &halos) {
  assert(globalShape.size() == dimAxes.size() && "rank mismatch");
  Shape local(globalShape.size());
  for (size_t d = 0; d < globalShape.size(); ++d) {
    Halo halo = haloOf(halos, d);
    std::optional<int64_t> size =
        haloBlockSize(globalShape[d], groupSize(meshShape, dimAxes[d]), halo);
    if (!size)
      return std::nullopt;
    local[d] = *size + halo.extra();
  }
  return local;
}

Shape localOffsets(const Shape &globalShape,
                   const std::vector<AxisList> &dimAxes,
                   const Shape &meshShape, const Shape &coords,
                   const std::vector<Halo> &halos) {
  Shape offsets(globalShape.size());
  for (size_t d = 0; d < globalShape.size(); ++d) {
    Halo halo = haloOf(halos, d);
    std::optional<int64_t> block = haloBlockSize(
        globalShape[d], groupSize(meshShape, dimAxes[d]), halo);
    assert(block && "bad split");
    offsets[d] = indexInGroup(coords, meshShape, dimAxes[d]) * *block - halo.lo;
  }
  return offsets;
}

} // namespace meshmath
