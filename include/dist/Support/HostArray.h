//===- HostArray.h - Tensors in host memory, sharded and assembled -*- C++ -*-===//
//
// A tensor in host memory (row-major bytes of one element type) and what a
// driver of SPMD programs does with it: cut a rank's block out of the global
// array by a layout (meshmath::Layout, the compiler's layout type), rebuild
// the global array from every rank's block (reducing partial blocks,
// separating replicas), the identities of the reductions per element type,
// and combining partial values. Plain C++ with no MLIR dependency: dist-run
// and unit tests use it, and it mirrors what dist-partition means by a
// layout.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_SUPPORT_HOSTARRAY_H
#define DIST_SUPPORT_HOSTARRAY_H

#include "dist/Support/MeshMath.h"
#include "dist/Support/ReshardPlan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hostdata {

/// Element types of host arrays. `I1` is stored in one byte (0 or 1), as
/// LLVM stores i1 in memory; `Index` is 64 bits.
enum class DType { F16, BF16, F32, F64, I1, I8, I16, I32, I64, Index };

/// Bytes of one element.
int64_t byteWidth(DType dtype);
/// F16, BF16, F32 or F64.
bool isFloat(DType dtype);
/// The MLIR spelling ("f32", "bf16", "i1", "index").
const char *name(DType dtype);
/// The unit roundoff of a float type (2^-24 for f32, 2^-11 for f16, 2^-8 for
/// bf16, 2^-53 for f64); 0 for integers.
double unitRoundoff(DType dtype);
/// The smallest and largest value of an integer type (i1: 0 and 1; i64 and
/// index: the doubles nearest to the extremes that the type holds).
double integerMin(DType dtype);
double integerMax(DType dtype);

/// IEEE half and bfloat16 conversions (round to nearest even).
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);

/// The reductions of partial state: dist::ReductionKind's values, as in
/// meshmath::Layout::partialKind.
enum class Reduction { Sum = 0, Max = 1, Min = 2, Prod = 3, Avg = 4 };

/// A tensor in host memory: `shape` (empty for a scalar or 0-d tensor) and
/// row-major elements of `dtype`.
class HostArray {
public:
  HostArray() = default;
  HostArray(DType dtype, meshmath::Shape shape);

  DType dtype() const { return elementType; }
  const meshmath::Shape &shape() const { return dims; }
  int64_t numElements() const;
  int64_t numBytes() const { return (int64_t)bytes.size(); }
  char *data() { return bytes.data(); }
  const char *data() const { return bytes.data(); }

  /// Element `i` as a double (integers above 2^53 round).
  double get(int64_t i) const;
  /// Stores `value` at `i`, converted to the element type (rounded to
  /// nearest for floats, truncated toward zero and clamped for integers,
  /// nonzero as 1 for i1).
  void set(int64_t i, double value);
  /// Exact integer access (integer types only).
  int64_t getInt(int64_t i) const;
  void setInt(int64_t i, int64_t value);

  /// A copy converted element by element to `dtype` (same shape).
  HostArray convertedTo(DType dtype) const;

private:
  DType elementType = DType::F32;
  meshmath::Shape dims;
  std::vector<char> bytes;
};

/// The identity of `reduction` on `dtype`: 0 for sum, 1 for prod, for max
/// and min -inf and +inf on floats and the type's extremes on integers. Avg
/// has none (every rank holds the value): 0.
double identity(Reduction reduction, DType dtype);
/// The same for integer types, exactly (min on i64: INT64_MAX, which no
/// double holds).
int64_t identityInt(Reduction reduction, DType dtype);

/// `a` combined with `b` by `reduction` (avg adds; divide by the group size
/// at the end).
double combine(Reduction reduction, double a, double b);
int64_t combineInt(Reduction reduction, int64_t a, int64_t b);

/// The block that the rank at linear `rank` of a mesh of shape `meshShape`
/// holds of `global` laid out by `layout` (its dims split by the layout's
/// axes). For a partial layout the reduction over each partial group must be
/// `global`: the group's first rank gets the values and the others the
/// reduction's identity; with avg every rank gets the values. An owned layout
/// gives every rank the values (the owner among them). Fails with a
/// message when the layout does not fit the array or the mesh.
std::optional<HostArray> shardBlock(const HostArray &global,
                                    const meshmath::Layout &layout,
                                    const meshmath::Shape &meshShape,
                                    int64_t rank, std::string &error);

/// The global arrays of shape `globalShape` that the ranks' blocks
/// (`blocks[r]` on linear rank r) make up under `layout`. Ranks that differ
/// only along the partial axes are reduced (avg divides by the group size);
/// ranks that differ only along axes that neither split nor reduce the array
/// hold replicas: one global array per replica, in the order of their index
/// along those axes (the first is the result, the others should equal it).
/// Along owned axes only the owners' blocks are read. Fails with a message
/// when a block has the wrong shape or type.
std::optional<std::vector<HostArray>>
assembleBlocks(const std::vector<HostArray> &blocks,
               const meshmath::Shape &globalShape,
               const meshmath::Layout &layout,
               const meshmath::Shape &meshShape, std::string &error);

} // namespace hostdata

#endif // DIST_SUPPORT_HOSTARRAY_H
