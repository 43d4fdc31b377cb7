//===- DistGpuBlockReductions.cpp - A thread block per row reduction ------===//
//
// A row reduction (softmax's and layernorm's row sums, a loss over the
// vocabulary) lowered as loops gives each thread a row (or a chunk of one,
// with a second kernel combining the chunks). A block of threads per row
// reads the row's consecutive elements together, combines its threads'
// partial results with warp shuffles (upstream's gpu.all_reduce lowering)
// and writes the output once: one kernel, no partial results in memory.
// The ops around it that work on the same rows (the fill of its initial
// value, arithmetic on its result, a next reduction of the same rows that
// reads it, an elementwise op over the rows at the end: a softmax) join its
// kernel, reading the row's values from registers rather than memory.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "dist/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <tuple>

#define DEBUG_TYPE "dist-gpu-block-reductions"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTGPUBLOCKREDUCTIONS
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {

/// What an op of a row group computes, for each row of the group's space
/// (rows P, each of `extent` elements along the last loop).
enum class RowRole {
  /// A value per row (loops P, all parallel): a fill, arithmetic on row
  /// values. Every thread computes it.
  PerRow,
  /// A reduction of each row (loops P then the row, one reduction).
  Reduction,
  /// An op on each element of the rows (loops P then the row, all
  /// parallel); the group's last op.
  Elementwise,
};

/// The positions of the loop dimensions `map`'s results are.
SmallVector<unsigned> positionsOf(AffineMap map) {
  SmallVector<unsigned> positions;
  for (AffineExpr result : map.getResults())
    positions.push_back(cast<AffineDimExpr>(result).getPosition());
  return positions;
}

/// Ops on the same rows that one kernel runs, in program order.
struct RowGroup {
  /// The loops of a reduction: the rows' dimensions, then the row's.
  SmallVector<int64_t> ranges;
  SmallVector<linalg::LinalgOp> members;
  SmallVector<RowRole> roles;
  /// Buffers of row values a member writes, with the dimensions that index
  /// them (kept in registers for later members reading them alike).
  llvm::MapVector<Value, SmallVector<unsigned>> written;
  /// Buffers members read from memory (none may write them later).
  llvm::SmallPtrSet<Value, 8> readFromMemory;

  int64_t extent() const { return ranges.back(); }
  unsigned rowDim() const { return ranges.size() - 1; }

  /// `op`'s role in this group's space, if it has one.
  std::optional<RowRole> roleOf(linalg::LinalgOp op) const {
    if (!op.hasPureBufferSemantics() || op.hasDynamicShape() ||
        !op.hasOnlyProjectedPermutations())
      return std::nullopt;
    SmallVector<int64_t> loops = op.getStaticLoopRanges();
    bool allParallel = op.getNumParallelLoops() == op.getNumLoops();
    // An elementwise op may write several outputs (a layernorm's normalized
    // value and its affine map), each row-major over the rows.
    if (ArrayRef(loops) == ArrayRef(ranges) && allParallel)
      return llvm::all_of(op.getDpsInitsMutable(),
                          [&](OpOperand &init) {
                            return op.getMatchingIndexingMap(&init)
                                .isIdentity();
                          })
                 ? std::optional(RowRole::Elementwise)
                 : std::nullopt;
    if (op.getNumDpsInits() != 1)
      return std::nullopt;
    if (ArrayRef(loops) == ArrayRef(ranges).drop_back() && allParallel)
      return RowRole::PerRow;
    if (ArrayRef(loops) != ArrayRef(ranges))
      return std::nullopt;
    SmallVector<unsigned> reductions;
    op.getReductionDims(reductions);
    if (reductions.size() == 1 && reductions.front() == rowDim())
      return RowRole::Reduction;
    return std::nullopt;
  }

  /// Whether `op` (with `role`) can run after the members: what it reads of
  /// the group's row values it reads as they were written (not through
  /// another view), a reduction is one a block takes, and it writes no
  /// buffer an earlier member read from memory.
  bool canJoin(linalg::LinalgOp op, RowRole role,
               function_ref<bool(linalg::LinalgOp)> isBlockReduction) const {
    if (role == RowRole::Reduction && !isBlockReduction(op))
      return false;
    for (OpOperand &operand : op->getOpOperands()) {
      auto it = written.find(operand.get());
      if (it != written.end()) {
        if (positionsOf(op.getMatchingIndexingMap(&operand)) != it->second)
          return false;
        continue;
      }
      Value root = getRootBuffer(operand.get());
      if (llvm::any_of(written, [&](const auto &entry) {
            return getRootBuffer(entry.first) == root;
          }))
        return false;
    }
    // What an earlier member read from memory must not change under it.
    return llvm::none_of(op.getDpsInits(), [&](Value output) {
      return readFromMemory.contains(getRootBuffer(output));
    });
  }

  void add(linalg::LinalgOp op, RowRole role) {
    for (OpOperand &operand : op->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()) &&
          !written.contains(operand.get()) &&
          (!op.isDpsInit(&operand) || op.payloadUsesValueFromOperand(&operand)))
        readFromMemory.insert(getRootBuffer(operand.get()));
    members.push_back(op);
    roles.push_back(role);
    if (role != RowRole::Elementwise)
      written[op.getDpsInits()[0]] =
          positionsOf(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
  }
};

/// Clones `combiner` (a binary op of the reduction's body) on `lhs` and
/// `rhs`: every reduction getSplittableCombiner accepts is commutative.
Value cloneCombiner(OpBuilder &builder, Operation *combiner, Value lhs,
                    Value rhs) {
  IRMapping mapping;
  mapping.map(combiner->getOperand(0), lhs);
  mapping.map(combiner->getOperand(1), rhs);
  return builder.clone(*combiner, mapping)->getResult(0);
}

/// Threads of a block for a row of `extent` elements: a power of two with
/// about `lanes` elements a thread (what one 16-byte access of the widest
/// row operand holds), at least a warp and at most `maxThreads`.
int64_t chooseBlockSize(int64_t extent, int64_t lanes, int64_t maxThreads) {
  int64_t share = std::max<int64_t>(extent / lanes, 1);
  int64_t power = llvm::bit_floor(uint64_t(share));
  return std::clamp<int64_t>(power, 32, maxThreads);
}

/// Row steps of a thread up to which a row kernel runs them without a loop,
/// each load made once for the whole group (the members after the first
/// take the row from registers instead of reading it again).
constexpr int64_t kMaxUnrolledRowSteps = 4;

/// The operands of `op` that differ along the row (dimension `rowDim`).
SmallVector<OpOperand *> rowOperands(linalg::LinalgOp op, unsigned rowDim) {
  SmallVector<OpOperand *> operands;
  for (OpOperand &operand : op->getOpOperands())
    if (isa<MemRefType>(operand.get().getType()) &&
        op.getMatchingIndexingMap(&operand).isFunctionOfDim(rowDim))
      operands.push_back(&operand);
  return operands;
}

/// Bytes of the widest element of the operands of `ops` that differ along
/// the row; 0 when none does.
int64_t widestRowElementBytes(ArrayRef<linalg::LinalgOp> ops,
                              unsigned rowDim) {
  int64_t widest = 0;
  for (linalg::LinalgOp op : ops)
    for (OpOperand *operand : rowOperands(op, rowDim))
      widest = std::max(
          widest, getElementBytes(getElementTypeOrSelf(operand->get())));
  return widest;
}

/// Consecutive elements a thread takes with one load or store of each
/// operand of `ops` that differs along the row (16 bytes of the widest, at
/// most the row's share of a thread): the block's accesses must tile the
/// row, and each such operand must be row-major from a start aligned for
/// them, its row dimension last. 1 when not.
int64_t chooseLanes(ArrayRef<linalg::LinalgOp> ops, unsigned rowDim,
                    int64_t extent, int64_t threads) {
  for (linalg::LinalgOp op : ops)
    for (OpOperand *operand : rowOperands(op, rowDim))
      if (!isRowMajorFromStart(cast<MemRefType>(operand->get().getType())) ||
          positionsOf(op.getMatchingIndexingMap(operand)).back() != rowDim)
        return 1;
  int64_t widest = widestRowElementBytes(ops, rowDim);
  if (widest == 0)
    return 1;
  int64_t lanes = kGpuAccessBytes / widest;
  while (lanes > 1 && extent % (threads * lanes) != 0)
    lanes /= 2;
  for (linalg::LinalgOp op : ops)
    for (OpOperand *operand : rowOperands(op, rowDim)) {
      int64_t bytes =
          lanes * getElementBytes(getElementTypeOrSelf(operand->get()));
      while (lanes > 1 && knownStartAlignment(operand->get()) < bytes) {
        lanes /= 2;
        bytes /= 2;
      }
    }
  return std::max<int64_t>(lanes, 1);
}

/// Builds the kernel of a row group: a launch with a block per row.
class RowKernelBuilder {
public:
  RowKernelBuilder(RowGroup &group, int64_t maxThreads)
      : group(group), loc(group.members.front().getLoc()) {
    SmallVector<linalg::LinalgOp> rowOps;
    for (auto [member, role] : llvm::zip(group.members, group.roles))
      if (role != RowRole::PerRow)
        rowOps.push_back(member);
    int64_t widest = widestRowElementBytes(rowOps, group.rowDim());
    threads = chooseBlockSize(group.extent(),
                              widest ? kGpuAccessBytes / widest : 4,
                              maxThreads);
    lanes = chooseLanes(rowOps, group.rowDim(), group.extent(), threads);
  }

  void build() {
    OpBuilder builder(group.members.front());
    int64_t rows = 1;
    for (int64_t range : ArrayRef(group.ranges).drop_back())
      rows *= range;
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    auto launch = gpu::LaunchOp::create(
        builder, loc, arith::ConstantIndexOp::create(builder, loc, rows), one,
        one, arith::ConstantIndexOp::create(builder, loc, threads), one, one);
    Block &body = launch.getBody().front();
    OpBuilder kernel = OpBuilder::atBlockBegin(&body);
    thread = launch.getThreadIds().x;

    // The row's indices from the block id, row-major.
    ivs.assign(group.ranges.size(), Value());
    Value rest = launch.getBlockIds().x;
    for (int dim = group.rowDim() - 1; dim >= 0; --dim) {
      if (dim == 0) {
        ivs[dim] = rest;
        break;
      }
      Value size =
          arith::ConstantIndexOp::create(kernel, loc, group.ranges[dim]);
      ivs[dim] = arith::RemUIOp::create(kernel, loc, rest, size);
      rest = arith::DivUIOp::create(kernel, loc, rest, size);
    }
    // Few steps a thread: every member takes them at the kernel's top
    // level, from these starts, sharing the loads.
    int64_t extent = group.extent();
    if (extent % threads == 0 &&
        extent / (threads * lanes) <= kMaxUnrolledRowSteps)
      for (int64_t i = 0; i < extent / (threads * lanes); ++i) {
        Value start = thread;
        if (i != 0)
          start = arith::AddIOp::create(
              kernel, loc, start,
              arith::ConstantIndexOp::create(kernel, loc, i * threads));
        if (lanes > 1)
          start = arith::MulIOp::create(
              kernel, loc, start,
              arith::ConstantIndexOp::create(kernel, loc, lanes));
        unrolledStarts.push_back(start);
      }

    for (auto [member, role] : llvm::zip(group.members, group.roles)) {
      switch (role) {
      case RowRole::PerRow:
        buildPerRow(kernel, member);
        break;
      case RowRole::Reduction:
        buildReduction(kernel, member);
        break;
      case RowRole::Elementwise:
        buildElementwise(kernel, member);
        break;
      }
    }

    // The first thread writes the row values others may read after the
    // kernel: all but those of an allocation only the members use (and
    // free); an argument or a view may be read through another name.
    auto onlyInGroup = [&](Value buffer) {
      return isa_and_present<memref::AllocOp, memref::AllocaOp>(
                 buffer.getDefiningOp()) &&
             llvm::all_of(buffer.getUsers(), [&](Operation *user) {
               return isa<memref::DeallocOp>(user) ||
                      llvm::is_contained(group.members, user);
             });
    };
    SmallVector<std::pair<Value, Value>> stores;
    for (auto &[buffer, positions] : group.written)
      if (!onlyInGroup(buffer))
        stores.push_back({buffer, rowValues.lookup(buffer)});
    if (!stores.empty()) {
      // A row value every thread read from memory (a reduction's initial
      // value) is overwritten once all have read it.
      if (llvm::any_of(stores, [&](auto &store) {
            return group.readFromMemory.contains(getRootBuffer(store.first));
          }))
        gpu::BarrierOp::create(kernel, loc);
      Value first = arith::CmpIOp::create(
          kernel, loc, arith::CmpIPredicate::eq, thread,
          arith::ConstantIndexOp::create(kernel, loc, 0));
      auto write =
          scf::IfOp::create(kernel, loc, first, /*withElseRegion=*/false);
      OpBuilder atFirst = write.getThenBodyBuilder();
      for (auto [buffer, value] : stores)
        memref::StoreOp::create(atFirst, loc, value, buffer,
                                indicesAt(group.written.lookup(buffer)));
    }
    kernel.setInsertionPointToEnd(&body);
    gpu::TerminatorOp::create(kernel, loc);
  }

private:
  SmallVector<Value> indicesAt(ArrayRef<unsigned> positions) {
    return llvm::map_to_vector(positions,
                               [&](unsigned position) { return ivs[position]; });
  }

  /// `operand`'s value where the current indices point: a row value of
  /// the group, the scalar itself, or a load.
  Value read(OpBuilder &at, linalg::LinalgOp op, OpOperand *operand) {
    Value value = operand->get();
    if (Value row = rowValues.lookup(value))
      return row;
    if (!isa<MemRefType>(value.getType()))
      return value;
    return memref::LoadOp::create(
        at, loc, value,
        indicesAt(positionsOf(op.getMatchingIndexingMap(operand))));
  }

  /// Clones `op`'s body with `mapping` (the block arguments), `linalg.index`
  /// of the row being element `lane` past `start`; returns what it yields.
  SmallVector<Value> applyBody(OpBuilder &at, linalg::LinalgOp op,
                               IRMapping &mapping, Value start, int64_t lane) {
    Block *block = op.getBlock();
    for (Operation &bodyOp : block->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
        Value position = ivs[index.getDim()];
        if (index.getDim() == group.rowDim()) {
          position = start;
          if (lane != 0)
            position = arith::AddIOp::create(
                at, loc, start, arith::ConstantIndexOp::create(at, loc, lane));
        }
        mapping.map(index.getResult(), position);
        continue;
      }
      at.clone(bodyOp, mapping);
    }
    // A value from above (a fill's constant) is yielded as it is.
    return llvm::map_to_vector(
        block->getTerminator()->getOperands(),
        [&](Value value) { return mapping.lookupOrDefault(value); });
  }

  /// The thread's steps over the row carrying `inits`; returns what the
  /// last yields. When the block divides the row, step i takes `lanes`
  /// consecutive elements from (i B + t) lanes: without a loop when they
  /// are few (unrolledStarts), else in a counted loop (a constant trip
  /// count: unrolled, the loads issued together); else a loop steps through
  /// the row from element t, one at a time. `step(at, start, count,
  /// carried)` builds a step over elements start .. start + count - 1.
  SmallVector<Value>
  buildRowSteps(OpBuilder &kernel, ValueRange inits,
                function_ref<SmallVector<Value>(OpBuilder &, Value, int64_t,
                                                ValueRange)>
                    step) {
    int64_t extent = group.extent();
    if (extent % threads != 0)
      return scf::ForOp::create(
                 kernel, loc, thread,
                 arith::ConstantIndexOp::create(kernel, loc, extent),
                 arith::ConstantIndexOp::create(kernel, loc, threads), inits,
                 [&](OpBuilder &at, Location, Value position,
                     ValueRange carried) {
                   scf::YieldOp::create(at, loc,
                                        step(at, position, 1, carried));
                 })
          .getResults();
    if (!unrolledStarts.empty()) {
      SmallVector<Value> carried(inits);
      for (Value start : unrolledStarts)
        carried = step(kernel, start, lanes, carried);
      return carried;
    }
    Value blockSize = arith::ConstantIndexOp::create(kernel, loc, threads);
    Value width = arith::ConstantIndexOp::create(kernel, loc, lanes);
    return scf::ForOp::create(
               kernel, loc, arith::ConstantIndexOp::create(kernel, loc, 0),
               arith::ConstantIndexOp::create(kernel, loc,
                                              extent / (threads * lanes)),
               arith::ConstantIndexOp::create(kernel, loc, 1), inits,
               [&](OpBuilder &at, Location, Value iv, ValueRange carried) {
                 Value start = arith::AddIOp::create(
                     at, loc, arith::MulIOp::create(at, loc, iv, blockSize),
                     thread);
                 if (lanes > 1)
                   start = arith::MulIOp::create(at, loc, start, width);
                 scf::YieldOp::create(at, loc,
                                      step(at, start, lanes, carried));
               })
        .getResults();
  }

  /// Loads of `op`'s operands that differ along the row, `count` elements
  /// from `start` (a vector each when several), by block argument.
  SmallVector<std::pair<BlockArgument, Value>>
  loadRow(OpBuilder &at, linalg::LinalgOp op, Value start, int64_t count) {
    ivs[group.rowDim()] = start;
    SmallVector<std::pair<BlockArgument, Value>> loaded;
    for (OpOperand *operand : rowOperands(op, group.rowDim())) {
      BlockArgument argument = op.getMatchingBlockArgument(operand);
      if (argument.use_empty())
        continue;
      Value buffer = operand->get();
      SmallVector<unsigned> positions =
          positionsOf(op.getMatchingIndexingMap(operand));
      // Only the group's last op writes rows, after every load: a load at
      // the top level serves every member that reads the same elements.
      bool topLevel = !unrolledStarts.empty();
      Value *shared = nullptr;
      if (topLevel) {
        shared = &sharedLoads[{buffer.getAsOpaquePointer(),
                               start.getAsOpaquePointer(),
                               std::vector<unsigned>(positions.begin(),
                                                     positions.end())}];
        if (*shared) {
          loaded.push_back({argument, *shared});
          continue;
        }
      }
      SmallVector<Value> indices = indicesAt(positions);
      Value value;
      if (count == 1)
        value = memref::LoadOp::create(at, loc, buffer, indices);
      else
        value = vector::LoadOp::create(
            at, loc, VectorType::get({count}, argument.getType()), buffer,
            indices, /*nontemporal=*/false, alignmentFor(buffer, count));
      if (shared)
        *shared = value;
      loaded.push_back({argument, value});
    }
    return loaded;
  }

  llvm::MaybeAlign alignmentFor(Value buffer, int64_t count) {
    int64_t bytes = count * getElementBytes(getElementTypeOrSelf(buffer));
    return llvm::MaybeAlign(std::min(bytes, knownStartAlignment(buffer)));
  }

  /// Maps each loaded operand's block argument to its element `lane`.
  static void mapLane(OpBuilder &at, Location loc, IRMapping &mapping,
                      ArrayRef<std::pair<BlockArgument, Value>> loaded,
                      int64_t lane) {
    for (auto [argument, value] : loaded)
      mapping.map(argument, isa<VectorType>(value.getType())
                                ? vector::ExtractOp::create(at, loc, value,
                                                            lane)
                                      .getResult()
                                : value);
  }

  void buildPerRow(OpBuilder &kernel, linalg::LinalgOp op) {
    IRMapping mapping;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument argument = op.getMatchingBlockArgument(&operand);
      if (!argument.use_empty())
        mapping.map(argument, read(kernel, op, &operand));
    }
    rowValues[op.getDpsInits()[0]] =
        applyBody(kernel, op, mapping, Value(), 0).front();
  }

  void buildReduction(OpBuilder &kernel, linalg::LinalgOp op) {
    Operation *combiner = getSplittableCombiner(op);
    BlockArgument accumulator = op.getRegionOutputArgs().front();
    IRMapping invariant;
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument argument = op.getMatchingBlockArgument(input);
      if (!argument.use_empty() &&
          !op.getMatchingIndexingMap(input).isFunctionOfDim(group.rowDim()))
        invariant.map(argument, read(kernel, op, input));
    }
    Value neutral = arith::ConstantOp::create(
        kernel, loc, *arith::getNeutralElement(combiner));
    SmallVector<Value> partial = buildRowSteps(
        kernel, neutral,
        [&](OpBuilder &at, Value start, int64_t count, ValueRange carried) {
          auto loaded = loadRow(at, op, start, count);
          Value result = carried.front();
          for (int64_t lane = 0; lane < count; ++lane) {
            IRMapping mapping = invariant;
            mapLane(at, loc, mapping, loaded, lane);
            mapping.map(accumulator, result);
            result = applyBody(at, op, mapping, start, lane).front();
          }
          return SmallVector<Value>{result};
        });

    Type element = accumulator.getType();
    auto combined = gpu::AllReduceOp::create(kernel, loc, element,
                                             partial.front(),
                                             /*op=*/nullptr,
                                             kernel.getUnitAttr());
    Block *combining = kernel.createBlock(&combined.getBody(), {},
                                          {element, element}, {loc, loc});
    OpBuilder inRegion = OpBuilder::atBlockBegin(combining);
    gpu::YieldOp::create(inRegion, loc,
                         cloneCombiner(inRegion, combiner,
                                       combining->getArgument(0),
                                       combining->getArgument(1)));
    kernel.setInsertionPointAfter(combined);
    Value initial = read(kernel, op, op.getDpsInitOperand(0));
    rowValues[op.getDpsInits()[0]] =
        cloneCombiner(kernel, combiner, initial, combined);
  }

  void buildElementwise(OpBuilder &kernel, linalg::LinalgOp op) {
    IRMapping invariant;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument argument = op.getMatchingBlockArgument(&operand);
      if (!argument.use_empty() &&
          !op.getMatchingIndexingMap(&operand).isFunctionOfDim(group.rowDim()))
        invariant.map(argument, read(kernel, op, &operand));
    }
    buildRowSteps(
        kernel, {},
        [&](OpBuilder &at, Value start, int64_t count, ValueRange) {
          auto loaded = loadRow(at, op, start, count);
          // results[i][lane]: output i's element `lane` past `start`.
          SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
          for (int64_t lane = 0; lane < count; ++lane) {
            IRMapping mapping = invariant;
            mapLane(at, loc, mapping, loaded, lane);
            for (auto [i, value] :
                 llvm::enumerate(applyBody(at, op, mapping, start, lane)))
              results[i].push_back(value);
          }
          ivs[group.rowDim()] = start;
          for (OpOperand &init : op.getDpsInitsMutable()) {
            ArrayRef<Value> elements = results[init.getOperandNumber() -
                                               op.getNumDpsInputs()];
            Value output = init.get();
            SmallVector<Value> indices =
                indicesAt(positionsOf(op.getMatchingIndexingMap(&init)));
            if (count == 1) {
              memref::StoreOp::create(at, loc, elements.front(), output,
                                      indices);
              continue;
            }
            Value vector = vector::FromElementsOp::create(
                at, loc, VectorType::get({count}, elements.front().getType()),
                elements);
            vector::StoreOp::create(at, loc, vector, output, indices,
                                    /*nontemporal=*/false,
                                    alignmentFor(output, count));
          }
          return SmallVector<Value>{};
        });
  }

  RowGroup &group;
  Location loc;
  int64_t threads = 0;
  int64_t lanes = 1;
  Value thread;
  /// Where the thread's steps start when they run without a loop.
  SmallVector<Value> unrolledStarts;
  /// Loads at the top level, by buffer, start and indexing positions.
  std::map<std::tuple<const void *, const void *, std::vector<unsigned>>,
           Value>
      sharedLoads;
  /// The indices of the current element: the row's, then along it.
  SmallVector<Value> ivs;
  /// The row values the members have computed, by the buffer they write.
  DenseMap<Value, Value> rowValues;
};

/// Whether `op` may stay between two members of a row group: it is moved
/// before the group's kernel (an allocation, or a pure op whose operands
/// are defined before `first`) or stays after it (a deallocation: what it
/// frees is used by the members before it, so by the kernel).
bool canStayBetween(Operation *op, Operation *first) {
  if (isa<memref::DeallocOp>(op))
    return true;
  if (!isa<memref::AllocOp>(op) &&
      (!isMemoryEffectFree(op) || op->getNumRegions() != 0))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    Operation *def = operand.getDefiningOp();
    return !def || def->getBlock() != first->getBlock() ||
           def->isBeforeInBlock(first);
  });
}

/// The row group of `reduction` (a reduction a block takes, its row the
/// last loop) whose first member is `start` (the reduction or a per-row op
/// before it), its members running along the block until an op cannot
/// join; none when an op before the reduction cannot. `between` receives
/// the ops between the members.
std::optional<RowGroup>
formRowGroup(Operation *start, linalg::LinalgOp reduction,
             function_ref<bool(linalg::LinalgOp)> isBlockReduction,
             SmallVectorImpl<Operation *> &between) {
  RowGroup group;
  group.ranges = reduction.getStaticLoopRanges();
  bool passed = false; // the reduction is a member
  SmallVector<Operation *> pending;
  for (Operation *op = start; op; op = op->getNextNode()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    std::optional<RowRole> role;
    if (linalgOp)
      role = group.roleOf(linalgOp);
    if (!linalgOp || !role ||
        !group.canJoin(linalgOp, *role, isBlockReduction) ||
        (!passed && *role != RowRole::PerRow && op != reduction)) {
      if (!linalgOp && canStayBetween(op, start)) {
        pending.push_back(op);
        continue;
      }
      if (!passed)
        return std::nullopt;
      break;
    }
    group.add(linalgOp, *role);
    passed |= op == reduction.getOperation();
    between.append(pending.begin(), pending.end());
    pending.clear();
    if (*role == RowRole::Elementwise)
      break;
  }
  return group;
}

struct DistGpuBlockReductionsPass
    : public dist::impl::DistGpuBlockReductionsBase<
          DistGpuBlockReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (minExtent < 1 || minOutputs < 1 || maxThreads < 32 ||
        maxThreads > 1024 || !llvm::isPowerOf2_64(maxThreads)) {
      emitError(getOperation()->getLoc())
          << "dist-gpu-block-reductions: min-extent and min-outputs must be "
             "at least 1 and max-threads a power of two from 32 to 1024, got "
          << minExtent << ", " << minOutputs << " and " << maxThreads;
      return signalPassFailure();
    }
    auto isBlockReduction = [&](linalg::LinalgOp op) {
      return op.hasPureBufferSemantics() &&
             isBlockRowReduction(op, minExtent, minOutputs);
    };
    SmallVector<linalg::LinalgOp> reductions;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Device code is not this pass's to change.
      if (isa<gpu::GPUModuleOp, gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
          linalgOp && isBlockReduction(linalgOp))
        reductions.push_back(linalgOp);
      return WalkResult::advance();
    });
    llvm::SmallPtrSet<Operation *, 16> done;
    for (linalg::LinalgOp reduction : reductions) {
      if (done.contains(reduction))
        continue;
      SmallVector<unsigned> reductionDims;
      reduction.getReductionDims(reductionDims);
      if (reductionDims.front() != reduction.getNumLoops() - 1)
        continue; // dist-gpu-reductions-inside puts it last
      // The per-row ops right before the reduction (allocations and pure
      // ops between them) may lead its group: the earliest that fits.
      SmallVector<Operation *> starts = {reduction};
      for (Operation *before = reduction->getPrevNode();
           before && !done.contains(before); before = before->getPrevNode()) {
        if (auto lead = dyn_cast<linalg::LinalgOp>(before)) {
          if (lead.getNumParallelLoops() != lead.getNumLoops() ||
              lead.getNumLoops() + 1 != reduction.getNumLoops())
            break;
          starts.push_back(before);
          continue;
        }
        if (!isa<memref::AllocOp>(before) && !isMemoryEffectFree(before))
          break;
      }
      std::optional<RowGroup> group;
      SmallVector<Operation *> between;
      for (Operation *start : llvm::reverse(starts)) {
        between.clear();
        group = formRowGroup(start, reduction, isBlockReduction, between);
        if (group)
          break;
      }
      if (!group)
        continue;
      // Allocations and pure ops between the members move before the
      // kernel; deallocations stay after it.
      Operation *first = group->members.front();
      for (Operation *op : between)
        if (!isa<memref::DeallocOp>(op))
          op->moveBefore(first);
      RowKernelBuilder(*group, maxThreads).build();
      for (auto [member, role] : llvm::zip(group->members, group->roles)) {
        done.insert(member);
        if (role == RowRole::Reduction)
          ++numBlockReductions;
        else
          ++numFusedOps;
        member->erase();
      }
    }
  }
};

} // namespace
