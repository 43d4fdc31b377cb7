//===- LoweringUtils.h - Helpers for lowering to external calls -*- C++ -*-===//

#ifndef DIST_LIB_TRANSFORMS_LOWERINGUTILS_H
#define DIST_LIB_TRANSFORMS_LOWERINGUTILS_H

#include "dist/Dialect/Dist/IR/CollectiveOpInterface.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::dist {

/// The address of the first element of `memref` (data from the aligned
/// pointer plus the view's offset), plus `extraElements` elements when
/// given (an index), as an `!llvm.ptr`.
Value buildBufferAddress(OpBuilder &builder, Location loc, Value memref,
                         int64_t elementBytes, Value extraElements = {});

/// How the calls of a runtime function are ordered against a GPU step's
/// device work; marked on its declaration for dist-gpu-streams.
enum class StreamOrdering {
  /// The host waits for the device first (the default: a call may read or
  /// write buffers on the host).
  HostSync,
  /// No wait (dist.no_stream_sync): touches no buffer, or orders its work on
  /// the stream its collective started on.
  NoSync,
  /// The last argument is the stream the call's work is ordered on
  /// (dist.stream_argument; the call passes null until dist-gpu-streams).
  LastArgument,
};

/// Declares `name` as a private external function of `module` with the given
/// signature, unless a function of that name and signature exists, marked
/// with `ordering`. Another symbol of that name is reported (the generated
/// call could not use it).
LogicalResult
declareExternalFunction(OpBuilder &builder, ModuleOp module,
                        SymbolTable &symbolTable, StringRef name,
                        TypeRange args, TypeRange results,
                        StreamOrdering ordering = StreamOrdering::HostSync);

/// Where the members of a bucket (an in-place buffer collective of several
/// buffers) live: `buffer` is the bucket's contiguous memory made by
/// dist-place-buckets (an i8 memref.alloc marked dist.bucket_buffer) and
/// member i occupies bytes [slotOffsets[i], slotOffsets[i + 1]) of it (the
/// last entry is the bucket's size); `placed[i]` says whether the member's buffer is the view of its slot
/// (no copy) rather than a buffer of its own (copied in and back).
struct BucketPlacement {
  Value buffer;
  SmallVector<int64_t> slotOffsets;
  SmallVector<bool> placed;
};

/// The placement of `op`'s bucket; none when dist-place-buckets did not
/// place it (or `op` is not a bucket).
std::optional<BucketPlacement> getBucketPlacement(CollectiveOpInterface op);

/// Bytes of one element in memory (i1 takes a byte, index 8).
int64_t getElementBytes(Type type);

/// Bytes of a statically shaped tensor or memref of int, index or float
/// elements; std::nullopt for anything else.
std::optional<int64_t> getStaticBytes(Type type);

/// The buffer `value` is a view of (through view-like ops), or `value`.
Value getRootBuffer(Value value);

/// The first op of `op`'s block that uses one of its results, directly or
/// inside its regions; null when none does.
Operation *findFirstUserInBlock(Operation *op);

/// The byte offset of each member's slot in a bucket of static buffers, in
/// operand order, then the bucket's size.
SmallVector<int64_t> getBucketSlotOffsets(ValueRange members);

/// A contraction dist-matmul-to-blas turns into a BLAS product: one m, one n
/// and one k loop, every other loop a batch loop. A sum of products without
/// an m or n loop (a dot product; a column sum of products, as a layernorm
/// gain's gradient) is none.
bool isGemmContraction(linalg::LinalgOp op);

/// The bytes one vector access of a GPU thread reads or writes at most: the
/// widest global load a thread issues (ld.global.v4.b32).
constexpr int64_t kGpuAccessBytes = 16;

/// Whether `type`'s elements are laid out row-major from the buffer's start
/// (identity layout, static shape).
bool isRowMajorFromStart(MemRefType type);

/// The bytes that `buffer`'s first element's address is known to be a
/// multiple of, up to kGpuAccessBytes: a function's argument or an
/// allocation starts at an allocation of the runtime; reshapes keep their
/// source's start; a view or cast shifted by a constant keeps the alignment
/// the shift keeps; anything else only its element's.
int64_t knownStartAlignment(Value buffer);

/// The combining op of `op`'s reduction when splitting its reduced loop
/// into parts combined afterwards keeps what `op` computes: plain
/// dimensions in every map, an integer or float result, one combiner with
/// a neutral element and no promise a part may break (overflow flags: a
/// part may overflow where the running sum did not; nnan/ninf: the neutral
/// element of a max is NaN or -inf). Null otherwise.
Operation *getSplittableCombiner(linalg::LinalgOp op);

/// A row reduction dist-gpu-block-reductions gives a thread block per
/// output: one output, one reduction loop of static extent >= `minExtent`
/// along the last (contiguous) dimension of every input that it indexes,
/// >= `minOutputs` outputs (at most a grid's 2^31 - 1), a 32-bit result
/// (a warp shuffles 32-bit values) and a splittable combiner; no product
/// dist-matmul-to-blas makes a BLAS call of. On tensors or buffers.
bool isBlockRowReduction(linalg::LinalgOp op, int64_t minExtent,
                         int64_t minOutputs);

/// The outermost `scf.parallel` loops of host code under `root` that have
/// no reductions (loops bound for GPU kernels; device code and gpu.launch
/// bodies are skipped, a loop nested in another is its inside). Fails,
/// reporting that `passName` runs before the mapping, at a loop that
/// gpu-map-parallel-loops already mapped.
FailureOr<SmallVector<scf::ParallelOp>>
collectHostParallelLoops(Operation *root, StringRef passName);

/// The dimension of `loop` whose variable is the last index of the most
/// element accesses a thread makes: the loads and stores (vector ones too)
/// of its body, each counted as often as the sequential loops around it
/// run (constant trip counts; others count once), ties to the inner
/// dimension. A last index `variable * C` (a vectorized dimension) counts
/// for the variable. Consecutive threads (or vector lanes) along it touch
/// consecutive elements of row-major buffers. std::nullopt when no access
/// has a variable of `loop` as its last index.
std::optional<unsigned> findContiguousDimension(scf::ParallelOp loop);

} // namespace mlir::dist

#endif // DIST_LIB_TRANSFORMS_LOWERINGUTILS_H
