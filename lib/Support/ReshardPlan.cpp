//===- ReshardPlan.cpp - Collectives that change a tensor's layout --------===//

#include "dist/Support/ReshardPlan.h"

#include <algorithm>
#include <cassert>
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

bool Layout::operator==(const Layout &other) const {
  AxisList mine = partial, theirs = other.partial;
  std::sort(mine.begin(), mine.end());
  std::sort(theirs.begin(), theirs.end());
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
  }
  return layout;
}

std::vector<ReshardStep> planReshard(const Layout &source,
                                     const Layout &target) {
  assert(source.dims.size() == target.dims.size() && "rank mismatch");
  std::vector<ReshardStep> steps;
  Layout current = source;
  auto emit = [&](ReshardStep step) {
    current = applyStep(current, step);
    steps.push_back(std::move(step));
  };

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
  return steps;
}

std::string ReshardStep::str() const {
  static const char *names[] = {"all_reduce", "reduce_scatter", "all_gather",
                                "all_to_all",  "slice",          "make_partial",
                                "reduce",      "broadcast",      "own"};
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
  return os.str();
}

} // namespace meshmath
