//===- runtime_test.cpp - Every collective against a reference ------------===//
//
// Run on N ranks (mpirun -np N): the mesh is [N] for N <= 2, [2, N/2]
// otherwise. For every group of mesh axes (both orders), element type and
// reduction, each rank fills its input with values that depend on its world
// rank, calls the collective (blocking on comm 0, started and waited for on
// comm 1), and compares with what it computes the result must be. Values are
// small integers, exact in every element type; integer sums wrap where the
// type does. Then many requests are in flight at once on three comm indices
// of every group and are waited for in an order that differs per rank.
//
//   dist-runtime-test          the tests above
//   dist-runtime-test trace    each collective once in each form, with
//                              compute between (for the trace test)
//
//===----------------------------------------------------------------------===//

#include "dist/Runtime/DistRuntime.h"
#include "dist/Support/MeshMath.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#ifdef DIST_TEST_HAVE_CUDA
// libdist_cuda_runtime.so: managed memory (the driver is opened on first use).
extern "C" void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared);
extern "C" void mgpuMemFree(void *pointer, void *stream);
extern "C" void *mgpuStreamCreate();
extern "C" void mgpuStreamSynchronize(void *stream);
extern "C" void mgpuStreamDestroy(void *stream);
#endif

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

const dist_dtype_t kDtypes[] = {DIST_F32, DIST_F64, DIST_F16,
                                DIST_BF16, DIST_I32, DIST_I64,
                                DIST_I8,  DIST_I16, DIST_I1};
const dist_reduction_t kReductions[] = {DIST_SUM, DIST_MAX, DIST_MIN,
                                        DIST_PROD, DIST_AVG};

const char *dtypeName(dist_dtype_t d) {
  static const char *names[] = {"f32", "f64", "f16", "bf16", "i32",
                                "i64", "i8",  "i16", "i1"};
  return names[d];
}

bool isInt(dist_dtype_t d) {
  return d == DIST_I32 || d == DIST_I64 || d == DIST_I8 || d == DIST_I16 ||
         d == DIST_I1;
}

/// DIST_TEST_DEVICE_MEMORY=1: every buffer the runtime sees is CUDA managed
/// memory (for a backend on device buffers: nccl), which the test reads and
/// writes from the host while no collective uses it.
bool deviceMemory = false;

char *allocate(size_t bytes) {
#ifdef DIST_TEST_HAVE_CUDA
  if (deviceMemory)
    return static_cast<char *>(mgpuMemAlloc(bytes, nullptr, /*shared=*/true));
#endif
  return static_cast<char *>(std::calloc(bytes ? bytes : 1, 1));
}

void release(char *pointer) {
#ifdef DIST_TEST_HAVE_CUDA
  if (deviceMemory)
    return mgpuMemFree(pointer, nullptr);
#endif
  std::free(pointer);
}

struct Buffer {
  dist_dtype_t dtype;
  size_t size;
  char *bytes;
  Buffer(dist_dtype_t dtype, int64_t count)
      : dtype(dtype), size(count * dist_dtype_size(dtype)),
        bytes(allocate(size)) {
    std::memset(bytes, 0, size);
  }
  ~Buffer() { release(bytes); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  void set(int64_t i, double v) {
    char *p = bytes;
    switch (dtype) {
    case DIST_F32: ((float *)p)[i] = (float)v; break;
    case DIST_F64: ((double *)p)[i] = v; break;
    case DIST_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case DIST_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    case DIST_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case DIST_I16: ((int16_t *)p)[i] = (int16_t)v; break;
    case DIST_I1: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case DIST_F16: ((uint16_t *)p)[i] = toHalf(v); break;
    case DIST_BF16: ((uint16_t *)p)[i] = toBf16(v); break;
    }
  }
  double get(int64_t i) const {
    const char *p = bytes;
    switch (dtype) {
    case DIST_F32: return ((const float *)p)[i];
    case DIST_F64: return ((const double *)p)[i];
    case DIST_I32: return ((const int32_t *)p)[i];
    case DIST_I64: return (double)((const int64_t *)p)[i];
    case DIST_I8: return ((const int8_t *)p)[i];
    case DIST_I16: return ((const int16_t *)p)[i];
    case DIST_I1: return ((const uint8_t *)p)[i];
    case DIST_F16: return fromHalf(((const uint16_t *)p)[i]);
    case DIST_BF16: return fromBf16(((const uint16_t *)p)[i]);
    }
    return 0;
  }
  void *data() { return bytes; }
};

/// Rank `rank`'s input element `i`: distinct for every rank (11 * rank mod
/// 97 differs for up to 97 ranks) and exact in every type (<= 97 < 128); 0
/// or 1 for i1; scaled for i16, so that its sums and products wrap too.
double value(int64_t rank, int64_t i, dist_reduction_t reduction,
             dist_dtype_t dtype) {
  int64_t v = reduction == DIST_PROD ? (rank + i) % 2 + 1 // products stay small
                                     : (rank * 11 + i * 3) % 97 + 1;
  if (dtype == DIST_I16)
    v *= 331; // <= 32107
  return dtype == DIST_I1 ? (double)(v & 1) : (double)v;
}

/// Wraps `v` to the integer type `dtype`, as its sums and products do.
int64_t wrap(int64_t v, dist_dtype_t dtype) {
  switch (dtype) {
  case DIST_I8: return (int8_t)(uint8_t)(uint64_t)v;
  case DIST_I16: return (int16_t)(uint16_t)(uint64_t)v;
  case DIST_I32: return (int32_t)(uint32_t)(uint64_t)v;
  default: return v;
  }
}

/// The expected reduction of element i over the group `members`.
double reduced(const std::vector<int64_t> &members, int64_t i,
               dist_reduction_t r, dist_dtype_t dtype) {
  if (isInt(dtype)) {
    int64_t acc = (int64_t)value(members[0], i, r, dtype);
    for (size_t m = 1; m < members.size(); ++m) {
      int64_t v = (int64_t)value(members[m], i, r, dtype);
      if (dtype == DIST_I1) { // sum = xor, max = or, min = prod = and
        acc = r == DIST_SUM ? acc ^ v : r == DIST_MAX ? acc | v : acc & v;
        continue;
      }
      switch (r) {
      case DIST_SUM:
      case DIST_AVG: acc += v; break;
      case DIST_MAX: acc = std::max(acc, v); break;
      case DIST_MIN: acc = std::min(acc, v); break;
      case DIST_PROD: acc *= v; break;
      }
    }
    if (r == DIST_AVG) // on an i64 copy: no wrap before the division
      acc /= (int64_t)members.size();
    return (double)wrap(acc, dtype);
  }
  double acc = value(members[0], i, r, dtype);
  for (size_t m = 1; m < members.size(); ++m) {
    double v = value(members[m], i, r, dtype);
    switch (r) {
    case DIST_SUM:
    case DIST_AVG: acc += v; break;
    case DIST_MAX: acc = std::max(acc, v); break;
    case DIST_MIN: acc = std::min(acc, v); break;
    case DIST_PROD: acc *= v; break;
    }
  }
  if (r == DIST_AVG) {
    acc /= (double)members.size();
    if (dtype == DIST_F16)
      acc = fromHalf(toHalf(acc)); // the value as the type rounds it
    else if (dtype == DIST_BF16)
      acc = fromBf16(toBf16(acc));
  }
  return acc;
}

bool close(double a, double b, dist_dtype_t dtype) {
  if (isInt(dtype))
    return a == b;
  double tolerance = dtype == DIST_BF16 ? 1e-2 : dtype == DIST_F16 ? 1e-3 : 1e-6;
  return std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(b));
}

/// How a test calls a collective: blocking, or started, progressed and
/// waited for.
enum class Form { Blocking, Started };

void await(dist_request_t *request) {
  dist_progress();
  dist_wait(request);
}

struct GroupUnderTest {
  dist_group_t *group;
  std::vector<int64_t> members;
  int64_t g, me;
  std::string name;
};

GroupUnderTest makeGroup(const meshmath::Shape &mesh,
                         const meshmath::AxisList &axes, int32_t comm) {
  GroupUnderTest t;
  t.group = dist_get_group(mesh.data(), (int32_t)mesh.size(), axes.data(),
                           (int32_t)axes.size(), comm);
  t.members = meshmath::groupRanks(worldRank, mesh, axes);
  t.g = (int64_t)t.members.size();
  t.me = meshmath::indexInGroup(meshmath::delinearize(worldRank, mesh), mesh,
                                axes);
  t.name = "[";
  for (int64_t a : axes)
    t.name += std::to_string(a);
  t.name += "] comm " + std::to_string(comm);
  expect(dist_group_size(t.group) == t.g, "group size of " + t.name);
  expect(dist_group_index(t.group) == t.me, "group index in " + t.name);
  expect(dist_get_group(mesh.data(), (int32_t)mesh.size(), axes.data(),
                        (int32_t)axes.size(), comm) == t.group,
         "group cache for " + t.name);
  return t;
}

void testGroup(const GroupUnderTest &t, Form form) {
  const int64_t count = 7;
  dist_group_t *group = t.group;
  int64_t g = t.g, me = t.me;
  const std::vector<int64_t> &members = t.members;
  bool started = form == Form::Started;
  std::string formName = started ? " (start)" : "";
  for (dist_dtype_t dtype : kDtypes) {
    std::string where = t.name + " " + dtypeName(dtype) + formName;
    for (dist_reduction_t r : kReductions) {
      if (dtype == DIST_I1 && r == DIST_AVG)
        continue; // refused (runtime_error_test)
      std::string kind = " kind " + std::to_string(r);
      // all_reduce
      Buffer b(dtype, count);
      for (int64_t i = 0; i < count; ++i)
        b.set(i, value(worldRank, i, r, dtype));
      if (started)
        await(dist_all_reduce_start(group, b.data(), count, dtype, r, nullptr));
      else
        dist_all_reduce(group, b.data(), count, dtype, r, nullptr);
      for (int64_t i = 0; i < count; ++i)
        expect(close(b.get(i), reduced(members, i, r, dtype), dtype),
               "all_reduce " + where + kind + " elem " + std::to_string(i));
      // reduce to every root
      for (int64_t root = 0; root < g; ++root) {
        Buffer c(dtype, count);
        for (int64_t i = 0; i < count; ++i)
          c.set(i, value(worldRank, i, r, dtype));
        if (started)
          await(dist_reduce_start(group, c.data(), count, dtype, r, root,
                                  nullptr));
        else
          dist_reduce(group, c.data(), count, dtype, r, root, nullptr);
        for (int64_t i = 0; i < count; ++i)
          expect(close(c.get(i),
                       me == root ? reduced(members, i, r, dtype)
                                  : value(worldRank, i, r, dtype), // its input
                       dtype),
                 "reduce " + where + kind + " root " + std::to_string(root));
      }
      // reduce_scatter: block i of the reduction on index i
      Buffer rsIn(dtype, g * count), rs(dtype, count);
      for (int64_t i = 0; i < g * count; ++i)
        rsIn.set(i, value(worldRank, i, r, dtype));
      if (started)
        await(dist_reduce_scatter_start(group, rsIn.data(), rs.data(), count,
                                        dtype, r, nullptr));
      else
        dist_reduce_scatter(group, rsIn.data(), rs.data(), count, dtype, r,
                            nullptr);
      for (int64_t i = 0; i < count; ++i)
        expect(close(rs.get(i), reduced(members, me * count + i, r, dtype),
                     dtype),
               "reduce_scatter " + where + kind + " elem " + std::to_string(i));
    }
    // broadcast from every root
    for (int64_t root = 0; root < g; ++root) {
      Buffer b(dtype, count);
      for (int64_t i = 0; i < count; ++i)
        b.set(i, value(worldRank, i, DIST_SUM, dtype));
      if (started)
        await(dist_broadcast_start(group, b.data(), count, dtype, root, nullptr));
      else
        dist_broadcast(group, b.data(), count, dtype, root, nullptr);
      for (int64_t i = 0; i < count; ++i)
        expect(close(b.get(i), value(members[root], i, DIST_SUM, dtype), dtype),
               "broadcast " + where + " root " + std::to_string(root));
    }
    // all_gather: block j is index j's input
    {
      Buffer in(dtype, count), out(dtype, g * count);
      for (int64_t i = 0; i < count; ++i)
        in.set(i, value(worldRank, i, DIST_SUM, dtype));
      if (started)
        await(dist_all_gather_start(group, in.data(), out.data(), count, dtype,
                                    nullptr));
      else
        dist_all_gather(group, in.data(), out.data(), count, dtype, nullptr);
      for (int64_t j = 0; j < g; ++j)
        for (int64_t i = 0; i < count; ++i)
          expect(close(out.get(j * count + i),
                       value(members[j], i, DIST_SUM, dtype), dtype),
                 "all_gather " + where + " block " + std::to_string(j));
    }
    // all_to_all: block i of the output is index i's block `me`
    {
      Buffer in(dtype, g * count), out(dtype, g * count);
      for (int64_t i = 0; i < g * count; ++i)
        in.set(i, value(worldRank, i, DIST_SUM, dtype));
      if (started)
        await(dist_all_to_all_start(group, in.data(), out.data(), count, dtype,
                                    nullptr));
      else
        dist_all_to_all(group, in.data(), out.data(), count, dtype, nullptr);
      for (int64_t j = 0; j < g; ++j)
        for (int64_t i = 0; i < count; ++i)
          expect(close(out.get(j * count + i),
                       value(members[j], me * count + i, DIST_SUM, dtype),
                       dtype),
                 "all_to_all " + where + " block " + std::to_string(j));
    }
    // send_recv as dist.permute lowers to it: a rotation by one, a single
    // pair (0 -> g - 1) whose other ranks keep their output, and a chain
    // whose ends send or receive nothing.
    {
      auto sendRecv = [&](const void *in, int64_t target, void *out,
                          int64_t source) {
        if (started)
          await(dist_send_recv_start(group, in, target, out, source, count,
                                     dtype, nullptr));
        else
          dist_send_recv(group, in, target, out, source, count, dtype, nullptr);
      };
      Buffer in(dtype, count), out(dtype, count);
      for (int64_t i = 0; i < count; ++i)
        in.set(i, value(worldRank, i, DIST_SUM, dtype));
      int64_t from = (me + g - 1) % g;
      sendRecv(in.data(), (me + 1) % g, out.data(), from);
      for (int64_t i = 0; i < count; ++i)
        expect(close(out.get(i), value(members[from], i, DIST_SUM, dtype), dtype),
               "send_recv rotate " + where);
      for (int64_t i = 0; i < count; ++i)
        out.set(i, 1);
      sendRecv(in.data(), me == 0 ? g - 1 : -1, out.data(), me == g - 1 ? 0 : -1);
      for (int64_t i = 0; i < count; ++i)
        expect(close(out.get(i),
                     me == g - 1 ? value(members[0], i, DIST_SUM, dtype) : 1.0,
                     dtype),
               "send_recv pair " + where);
      Buffer chained(dtype, count);
      for (int64_t i = 0; i < count; ++i)
        chained.set(i, 1);
      sendRecv(in.data(), me + 1 < g ? me + 1 : -1, chained.data(), me - 1);
      for (int64_t i = 0; i < count; ++i)
        expect(close(chained.get(i),
                     me == 0 ? 1.0 : value(members[me - 1], i, DIST_SUM, dtype),
                     dtype),
               "send_recv chain " + where);
    }
  }
}

/// Many requests in flight at once: on comm indices 0, 1 and 2 of every
/// group, a mix of collectives (widened and averaged ones included), started
/// in the same order everywhere and waited for in an order that depends on
/// the rank.
void testManyInFlight(const std::vector<GroupUnderTest> &groups) {
  struct Pending {
    dist_request_t *request;
    std::function<void()> check;
  };
  std::vector<Pending> pending;
  std::vector<std::unique_ptr<Buffer>> buffers;
  auto buffer = [&](dist_dtype_t dtype, int64_t count) -> Buffer & {
    buffers.push_back(std::make_unique<Buffer>(dtype, count));
    return *buffers.back();
  };
  const int64_t n = 5;
  for (const GroupUnderTest &t : groups) {
    std::string where = "in flight " + t.name;
    int64_t g = t.g, me = t.me;
    const std::vector<int64_t> *members = &t.members;
    auto fill = [&](Buffer &b, int64_t count, dist_reduction_t r) {
      for (int64_t i = 0; i < count; ++i)
        b.set(i, value(worldRank, i, r, b.dtype));
    };
    // all_reduce f32 sum and f16 avg (an f32 copy the request owns)
    for (auto [dtype, r] : {std::pair{DIST_F32, DIST_SUM},
                            std::pair{DIST_F16, DIST_AVG},
                            std::pair{DIST_I1, DIST_MAX}}) {
      Buffer &b = buffer(dtype, n);
      fill(b, n, r);
      pending.push_back({dist_all_reduce_start(t.group, b.data(), n, dtype, r,
                                               nullptr),
                         [&b, members, r = r, dtype = dtype, where] {
                           for (int64_t i = 0; i < n; ++i)
                             expect(close(b.get(i),
                                          reduced(*members, i, r, dtype), dtype),
                                    "all_reduce " + where);
                         }});
    }
    // reduce_scatter of i8 averages (an i64 copy) and bf16 sums
    for (auto [dtype, r] :
         {std::pair{DIST_I8, DIST_AVG}, std::pair{DIST_BF16, DIST_SUM}}) {
      Buffer &in = buffer(dtype, g * n), &out = buffer(dtype, n);
      fill(in, g * n, r);
      pending.push_back(
          {dist_reduce_scatter_start(t.group, in.data(), out.data(), n, dtype,
                                     r, nullptr),
           [&out, members, me, r = r, dtype = dtype, where] {
             for (int64_t i = 0; i < n; ++i)
               expect(close(out.get(i), reduced(*members, me * n + i, r, dtype),
                            dtype),
                      "reduce_scatter " + where);
           }});
    }
    // reduce of i16 sums to the last index
    {
      Buffer &b = buffer(DIST_I16, n);
      fill(b, n, DIST_SUM);
      pending.push_back({dist_reduce_start(t.group, b.data(), n, DIST_I16,
                                           DIST_SUM, g - 1, nullptr),
                         [&b, members, me, g, where] {
                           for (int64_t i = 0; i < n; ++i)
                             expect(close(b.get(i),
                                          me == g - 1
                                              ? reduced(*members, i, DIST_SUM,
                                                        DIST_I16)
                                              : value(worldRank, i, DIST_SUM,
                                                      DIST_I16),
                                          DIST_I16),
                                    "reduce " + where);
                         }});
    }
    // broadcast f64 from index 0, all_gather i32, all_to_all i64
    {
      Buffer &b = buffer(DIST_F64, n);
      fill(b, n, DIST_SUM);
      pending.push_back(
          {dist_broadcast_start(t.group, b.data(), n, DIST_F64, 0, nullptr),
           [&b, members, where] {
             for (int64_t i = 0; i < n; ++i)
               expect(b.get(i) == value((*members)[0], i, DIST_SUM, DIST_F64),
                      "broadcast " + where);
           }});
      Buffer &in = buffer(DIST_I32, n), &out = buffer(DIST_I32, g * n);
      fill(in, n, DIST_SUM);
      pending.push_back(
          {dist_all_gather_start(t.group, in.data(), out.data(), n, DIST_I32,
                                 nullptr),
           [&out, members, g, where] {
             for (int64_t j = 0; j < g; ++j)
               for (int64_t i = 0; i < n; ++i)
                 expect(out.get(j * n + i) ==
                            value((*members)[j], i, DIST_SUM, DIST_I32),
                        "all_gather " + where);
           }});
      Buffer &a = buffer(DIST_I64, g * n), &received = buffer(DIST_I64, g * n);
      fill(a, g * n, DIST_SUM);
      pending.push_back(
          {dist_all_to_all_start(t.group, a.data(), received.data(), n,
                                 DIST_I64, nullptr),
           [&received, members, me, g, where] {
             for (int64_t j = 0; j < g; ++j)
               for (int64_t i = 0; i < n; ++i)
                 expect(received.get(j * n + i) ==
                            value((*members)[j], me * n + i, DIST_SUM, DIST_I64),
                        "all_to_all " + where);
           }});
    }
    // send_recv around the ring, twice on the same comm (matched in order)
    for (int shift = 1; shift <= 2; ++shift) {
      Buffer &in = buffer(DIST_F32, n), &out = buffer(DIST_F32, n);
      for (int64_t i = 0; i < n; ++i)
        in.set(i, value(worldRank, i + shift, DIST_SUM, DIST_F32));
      int64_t from = ((me - shift) % g + g) % g;
      pending.push_back(
          {dist_send_recv_start(t.group, in.data(), (me + shift) % g,
                                out.data(), from, n, DIST_F32, nullptr),
           [&out, members, from, shift, where] {
             for (int64_t i = 0; i < n; ++i)
               expect(out.get(i) == value((*members)[from], i + shift, DIST_SUM,
                                          DIST_F32),
                      "send_recv " + where);
           }});
    }
    dist_progress();
  }
  // Wait in a different order on every rank: a rotation by the rank, odd
  // ranks backwards.
  std::vector<size_t> order(pending.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = (i + (size_t)worldRank * 7) % order.size();
  if (worldRank % 2)
    std::reverse(order.begin(), order.end());
  for (size_t k = 0; k < order.size(); ++k) {
    dist_wait(pending[order[k]].request);
    if (k % 5 == 0)
      dist_progress();
  }
  for (Pending &p : pending)
    p.check();
  expect(pending.size() >= 12, "requests in flight");
}

/// Averages near the limits of their types: the sum would overflow f16, i8,
/// i16 or i32, the average does not.
void testAverageLimits(const meshmath::Shape &mesh) {
  int64_t axes[1] = {0};
  dist_group_t *group =
      dist_get_group(mesh.data(), (int32_t)mesh.size(), axes, 1, 0);
  struct Limit {
    dist_dtype_t dtype;
    double value;
  };
  for (Limit limit : {Limit{DIST_F16, 10000}, Limit{DIST_I32, 2147483646.0},
                      Limit{DIST_I16, 32000}, Limit{DIST_I8, 120}}) {
    for (int started = 0; started < 2; ++started) {
      Buffer b(limit.dtype, 4);
      for (int64_t i = 0; i < 4; ++i)
        b.set(i, limit.value);
      if (started)
        dist_wait(
            dist_all_reduce_start(group, b.data(), 4, limit.dtype, DIST_AVG, nullptr));
      else
        dist_all_reduce(group, b.data(), 4, limit.dtype, DIST_AVG, nullptr);
      for (int64_t i = 0; i < 4; ++i)
        expect(close(b.get(i), limit.value, limit.dtype),
               std::string(dtypeName(limit.dtype)) + " avg near its limit" +
                   (started ? " (start)" : ""));
    }
  }
}

#ifdef DIST_TEST_HAVE_CUDA
/// On a backend with streams (device memory): collectives ordered on a CUDA
/// stream, blocking and started; their results are there once the stream
/// is synchronized (a blocking call or a wait only orders the stream).
void testStreams(const meshmath::Shape &mesh) {
  int64_t axes[1] = {0};
  dist_group_t *group =
      dist_get_group(mesh.data(), (int32_t)mesh.size(), axes, 1, 0);
  std::vector<int64_t> members =
      meshmath::groupRanks(worldRank, mesh, {0});
  int64_t g = dist_group_size(group), me = dist_group_index(group);
  const int64_t n = 6;
  void *stream = mgpuStreamCreate();
  for (int started = 0; started < 2; ++started) {
    std::string form = started ? " on a stream (start)" : " on a stream";
    Buffer sum(DIST_F32, n), in(DIST_BF16, n), gathered(DIST_BF16, g * n);
    for (int64_t i = 0; i < n; ++i) {
      sum.set(i, value(worldRank, i, DIST_SUM, DIST_F32));
      in.set(i, value(worldRank, i, DIST_SUM, DIST_BF16));
    }
    if (started) {
      dist_request_t *first = dist_all_reduce_start(group, sum.data(), n,
                                                    DIST_F32, DIST_SUM, stream);
      dist_request_t *second = dist_all_gather_start(
          group, in.data(), gathered.data(), n, DIST_BF16, stream);
      dist_wait(second);
      dist_wait(first);
    } else {
      dist_all_reduce(group, sum.data(), n, DIST_F32, DIST_SUM, stream);
      dist_all_gather(group, in.data(), gathered.data(), n, DIST_BF16, stream);
    }
    mgpuStreamSynchronize(stream);
    for (int64_t i = 0; i < n; ++i)
      expect(close(sum.get(i), reduced(members, i, DIST_SUM, DIST_F32),
                   DIST_F32),
             "all_reduce" + form);
    for (int64_t j = 0; j < g; ++j)
      for (int64_t i = 0; i < n; ++i)
        expect(gathered.get(j * n + i) ==
                   value(members[j], i, DIST_SUM, DIST_BF16),
               "all_gather" + form + " (index " + std::to_string(me) + ")");
  }
  mgpuStreamDestroy(stream);
}
#endif

/// Spins for about `us` microseconds: compute between runtime calls.
void compute(int us) {
  auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  volatile double x = 1;
  while (std::chrono::steady_clock::now() < until)
    x = x * 1.0000001 + 1e-9;
}

/// Each collective once blocking and once started (on comm 1, waited for
/// after some compute), for the trace test.
void runForTrace(const meshmath::Shape &mesh) {
  int64_t axes[1] = {0};
  dist_group_t *g0 = dist_get_group(mesh.data(), (int32_t)mesh.size(), axes, 1, 0);
  dist_group_t *g1 = dist_get_group(mesh.data(), (int32_t)mesh.size(), axes, 1, 1);
  int64_t g = dist_group_size(g0), me = dist_group_index(g0);
  const int64_t n = 16;
  Buffer a(DIST_F32, g * n), b(DIST_F32, g * n), c(DIST_F32, g * n),
      d(DIST_F32, g * n);
  for (int64_t i = 0; i < g * n; ++i) {
    a.set(i, 1.0);
    c.set(i, 1.0);
  }
  for (int started = 0; started < 2; ++started) {
    dist_group_t *grp = started ? g1 : g0;
    std::vector<std::function<dist_request_t *()>> calls = {
        [&] { return dist_all_reduce_start(grp, a.data(), n, DIST_F32, DIST_SUM, nullptr); },
        [&] { return dist_reduce_start(grp, a.data(), n, DIST_F32, DIST_MAX, 0, nullptr); },
        [&] { return dist_broadcast_start(grp, a.data(), n, DIST_F32, 0, nullptr); },
        [&] { return dist_all_gather_start(grp, a.data(), b.data(), n, DIST_F32, nullptr); },
        [&] { return dist_reduce_scatter_start(grp, c.data(), d.data(), n, DIST_F32, DIST_SUM, nullptr); },
        [&] { return dist_all_to_all_start(grp, c.data(), b.data(), n, DIST_F32, nullptr); },
        [&] { return dist_send_recv_start(grp, a.data(), (me + 1) % g, d.data(), (me + g - 1) % g, n, DIST_F32, nullptr); },
    };
    if (!started) {
      compute(200);
      dist_all_reduce(grp, a.data(), n, DIST_F32, DIST_SUM, nullptr);
      compute(200);
      dist_reduce(grp, a.data(), n, DIST_F32, DIST_MAX, 0, nullptr);
      compute(200);
      dist_broadcast(grp, a.data(), n, DIST_F32, 0, nullptr);
      compute(200);
      dist_all_gather(grp, a.data(), b.data(), n, DIST_F32, nullptr);
      compute(200);
      dist_reduce_scatter(grp, c.data(), d.data(), n, DIST_F32, DIST_SUM, nullptr);
      compute(200);
      dist_all_to_all(grp, c.data(), b.data(), n, DIST_F32, nullptr);
      compute(200);
      dist_send_recv(grp, a.data(), (me + 1) % g, d.data(), (me + g - 1) % g, n,
                     DIST_F32, nullptr);
      continue;
    }
    for (auto &call : calls) {
      compute(200);
      dist_request_t *request = call();
      compute(300);
      dist_progress();
      compute(300);
      dist_wait(request);
    }
  }
  compute(200);
}

} // namespace

int main(int argc, char **argv) {
  if (const char *device = std::getenv("DIST_TEST_DEVICE_MEMORY"))
    deviceMemory = std::strcmp(device, "1") == 0;
#ifndef DIST_TEST_HAVE_CUDA
  if (deviceMemory) {
    std::fprintf(stderr, "DIST_TEST_DEVICE_MEMORY=1 needs a build with the "
                         "CUDA toolkit\n");
    return 2;
  }
#endif
  dist_init(&argc, &argv);
  worldRank = dist_world_rank();
  int size = dist_world_size();
  meshmath::Shape mesh = size <= 2 ? meshmath::Shape{size}
                                   : meshmath::Shape{2, size / 2};
  if (argc > 1 && std::strcmp(argv[1], "trace") == 0) {
    runForTrace(mesh);
    dist_finalize();
    return 0;
  }
  std::vector<meshmath::AxisList> axesList = {{0}};
  if (mesh.size() == 2)
    axesList = {{0}, {1}, {0, 1}, {1, 0}};
  std::vector<GroupUnderTest> inFlightGroups;
  for (const meshmath::AxisList &axes : axesList) {
    GroupUnderTest comm0 = makeGroup(mesh, axes, 0);
    GroupUnderTest comm1 = makeGroup(mesh, axes, 1);
    expect(comm0.group != comm1.group, "comm 0 and comm 1 are distinct groups");
    testGroup(comm0, Form::Blocking);
    testGroup(comm1, Form::Started);
    inFlightGroups.push_back(comm0);
    inFlightGroups.push_back(comm1);
    inFlightGroups.push_back(makeGroup(mesh, axes, 2));
  }
  testManyInFlight(inFlightGroups);
  testAverageLimits(mesh);
#ifdef DIST_TEST_HAVE_CUDA
  if (deviceMemory)
    testStreams(mesh);
#endif
  dist_finalize();
  if (worldRank == 0 || failures)
    std::printf("runtime test on %d ranks (%s backend), rank %d: %d checks, %d failed\n",
                size, dist_backend_name(), worldRank, checks, failures);
  return failures ? 1 : 0;
}
