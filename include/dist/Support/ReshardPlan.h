//===- ReshardPlan.h - Collectives that change a tensor's layout -*- C++ -*-===//
//
// Plans the steps that take a tensor from one layout on a mesh to another:
// reductions of partial axes (reduce_scatter where the target splits a dim
// by that axis, else one all_reduce), moves of a split from one dim to
// another (all_to_all), un-splits (all_gather), new splits (a local slice,
// no communication), new partial state (a local mask), and ownership: a
// partial value reduced onto one rank of a group (reduce), an owned value
// copied to the whole group (broadcast). Plain C++: unit tests simulate every
// plan on every rank.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_SUPPORT_RESHARDPLAN_H
#define DIST_SUPPORT_RESHARDPLAN_H

#include "dist/Support/MeshMath.h"

#include <string>

namespace meshmath {

/// A tensor's layout: per dim the mesh axes that split it (major to minor),
/// and the axes over which it is partial.
struct Layout {
  std::vector<AxisList> dims;
  AxisList partial;
  /// The reduction the partial state stands for (dist::ReductionKind's
  /// value: 0 sum, 1 max, 2 min, 3 prod, 4 avg).
  int partialKind = 0;
  /// Mesh axes along which only one rank holds the value: the rank whose
  /// index in its group along `owned` is `owner` (what the others hold is
  /// unspecified). Empty: every rank holds it.
  AxisList owned;
  int64_t owner = 0;
  /// Per dim, the extra rows around each block (empty: none anywhere).
  std::vector<Halo> halos;

  bool isOwned() const { return !owned.empty(); }
  bool hasHalos() const;
  /// The same layout with no extra rows.
  Layout withoutHalos() const;
  /// Equal layouts: same dims and halos, same partial axes (in any order)
  /// and kind, same owned axes (in any order) and owner.
  bool operator==(const Layout &other) const;
};

struct ReshardStep {
  enum Kind {
    /// Reduce `axes` with `reduction`; every rank gets the result.
    AllReduce,
    /// Reduce over `axes` (one axis) and keep block `i` of `dim` on rank i.
    ReduceScatter,
    /// Concatenate the blocks of `dim` over `axes` (one axis).
    AllGather,
    /// Move the split by `axes` (one axis) from `concatDim` to `dim`.
    AllToAll,
    /// Keep this rank's block of `dim` along `axes` (one axis); local.
    Slice,
    /// Become partial over `axes` with `reduction`; local (ranks other than
    /// index `root` of the group hold the reduction's identity, where
    /// needed). From an owned value (`root` its owner) the mask is needed
    /// for every kind but avg, which the planner never masks from an owner.
    MakePartial,
    /// Reduce over `axes` with `reduction` onto group index `root`, which
    /// then owns the value (the others hold something unspecified).
    Reduce,
    /// Copy the value of group index `root` along `axes` to the whole group.
    Broadcast,
    /// Become owned along `axes` by group index `root`; local, no code (a
    /// value every rank holds is held by the owner in particular).
    Own,
    /// Drop the halo rows of `dim` (split by `axes`), keeping the block;
    /// local.
    DropHalo,
    /// Add `halo`'s rows to the blocks of `dim` (split by `axes`): each rank
    /// receives the last `lo` rows of the previous block and the first `hi`
    /// of the next (two permutes; the ends get zeros).
    ExchangeHalo,
    /// Split the whole `dim` by `axes` into overlapping blocks (`halo`'s
    /// overlap); local.
    SliceOverlap,
    /// Make `dim`, split by `axes` into overlapping blocks, whole: gather
    /// the blocks without their overlap, and the last block's overlap rows
    /// from the last rank of the group (all_gather + broadcast).
    GatherOverlap,
    /// Split by `axes` into overlapping blocks (`halo`'s overlap e) -> the
    /// plain split by `axes` (k divides the dim): group index i's plain
    /// block starts i * e / k rows into its overlapping one; local.
    OverlapToBlock,
    /// Plain blocks by `axes` with a halo of (k - 1) e / k rows each way ->
    /// overlapping blocks (`halo`'s overlap e; k divides the dim): group
    /// index i's starts (k - 1 - i) e / k rows into its block; local.
    HaloToOverlap,
  };
  Kind kind;
  AxisList axes;
  int64_t dim = -1;
  int64_t concatDim = -1;
  int reduction = 0;
  int64_t root = 0;
  /// MakePartial of an owned value: the ranks other than `root` hold
  /// something unspecified, so they are masked for every kind.
  bool fromOwner = false;
  /// Padded blocks (planned with the global shape): before a step that
  /// splits `dim` from whole, the dim is padded at its end to `padTo` rows
  /// (-1: no padding); after a step that leaves `dim` (AllGather) or
  /// `concatDim` (AllToAll) whole, it is cropped to its first `cropTo` rows.
  int64_t padTo = -1;
  int64_t cropTo = -1;
  /// The extra rows of the halo steps.
  Halo halo = {};

  std::string str() const;
};

/// The steps from `source` to `target` (same rank; each valid for the mesh).
/// With the tensor's global shape and the mesh's shape, uneven splits are
/// planned too: a dim that the source or the target splits into padded
/// blocks (its axes do not divide it) and that goes to another split is
/// gathered whole first, then split again, since blocks of different padded
/// splits do not nest (10 rows in 2 blocks of 5 are not 4 blocks of 3
/// regrouped); steps get their `padTo` and `cropTo`. Dims with halos or
/// overlaps (never partial or owned: the verifier refuses it) start by
/// dropping them (a slice) or turning overlapping blocks into plain ones (a
/// slice where the dim splits evenly both ways, else a gather), and end by
/// exchanging halos with the neighbours, the same for overlapping blocks
/// from the same plain split, or slicing them out of the whole dim.
std::vector<ReshardStep> planReshard(const Layout &source, const Layout &target,
                                     const Shape &globalShape = {},
                                     const Shape &meshShape = {});

/// Applies `step` to `layout` (what the layout is after the step).
Layout applyStep(Layout layout, const ReshardStep &step);

} // namespace meshmath

#endif // DIST_SUPPORT_RESHARDPLAN_H
