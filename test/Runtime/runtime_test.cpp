//===- runtime_test.cpp - Every collective against a reference ------------===//
//
// Run on N ranks (mpirun -np N): the mesh is [N] for N <= 2, [2, N/2]
// otherwise. For every group of mesh axes (both orders), element type and
// reduction, each rank fills its input with values that depend on its world
// rank, calls the collective, and compares with what it computes the result
// must be. Values are small integers, exact in every element type.
//
//===----------------------------------------------------------------------===//

#include "dist/Runtime/DistRuntime.h"
#include "dist/Support/MeshMath.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

int checks = 0, failures = 0, worldRank = 0;

void expect(bool ok, const std::string &what) {
  ++checks;
  if (!ok && ++failures <= 20)
    std::fprintf(stderr, "rank %d: FAILED %s\n", worldRank, what.c_str());
}

// Exact conversions of small integers (the only values used).
uint16_t toHalf(double v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  double a = std::fabs(v);
  int e = (int)std::floor(std::log2(a));
  uint16_t mantissa = (uint16_t)std::lround((a / std::ldexp(1.0, e) - 1) * 1024);
  return sign | (uint16_t)((e + 15) << 10) | mantissa;
}
double fromHalf(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double m = h & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1 + m / 1024, e - 15);
  return (h & 0x8000) ? -v : v;
}
uint16_t toBf16(double v) {
  float f = (float)v;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits >> 16;
}
double fromBf16(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

struct Buffer {
  dist_dtype_t dtype;
  std::vector<char> bytes;
  Buffer(dist_dtype_t dtype, int64_t count)
      : dtype(dtype), bytes(count * dist_dtype_size(dtype)) {}
  void set(int64_t i, double v) {
    switch (dtype) {
    case DIST_F32: ((float *)bytes.data())[i] = (float)v; break;
    case DIST_F64: ((double *)bytes.data())[i] = v; break;
    case DIST_I32: ((int32_t *)bytes.data())[i] = (int32_t)v; break;
    case DIST_I64: ((int64_t *)bytes.data())[i] = (int64_t)v; break;
    case DIST_F16: ((uint16_t *)bytes.data())[i] = toHalf(v); break;
    case DIST_BF16: ((uint16_t *)bytes.data())[i] = toBf16(v); break;
    }
  }
  double get(int64_t i) const {
    switch (dtype) {
    case DIST_F32: return ((const float *)bytes.data())[i];
    case DIST_F64: return ((const double *)bytes.data())[i];
    case DIST_I32: return ((const int32_t *)bytes.data())[i];
    case DIST_I64: return (double)((const int64_t *)bytes.data())[i];
    case DIST_F16: return fromHalf(((const uint16_t *)bytes.data())[i]);
    case DIST_BF16: return fromBf16(((const uint16_t *)bytes.data())[i]);
    }
    return 0;
  }
  void *data() { return bytes.data(); }
};

const char *dtypeName(dist_dtype_t d) {
  static const char *names[] = {"f32", "f64", "f16", "bf16", "i32", "i64"};
  return names[d];
}

/// Rank `rank`'s input element `i`: distinct for every rank (11 * rank mod
/// 97 differs for up to 97 ranks) and exact in every type (<= 97 < 256).
double value(int64_t rank, int64_t i, dist_reduction_t reduction) {
  if (reduction == DIST_PROD)
    return (double)((rank + i) % 2 + 1); // products stay small
  return (double)((rank * 11 + i * 3) % 97 + 1);
}

double combine(double a, double b, dist_reduction_t r) {
  switch (r) {
  case DIST_SUM:
  case DIST_AVG: return a + b;
  case DIST_MAX: return std::max(a, b);
  case DIST_MIN: return std::min(a, b);
  case DIST_PROD: return a * b;
  }
  return a;
}

bool isInt(dist_dtype_t d) { return d == DIST_I32 || d == DIST_I64; }

/// The expected reduction of element i over the group `members`.
double reduced(const std::vector<int64_t> &members, int64_t i,
               dist_reduction_t r, dist_dtype_t dtype) {
  double acc = value(members[0], i, r);
  for (size_t m = 1; m < members.size(); ++m)
    acc = combine(acc, value(members[m], i, r), r);
  if (r == DIST_AVG) {
    acc /= (double)members.size();
    if (isInt(dtype))
      acc = std::trunc(acc);
    else if (dtype == DIST_F16)
      acc = fromHalf(toHalf(acc)); // the value as the type rounds it
    else if (dtype == DIST_BF16)
      acc = fromBf16(toBf16(acc));
  }
  return acc;
}

bool close(double a, double b, dist_dtype_t dtype) {
  double tolerance = dtype == DIST_BF16 ? 1e-2 : dtype == DIST_F16 ? 1e-3 : 1e-6;
  return std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(b));
}

int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// Row-major multi-index of `flat` in `shape`, and back.
std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t> &shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}
int64_t flatten(const std::vector<int64_t> &idx, const std::vector<int64_t> &shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + idx[d];
  return flat;
}

void testGroup(const meshmath::Shape &mesh, const meshmath::AxisList &axes) {
  dist_group_t *group = dist_get_group(mesh.data(), (int32_t)mesh.size(),
                                       axes.data(), (int32_t)axes.size());
  std::vector<int64_t> members = meshmath::groupRanks(worldRank, mesh, axes);
  int64_t g = (int64_t)members.size();
  int64_t me = meshmath::indexInGroup(meshmath::delinearize(worldRank, mesh), mesh, axes);
  std::string groupName = "[";
  for (int64_t a : axes)
    groupName += std::to_string(a);
  groupName += "]";
  expect(dist_group_size(group) == g, "group size of " + groupName);
  expect(dist_group_index(group) == me, "group index in " + groupName);
  expect(dist_get_group(mesh.data(), (int32_t)mesh.size(), axes.data(),
                        (int32_t)axes.size()) == group,
         "group cache for " + groupName);

  const dist_dtype_t dtypes[] = {DIST_F32, DIST_F64, DIST_F16, DIST_BF16, DIST_I32, DIST_I64};
  const dist_reduction_t reductions[] = {DIST_SUM, DIST_MAX, DIST_MIN, DIST_PROD, DIST_AVG};
  const int64_t count = 12;
  for (dist_dtype_t dtype : dtypes) {
    std::string where = groupName + " " + dtypeName(dtype);
    for (dist_reduction_t r : reductions) {
      // all_reduce
      Buffer b(dtype, count);
      for (int64_t i = 0; i < count; ++i)
        b.set(i, value(worldRank, i, r));
      dist_all_reduce(group, b.data(), count, dtype, r);
      for (int64_t i = 0; i < count; ++i)
        expect(close(b.get(i), reduced(members, i, r, dtype), dtype),
               "all_reduce " + where + " kind " + std::to_string(r) + " elem " +
                   std::to_string(i));
      // reduce to every root
      for (int64_t root = 0; root < g; ++root) {
        Buffer c(dtype, count);
        for (int64_t i = 0; i < count; ++i)
          c.set(i, value(worldRank, i, r));
        dist_reduce(group, c.data(), count, dtype, r, root);
        for (int64_t i = 0; i < count; ++i)
          expect(close(c.get(i),
                       me == root ? reduced(members, i, r, dtype)
                                  : value(worldRank, i, r), // keeps its input
                       dtype),
                 "reduce " + where + " root " + std::to_string(root));
      }
    }
    // broadcast from every root
    for (int64_t root = 0; root < g; ++root) {
      Buffer b(dtype, count);
      for (int64_t i = 0; i < count; ++i)
        b.set(i, value(worldRank, i, DIST_SUM));
      dist_broadcast(group, b.data(), count, dtype, root);
      for (int64_t i = 0; i < count; ++i)
        expect(close(b.get(i), value(members[root], i, DIST_SUM), dtype),
               "broadcast " + where + " root " + std::to_string(root));
    }
    // all_gather, reduce_scatter, all_to_all on a 3-D tensor, every dim.
    for (int32_t d = 0; d < 3; ++d) {
      std::vector<int64_t> shape = {2, 3, 5};
      Buffer in(dtype, product(shape));
      for (int64_t i = 0; i < product(shape); ++i)
        in.set(i, value(worldRank, i, DIST_SUM));
      std::vector<int64_t> outShape = shape;
      outShape[d] *= g;
      Buffer out(dtype, product(outShape));
      dist_all_gather(group, in.data(), out.data(), shape.data(), 3, d, dtype);
      for (int64_t f = 0; f < product(outShape); ++f) {
        std::vector<int64_t> idx = unflatten(f, outShape);
        int64_t j = idx[d] / shape[d];
        idx[d] %= shape[d];
        expect(close(out.get(f), value(members[j], flatten(idx, shape), DIST_SUM), dtype),
               "all_gather " + where + " dim " + std::to_string(d));
      }

      std::vector<int64_t> rsShape = {2, 3, 5};
      rsShape[d] *= g;
      Buffer rsIn(dtype, product(rsShape));
      for (int64_t i = 0; i < product(rsShape); ++i)
        rsIn.set(i, value(worldRank, i, DIST_SUM));
      std::vector<int64_t> rsOut = rsShape;
      rsOut[d] /= g;
      Buffer rs(dtype, product(rsOut));
      dist_reduce_scatter(group, rsIn.data(), rs.data(), rsShape.data(), 3, d,
                          dtype, DIST_SUM);
      for (int64_t f = 0; f < product(rsOut); ++f) {
        std::vector<int64_t> idx = unflatten(f, rsOut);
        idx[d] += me * rsOut[d];
        expect(close(rs.get(f), reduced(members, flatten(idx, rsShape), DIST_SUM, dtype),
                     dtype),
               "reduce_scatter " + where + " dim " + std::to_string(d));
      }

      for (int32_t c = 0; c < 3; ++c) {
        std::vector<int64_t> aShape = {2, 3, 5};
        aShape[d] *= g; // split dim d
        Buffer aIn(dtype, product(aShape));
        for (int64_t i = 0; i < product(aShape); ++i)
          aIn.set(i, value(worldRank, i, DIST_SUM));
        std::vector<int64_t> block = aShape;
        block[d] /= g;
        std::vector<int64_t> aOut = block;
        aOut[c] *= g;
        Buffer a(dtype, product(aOut));
        dist_all_to_all(group, aIn.data(), a.data(), aShape.data(), 3, d, c, dtype);
        for (int64_t f = 0; f < product(aOut); ++f) {
          std::vector<int64_t> idx = unflatten(f, aOut);
          int64_t j = idx[c] / block[c];
          idx[c] %= block[c];
          idx[d] += me * block[d];
          expect(close(a.get(f), value(members[j], flatten(idx, aShape), DIST_SUM), dtype),
                 "all_to_all " + where + " split " + std::to_string(d) +
                     " concat " + std::to_string(c));
        }
      }
    }
    // send_recv as dist.permute lowers to it: a rotation by one, and a
    // single pair (0 -> g - 1) whose other ranks keep their output.
    {
      Buffer in(dtype, count), out(dtype, count);
      for (int64_t i = 0; i < count; ++i)
        in.set(i, value(worldRank, i, DIST_SUM));
      int64_t from = (me + g - 1) % g;
      dist_send_recv(group, in.data(), (me + 1) % g, out.data(), from, count,
                     dtype);
      for (int64_t i = 0; i < count; ++i)
        expect(close(out.get(i), value(members[from], i, DIST_SUM), dtype),
               "send_recv rotate " + where);
      for (int64_t i = 0; i < count; ++i)
        out.set(i, 5);
      dist_send_recv(group, in.data(), me == 0 ? g - 1 : -1, out.data(),
                     me == g - 1 ? 0 : -1, count, dtype);
      for (int64_t i = 0; i < count; ++i)
        expect(close(out.get(i), me == g - 1 ? value(members[0], i, DIST_SUM) : 5.0, dtype),
               "send_recv pair " + where);
      // send_recv along a chain: index i sends to i + 1 and receives from
      // i - 1; the ends send or receive nothing (index 0 keeps its output).
      Buffer chained(dtype, count);
      for (int64_t i = 0; i < count; ++i)
        chained.set(i, 7);
      int64_t next = me + 1 < g ? me + 1 : -1, previous = me - 1;
      dist_send_recv(group, in.data(), next, chained.data(), previous, count, dtype);
      for (int64_t i = 0; i < count; ++i)
        expect(close(chained.get(i),
                     me == 0 ? 7.0 : value(members[me - 1], i, DIST_SUM), dtype),
               "send_recv chain " + where);
    }
  }
}

/// Averages near the limits of their types: the sum would overflow f16 or
/// i32, the average does not.
void testAverageLimits(const meshmath::Shape &mesh) {
  int64_t axes[1] = {0};
  dist_group_t *group = dist_get_group(mesh.data(), (int32_t)mesh.size(), axes, 1);
  Buffer half(DIST_F16, 4);
  for (int64_t i = 0; i < 4; ++i)
    half.set(i, 10000);
  dist_all_reduce(group, half.data(), 4, DIST_F16, DIST_AVG);
  for (int64_t i = 0; i < 4; ++i)
    expect(close(half.get(i), 10000, DIST_F16), "f16 avg of equal copies near the f16 limit");
  Buffer word(DIST_I32, 4);
  for (int64_t i = 0; i < 4; ++i)
    word.set(i, 2147483646.0);
  dist_all_reduce(group, word.data(), 4, DIST_I32, DIST_AVG);
  for (int64_t i = 0; i < 4; ++i)
    expect(word.get(i) == 2147483646.0, "i32 avg near INT_MAX");
}

} // namespace

int main(int argc, char **argv) {
  dist_init(&argc, &argv);
  worldRank = dist_world_rank();
  int size = dist_world_size();
  meshmath::Shape mesh = size <= 2 ? meshmath::Shape{size}
                                   : meshmath::Shape{2, size / 2};
  std::vector<meshmath::AxisList> groups = {{0}};
  if (mesh.size() == 2)
    groups = {{0}, {1}, {0, 1}, {1, 0}};
  for (const meshmath::AxisList &axes : groups)
    testGroup(mesh, axes);
  testAverageLimits(mesh);
  dist_finalize();
  if (worldRank == 0 || failures)
    std::printf("runtime test on %d ranks (%s backend), rank %d: %d checks, %d failed\n",
                size, dist_backend_name(), worldRank, checks, failures);
  return failures ? 1 : 0;
}
