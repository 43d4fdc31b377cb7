//===- ReshardPlanTest.cpp - Reshard plans, simulated on every rank -------===//
//
// Runs each plan on a simulated mesh, every rank holding its local block of
// a 2-D tensor, and checks that every rank ends with exactly the block the
// target layout gives it (for partial targets: that the partial values
// reduce to that block; for owned targets: only on the owners). Ranks that do
// not own a value hold NaN, so a plan that reads them fails. Covers every
// pair of layouts of a 2-D tensor on a 2x2x2 mesh and on a 2x3 mesh.
//
//===----------------------------------------------------------------------===//

#include "dist/Support/ReshardPlan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace meshmath;

namespace {

enum { kSum = 0, kMax = 1 };

/// A rank's local 2-D block, row-major.
struct Block {
  int64_t rows = 0, cols = 0;
  std::vector<double> data;
  double &at(int64_t r, int64_t c) { return data[r * cols + c]; }
  double at(int64_t r, int64_t c) const { return data[r * cols + c]; }
};

class Simulator {
public:
  Simulator(Shape mesh, Shape global) : mesh(mesh), global(global) {}

  /// The true value of global element (r, c).
  double value(int64_t r, int64_t c) const { return r * global[1] + c + 1; }

  Shape offsetsOf(const Layout &layout, int64_t rank) const {
    return localOffsets(global, layout.dims, mesh, delinearize(rank, mesh),
                        layout.halos);
  }

  /// True if (r, c) of `rank`'s block under `layout` is padding (a halo's
  /// rows outside the tensor are zeros, not padding).
  bool isPadding(const Layout &layout, int64_t rank, int64_t r, int64_t c) const {
    Shape offsets = offsetsOf(layout, rank);
    return (offsets[0] + r >= global[0] && haloOf(layout.halos, 0).empty()) ||
           (offsets[1] + c >= global[1] && haloOf(layout.halos, 1).empty());
  }

  /// Every rank's block of the true tensor under `layout`'s dims; padding
  /// holds NaN, so a plan that reads it fails; a halo's rows outside the
  /// tensor hold 0.
  std::vector<Block> expected(const Layout &layout) const {
    std::vector<Block> blocks;
    Shape local = *localShape(global, layout.dims, mesh, layout.halos);
    for (int64_t rank = 0; rank < numDevices(mesh); ++rank) {
      Shape offsets = offsetsOf(layout, rank);
      Block b{local[0], local[1], std::vector<double>(local[0] * local[1])};
      for (int64_t r = 0; r < b.rows; ++r)
        for (int64_t c = 0; c < b.cols; ++c) {
          int64_t gr = offsets[0] + r, gc = offsets[1] + c;
          bool outside = gr < 0 || gc < 0 || gr >= global[0] || gc >= global[1];
          b.at(r, c) = isPadding(layout, rank, r, c) ? NAN
                       : outside                     ? 0.0
                                                     : value(gr, gc);
        }
      blocks.push_back(b);
    }
    return blocks;
  }

  /// `count` rows (dim 0) or columns (dim 1) of `b` from `start`; zeros
  /// outside `b`.
  static Block range(const Block &b, int64_t dim, int64_t start, int64_t count) {
    Block out = b;
    (dim == 0 ? out.rows : out.cols) = count;
    out.data.assign(out.rows * out.cols, 0);
    int64_t extent = dim == 0 ? b.rows : b.cols;
    for (int64_t r = 0; r < out.rows; ++r)
      for (int64_t c = 0; c < out.cols; ++c) {
        int64_t i = (dim == 0 ? r : c) + start;
        if (i >= 0 && i < extent)
          out.at(r, c) = dim == 0 ? b.at(i, c) : b.at(r, i);
      }
    return out;
  }

  /// `b` with `dim` padded (NaN) or cropped to `size`.
  static Block resize(const Block &b, int64_t dim, int64_t size) {
    Block out = b;
    (dim == 0 ? out.rows : out.cols) = size;
    out.data.assign(out.rows * out.cols, NAN);
    for (int64_t r = 0; r < std::min(out.rows, b.rows); ++r)
      for (int64_t c = 0; c < std::min(out.cols, b.cols); ++c)
        out.at(r, c) = b.at(r, c);
    return out;
  }

  /// True if `rank` holds values under `layout` (it owns them, if owned).
  bool holds(const Layout &layout, int64_t rank) const {
    return !layout.isOwned() ||
           indexInGroup(delinearize(rank, mesh), mesh, layout.owned) ==
               layout.owner;
  }

  /// Fills the blocks of the ranks that do not hold `layout`'s value with
  /// NaN.
  void spoilNonOwners(std::vector<Block> &blocks, const Layout &layout) const {
    for (int64_t rank = 0; rank < numDevices(mesh); ++rank)
      if (!holds(layout, rank))
        std::fill(blocks[rank].data.begin(), blocks[rank].data.end(), NAN);
  }

  /// The blocks of `layout`, with partial values whose reduction is the truth.
  std::vector<Block> make(const Layout &layout) const {
    std::vector<Block> blocks = expected(layout);
    spoilNonOwners(blocks, layout);
    if (layout.partial.empty())
      return blocks;
    int64_t n = groupSize(mesh, layout.partial);
    for (int64_t rank = 0; rank < numDevices(mesh); ++rank) {
      int64_t k = indexInGroup(delinearize(rank, mesh), mesh, layout.partial);
      for (double &x : blocks[rank].data)
        x = layout.partialKind == kSum ? x * (k + 1) / (n * (n + 1) / 2.0)
                                       : x - k;
    }
    return blocks;
  }

  /// Reduces the blocks of each group along `axes` elementwise.
  std::vector<Block> reduce(const std::vector<Block> &blocks,
                            const AxisList &axes, int kind) const {
    std::vector<Block> out = blocks;
    for (const std::vector<int64_t> &group : allGroups(mesh, axes)) {
      Block acc = blocks[group[0]];
      for (size_t i = 1; i < group.size(); ++i)
        for (size_t e = 0; e < acc.data.size(); ++e)
          acc.data[e] = kind == kSum ? acc.data[e] + blocks[group[i]].data[e]
                                     : std::max(acc.data[e], blocks[group[i]].data[e]);
      for (int64_t rank : group)
        out[rank] = acc;
    }
    return out;
  }

  static Block cut(const Block &b, int64_t dim, int64_t pieces, int64_t i) {
    Block out = b;
    (dim == 0 ? out.rows : out.cols) /= pieces;
    out.data.assign(out.rows * out.cols, 0);
    for (int64_t r = 0; r < out.rows; ++r)
      for (int64_t c = 0; c < out.cols; ++c)
        out.at(r, c) = dim == 0 ? b.at(i * out.rows + r, c)
                                : b.at(r, i * out.cols + c);
    return out;
  }

  static Block concat(const std::vector<Block> &parts, int64_t dim) {
    Block out = parts[0];
    (dim == 0 ? out.rows : out.cols) = 0;
    for (const Block &part : parts)
      (dim == 0 ? out.rows : out.cols) += dim == 0 ? part.rows : part.cols;
    out.data.assign(out.rows * out.cols, 0);
    int64_t start = 0;
    for (const Block &part : parts) {
      for (int64_t r = 0; r < part.rows; ++r)
        for (int64_t c = 0; c < part.cols; ++c)
          (dim == 0 ? out.at(start + r, c) : out.at(r, start + c)) = part.at(r, c);
      start += dim == 0 ? part.rows : part.cols;
    }
    return out;
  }

  std::vector<Block> run(std::vector<Block> blocks, const ReshardStep &step) const {
    if (step.padTo >= 0)
      for (Block &b : blocks)
        b = resize(b, step.dim, step.padTo);
    std::vector<Block> out = runPadded(blocks, step);
    if (step.cropTo >= 0)
      for (Block &b : out)
        b = resize(b, step.kind == ReshardStep::AllToAll ? step.concatDim : step.dim,
                   step.cropTo);
    return out;
  }

  std::vector<Block> runPadded(std::vector<Block> blocks,
                               const ReshardStep &step) const {
    std::vector<Block> out = blocks;
    int64_t ranks = numDevices(mesh);
    switch (step.kind) {
    case ReshardStep::AllReduce:
      return reduce(blocks, step.axes, step.reduction);
    case ReshardStep::ReduceScatter: {
      std::vector<Block> reduced = reduce(blocks, step.axes, step.reduction);
      int64_t n = groupSize(mesh, step.axes);
      for (int64_t rank = 0; rank < ranks; ++rank)
        out[rank] = cut(reduced[rank], step.dim, n,
                        indexInGroup(delinearize(rank, mesh), mesh, step.axes));
      return out;
    }
    case ReshardStep::AllGather:
      for (int64_t rank = 0; rank < ranks; ++rank) {
        std::vector<Block> parts;
        for (int64_t peer : groupRanks(rank, mesh, step.axes))
          parts.push_back(blocks[peer]);
        out[rank] = concat(parts, step.dim);
      }
      return out;
    case ReshardStep::AllToAll: {
      int64_t n = groupSize(mesh, step.axes);
      for (int64_t rank = 0; rank < ranks; ++rank) {
        int64_t me = indexInGroup(delinearize(rank, mesh), mesh, step.axes);
        std::vector<Block> parts;
        for (int64_t peer : groupRanks(rank, mesh, step.axes))
          parts.push_back(cut(blocks[peer], step.dim, n, me));
        out[rank] = concat(parts, step.concatDim);
      }
      return out;
    }
    case ReshardStep::Slice: {
      int64_t n = groupSize(mesh, step.axes);
      for (int64_t rank = 0; rank < ranks; ++rank)
        out[rank] = cut(blocks[rank], step.dim, n,
                        indexInGroup(delinearize(rank, mesh), mesh, step.axes));
      return out;
    }
    case ReshardStep::MakePartial:
      if (step.reduction == kSum || step.fromOwner)
        for (int64_t rank = 0; rank < ranks; ++rank)
          if (indexInGroup(delinearize(rank, mesh), mesh, step.axes) !=
              step.root)
            std::fill(out[rank].data.begin(), out[rank].data.end(),
                      step.reduction == kSum ? 0.0 : -INFINITY);
      return out;
    case ReshardStep::Reduce: {
      std::vector<Block> reduced = reduce(blocks, step.axes, step.reduction);
      for (int64_t rank = 0; rank < ranks; ++rank) {
        out[rank] = reduced[rank];
        if (indexInGroup(delinearize(rank, mesh), mesh, step.axes) != step.root)
          std::fill(out[rank].data.begin(), out[rank].data.end(), NAN);
      }
      return out;
    }
    case ReshardStep::Broadcast:
      for (int64_t rank = 0; rank < ranks; ++rank)
        out[rank] = blocks[groupRanks(rank, mesh, step.axes)[step.root]];
      return out;
    case ReshardStep::Own:
      for (int64_t rank = 0; rank < ranks; ++rank)
        if (indexInGroup(delinearize(rank, mesh), mesh, step.axes) != step.root)
          std::fill(out[rank].data.begin(), out[rank].data.end(), NAN);
      return out;
    case ReshardStep::DropHalo:
    case ReshardStep::ExchangeHalo:
    case ReshardStep::SliceOverlap:
    case ReshardStep::GatherOverlap:
    case ReshardStep::OverlapToBlock:
    case ReshardStep::HaloToOverlap:
      for (int64_t rank = 0; rank < ranks; ++rank)
        out[rank] = runHaloStep(blocks, step, rank);
      return out;
    }
    return out;
  }

  Block runHaloStep(const std::vector<Block> &blocks, const ReshardStep &step,
                    int64_t rank) const {
    const Block &mine = blocks[rank];
    int64_t d = step.dim, extent = d == 0 ? mine.rows : mine.cols;
    const Halo &h = step.halo;
    std::vector<int64_t> group = groupRanks(rank, mesh, step.axes);
    int64_t k = group.size();
    int64_t me = indexInGroup(delinearize(rank, mesh), mesh, step.axes);
    switch (step.kind) {
    case ReshardStep::DropHalo:
      return range(mine, d, h.lo, extent - h.lo - h.hi);
    case ReshardStep::ExchangeHalo: {
      // Ends get zeros: a range past the block.
      Block before = me > 0 ? range(blocks[group[me - 1]], d, extent - h.lo, h.lo)
                            : range(mine, d, -h.lo - 1, h.lo);
      Block after = me + 1 < k ? range(blocks[group[me + 1]], d, 0, h.hi)
                               : range(mine, d, extent + 1, h.hi);
      return concat({before, mine, after}, d);
    }
    case ReshardStep::SliceOverlap: {
      int64_t block = (extent - h.overlap) / k;
      return range(mine, d, me * block, block + h.overlap);
    }
    case ReshardStep::GatherOverlap: {
      int64_t block = extent - h.overlap;
      std::vector<Block> parts;
      for (int64_t peer : group)
        parts.push_back(range(blocks[peer], d, 0, block));
      parts.push_back(range(blocks[group.back()], d, block, h.overlap));
      return concat(parts, d);
    }
    case ReshardStep::OverlapToBlock: {
      int64_t shift = h.overlap / k, block = extent - h.overlap + shift;
      return range(mine, d, me * shift, block);
    }
    case ReshardStep::HaloToOverlap: {
      int64_t shift = h.overlap / k, rows = (k - 1) * shift;
      int64_t block = extent - 2 * rows - shift;
      return range(mine, d, rows - me * shift, block + h.overlap);
    }
    default:
      return mine;
    }
  }

  /// Checks `plan` from `source` to `target`; returns a message on failure.
  std::string check(const Layout &source, const Layout &target) const {
    std::vector<ReshardStep> plan = planReshard(source, target, global, mesh);
    std::vector<Block> blocks = make(source);
    Layout layout = source;
    std::string trace;
    for (const ReshardStep &step : plan) {
      blocks = run(blocks, step);
      layout = applyStep(layout, step);
      trace += step.str() + "; ";
    }
    if (!(layout == target))
      return "plan ends in another layout: " + trace;
    std::vector<Block> logical =
        target.partial.empty() ? blocks
                               : reduce(blocks, target.partial, target.partialKind);
    std::vector<Block> want = expected(target);
    for (size_t rank = 0; rank < want.size(); ++rank) {
      if (!holds(target, rank))
        continue;
      if (logical[rank].rows != want[rank].rows || logical[rank].cols != want[rank].cols)
        return "wrong local shape on rank " + std::to_string(rank) + ": " + trace;
      for (int64_t r = 0; r < want[rank].rows; ++r)
        for (int64_t c = 0; c < want[rank].cols; ++c)
          if (!isPadding(target, rank, r, c) &&
              !(std::fabs(logical[rank].at(r, c) - want[rank].at(r, c)) <= 1e-9))
            return "wrong value on rank " + std::to_string(rank) + ": " + trace;
    }
    return "";
  }

  Shape mesh, global;
};

std::string describe(const Layout &l) {
  std::string s = "[";
  for (const AxisList &dim : l.dims) {
    s += "{";
    for (int64_t a : dim)
      s += std::to_string(a);
    s += "}";
  }
  s += "]";
  if (!l.partial.empty()) {
    s += (l.partialKind == kSum ? " sum{" : " max{");
    for (int64_t a : l.partial)
      s += std::to_string(a);
    s += "}";
  }
  if (l.isOwned()) {
    s += " owner " + std::to_string(l.owner) + "{";
    for (int64_t a : l.owned)
      s += std::to_string(a);
    s += "}";
  }
  return s;
}

/// Every layout of a 2-D tensor on a mesh of shape `meshShape`: each axis
/// splits dim 0, dim 1, is partial, owned, or unused; every order within a
/// dim; the owner is the last rank of its group.
std::vector<Layout> allLayouts(const Shape &meshShape, int partialKind) {
  int64_t numAxes = meshShape.size();
  std::vector<Layout> layouts;
  std::vector<int> place(numAxes, 0);
  std::function<void(int64_t)> assign = [&](int64_t axis) {
    if (axis == numAxes) {
      Layout base;
      base.dims.resize(2);
      base.partialKind = partialKind;
      for (int64_t a = 0; a < numAxes; ++a) {
        if (place[a] == 1 || place[a] == 2)
          base.dims[place[a] - 1].push_back(a);
        else if (place[a] == 3)
          base.partial.push_back(a);
        else if (place[a] == 4)
          base.owned.push_back(a);
      }
      if (base.isOwned())
        base.owner = groupSize(meshShape, base.owned) - 1;
      // Every order of the axes within each dim.
      AxisList d0 = base.dims[0];
      do {
        AxisList d1 = base.dims[1];
        do {
          Layout l = base;
          l.dims = {d0, d1};
          layouts.push_back(l);
        } while (std::next_permutation(d1.begin(), d1.end()));
      } while (std::next_permutation(d0.begin(), d0.end()));
      return;
    }
    for (int p = 0; p < 5; ++p) {
      place[axis] = p;
      assign(axis + 1);
    }
  };
  assign(0);
  return layouts;
}

/// Checks the plan between every pair of `layouts`; reports the first
/// failures and returns how many there were.
int checkAllPairs(const Simulator &sim, const std::vector<Layout> &layouts) {
  int failures = 0;
  for (const Layout &from : layouts)
    for (const Layout &to : layouts) {
      std::string error = sim.check(from, to);
      if (!error.empty() && ++failures <= 10)
        ADD_FAILURE() << describe(from) << " -> " << describe(to) << ": " << error;
    }
  return failures;
}

// Tests every pair of layouts (sum partials) on a 2x2x2 mesh.
TEST(ReshardPlan, AllPairsOn2x2x2) {
  Simulator sim({2, 2, 2}, {8, 8});
  std::vector<Layout> layouts = allLayouts({2, 2, 2}, kSum);
  ASSERT_EQ(layouts.size(), 159u);
  EXPECT_EQ(checkAllPairs(sim, layouts), 0);
}

// Tests every pair of layouts on a 2x3 mesh, with max partials.
TEST(ReshardPlan, AllPairsOn2x3WithMax) {
  Simulator sim({2, 3}, {12, 6});
  std::vector<Layout> layouts = allLayouts({2, 3}, kMax);
  EXPECT_EQ(checkAllPairs(sim, layouts), 0);
}

// Tests every pair of layouts of a 5x7 tensor, which no split of a 2x3 mesh
// divides but one: padded blocks, padding (NaN) never read.
TEST(ReshardPlan, AllPairsOn2x3Uneven) {
  for (int kind : {kSum, kMax}) {
    Simulator sim({2, 3}, {5, 7});
    EXPECT_EQ(checkAllPairs(sim, allLayouts({2, 3}, kind)), 0);
  }
}

// Tests every pair of layouts of a 5x3 tensor on a 2x2x2 mesh (blocks of 1
// row that are all padding on some ranks).
TEST(ReshardPlan, AllPairsOn2x2x2Uneven) {
  Simulator sim({2, 2, 2}, {5, 3});
  EXPECT_EQ(checkAllPairs(sim, allLayouts({2, 2, 2}, kSum)), 0);
}

/// The layouts of `allLayouts` that are neither partial nor owned, each
/// also with every halo of `halos` on every split dim where it fits
/// `global` (the verifier refuses halos on partial or owned layouts).
std::vector<Layout> withHalos(const Shape &meshShape, const Shape &global,
                              const std::vector<Halo> &halos) {
  std::vector<Layout> result;
  for (const Layout &base : allLayouts(meshShape, kSum)) {
    if (!base.partial.empty() || base.isOwned())
      continue;
    std::vector<std::vector<Halo>> options = {{}};
    for (size_t d = 0; d < base.dims.size(); ++d) {
      std::vector<std::vector<Halo>> next;
      for (const std::vector<Halo> &prefix : options)
        for (size_t h = 0; h <= halos.size(); ++h) {
          Halo halo = h < halos.size() ? halos[h] : Halo();
          if (!halo.empty() && base.dims[d].empty())
            continue;
          std::vector<Halo> extended = prefix;
          extended.push_back(halo);
          next.push_back(extended);
        }
      options = next;
    }
    for (const std::vector<Halo> &option : options) {
      Layout l = base;
      l.halos = option;
      if (!l.hasHalos())
        l.halos.clear();
      if (!localShape(global, l.dims, meshShape, l.halos))
        continue; // a halo wider than the block, an uneven overlap
      result.push_back(l);
    }
  }
  return result;
}

// Tests every pair of layouts with halos (ghost rows of zeros at the ends)
// and overlapping blocks on a 2x2 mesh and on a 4-rank line.
TEST(ReshardPlan, AllPairsWithHalos) {
  std::vector<Halo> halos = {{1, 1, 0}, {0, 2, 0}, {2, 1, 0}, {0, 0, 2}, {0, 0, 4}};
  for (auto [meshShape, global] :
       std::vector<std::pair<Shape, Shape>>{
           {{2, 2}, {8, 6}}, {{4}, {10, 8}}, {{4}, {16, 8}}, {{2, 2}, {12, 8}}}) {
    Simulator sim(meshShape, global);
    std::vector<Layout> layouts = withHalos(meshShape, global, halos);
    EXPECT_GE(layouts.size(), 7u);
    EXPECT_EQ(checkAllPairs(sim, layouts), 0);
  }
}

std::string planText(const Layout &from, const Layout &to,
                     const Shape &global = {}, const Shape &mesh = {}) {
  std::string text;
  for (const ReshardStep &step : planReshard(from, to, global, mesh))
    text += (text.empty() ? "" : "; ") + step.str();
  return text;
}


Layout layout(std::vector<AxisList> dims, AxisList partial = {}) {
  Layout l;
  l.dims = std::move(dims);
  l.partial = std::move(partial);
  return l;
}

// Tests the padding and crops of uneven plans: 10 rows on a 2x4 mesh.
TEST(ReshardPlan, PadsAndCropsUnevenDims) {
  Shape mesh = {2, 4}, global = {10, 8};
  // Replicated -> 4 blocks of 3: pad to 12 rows, slice.
  EXPECT_EQ(planText(layout({{}, {}}), layout({{1}, {}}), global, mesh),
            "slice [1] dim 0 pad 12");
  // 8 blocks of 2 -> whole: gather 16 rows, keep 10.
  EXPECT_EQ(planText(layout({{0, 1}, {}}), layout({{}, {}}), global, mesh),
            "all_gather [1] dim 0; all_gather [0] dim 0 crop 10");
  // 8 blocks of 2 -> 2 blocks of 5: whole first (the blocks do not nest).
  EXPECT_EQ(planText(layout({{0, 1}, {}}), layout({{0}, {}}), global, mesh),
            "all_gather [1] dim 0; all_gather [0] dim 0 crop 10; slice [0] dim 0");
  // Even splits plan as before.
  EXPECT_EQ(planText(layout({{}, {0, 1}}), layout({{}, {0}}), global, mesh),
            "all_gather [1] dim 1");
  // A partial sum reduce-scattered into padded blocks.
  EXPECT_EQ(planText(layout({{}, {}}, {1}), layout({{1}, {}}), global, mesh),
            "reduce_scatter [1] dim 0 pad 12");
  // A split moved from an even dim to an uneven one and back.
  EXPECT_EQ(planText(layout({{}, {1}}), layout({{1}, {}}), global, mesh),
            "all_to_all [1] split 0 concat 1 pad 12");
  EXPECT_EQ(planText(layout({{1}, {}}), layout({{}, {1}}), global, mesh),
            "all_to_all [1] split 1 concat 0 crop 10");
}

// Tests that the plans use the cheapest collective for the common cases.
TEST(ReshardPlan, PicksTheCheapCollectives) {
  // Split -> replicated: all_gather.
  EXPECT_EQ(planText(layout({{0}, {}}), layout({{}, {}})), "all_gather [0] dim 0");
  // Replicated -> split: a local slice.
  EXPECT_EQ(planText(layout({{}, {}}), layout({{}, {1}})), "slice [1] dim 1");
  // Move a split to the other dim: all_to_all.
  EXPECT_EQ(planText(layout({{0}, {}}), layout({{}, {0}})),
            "all_to_all [0] split 1 concat 0");
  // Partial -> replicated: all_reduce; partial -> split: reduce_scatter.
  EXPECT_EQ(planText(layout({{}, {}}, {0}), layout({{}, {}})), "all_reduce [0]");
  EXPECT_EQ(planText(layout({{}, {}}, {0}), layout({{0}, {}})),
            "reduce_scatter [0] dim 0");
  // Swap the axes of two dims on a 2-D mesh. An all_to_all may only move the
  // minor axis of a dim, so one axis is gathered and sliced back.
  EXPECT_EQ(planText(layout({{0}, {1}}), layout({{1}, {0}})),
            "all_gather [0] dim 0; all_to_all [1] split 0 concat 1; slice [0] dim 1");
  // Move the minor of two axes to the other dim: one all_to_all.
  EXPECT_EQ(planText(layout({{0, 1}, {}}), layout({{0}, {1}})),
            "all_to_all [1] split 1 concat 0");
  // Nothing to do.
  EXPECT_EQ(planText(layout({{0, 1}, {}}, {2}), layout({{0, 1}, {}}, {2})), "");
}

Layout owned(std::vector<AxisList> dims, AxisList axes, int64_t owner,
             AxisList partial = {}) {
  Layout l = layout(std::move(dims), std::move(partial));
  l.owned = std::move(axes);
  l.owner = owner;
  return l;
}

// Tests the steps of the owned state (ZeRO in the seeds' style: a gradient
// reduced onto its owner, the update broadcast from it).
TEST(ReshardPlan, OwnershipSteps) {
  // Partial -> owned: reduce onto the owner; owned -> replicated: broadcast.
  EXPECT_EQ(planText(layout({{}, {}}, {0}), owned({{}, {}}, {0}, 1)),
            "reduce [0] root 1");
  EXPECT_EQ(planText(owned({{}, {}}, {0}, 1), layout({{}, {}})),
            "broadcast [0] root 1");
  // Replicated -> owned costs nothing.
  EXPECT_EQ(planText(layout({{}, {}}), owned({{}, {}}, {0}, 1)), "own [0] root 1");
  // Owned -> partial over the owned axes: the others masked, no traffic.
  EXPECT_EQ(planText(owned({{}, {}}, {0}, 1), layout({{}, {}}, {0})),
            "make_partial [0] root 1");
  // Hybrid: reduced onto the owner within its group, summed over the other
  // axis among the ranks of equal index.
  EXPECT_EQ(planText(layout({{}, {}}, {0, 1}), owned({{}, {}}, {1}, 0)),
            "reduce [1] root 0; all_reduce [0]");
  // Another owner: broadcast, then owned again.
  EXPECT_EQ(planText(owned({{}, {}}, {0}, 1), owned({{}, {}}, {0}, 0)),
            "broadcast [0] root 1; own [0] root 0");
  // Owned and split over another axis: the split changes among the owners.
  EXPECT_EQ(planText(owned({{1}, {}}, {0}, 1), owned({{}, {}}, {0}, 1)),
            "all_gather [1] dim 0");
}

// Tests the halo steps: halos are dropped locally and exchanged with the
// neighbours; overlapping blocks are sliced out of a whole dim, and gathered
// whole unless the dim also splits evenly into plain blocks.
TEST(ReshardPlan, HaloSteps) {
  Layout plain = layout({{0}, {}}), ghost = plain, window = plain;
  ghost.halos = {{1, 2, 0}, {}};
  window.halos = {{0, 0, 2}, {}};
  Shape mesh = {2}, global = {10, 4};
  EXPECT_EQ(planText(plain, ghost, global, mesh), "exchange_halo [0] dim 0 halo 1,2");
  EXPECT_EQ(planText(ghost, plain, global, mesh), "drop_halo [0] dim 0 halo 1,2");
  EXPECT_EQ(planText(layout({{}, {}}), window, global, mesh),
            "slice_overlap [0] dim 0 overlap 2");
  // 10 rows on 2 ranks: plain blocks of 5, overlapping blocks of 4 + 2 (a
  // shift of 1 per block). Each overlapping block holds its plain block (a
  // local slice); a plain block gets one row from each neighbour, then a
  // local slice.
  EXPECT_EQ(planText(window, plain, global, mesh), "overlap_to_block [0] dim 0 overlap 2");
  EXPECT_EQ(planText(window, layout({{}, {}}), global, mesh),
            "overlap_to_block [0] dim 0 overlap 2; all_gather [0] dim 0");
  EXPECT_EQ(planText(plain, window, global, mesh),
            "exchange_halo [0] dim 0 halo 1,1; halo_to_overlap [0] dim 0 overlap 2");
  EXPECT_EQ(planText(ghost, window, global, mesh),
            "drop_halo [0] dim 0 halo 1,2; exchange_halo [0] dim 0 halo 1,1; "
            "halo_to_overlap [0] dim 0 overlap 2");
  // 11 rows with an overlap of 1 (blocks of 5 + 1): the plain split is
  // padded (blocks of 6), so the overlapping blocks are gathered whole.
  Layout window1 = plain;
  window1.halos = {{0, 0, 1}, {}};
  EXPECT_EQ(planText(window1, plain, {11, 4}, mesh),
            "gather_overlap [0] dim 0 overlap 1; slice [0] dim 0 pad 12");
  // A dim whose halo stays is left alone.
  Layout more = layout({{0}, {1}});
  more.halos = ghost.halos;
  EXPECT_EQ(planText(ghost, more, global, {2, 2}), "slice [1] dim 1");
}

} // namespace
