//===- ReshardPlan.cpp - Collectives that change a tensor's layout --------===//

#include "dist/Support/ReshardPlan.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <sstream>

namespace meshmath {

/// dist::ReductionKind::avg.
static constexpr int kAvg = 4;

static bool contains(const AxisList &list, int64_t axis) {
  return std::find(list.begin(), list.end(), axis) != list.end();
}

static bool isPrefix(const AxisList &prefix, const AxisList &of) {
  return prefix.size() <= of.size() &&
         std::equal(prefix.begin(), prefix.end(), of.begin());
}

/// The dim of `target` whose next axis, after what `current` has on it, is
/// `axis` (so appending `axis` there moves toward the target); -1 if none.
static int64_t findDimWantingNext(const Layout &current, const Layout &target,
                                  int64_t axis, int64_t exceptDim) {
  for (size_t d = 0; d < target.dims.size(); ++d) {
    const AxisList &have = current.dims[d], &want = target.dims[d];
    if ((int64_t)d != exceptDim && isPrefix(have, want) &&
        want.size() > have.size() && want[have.size()] == axis)
      return d;
  }
  return -1;
}

bool Layout::hasHalos() const {
  return std::any_of(halos.begin(), halos.end(),
                     [](const Halo &h) { return !h.empty(); });
}

Layout Layout::withoutHalos() const {
  Layout plain = *this;
  plain.halos.clear();
  return plain;
}

bool Layout::operator==(const Layout &other) const {
  AxisList mine = partial, theirs = other.partial;
  std::sort(mine.begin(), mine.end());
  std::sort(theirs.begin(), theirs.end());
  for (size_t d = 0; d < dims.size(); ++d)
    if (!(haloOf(halos, d) == haloOf(other.halos, d)))
      return false;
  return dims == other.dims && mine == theirs &&
         (partial.empty() || partialKind == other.partialKind) &&
         owned == other.owned && (owned.empty() || owner == other.owner);
}

static void removeAxes(AxisList &from, const AxisList &axes) {
  for (int64_t axis : axes)
    from.erase(std::remove(from.begin(), from.end(), axis), from.end());
}

Layout applyStep(Layout layout, const ReshardStep &step) {
  switch (step.kind) {
  case ReshardStep::AllReduce:
  case ReshardStep::ReduceScatter:
    for (int64_t axis : step.axes)
      layout.partial.erase(
          std::find(layout.partial.begin(), layout.partial.end(), axis));
    if (step.kind == ReshardStep::ReduceScatter)
      layout.dims[step.dim].push_back(step.axes.front());
    break;
  case ReshardStep::AllGather:
    layout.dims[step.dim].pop_back();
    break;
  case ReshardStep::AllToAll:
    layout.dims[step.concatDim].pop_back();
    layout.dims[step.dim].push_back(step.axes.front());
    break;
  case ReshardStep::Slice:
    layout.dims[step.dim].push_back(step.axes.front());
    break;
  case ReshardStep::MakePartial:
    layout.partial.insert(layout.partial.end(), step.axes.begin(),
                          step.axes.end());
    layout.partialKind = step.reduction;
    // Masked from an owner: the owner's value is now one of the parts.
    removeAxes(layout.owned, step.axes);
    break;
  case ReshardStep::Reduce:
    removeAxes(layout.partial, step.axes);
    layout.owned = step.axes;
    layout.owner = step.root;
    break;
  case ReshardStep::Broadcast:
    layout.owned.clear();
    layout.owner = 0;
    break;
  case ReshardStep::Own:
    layout.owned = step.axes;
    layout.owner = step.root;
    break;
  case ReshardStep::DropHalo:
  case ReshardStep::ExchangeHalo:
  case ReshardStep::SliceOverlap:
  case ReshardStep::GatherOverlap:
  case ReshardStep::OverlapToBlock:
  case ReshardStep::HaloToOverlap: {
    bool adds = step.kind == ReshardStep::ExchangeHalo ||
                step.kind == ReshardStep::SliceOverlap ||
                step.kind == ReshardStep::HaloToOverlap;
    layout.halos.resize(layout.dims.size());
    layout.halos[step.dim] = adds ? step.halo : Halo();
    if (step.kind == ReshardStep::SliceOverlap)
      layout.dims[step.dim] = step.axes;
    else if (step.kind == ReshardStep::GatherOverlap)
      layout.dims[step.dim].clear();
    if (!layout.hasHalos())
      layout.halos.clear();
    break;
  }
  }
  return layout;
}

/// Follows each dim's local size through `steps`: a split from whole into
/// the target's padded blocks pads first; a dim left whole is cropped to its
/// global size if its blocks were padded.
static void addPaddingAndCrops(std::vector<ReshardStep> &steps,
                               const Layout &source, const Layout &target,
                               const Shape &globalShape,
                               const Shape &meshShape) {
  std::optional<Shape> sizes = localShape(globalShape, source.dims, meshShape);
  if (!sizes)
    return;
  Layout current = source;
  auto known = [&](int64_t dim) { return dim >= 0 && globalShape[dim] >= 0; };
  for (ReshardStep &step : steps) {
    Layout before = current;
    current = applyStep(current, step);
    int64_t n = groupSize(meshShape, step.axes);
    // Dynamic dims are never padded (the partitioner cannot split them).
    if (!known(step.dim) ||
        (step.kind == ReshardStep::AllToAll && !known(step.concatDim)))
      continue;
    switch (step.kind) {
    case ReshardStep::Slice:
    case ReshardStep::ReduceScatter:
    case ReshardStep::AllToAll: {
      int64_t blocks = groupSize(meshShape, target.dims[step.dim]);
      if (before.dims[step.dim].empty() &&
          isPaddedSplit(globalShape[step.dim], blocks)) {
        step.padTo = blocks * *localDimSize(globalShape[step.dim], blocks);
        (*sizes)[step.dim] = step.padTo;
      }
      (*sizes)[step.dim] /= n;
      if (step.kind != ReshardStep::AllToAll)
        break;
      int64_t &joined = (*sizes)[step.concatDim];
      joined *= n;
      if (current.dims[step.concatDim].empty() &&
          joined != globalShape[step.concatDim])
        step.cropTo = joined = globalShape[step.concatDim];
      break;
    }
    case ReshardStep::AllGather: {
      int64_t &size = (*sizes)[step.dim];
      size *= n;
      if (current.dims[step.dim].empty() && size != globalShape[step.dim])
        step.cropTo = size = globalShape[step.dim];
      break;
    }
    default:
      break;
    }
  }
}

static std::vector<ReshardStep> planWithoutHalos(const Layout &source,
                                                const Layout &target,
                                                const Shape &globalShape,
                                                const Shape &meshShape);

std::vector<ReshardStep> planReshard(const Layout &source,
                                     const Layout &target,
                                     const Shape &globalShape,
                                     const Shape &meshShape) {
  assert(source.dims.size() == target.dims.size() && "rank mismatch");
  if (!source.hasHalos() && !target.hasHalos())
    return planWithoutHalos(source, target, globalShape, meshShape);
  if (source == target)
    return {};
  // Through the plain layouts: a halo's rows are dropped (local) and
  // exchanged again; overlapping blocks become the plain ones locally and
  // come back by an exchange where the dim splits evenly both ways, and
  // are otherwise gathered whole and sliced again.
  std::vector<ReshardStep> steps;
  Layout current = source;
  auto emitHaloStep = [&](ReshardStep::Kind kind, const AxisList &axes,
                          size_t dim, Halo halo) {
    ReshardStep step{kind, axes, (int64_t)dim};
    step.halo = halo;
    current = applyStep(current, step);
    steps.push_back(step);
  };
  // A dim whose split and halo stay is left alone (the plain plan does not
  // touch a dim whose layout does not change).
  auto keeps = [&](size_t d) {
    return haloOf(source.halos, d) == haloOf(target.halos, d) &&
           source.dims[d] == target.dims[d];
  };
  // Overlapping blocks of (n - e) / k rows and plain blocks of n / k (when
  // k divides n, and so e) are shifted by e / k rows per block: each
  // overlapping block holds its plain block, and a plain block plus the
  // (k - 1) e / k rows on either side holds its overlapping block.
  auto alignedSplit = [&](size_t d, const AxisList &axes, Halo halo) {
    if (globalShape.size() != source.dims.size() || meshShape.empty() ||
        axes.empty() || halo.overlap == 0)
      return false;
    int64_t n = globalShape[d], k = groupSize(meshShape, axes);
    return n >= 0 && n % k == 0 && (n - halo.overlap) % k == 0 &&
           (k - 1) * halo.overlap / k <= n / k;
  };
  Layout plainTarget = target.withoutHalos();
  std::vector<bool> exchangeToOverlap(target.dims.size(), false);
  for (size_t d = 0; d < source.dims.size(); ++d) {
    if (keeps(d))
      continue;
    Halo from = haloOf(source.halos, d), to = haloOf(target.halos, d);
    if (from.overlap && alignedSplit(d, source.dims[d], from))
      emitHaloStep(ReshardStep::OverlapToBlock, source.dims[d], d, from);
    else if (!from.empty())
      emitHaloStep(from.overlap ? ReshardStep::GatherOverlap
                                : ReshardStep::DropHalo,
                   source.dims[d], d, from);
    if (!to.overlap)
      continue;
    // From the same plain split, neighbours' rows make the overlapping
    // blocks; from anything else, they are sliced out of the whole dim.
    exchangeToOverlap[d] = current.dims[d] == target.dims[d] &&
                           alignedSplit(d, target.dims[d], to);
    if (!exchangeToOverlap[d])
      plainTarget.dims[d].clear();
  }
  for (const ReshardStep &step : planWithoutHalos(
           current.withoutHalos(), plainTarget, globalShape, meshShape)) {
    current = applyStep(current, step);
    steps.push_back(step);
  }
  for (size_t d = 0; d < target.dims.size(); ++d) {
    Halo to = haloOf(target.halos, d);
    if (keeps(d) || to.empty())
      continue;
    if (exchangeToOverlap[d]) {
      int64_t k = groupSize(meshShape, target.dims[d]);
      int64_t rows = (k - 1) * to.overlap / k;
      if (rows)
        emitHaloStep(ReshardStep::ExchangeHalo, target.dims[d], d,
                     {rows, rows, 0});
      emitHaloStep(ReshardStep::HaloToOverlap, target.dims[d], d, to);
      continue;
    }
    emitHaloStep(to.overlap ? ReshardStep::SliceOverlap
                            : ReshardStep::ExchangeHalo,
                 target.dims[d], d, to);
  }
  return steps;
}

static std::vector<ReshardStep> planWithoutHalos(const Layout &source,
                                                const Layout &target,
                                                const Shape &globalShape,
                                                const Shape &meshShape) {
  std::vector<ReshardStep> steps;
  Layout current = source;
  auto emit = [&](ReshardStep step) {
    current = applyStep(current, step);
    steps.push_back(std::move(step));
  };

  // Padded dims that go to another split are gathered whole first (minor
  // axis first). One that becomes whole needs nothing: taking its axes off
  // minor first keeps blocks of the source's padded size until the crop.
  if (globalShape.size() == source.dims.size() && !meshShape.empty())
    for (size_t d = 0; d < source.dims.size(); ++d) {
      const AxisList &from = source.dims[d], &to = target.dims[d];
      if (from.empty() || to.empty() || from == to)
        continue;
      if (!isPaddedSplit(globalShape[d], groupSize(meshShape, from)) &&
          !isPaddedSplit(globalShape[d], groupSize(meshShape, to)))
        continue;
      while (!current.dims[d].empty())
        emit({ReshardStep::AllGather, {current.dims[d].back()}, (int64_t)d, -1, 0});
    }

  // 0. Give up an ownership the target does not keep: a target partial over
  // the owned axes only needs the other ranks masked; otherwise the owner
  // broadcasts.
  if (current.isOwned() &&
      (current.owned != target.owned || current.owner != target.owner)) {
    bool maskToPartial =
        std::all_of(current.owned.begin(), current.owned.end(),
                    [&](int64_t axis) { return contains(target.partial, axis); }) &&
        target.partialKind != kAvg &&
        (current.partial.empty() || current.partialKind == target.partialKind);
    if (maskToPartial)
      emit({ReshardStep::MakePartial, current.owned, -1, -1, target.partialKind,
            current.owner, /*fromOwner=*/true});
    else
      emit({ReshardStep::Broadcast, current.owned, -1, -1, 0, current.owner});
  }

  // 1. Reduce the partial axes the target does not keep: onto the owner
  // where the target owns the value along exactly those axes (reduce), with
  // half the traffic where the target splits a dim by the axis
  // (reduce_scatter), else everywhere (all_reduce).
  bool sameKind = current.partial.empty() || target.partial.empty() ||
                  current.partialKind == target.partialKind;
  int kind = current.partialKind;
  AxisList toReduce;
  for (int64_t axis : current.partial)
    if (!sameKind || !contains(target.partial, axis))
      toReduce.push_back(axis);
  if (target.isOwned() && !current.isOwned() &&
      std::all_of(target.owned.begin(), target.owned.end(),
                  [&](int64_t axis) { return contains(toReduce, axis); })) {
    emit({ReshardStep::Reduce, target.owned, -1, -1, kind, target.owner});
    removeAxes(toReduce, target.owned);
  }
  AxisList allReduceAxes;
  for (int64_t axis : toReduce) {
    int64_t dim = findDimWantingNext(current, target, axis, -1);
    if (dim >= 0)
      emit({ReshardStep::ReduceScatter, {axis}, dim, -1, kind});
    else
      allReduceAxes.push_back(axis);
  }
  if (!allReduceAxes.empty())
    emit({ReshardStep::AllReduce, allReduceAxes, -1, -1, kind});

  // 2. Take off the minor axes that the target does not have there. Moving
  // one to the dim that wants it next (all_to_all) beats gathering it; gather
  // only when no move is possible, then look for moves again.
  auto notPrefix = [&](size_t d) {
    return !isPrefix(current.dims[d], target.dims[d]);
  };
  while (true) {
    bool progress = false;
    for (size_t d = 0; d < current.dims.size() && !progress; ++d) {
      if (!notPrefix(d))
        continue;
      int64_t to = findDimWantingNext(current, target, current.dims[d].back(), d);
      if (to >= 0) {
        emit({ReshardStep::AllToAll, {current.dims[d].back()}, to, (int64_t)d, 0});
        progress = true;
      }
    }
    for (size_t d = 0; d < current.dims.size() && !progress; ++d) {
      if (notPrefix(d)) {
        emit({ReshardStep::AllGather, {current.dims[d].back()}, (int64_t)d, -1, 0});
        progress = true;
      }
    }
    if (!progress)
      break;
  }

  // 3. Split further, locally.
  for (size_t d = 0; d < current.dims.size(); ++d)
    while (current.dims[d].size() < target.dims[d].size())
      emit({ReshardStep::Slice, {target.dims[d][current.dims[d].size()]},
            (int64_t)d, -1, 0});

  // 4. New partial state, locally.
  AxisList toMask;
  for (int64_t axis : target.partial)
    if (!contains(current.partial, axis))
      toMask.push_back(axis);
  if (!toMask.empty())
    emit({ReshardStep::MakePartial, toMask, -1, -1, target.partialKind});

  // 5. New ownership, locally: every rank holds the value.
  if (target.isOwned() && !current.isOwned())
    emit({ReshardStep::Own, target.owned, -1, -1, 0, target.owner});
  if (globalShape.size() == source.dims.size() && !meshShape.empty())
    addPaddingAndCrops(steps, source, target, globalShape, meshShape);
  return steps;
}

std::string ReshardStep::str() const {
  static const char *names[] = {
      "all_reduce", "reduce_scatter", "all_gather",    "all_to_all",
      "slice",      "make_partial",   "reduce",        "broadcast",
      "own",        "drop_halo",      "exchange_halo", "slice_overlap",
      "gather_overlap", "overlap_to_block", "halo_to_overlap"};
  std::ostringstream os;
  os << names[kind] << " [";
  for (size_t i = 0; i < axes.size(); ++i)
    os << (i ? ", " : "") << axes[i];
  os << "]";
  if (kind == AllToAll)
    os << " split " << dim << " concat " << concatDim;
  else if (dim >= 0)
    os << " dim " << dim;
  if (kind == Reduce || kind == Broadcast || kind == Own ||
      (kind == MakePartial && root != 0))
    os << " root " << root;
  if (halo.lo || halo.hi)
    os << " halo " << halo.lo << "," << halo.hi;
  if (halo.overlap)
    os << " overlap " << halo.overlap;
  if (padTo >= 0)
    os << " pad " << padTo;
  if (cropTo >= 0)
    os << " crop " << cropTo;
  return os.str();
}

} // namespace meshmath
