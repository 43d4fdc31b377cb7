//===- MeshMath.h - Rank, coordinate and shard arithmetic -------*- C++ -*-===//
//
// The arithmetic of a row-major device mesh: linear rank <-> coordinates,
// groups of ranks spanned by mesh axes, and local shapes and offsets of split
// dimensions. Plain C++ with no MLIR or LLVM dependency, so the runtime
// library computes groups exactly as the compiler does.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_SUPPORT_MESHMATH_H
#define DIST_SUPPORT_MESHMATH_H

#include <cstdint>
#include <optional>
#include <vector>

namespace meshmath {

using Shape = std::vector<int64_t>;
using AxisList = std::vector<int64_t>;

/// Number of devices in a mesh of shape `meshShape` (1 for a 0-d mesh).
int64_t numDevices(const Shape &meshShape);

/// Coordinates of linear rank `rank` (row-major: the last axis varies
/// fastest). Requires 0 <= rank < numDevices(meshShape).
Shape delinearize(int64_t rank, const Shape &meshShape);

/// Linear rank of `coords` (row-major). Requires each coordinate in range.
int64_t linearize(const Shape &coords, const Shape &meshShape);

/// Number of ranks in a group spanned by `axes` (product of their sizes).
int64_t groupSize(const Shape &meshShape, const AxisList &axes);

/// Index of the rank at `coords` within its group along `axes`: the
/// coordinates along `axes`, linearized with the first axis as the major one.
int64_t indexInGroup(const Shape &coords, const Shape &meshShape,
                     const AxisList &axes);

/// Index of the group along `axes` that `rank` belongs to: its coordinates on
/// the other axes, linearized in mesh order. Ranks with equal colors form one
/// group (the `color` of an MPI_Comm_split).
int64_t groupColor(int64_t rank, const Shape &meshShape, const AxisList &axes);

/// The ranks of the group along `axes` that contains `rank`, ordered by their
/// index in the group.
std::vector<int64_t> groupRanks(int64_t rank, const Shape &meshShape,
                                const AxisList &axes);

/// Every group along `axes`, ordered by color; together they partition the
/// mesh.
std::vector<std::vector<int64_t>> allGroups(const Shape &meshShape,
                                            const AxisList &axes);

/// Size of each block of a dimension of global size `globalSize` split
/// `factor` ways: `ceil(globalSize / factor)`. A dim that `factor` does not
/// divide is padded: the blocks cover `factor * ceil(globalSize / factor)`
/// rows, the last ones partly or wholly padding. Dynamic sizes (negative)
/// stay dynamic; std::nullopt if `factor` < 1.
std::optional<int64_t> localDimSize(int64_t globalSize, int64_t factor);

/// True if a static dim of size `globalSize` split `factor` ways is padded
/// (`factor` does not divide it).
inline bool isPaddedSplit(int64_t globalSize, int64_t factor) {
  return globalSize >= 0 && factor > 1 && globalSize % factor != 0;
}

/// Extra rows around the blocks of a split dim (stencils). Block `i` of `k`
/// is `b` rows; the rank holding it holds global rows `[i*b - lo, i*b + b +
/// hi + overlap)`, rows outside the dim reading as zeros:
/// - a *halo* (`lo`, `hi`; upstream `shard`'s `halo_sizes`): `b = n / k`, and
///   the first and last ranks hold `lo` and `hi` rows of zeros (ghost cells);
/// - an *overlap* (`overlap`): `b = (n - overlap) / k`, and each block also
///   holds the next block's first `overlap` rows (a window's input: the
///   zero-padded form of a dim with halos, or the input of a convolution).
/// Blocks with extra rows are never padded: `k` divides `n - overlap`.
struct Halo {
  int64_t lo = 0, hi = 0, overlap = 0;
  bool empty() const { return lo == 0 && hi == 0 && overlap == 0; }
  /// Rows a rank holds beyond its block.
  int64_t extra() const { return lo + hi + overlap; }
  bool operator==(const Halo &other) const {
    return lo == other.lo && hi == other.hi && overlap == other.overlap;
  }
};

/// The halo of dim `d` in `halos` (none if `halos` is empty).
inline Halo haloOf(const std::vector<Halo> &halos, size_t d) {
  return d < halos.size() ? halos[d] : Halo();
}

/// The block size of a dim of `globalSize` split `factor` ways with `halo`
/// (without its extra rows): `localDimSize` without a halo, `(globalSize -
/// overlap) / factor` with one. std::nullopt if the split is padded, the
/// size dynamic, or `lo`/`hi` exceed the block (rows only come from the
/// neighbours).
std::optional<int64_t> haloBlockSize(int64_t globalSize, int64_t factor,
                                     const Halo &halo);

/// The global size of a dim whose blocks (with `halo`'s extra rows) have
/// `localSize` rows, split `factor` ways (padded splits: a multiple of the
/// block; see `dist.global_shape`). Dynamic sizes stay dynamic.
inline int64_t globalDimSize(int64_t localSize, int64_t factor,
                             const Halo &halo = {}) {
  if (localSize < 0)
    return localSize;
  return (localSize - halo.extra()) * factor + halo.overlap;
}

/// Local shape of a tensor of shape `globalShape` whose dim d is split by the
/// mesh axes `dimAxes[d]` (blocks of `localDimSize`), with the extra rows of
/// `halos[d]` (`halos` empty: none).
std::optional<Shape> localShape(const Shape &globalShape,
                                const std::vector<AxisList> &dimAxes,
                                const Shape &meshShape,
                                const std::vector<Halo> &halos = {});

/// Offset along each dim of the block that the rank at `coords` holds (past
/// the dim's end for a block that is all padding; negative for a halo's
/// ghost rows before the first block). Requires static dims.
Shape localOffsets(const Shape &globalShape,
                   const std::vector<AxisList> &dimAxes,
                   const Shape &meshShape, const Shape &coords,
                   const std::vector<Halo> &halos = {});

} // namespace meshmath

#endif // DIST_SUPPORT_MESHMATH_H
