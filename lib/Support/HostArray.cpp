//===- HostArray.cpp - Tensors in host memory, sharded and assembled ------===//

#include "dist/Support/HostArray.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace hostdata {

int64_t byteWidth(DType dtype) {
  switch (dtype) {
  case DType::I1:
  case DType::I8:
    return 1;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
  case DType::Index:
    return 8;
  }
  return 8;
}

bool isFloat(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
         dtype == DType::F64;
}

const char *name(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Index:
    return "index";
  }
  return "?";
}

double unitRoundoff(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return std::ldexp(1.0, -11);
  case DType::BF16:
    return std::ldexp(1.0, -8);
  case DType::F32:
    return std::ldexp(1.0, -24);
  case DType::F64:
    return std::ldexp(1.0, -53);
  default:
    return 0;
  }
}

static unsigned integerBits(DType dtype) {
  return dtype == DType::Index ? 64 : (unsigned)byteWidth(dtype) * 8;
}

double integerMin(DType dtype) {
  if (dtype == DType::I1)
    return 0;
  return -std::ldexp(1.0, integerBits(dtype) - 1);
}

double integerMax(DType dtype) {
  if (dtype == DType::I1)
    return 1;
  unsigned bits = integerBits(dtype);
  // 2^63 - 1 is no double: the largest double below 2^63.
  return bits >= 64 ? std::nextafter(std::ldexp(1.0, 63), 0.0)
                    : std::ldexp(1.0, bits - 1) - 1;
}

//===----------------------------------------------------------------------===//
// 16-bit floats
//===----------------------------------------------------------------------===//

static uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

static float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) // inf, NaN
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) { // zero, subnormal: mantissa * 2^-24
    float magnitude = std::ldexp((float)mantissa, -24);
    return sign ? -magnitude : magnitude;
  }
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
  float magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7e00;
  if (magnitude >= 65520.0f) // rounds to infinity
    return sign | 0x7c00;
  if (magnitude < std::ldexp(1.0f, -14)) {
    // Subnormal (or zero): a multiple of 2^-24, rounded to nearest even.
    float scaled = std::nearbyint(magnitude * std::ldexp(1.0f, 24));
    return sign | (uint16_t)scaled;
  }
  // Normal: keep 10 mantissa bits, round to nearest even on the other 13.
  uint32_t abs = bits & 0x7fffffff;
  uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);
  return sign | (uint16_t)((rounded >> 13) - (112 << 10));
}

float bfloat16ToFloat(uint16_t bits) {
  return bitsToFloat((uint32_t)bits << 16);
}

uint16_t floatToBfloat16(float value) {
  uint32_t bits = floatBits(value);
  if (std::isnan(value))
    return (uint16_t)((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return (uint16_t)(bits >> 16);
}

//===----------------------------------------------------------------------===//
// HostArray
//===----------------------------------------------------------------------===//

HostArray::HostArray(DType dtype, meshmath::Shape shape)
    : elementType(dtype), dims(std::move(shape)) {
  bytes.resize(numElements() * byteWidth(dtype));
}

int64_t HostArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

template <typename T> static T load(const char *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T> static void store(char *p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

double HostArray::get(int64_t i) const {
  const char *p = bytes.data() + i * byteWidth(elementType);
  switch (elementType) {
  case DType::F16:
    return halfToFloat(load<uint16_t>(p));
  case DType::BF16:
    return bfloat16ToFloat(load<uint16_t>(p));
  case DType::F32:
    return load<float>(p);
  case DType::F64:
    return load<double>(p);
  default:
    return (double)getInt(i);
  }
}

void HostArray::set(int64_t i, double value) {
  char *p = bytes.data() + i * byteWidth(elementType);
  switch (elementType) {
  case DType::F16:
    return store(p, floatToHalf((float)value));
  case DType::BF16:
    return store(p, floatToBfloat16((float)value));
  case DType::F32:
    return store(p, (float)value);
  case DType::F64:
    return store(p, value);
  case DType::I1:
    return setInt(i, value != 0);
  default:
    if (std::isnan(value))
      return setInt(i, 0);
    value = std::trunc(std::clamp(value, integerMin(elementType),
                                  integerMax(elementType)));
    return setInt(i, (int64_t)value);
  }
}

int64_t HostArray::getInt(int64_t i) const {
  const char *p = bytes.data() + i * byteWidth(elementType);
  switch (elementType) {
  case DType::I1:
    return load<uint8_t>(p) & 1;
  case DType::I8:
    return load<int8_t>(p);
  case DType::I16:
    return load<int16_t>(p);
  case DType::I32:
    return load<int32_t>(p);
  case DType::I64:
  case DType::Index:
    return load<int64_t>(p);
  default:
    return (int64_t)get(i);
  }
}

void HostArray::setInt(int64_t i, int64_t value) {
  char *p = bytes.data() + i * byteWidth(elementType);
  switch (elementType) {
  case DType::I1:
    return store<uint8_t>(p, value & 1);
  case DType::I8:
    return store<int8_t>(p, (int8_t)value);
  case DType::I16:
    return store<int16_t>(p, (int16_t)value);
  case DType::I32:
    return store<int32_t>(p, (int32_t)value);
  case DType::I64:
  case DType::Index:
    return store<int64_t>(p, value);
  default:
    return set(i, (double)value);
  }
}

HostArray HostArray::convertedTo(DType dtype) const {
  HostArray result(dtype, dims);
  bool exact = !isFloat(elementType) && !isFloat(dtype);
  for (int64_t i = 0, n = numElements(); i < n; ++i) {
    if (exact)
      result.setInt(i, getInt(i));
    else
      result.set(i, get(i));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

double identity(Reduction reduction, DType dtype) {
  if (!isFloat(dtype))
    return (double)identityInt(reduction, dtype);
  switch (reduction) {
  case Reduction::Max:
    return -INFINITY;
  case Reduction::Min:
    return INFINITY;
  case Reduction::Prod:
    return 1;
  case Reduction::Sum:
  case Reduction::Avg:
    return 0;
  }
  return 0;
}

int64_t identityInt(Reduction reduction, DType dtype) {
  int64_t bits = dtype == DType::Index ? 64 : byteWidth(dtype) * 8;
  switch (reduction) {
  case Reduction::Max:
    return dtype == DType::I1 ? 0
           : bits >= 64       ? std::numeric_limits<int64_t>::min()
                              : -(int64_t(1) << (bits - 1));
  case Reduction::Min:
    return dtype == DType::I1 ? 1
           : bits >= 64       ? std::numeric_limits<int64_t>::max()
                              : (int64_t(1) << (bits - 1)) - 1;
  case Reduction::Prod:
    return 1;
  case Reduction::Sum:
  case Reduction::Avg:
    return 0;
  }
  return 0;
}

double combine(Reduction reduction, double a, double b) {
  switch (reduction) {
  case Reduction::Sum:
  case Reduction::Avg:
    return a + b;
  case Reduction::Max:
    return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  case Reduction::Min:
    return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  case Reduction::Prod:
    return a * b;
  }
  return a + b;
}

int64_t combineInt(Reduction reduction, int64_t a, int64_t b) {
  // Wrapping arithmetic, as the program's own integer ops.
  switch (reduction) {
  case Reduction::Sum:
  case Reduction::Avg:
    return (int64_t)((uint64_t)a + (uint64_t)b);
  case Reduction::Max:
    return std::max(a, b);
  case Reduction::Min:
    return std::min(a, b);
  case Reduction::Prod:
    return (int64_t)((uint64_t)a * (uint64_t)b);
  }
  return a + b;
}

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

/// Checks `layout` against a global shape and a mesh; gives the local shape.
static std::optional<meshmath::Shape>
checkLayout(const meshmath::Shape &globalShape, const meshmath::Layout &layout,
            const meshmath::Shape &meshShape, std::string &error) {
  if (layout.dims.size() != globalShape.size()) {
    error = "the layout has " + std::to_string(layout.dims.size()) +
            " dims but the array has rank " +
            std::to_string(globalShape.size());
    return std::nullopt;
  }
  auto checkAxes = [&](const meshmath::AxisList &axes) {
    for (int64_t axis : axes)
      if (axis < 0 || axis >= (int64_t)meshShape.size()) {
        error = "mesh axis " + std::to_string(axis) +
                " is out of range for a mesh of rank " +
                std::to_string(meshShape.size());
        return false;
      }
    return true;
  };
  for (const meshmath::AxisList &axes : layout.dims)
    if (!checkAxes(axes))
      return std::nullopt;
  if (!checkAxes(layout.partial) || !checkAxes(layout.owned))
    return std::nullopt;
  if (layout.isOwned() &&
      (layout.owner < 0 ||
       layout.owner >= meshmath::groupSize(meshShape, layout.owned))) {
    error = "owner " + std::to_string(layout.owner) +
            " is not an index of its group";
    return std::nullopt;
  }
  if (layout.partialKind < 0 || layout.partialKind > 4) {
    error = "unknown reduction kind " + std::to_string(layout.partialKind);
    return std::nullopt;
  }
  std::optional<meshmath::Shape> local =
      meshmath::localShape(globalShape, layout.dims, meshShape, layout.halos);
  if (!local)
    error = layout.hasHalos() ? "a split dim with a halo has a bad size (its "
                                "blocks must be even and at least as large "
                                "as the halo)"
                              : "a split dim has a bad size";
  return local;
}

/// Calls `fn(i, position)` for every element of a block of shape `local` at
/// `offsets` in an array of shape `global`: `i` is its row-major position
/// in the block, `position` in the array. Padding (block elements past the
/// end of a dim that the split does not divide) and a halo's rows outside
/// the array are skipped.
template <typename Fn>
static void forEachElement(const meshmath::Shape &local,
                           const meshmath::Shape &global,
                           const meshmath::Shape &offsets, Fn fn) {
  int64_t n = 1;
  for (int64_t size : local)
    n *= size;
  if (n == 0)
    return;
  int64_t rank = (int64_t)local.size();
  meshmath::Shape index(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t position = 0;
    bool padding = false;
    for (int64_t d = 0; d < rank; ++d) {
      padding |= offsets[d] + index[d] >= global[d] || offsets[d] + index[d] < 0;
      position = position * global[d] + offsets[d] + index[d];
    }
    if (!padding)
      fn(i, position);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < local[d])
        break;
      index[d] = 0;
    }
  }
}

std::optional<HostArray> shardBlock(const HostArray &global,
                                    const meshmath::Layout &layout,
                                    const meshmath::Shape &meshShape,
                                    int64_t rank, std::string &error) {
  std::optional<meshmath::Shape> local =
      checkLayout(global.shape(), layout, meshShape, error);
  if (!local)
    return std::nullopt;
  if (rank < 0 || rank >= meshmath::numDevices(meshShape)) {
    error = "rank " + std::to_string(rank) + " is not on the mesh";
    return std::nullopt;
  }
  HostArray block(global.dtype(), *local);
  meshmath::Shape coords = meshmath::delinearize(rank, meshShape);
  auto reduction = (Reduction)layout.partialKind;
  if (!layout.partial.empty() && reduction != Reduction::Avg &&
      meshmath::indexInGroup(coords, meshShape, layout.partial) != 0) {
    for (int64_t i = 0, n = block.numElements(); i < n; ++i) {
      if (isFloat(global.dtype()))
        block.set(i, identity(reduction, global.dtype()));
      else
        block.setInt(i, identityInt(reduction, global.dtype()));
    }
    return block;
  }
  int64_t width = byteWidth(global.dtype());
  meshmath::Shape offsets =
      meshmath::localOffsets(global.shape(), layout.dims, meshShape, coords,
                             layout.halos);
  forEachElement(*local, global.shape(), offsets,
                 [&](int64_t i, int64_t position) {
                   std::memcpy(block.data() + i * width,
                               global.data() + position * width, width);
                 });
  return block;
}

std::optional<std::vector<HostArray>>
assembleBlocks(const std::vector<HostArray> &blocks,
               const meshmath::Shape &globalShape,
               const meshmath::Layout &layout,
               const meshmath::Shape &meshShape, std::string &error) {
  std::optional<meshmath::Shape> local =
      checkLayout(globalShape, layout, meshShape, error);
  if (!local)
    return std::nullopt;
  int64_t ranks = meshmath::numDevices(meshShape);
  if ((int64_t)blocks.size() != ranks) {
    error = std::to_string(blocks.size()) + " blocks for a mesh of " +
            std::to_string(ranks) + " devices";
    return std::nullopt;
  }
  DType dtype = blocks.front().dtype();
  for (int64_t r = 0; r < ranks; ++r)
    if (blocks[r].shape() != *local || blocks[r].dtype() != dtype) {
      error = "the block of rank " + std::to_string(r) +
              " does not have the layout's local shape and the element type "
              "of rank 0";
      return std::nullopt;
    }

  // Along owned axes only the owner's block counts: those axes are neither
  // replicas nor parts.
  meshmath::AxisList used = layout.partial;
  used.insert(used.end(), layout.owned.begin(), layout.owned.end());
  for (const meshmath::AxisList &axes : layout.dims)
    used.insert(used.end(), axes.begin(), axes.end());
  meshmath::AxisList replicaAxes;
  for (int64_t a = 0; a < (int64_t)meshShape.size(); ++a)
    if (std::find(used.begin(), used.end(), a) == used.end())
      replicaAxes.push_back(a);
  auto reduction = (Reduction)layout.partialKind;
  bool partial = !layout.partial.empty();
  bool floating = isFloat(dtype);

  // Accumulate in double (floats) or int64 (integers), one per replica.
  int64_t numReplicas = meshmath::groupSize(meshShape, replicaAxes);
  int64_t n = 1;
  for (int64_t size : globalShape)
    n *= size;
  std::vector<std::vector<double>> floats(floating ? numReplicas : 0);
  std::vector<std::vector<int64_t>> ints(floating ? 0 : numReplicas);
  double floatInit = partial ? identity(reduction, dtype) : 0;
  int64_t intInit = partial ? identityInt(reduction, dtype) : 0;
  for (int64_t replica = 0; replica < numReplicas; ++replica) {
    if (floating)
      floats[replica].assign(n, floatInit);
    else
      ints[replica].assign(n, intInit);
  }
  for (int64_t r = 0; r < ranks; ++r) {
    meshmath::Shape coords = meshmath::delinearize(r, meshShape);
    if (layout.isOwned() &&
        meshmath::indexInGroup(coords, meshShape, layout.owned) != layout.owner)
      continue;
    int64_t replica = meshmath::indexInGroup(coords, meshShape, replicaAxes);
    meshmath::Shape offsets =
        meshmath::localOffsets(globalShape, layout.dims, meshShape, coords,
                               layout.halos);
    const HostArray &block = blocks[r];
    forEachElement(*local, globalShape, offsets,
                   [&](int64_t i, int64_t position) {
                     if (floating) {
                       double &slot = floats[replica][position];
                       slot = partial ? combine(reduction, slot, block.get(i))
                                      : block.get(i);
                     } else {
                       int64_t &slot = ints[replica][position];
                       slot = partial
                                  ? combineInt(reduction, slot, block.getInt(i))
                                  : block.getInt(i);
                     }
                   });
  }
  // A halo's rows are copies of the neighbours' rows (zeros past the ends):
  // every copy must agree with the value assembled (each row's last writer),
  // so that a wrong exchange cannot hide behind a right block.
  if (layout.hasHalos()) {
    int64_t localCount = 1;
    for (int64_t size : *local)
      localCount *= size;
    for (int64_t r = 0; r < ranks; ++r) {
      meshmath::Shape coords = meshmath::delinearize(r, meshShape);
      int64_t replica = meshmath::indexInGroup(coords, meshShape, replicaAxes);
      meshmath::Shape offsets = meshmath::localOffsets(
          globalShape, layout.dims, meshShape, coords, layout.halos);
      meshmath::Shape index(local->size(), 0);
      for (int64_t i = 0; i < localCount; ++i) {
        bool padding = false, ghost = false;
        int64_t position = 0;
        for (size_t d = 0; d < local->size(); ++d) {
          int64_t row = offsets[d] + index[d];
          if (row < 0 || row >= globalShape[d])
            (meshmath::haloOf(layout.halos, d).empty() ? padding : ghost) = true;
          position = position * globalShape[d] + row;
        }
        if (!padding) {
          bool same;
          if (floating) {
            double have = blocks[r].get(i);
            double want = ghost ? 0 : floats[replica][position];
            same = have == want || (std::isnan(have) && std::isnan(want));
          } else {
            same = blocks[r].getInt(i) == (ghost ? 0 : ints[replica][position]);
          }
          if (!same) {
            error = "the block of rank " + std::to_string(r) + " holds " +
                    (ghost ? "a ghost row that is not zero"
                           : "a halo row that differs from its neighbour's") +
                    " (element " + std::to_string(i) + ")";
            return std::nullopt;
          }
        }
        for (size_t d = local->size(); d-- > 0;) {
          if (++index[d] < (*local)[d])
            break;
          index[d] = 0;
        }
      }
    }
  }
  int64_t groupSize = meshmath::groupSize(meshShape, layout.partial);
  std::vector<HostArray> result;
  for (int64_t replica = 0; replica < numReplicas; ++replica) {
    HostArray &array = result.emplace_back(dtype, globalShape);
    for (int64_t i = 0; i < n; ++i) {
      if (floating) {
        double value = floats[replica][i];
        if (partial && reduction == Reduction::Avg)
          value /= groupSize;
        array.set(i, value);
      } else {
        int64_t value = ints[replica][i];
        if (partial && reduction == Reduction::Avg)
          value /= groupSize;
        array.setInt(i, value);
      }
    }
  }
  return result;
}

} // namespace hostdata
