//===- FactorAssignment.cpp - Mesh axes for an op's factors ---------------===//

#include "dist/Transforms/FactorAssignment.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::dist;

ShardingAttr dist::getReplicated(FlatSymbolRefAttr mesh, int64_t rank) {
  MLIRContext *context = mesh.getContext();
  SmallVector<DimShardingAttr> dims(rank, DimShardingAttr::get(context, {}));
  return ShardingAttr::get(mesh, dims);
}

ShardingAttr dist::dropPartial(ShardingAttr sharding) {
  if (!sharding || !sharding.isPartial())
    return sharding;
  return ShardingAttr::get(sharding.getMesh(), sharding.getDims(), {},
                           ReductionKind::sum, sharding.getOwnerAxes(),
                           sharding.getOwner());
}

FlatSymbolRefAttr dist::getCommonMesh(ArrayRef<TensorInfo> operands,
                                      ArrayRef<TensorInfo> results) {
  for (const TensorInfo &info : llvm::concat<const TensorInfo>(operands, results))
    if (info.sharding)
      return info.sharding.getMesh();
  return {};
}

static bool isPrefix(ArrayRef<StringAttr> prefix, ArrayRef<StringAttr> of) {
  return prefix.size() <= of.size() && of.take_front(prefix.size()) == prefix;
}

bool dist::isRefinement(ShardingAttr current, ShardingAttr refined) {
  if (!current)
    return (bool)refined;
  if (!refined || current == refined ||
      current.getMesh() != refined.getMesh() ||
      current.getRank() != refined.getRank())
    return false;
  for (int64_t d = 0; d < current.getRank(); ++d)
    if (!isPrefix(current.getDimAxes(d), refined.getDimAxes(d)))
      return false;
  // A halo alone refines nothing: the first layout proposed keeps it (two
  // stencils wanting different halos would otherwise trade it forever).
  if (current.withoutHalos() == refined.withoutHalos())
    return false;
  if (current.isPartial() && current.getPartialKind() != refined.getPartialKind())
    return false;
  return llvm::all_of(current.getPartialAxes(), [&](StringAttr axis) {
    return llvm::is_contained(refined.getPartialAxes(), axis);
  });
}

/// A stable sort for the few entries of one op (std::stable_sort allocates a
/// buffer on every call).
template <typename T, typename Less>
static void sortStably(MutableArrayRef<T> items, Less less) {
  for (size_t i = 1; i < items.size(); ++i)
    for (size_t j = i; j > 0 && less(items[j], items[j - 1]); --j)
      std::swap(items[j], items[j - 1]);
}

/// Operands that are data inputs: tensors the op reads as a whole value (not
/// an `outs` it overwrites or accumulates into).
static bool isDataInput(const ShardingRule &rule, ArrayRef<TensorInfo> operands,
                        unsigned i) {
  return operands[i].isTensor && !rule.operandIsInitOnly[i] &&
         !rule.operandIsAccumulator[i];
}

static bool isPartialSumOn(const TensorInfo &info, FlatSymbolRefAttr mesh) {
  return info.sharding && info.sharding.getMesh() == mesh &&
         info.sharding.isPartial() &&
         info.sharding.getPartialKind() == ReductionKind::sum;
}

/// The partial inputs that may flow through the op (see PartialPolicy).
static void decidePassThrough(const ShardingRule &rule,
                              ArrayRef<TensorInfo> operands,
                              FactorAssignment &assignment) {
  SmallVector<unsigned> inputs, partialInputs;
  for (unsigned i = 0; i < operands.size(); ++i) {
    if (!isDataInput(rule, operands, i))
      continue;
    inputs.push_back(i);
    if (isPartialSumOn(operands[i], assignment.mesh))
      partialInputs.push_back(i);
  }
  if (partialInputs.empty())
    return;
  ArrayRef<StringAttr> axes =
      operands[partialInputs.front()].sharding.getPartialAxes();
  switch (rule.partialPolicy) {
  case PartialPolicy::None:
    return;
  case PartialPolicy::Additive: {
    // Every input partial over the same axes: (a1 + a2) + (b1 + b2) is the
    // sum of the local sums. An input that may still become partial (a loop
    // accumulator) joins them.
    llvm::SmallDenseSet<StringAttr> axisSet(axes.begin(), axes.end());
    for (unsigned i : inputs)
      if (!isPartialSumOn(operands[i], assignment.mesh) &&
          !(operands[i].mayBecomePartial && !operands[i].isUserFixed))
        return;
    for (unsigned i : inputs)
      if (!llvm::is_contained(partialInputs, i))
        partialInputs.push_back(i);
    for (unsigned i : partialInputs) {
      if (!isPartialSumOn(operands[i], assignment.mesh))
        continue;
      ArrayRef<StringAttr> other = operands[i].sharding.getPartialAxes();
      if (other.size() != axes.size() ||
          !llvm::all_of(other, [&](StringAttr a) { return axisSet.count(a); }))
        return;
    }
    break;
  }
  case PartialPolicy::Multilinear:
    // Linear in each input separately: exactly one may be partial, and the
    // result must be linear in that one.
    if (partialInputs.size() != 1 || !rule.isLinearIn(partialInputs.front()))
      return;
    break;
  }
  assignment.passThroughAxes.assign(axes.begin(), axes.end());
  assignment.passThroughOperands = partialInputs;
}

std::optional<FactorAssignment>
dist::decideFactors(const ShardingRule &rule, ArrayRef<TensorInfo> operands,
                    ArrayRef<TensorInfo> results, MeshOp mesh, bool extend) {
  FactorAssignment assignment;
  assignment.mesh = getCommonMesh(operands, results);
  if (!assignment.mesh || !mesh)
    return std::nullopt;
  decidePassThrough(rule, operands, assignment);

  // Candidates for each factor: the axes some operand or result already has
  // on a dim the factor indexes, ranked by the cost of changing that tensor.
  struct Candidate {
    DimShardingAttr dim;
    int64_t priority;
  };
  int64_t numFactors = rule.getNumFactors();
  SmallVector<SmallVector<Candidate, 4>, 4> candidates(numFactors);
  auto collect = [&](const TensorInfo &info, ArrayRef<int64_t> dims) {
    if (!info.sharding || info.sharding.getMesh() != assignment.mesh ||
        info.sharding.getRank() != (int64_t)dims.size())
      return;
    int64_t priority = (info.isUserFixed ? (int64_t(1) << 62) : 0) +
                       info.numElements;
    for (auto [d, factor] : llvm::enumerate(dims))
      if (factor != ShardingRule::kNoFactor)
        candidates[factor].push_back(
            {info.sharding.getDims()[d].withoutHalo(), priority});
  };
  for (auto [i, info] : llvm::enumerate(operands))
    collect(info, rule.operandDims[i]);
  for (auto [i, info] : llvm::enumerate(results))
    collect(info, rule.resultDims[i]);

  assignment.factorAxes.resize(numFactors);
  SmallVector<int64_t> factorPriority(numFactors, -1);
  // The candidate layout each factor took (reused as its dim layout if it
  // keeps all of its axes).
  SmallVector<DimShardingAttr> chosen(numFactors);
  for (int64_t f = 0; f < numFactors; ++f) {
    SmallVectorImpl<Candidate> &list = candidates[f];
    if (list.empty() || rule.factors[f].kind == FactorKind::Unsplittable)
      continue;
    sortStably<Candidate>(list, [](const Candidate &a, const Candidate &b) {
      return a.priority > b.priority;
    });
    // The best-ranked layout, extended by any compatible, more split one
    // (extending an operand costs a local slice, no communication).
    DimShardingAttr best = list.front().dim;
    if (extend)
      for (const Candidate &c : llvm::drop_begin(list))
        if (isPrefix(best.getAxes(), c.dim.getAxes()))
          best = c.dim;
    chosen[f] = best;
    assignment.factorAxes[f].assign(best.getAxes().begin(), best.getAxes().end());
    factorPriority[f] = list.front().priority;
  }

  // Keeping a partial input pending reserves its axes, so no factor may be
  // split by them. When a factor's best layout needs one of those axes and
  // comes from a tensor that costs more to move than reducing the partial
  // inputs now (an all_reduce moves about twice their bytes), reduce them.
  if (!assignment.passThroughAxes.empty()) {
    int64_t reduceCost = 0;
    for (unsigned i : assignment.passThroughOperands)
      reduceCost = std::max(reduceCost, 2 * operands[i].numElements);
    bool cheaperToReduce = false;
    for (int64_t f = 0; f < numFactors; ++f)
      if (llvm::any_of(assignment.factorAxes[f], [&](StringAttr a) {
            return llvm::is_contained(assignment.passThroughAxes, a);
          }))
        cheaperToReduce |= factorPriority[f] > reduceCost;
    if (cheaperToReduce) {
      assignment.passThroughAxes.clear();
      assignment.passThroughOperands.clear();
    }
  }
  llvm::SmallDenseSet<StringAttr> reserved(assignment.passThroughAxes.begin(),
                                           assignment.passThroughAxes.end());

  // Each axis splits at most one factor; higher-ranked factors keep theirs.
  // Then a factor that cannot be padded (see ShardingRule::mayPad) keeps
  // only as many axes as its size divides into.
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, numFactors));
  sortStably<int64_t>(order, [&](int64_t a, int64_t b) {
    return factorPriority[a] > factorPriority[b];
  });
  for (int64_t f : order) {
    SmallVector<StringAttr> &axes = assignment.factorAxes[f];
    auto conflict = llvm::find_if(axes, [&](StringAttr a) {
      return reserved.contains(a) || !mesh.getAxisIndex(a);
    });
    axes.erase(conflict, axes.end());
    int64_t size = rule.factors[f].size;
    auto fits = [&] {
      int64_t blocks = mesh.getGroupSize(axes);
      return ShapedType::isDynamic(size) ||
             ((size % blocks == 0 || rule.mayPad(f)) &&
              size / blocks >= rule.factors[f].minBlockSize);
    };
    while (!axes.empty() && !fits())
      axes.pop_back();
    reserved.insert(axes.begin(), axes.end());
  }

  // Split reduction factors leave the results partial.
  SmallVector<StringAttr> reductionAxes;
  std::optional<ReductionKind> reductionKind;
  for (int64_t f = 0; f < numFactors; ++f) {
    if (rule.factors[f].kind != FactorKind::Reduction ||
        assignment.factorAxes[f].empty())
      continue;
    llvm::append_range(reductionAxes, assignment.factorAxes[f]);
    reductionKind = rule.factors[f].reduction;
  }
  if (reductionKind && *reductionKind != ReductionKind::sum &&
      !assignment.passThroughAxes.empty()) {
    // A max over a pending sum is not a pending max: reduce the input first.
    assignment.passThroughAxes.clear();
    assignment.passThroughOperands.clear();
  }
  assignment.partialAxes = assignment.passThroughAxes;
  llvm::append_range(assignment.partialAxes, reductionAxes);
  assignment.partialKind = reductionKind.value_or(ReductionKind::sum);

  // The dim layouts, made once for all the operands and results.
  MLIRContext *context = mesh.getContext();
  assignment.wholeDim = DimShardingAttr::get(context, {});
  for (auto [axes, candidate] : llvm::zip(assignment.factorAxes, chosen)) {
    if (axes.empty())
      assignment.factorDims.push_back(assignment.wholeDim);
    else if (candidate && candidate.getAxes() == ArrayRef<StringAttr>(axes))
      assignment.factorDims.push_back(candidate);
    else
      assignment.factorDims.push_back(DimShardingAttr::get(context, axes));
  }
  return assignment;
}

/// The layout of a tensor whose dims `dims` index, partial over
/// `partialAxes`. Returns `known` (the tensor's current layout) without
/// building anything if it is that layout already, the common case.
static ShardingAttr project(const FactorAssignment &assignment,
                            ArrayRef<int64_t> dims,
                            ArrayRef<meshmath::Halo> halos,
                            ArrayRef<StringAttr> partialAxes,
                            ReductionKind partialKind, ShardingAttr known) {
  // A split dim gets the rule's extra rows (a stencil's window).
  auto dimAttr = [&](size_t d) {
    int64_t factor = dims[d];
    if (factor == ShardingRule::kNoFactor)
      return assignment.wholeDim;
    DimShardingAttr dim = assignment.factorDims[factor];
    if (d < halos.size() && !halos[d].empty() && dim.isSplit())
      return dim.withHalo(halos[d]);
    return dim;
  };
  if (known && known.getMesh() == assignment.mesh &&
      known.getRank() == (int64_t)dims.size() &&
      known.getPartialKind() == partialKind &&
      known.getPartialAxes() == partialAxes &&
      llvm::all_of(llvm::seq<size_t>(0, dims.size()), [&](size_t d) {
        return known.getDims()[d] == dimAttr(d);
      }))
    return known;
  SmallVector<DimShardingAttr> dimAttrs;
  for (size_t d = 0; d < dims.size(); ++d)
    dimAttrs.push_back(dimAttr(d));
  return ShardingAttr::get(assignment.mesh, dimAttrs, partialAxes, partialKind);
}

ShardingAttr dist::projectOperand(const ShardingRule &rule,
                                  const FactorAssignment &assignment,
                                  ArrayRef<TensorInfo> operands,
                                  unsigned index) {
  const TensorInfo &info = operands[index];
  if (!info.isTensor)
    return {};
  ArrayRef<meshmath::Halo> halos;
  if (index < rule.operandHalos.size())
    halos = rule.operandHalos[index];
  if (rule.operandIsAccumulator[index])
    return project(assignment, rule.operandDims[index], halos,
                   assignment.partialAxes, assignment.partialKind,
                   info.sharding);
  if (llvm::is_contained(assignment.passThroughOperands, index))
    return project(assignment, rule.operandDims[index], halos,
                   assignment.passThroughAxes, ReductionKind::sum,
                   info.sharding);
  return project(assignment, rule.operandDims[index], halos, {},
                 ReductionKind::sum, info.sharding);
}

ShardingAttr dist::projectResult(const ShardingRule &rule,
                                 const FactorAssignment &assignment,
                                 unsigned index, ShardingAttr known) {
  ArrayRef<meshmath::Halo> halos;
  if (index < rule.resultHalos.size())
    halos = rule.resultHalos[index];
  return project(assignment, rule.resultDims[index], halos,
                 assignment.partialAxes, assignment.partialKind, known);
}
