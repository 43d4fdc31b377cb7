//===- ShardingRule.h - How an op's dims may be split -----------*- C++ -*-===//
//
// A sharding rule describes an op by *factors*: the independent index spaces
// of its computation (the loops of a linalg op). Each tensor dim of an operand
// or result is indexed by at most one factor. Splitting a factor over mesh
// axes splits every dim it indexes the same way; a split reduction factor
// leaves the results partial. Propagation and partitioning reason about
// factors only, so a new op needs nothing but its rule.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_INTERFACES_SHARDINGRULE_H
#define DIST_INTERFACES_SHARDINGRULE_H

#include "dist/Dialect/Dist/IR/DistAttrs.h"
#include "dist/Support/MeshMath.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <optional>

namespace mlir::dist {

enum class FactorKind {
  /// Every result element depends on one index of this factor (a parallel
  /// loop): splitting it needs no communication.
  Parallel,
  /// Combined with `reduction` (a reduction loop): splitting it leaves the
  /// results partial over the split axes.
  Reduction,
  /// Must stay whole: the op cannot compute a piece of it locally (e.g. a
  /// reduction with an unknown combiner, or a dim whose elements are mixed).
  Unsplittable,
};

/// How a partial-sum operand may flow through an op without being reduced
/// first, so that a reduction happens once and as late as possible.
enum class PartialPolicy {
  /// A partial operand must be reduced before the op (nonlinear ops).
  None,
  /// The op is a sum of its inputs (add, sub): if every input is partial
  /// over the same axes, so is the result.
  Additive,
  /// The op is linear in each input separately (matmul, mul, transpose): if
  /// exactly one input is partial, so is the result.
  Multilinear,
};

/// How an op keeps the padding of a split reduction factor that the mesh does
/// not divide (blocks of ceil(size / n), the last ones padded) out of its
/// partial results. Padding holds anything (exp(0) = 1, inf, NaN), so it must
/// never be combined.
enum class PaddedReduction {
  /// The op cannot: such a factor is only split by axes that divide it.
  None,
  /// The partitioner replaces the padding of every operand the factor
  /// indexes with the identity of the factor's reduction (0 for a sum, -inf
  /// for a max): right for ops that combine their inputs, or a product of
  /// them, directly (contractions, reductions).
  MaskOperands,
  /// The op's local form keeps the padding out itself (a linalg.generic
  /// body that skips padded iterations; a lookup whose ids never name a
  /// padded row).
  ByLocalForm,
};

/// The factor rule of one op. Dims that no factor indexes (-1) must be whole.
struct ShardingRule {
  static constexpr int64_t kNoFactor = -1;

  struct Factor {
    int64_t size; // ShapedType::kDynamic if unknown
    FactorKind kind;
    ReductionKind reduction = ReductionKind::sum; // for Reduction factors
    /// The factor indexes the major part of some dim (a reshape's merged
    /// dim): blocks of that dim are blocks of the factor times the rest, so a
    /// split that does not divide the factor cannot be padded.
    bool indexesPartOfDim = false;
    /// Some dim the factor indexes has extra rows around its blocks (a
    /// stencil's window): its blocks must be even.
    bool hasHalo = false;
    /// The smallest block a split may leave (a halo's rows come from the
    /// neighbouring blocks only).
    int64_t minBlockSize = 0;

    bool operator==(const Factor &other) const {
      return size == other.size && kind == other.kind &&
             reduction == other.reduction &&
             indexesPartOfDim == other.indexesPartOfDim &&
             hasHalo == other.hasHalo && minBlockSize == other.minBlockSize;
    }
  };

  SmallVector<Factor> factors;
  /// Per operand, per dim: the factor indexing it. Non-tensor operands have
  /// an empty list.
  SmallVector<SmallVector<int64_t>> operandDims;
  /// Per result, per dim: the factor indexing it.
  SmallVector<SmallVector<int64_t>> resultDims;
  /// Operands whose content the op overwrites (linalg `outs` of parallel
  /// ops): only their shape matters, so no reshard is needed for their data.
  SmallVector<bool> operandIsInitOnly;
  /// Operands whose value the op accumulates into (linalg `outs` that the
  /// body reads): with a split reduction or a partial input, they must be
  /// partial too, so that their value is added once.
  SmallVector<bool> operandIsAccumulator;
  PartialPolicy partialPolicy = PartialPolicy::None;
  /// How split reduction factors with padded blocks stay exact.
  PaddedReduction paddedReduction = PaddedReduction::None;
  /// The op may compute on padding (which holds anything): false for ops
  /// that trap or read out of bounds on some values (an integer division by
  /// a padded divisor, a lookup at a computed position). Then no factor is
  /// split into padded blocks.
  bool padsSafely = true;
  /// For Multilinear: the operands the result is linear in (each appears
  /// once, through linear operations only). Empty means every tensor
  /// operand. A partial input flows through only if the result is linear in
  /// it: x * x (a square), a body that ignores an input, or the indices of a
  /// gather are not.
  SmallVector<bool> operandIsLinear;
  /// Per operand (result), per dim: the extra rows around the blocks of the
  /// dim's factor when it is split (see DimShardingAttr): the rows a
  /// stencil reads beyond its block (a convolution's input has an overlap
  /// of the window size - 1) or that the op makes (a zero pad of a dim with
  /// a halo is that dim with an overlap). Empty: none.
  SmallVector<SmallVector<meshmath::Halo>> operandHalos, resultHalos;
  /// A dim without a factor that the op touches in a static range only:
  /// rows [offset, offset + size) of dim `dim` of operand `operand` (a
  /// slice's source, an insert's destination).
  struct RangedDim {
    unsigned operand;
    int64_t dim;
    int64_t offset;
    int64_t size;
    bool operator==(const RangedDim &other) const {
      return operand == other.operand && dim == other.dim &&
             offset == other.offset && size == other.size;
    }
  };
  /// Such dims. One split into even blocks with its range inside one block
  /// need not be gathered: reading it gives that block's rank the value (the
  /// results are owned by it), and writing it (`writesRangedDims`) changes
  /// that block only, so the op runs on that rank alone.
  SmallVector<RangedDim> rangedDims;
  /// The op's result 0 is its ranged operand with the range overwritten
  /// (tensor.insert_slice), rather than a read of the range.
  bool writesRangedDims = false;

  meshmath::Halo operandHalo(unsigned operand, unsigned dim) const {
    return haloIn(operandHalos, operand, dim);
  }
  meshmath::Halo resultHalo(unsigned result, unsigned dim) const {
    return haloIn(resultHalos, result, dim);
  }
  /// Sets the extra rows of an operand's (result's) dim, which a factor
  /// must index; the factor is then never padded.
  void setOperandHalo(unsigned operand, unsigned dim, meshmath::Halo halo) {
    setHaloIn(operandHalos, operandDims, operand, dim, halo);
  }
  void setResultHalo(unsigned result, unsigned dim, meshmath::Halo halo) {
    setHaloIn(resultHalos, resultDims, result, dim, halo);
  }

  bool isLinearIn(unsigned operand) const {
    return operandIsLinear.empty() || operandIsLinear[operand];
  }

  int64_t getNumFactors() const { return factors.size(); }

  /// True if factor `f` may be split by axes that do not divide its size
  /// (padded blocks): it indexes whole dims only, and a reduction factor's
  /// padding is kept out of the results (`paddedReduction`).
  bool mayPad(int64_t f) const {
    const Factor &factor = factors[f];
    if (!padsSafely || factor.indexesPartOfDim || factor.hasHalo ||
        factor.kind == FactorKind::Unsplittable)
      return false;
    return factor.kind == FactorKind::Parallel ||
           paddedReduction != PaddedReduction::None;
  }

  /// Adds a factor and returns its index.
  int64_t addFactor(int64_t size, FactorKind kind,
                    ReductionKind reduction = ReductionKind::sum) {
    factors.push_back({size, kind, reduction});
    return factors.size() - 1;
  }

  /// The rule of an op whose tensor operands and results all have one shape
  /// and are related elementwise.
  static ShardingRule getElementwise(Operation *op);

  /// A rule with one entry per operand and result, all without dims (as for
  /// scalars), to be filled in.
  static ShardingRule getEmpty(Operation *op);

  /// The rule of a reshape of operand 0 into result 0 that merges each group
  /// of `groups` (dims of `split`, the higher-rank side) into one dim: the
  /// major dim of each group (its first dim of size other than 1) is the
  /// factor, indexing the major part of the merged dim; the group's other
  /// dims stay whole (their blocks are not contiguous in the merged dim). `sourceIsMerged`: the operand is the
  /// lower-rank side (an expand).
  static ShardingRule getReshape(Operation *op, RankedTensorType split,
                                 ArrayRef<SmallVector<int64_t, 2>> groups,
                                 bool sourceIsMerged);

  /// Checks that the rule is consistent with the op: one entry per operand,
  /// result and tensor dim, factor indices in range, and each dim's size a
  /// multiple of its factor's (equal, or the factor indexes the major part of
  /// the dim, as for a reshape's merged dim). Errors name the problem.
  LogicalResult verify(Operation *op) const;

  /// Shardy-style text, e.g. `([i, k], [k, j]) -> ([i, j]) {i=8, j=32,
  /// k=16 sum}`.
  void print(raw_ostream &os) const;

  /// Equal rules describe ops the same way (ops of one kind on equal types
  /// have equal rules): the rule cache keeps one copy of each.
  bool operator==(const ShardingRule &other) const;
  bool operator!=(const ShardingRule &other) const { return !(*this == other); }

private:
  static meshmath::Halo haloIn(ArrayRef<SmallVector<meshmath::Halo>> halos,
                               unsigned index, unsigned dim) {
    if (index >= halos.size() || dim >= halos[index].size())
      return {};
    return halos[index][dim];
  }
  void setHaloIn(SmallVector<SmallVector<meshmath::Halo>> &halos,
                 ArrayRef<SmallVector<int64_t>> dims, unsigned index,
                 unsigned dim, meshmath::Halo halo) {
    if (halos.size() < dims.size())
      halos.resize(dims.size());
    if (halos[index].size() < dims[index].size())
      halos[index].resize(dims[index].size());
    halos[index][dim] = halo;
    if (dims[index][dim] == kNoFactor)
      return;
    Factor &factor = factors[dims[index][dim]];
    factor.hasHalo = true;
    factor.minBlockSize = std::max({factor.minBlockSize, halo.lo, halo.hi});
  }
};

llvm::hash_code hash_value(const ShardingRule &rule);

/// The default local form of an op: the op itself, in place, on the local
/// operands and with the local result types.
Operation *rewriteInPlace(Operation *op, ValueRange localOperands,
                          TypeRange localResultTypes);

/// The offset of this rank's block along a dim split by `axes` of `mesh` into
/// blocks of `blockSize`: `dist.process_index` times the block size, as an
/// index. (Local forms that index globally, and the partitioner's slices,
/// add it to local indices.)
Value buildBlockOffset(OpBuilder &builder, Location loc, FlatSymbolRefAttr mesh,
                       ArrayRef<StringAttr> axes, int64_t blockSize);

/// For a lookup into a table whose looked-up dim is split by `axes` into
/// blocks of `localRows` rows (a vocabulary-parallel embedding): the ids of
/// `indices` (a tensor of integers or indices) shifted to this rank's rows,
/// with those outside its block replaced by 0 (`safeIndices`), and the mask
/// of the ids inside it (`inBlock`, i1, the shape of `indices`).
struct LocalLookup {
  Value safeIndices;
  Value inBlock;
};
LocalLookup buildLocalLookup(OpBuilder &builder, Location loc, Value indices,
                             FlatSymbolRefAttr mesh, ArrayRef<StringAttr> axes,
                             int64_t localRows);

/// `count` rows of `value` (a static tensor) along `dim` from `offset`
/// (static or dynamic): a tensor.extract_slice.
Value buildDimSlice(OpBuilder &builder, Location loc, Value value, int64_t dim,
                    OpFoldResult offset, int64_t count);

/// A shift within the groups of `groupSize` ranks along `axes` of `mesh`:
/// group index `i` receives what `i - by` holds, and the ranks with no
/// source get zeros (a halo exchange's ghost rows), through one
/// `dist.permute`; with no pair at all (`|by|` of at least the group size) a
/// zero constant. `input` has integer or float elements.
Value buildShift(OpBuilder &builder, Location loc, Value input,
                 FlatSymbolRefAttr mesh, ArrayAttr axes, int64_t groupSize,
                 int64_t by, uint64_t comm, OriginAttr origin);

/// True if `op` computes without trapping or reading out of bounds whatever
/// its operands hold: no op in it is NotSpeculatable (an integer division by
/// a value that may be zero), and no op in its regions reads a tensor from
/// outside at a computed position.
bool computesSafelyOnAnyValues(Operation *op);

/// The identity of `kind` for elements of `type` (0 for sum, 1 for prod,
/// -inf or the least integer for max, +inf or the greatest for min). i1 is
/// unsigned: false for max, true for min.
TypedAttr getReductionIdentity(Type type, ReductionKind kind);

/// `local`, a block of a tensor whose dim `dim` of global size `globalSize`
/// is split by `axes` into padded blocks, with its padding (rows past the
/// global end) replaced by `identity` (a scalar attribute).
Value maskPadding(OpBuilder &builder, Location loc, Value local, int64_t dim,
                  FlatSymbolRefAttr mesh, ArrayRef<StringAttr> axes,
                  int64_t globalSize, TypedAttr identity);

/// The number of rows of this rank's block that lie inside a dim of
/// `globalSize` split by `axes` into blocks of `blockSize` (an index; zero or
/// negative for a block that is all padding): local index `i` is data iff
/// `i < rowsInside` (signed). Built at the builder's insertion point.
Value buildRowsInside(OpBuilder &builder, Location loc, FlatSymbolRefAttr mesh,
                      ArrayRef<StringAttr> axes, int64_t blockSize,
                      int64_t globalSize);

/// How the partitioner split an op's factors, for building its local form.
struct FactorSplits {
  /// The mesh the op works on.
  FlatSymbolRefAttr mesh;
  /// Per factor of the rule, the mesh axes that split it (empty: whole).
  ArrayRef<SmallVector<StringAttr>> axes;
  /// Number of ranks in the group of `axes` on the mesh.
  function_ref<int64_t(ArrayRef<StringAttr>)> groupSize;
  /// The rule's factors, with their global sizes.
  ArrayRef<ShardingRule::Factor> factors;
  /// The global type of the op's operand `i`. The op's own operands may
  /// already be local values (their producers are rewritten in place), so
  /// global shapes must come from here, the rule or the op's result types.
  function_ref<Type(unsigned)> globalOperandType;

  bool isSplit(int64_t factor) const {
    return factor >= 0 && factor < (int64_t)axes.size() && !axes[factor].empty();
  }
  /// The size of each rank's block of `factor`: ceil(size / group size).
  int64_t blockSize(int64_t factor) const {
    return *meshmath::localDimSize(factors[factor].size,
                                   groupSize(axes[factor]));
  }
  /// True if `factor` is split into padded blocks (its axes do not divide it).
  bool isPadded(int64_t factor) const {
    return isSplit(factor) &&
           meshmath::isPaddedSplit(factors[factor].size, groupSize(axes[factor]));
  }
};

} // namespace mlir::dist

#endif // DIST_INTERFACES_SHARDINGRULE_H
