//===- Runtime.cpp - The dist runtime's C ABI -----------------------------===//
//
// Groups (cached communicators), the layout of tensors for the collectives
// that cut or join them along a dim, and what no backend does natively (avg,
// 16-bit float arithmetic). The backends move contiguous bytes.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include "dist/Support/MeshMath.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

using namespace distrt;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

int64_t dist_dtype_size(dist_dtype_t dtype) {
  switch (dtype) {
  case DIST_F32:
  case DIST_I32: return 4;
  case DIST_F64:
  case DIST_I64: return 8;
  case DIST_F16:
  case DIST_BF16: return 2;
  }
  failf("unknown element type %d", (int)dtype);
}

static float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1f,
           mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // subnormal: normalize
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

static uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = (int32_t)((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xff) == 0xff) // inf or nan
    return sign | 0x7c00u | (mantissa ? 0x200u : 0);
  if (exponent >= 0x1f)
    return sign | 0x7c00u; // overflow: inf
  if (exponent <= 0) {     // subnormal or zero
    if (exponent < -10)
      return sign;
    mantissa |= 0x800000u;
    uint32_t shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // round to nearest even (may carry into the exponent: correct)
  return half;
}

static float bf16ToFloat(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

static uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (bits >> 16) | 0x40; // quiet nan
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return bits >> 16;
}

template <typename T>
static T combine(T a, T b, dist_reduction_t reduction) {
  switch (reduction) {
  case DIST_SUM:
  case DIST_AVG: return a + b;
  case DIST_MAX: return a > b ? a : b;
  case DIST_MIN: return a < b ? a : b;
  case DIST_PROD: return a * b;
  }
  return a;
}

template <typename T>
static void reduceTyped(void *inout, const void *in, int64_t count,
                        dist_reduction_t reduction) {
  T *acc = static_cast<T *>(inout);
  const T *other = static_cast<const T *>(in);
  for (int64_t i = 0; i < count; ++i)
    acc[i] = combine(acc[i], other[i], reduction);
}

template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
static void reduceHalf(void *inout, const void *in, int64_t count,
                       dist_reduction_t reduction) {
  uint16_t *acc = static_cast<uint16_t *>(inout);
  const uint16_t *other = static_cast<const uint16_t *>(in);
  for (int64_t i = 0; i < count; ++i)
    acc[i] = FromFloat(combine(ToFloat(acc[i]), ToFloat(other[i]), reduction));
}

void distrt::reduceInto(void *inout, const void *in, int64_t count,
                        dist_dtype_t dtype, dist_reduction_t reduction) {
  switch (dtype) {
  case DIST_F32: return reduceTyped<float>(inout, in, count, reduction);
  case DIST_F64: return reduceTyped<double>(inout, in, count, reduction);
  case DIST_I32: return reduceTyped<int32_t>(inout, in, count, reduction);
  case DIST_I64: return reduceTyped<int64_t>(inout, in, count, reduction);
  case DIST_F16:
    return reduceHalf<halfToFloat, floatToHalf>(inout, in, count, reduction);
  case DIST_BF16:
    return reduceHalf<bf16ToFloat, floatToBf16>(inout, in, count, reduction);
  }
}

/// avg = sum / n, elementwise (integers round toward zero).
static void divideBy(void *buffer, int64_t count, dist_dtype_t dtype,
                     int64_t n) {
  auto scale = [&](auto *data) {
    for (int64_t i = 0; i < count; ++i)
      data[i] /= n;
  };
  switch (dtype) {
  case DIST_F32: return scale(static_cast<float *>(buffer));
  case DIST_F64: return scale(static_cast<double *>(buffer));
  case DIST_I32: return scale(static_cast<int32_t *>(buffer));
  case DIST_I64: return scale(static_cast<int64_t *>(buffer));
  case DIST_F16:
  case DIST_BF16: {
    uint16_t *data = static_cast<uint16_t *>(buffer);
    bool isHalf = dtype == DIST_F16;
    for (int64_t i = 0; i < count; ++i) {
      float f = (isHalf ? halfToFloat(data[i]) : bf16ToFloat(data[i])) / n;
      data[i] = isHalf ? floatToHalf(f) : floatToBf16(f);
    }
    return;
  }
  }
}

//===----------------------------------------------------------------------===//
// Errors, timeout, backend
//===----------------------------------------------------------------------===//

static Backend *backendInstance = nullptr;
static bool initialized = false;

Backend &distrt::getBackend() {
  if (!backendInstance) {
    // DIST_BACKEND=self runs one process without MPI (tests under valgrind,
    // single-device meshes); the default is the best backend built in.
    const char *choice = std::getenv("DIST_BACKEND");
    std::string name = choice ? choice : "";
    if (name == "self") {
      backendInstance = createSelfBackend().release();
    } else {
#ifdef DIST_RUNTIME_HAVE_MPI
      if (!name.empty() && name != "mpi")
        fail("DIST_BACKEND=" + name + " is no backend; use 'mpi' or 'self'");
      backendInstance = createMPIBackend().release();
#else
      if (!name.empty())
        fail("DIST_BACKEND=" + name + " is no backend of this build; use "
             "'self'");
      backendInstance = createSelfBackend().release();
#endif
    }
  }
  return *backendInstance;
}

void distrt::failf(const char *format, ...) {
  va_list args, copy;
  va_start(args, format);
  va_copy(copy, args);
  int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string message(length > 0 ? length : 0, '\0');
  std::vsnprintf(message.data(), message.size() + 1, format, args);
  va_end(args);
  fail(message);
}

void distrt::fail(const std::string &message) {
  int rank = backendInstance && initialized ? backendInstance->worldRank() : -1;
  std::fprintf(stderr, "dist runtime error on rank %d (%s backend): %s\n", rank,
               backendInstance ? backendInstance->name() : "no", message.c_str());
  std::fflush(stderr);
  if (backendInstance)
    backendInstance->abortJob(3);
  std::exit(3);
}

double distrt::getTimeoutSeconds() {
  static double seconds = [] {
    const char *text = std::getenv("DIST_TIMEOUT_SECONDS");
    double value = text ? std::atof(text) : 0;
    return value > 0 ? value : 300.0;
  }();
  return seconds;
}

/// The backend, once dist_init ran (it creates the backend).
static inline Backend &ready(const char *what) {
  if (!initialized) [[unlikely]]
    failf("%s called before dist_init", what);
  return *backendInstance;
}

static inline void checkDtype(dist_dtype_t dtype, const char *what) {
  if (dtype < DIST_F32 || dtype > DIST_I64) [[unlikely]]
    failf("%s: unknown element type %d", what, (int)dtype);
}

static inline void checkCount(int64_t count, const char *what) {
  if (count < 0) [[unlikely]]
    failf("%s: negative element count %lld", what, (long long)count);
}

static inline void checkReduction(dist_reduction_t reduction, const char *what) {
  if (reduction < DIST_SUM || reduction > DIST_AVG) [[unlikely]]
    failf("%s: unknown reduction %d", what, (int)reduction);
}

/// A reduction that would lose precision or overflow in the element type
/// itself (16-bit float sums, products and averages; i32 averages) runs on a
/// wider copy: f32 for 16-bit floats, i64 for i32.
static bool needsWidening(dist_dtype_t dtype, dist_reduction_t reduction) {
  if (dtype == DIST_F16 || dtype == DIST_BF16)
    return reduction != DIST_MAX && reduction != DIST_MIN;
  return dtype == DIST_I32 && reduction == DIST_AVG;
}

static dist_dtype_t widened(dist_dtype_t dtype) {
  return dtype == DIST_I32 ? DIST_I64 : DIST_F32;
}

static std::vector<char> widen(const void *data, int64_t count,
                               dist_dtype_t dtype) {
  std::vector<char> wide(count * 8);
  const uint16_t *half = static_cast<const uint16_t *>(data);
  for (int64_t i = 0; i < count; ++i) {
    if (dtype == DIST_I32)
      reinterpret_cast<int64_t *>(wide.data())[i] =
          static_cast<const int32_t *>(data)[i];
    else
      reinterpret_cast<float *>(wide.data())[i] =
          dtype == DIST_F16 ? halfToFloat(half[i]) : bf16ToFloat(half[i]);
  }
  return wide;
}

static void narrow(const std::vector<char> &wide, void *data, int64_t count,
                   dist_dtype_t dtype) {
  uint16_t *half = static_cast<uint16_t *>(data);
  for (int64_t i = 0; i < count; ++i) {
    if (dtype == DIST_I32) {
      static_cast<int32_t *>(data)[i] =
          (int32_t)reinterpret_cast<const int64_t *>(wide.data())[i];
    } else {
      float f = reinterpret_cast<const float *>(wide.data())[i];
      half[i] = dtype == DIST_F16 ? floatToHalf(f) : floatToBf16(f);
    }
  }
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

// A group handle is its backend communicator itself (dist_group stays an
// incomplete type): a collective reads the communicator through the handle
// with no object in between.
static inline Communicator &commOf(dist_group_t *group) {
  return *reinterpret_cast<Communicator *>(group);
}

namespace {
using GroupKey = std::pair<meshmath::Shape, meshmath::AxisList>;
std::map<GroupKey, std::unique_ptr<Communicator>> &groupCache() {
  static std::map<GroupKey, std::unique_ptr<Communicator>> cache;
  return cache;
}
std::mutex groupMutex;
} // namespace

void dist_init(int *argc, char ***argv) {
  if (initialized)
    return;
  getBackend().init(argc, argv);
  initialized = true;
}

void dist_finalize(void) {
  if (!initialized)
    return;
  groupCache().clear(); // frees the communicators before the backend stops
  getBackend().finalize();
  initialized = false;
}

int dist_world_rank(void) { return ready("dist_world_rank").worldRank(); }
int dist_world_size(void) { return ready("dist_world_size").worldSize(); }
const char *dist_backend_name(void) { return getBackend().name(); }

dist_group_t *dist_get_group(const int64_t *mesh_shape, int32_t mesh_rank,
                             const int64_t *axes, int32_t num_axes) {
  Backend &backend = ready("dist_get_group");
  meshmath::Shape shape(mesh_shape, mesh_shape + mesh_rank);
  meshmath::AxisList axisList(axes, axes + num_axes);
  std::lock_guard<std::mutex> lock(groupMutex);
  auto &slot = groupCache()[{shape, axisList}];
  if (slot)
    return reinterpret_cast<dist_group_t *>(slot.get());
  if (meshmath::numDevices(shape) != backend.worldSize())
    fail("dist_get_group: the mesh has " + std::to_string(meshmath::numDevices(shape)) +
         " devices but the job has " + std::to_string(backend.worldSize()) +
         " ranks");
  for (int64_t axis : axisList)
    if (axis < 0 || axis >= mesh_rank)
      fail("dist_get_group: axis " + std::to_string(axis) +
           " is out of range for a mesh of rank " + std::to_string(mesh_rank));
  for (int32_t i = 0; i < num_axes; ++i)
    for (int32_t j = i + 1; j < num_axes; ++j)
      if (axes[i] == axes[j])
        fail("dist_get_group: axis " + std::to_string(axes[i]) + " appears twice");
  // The split is collective: make sure every rank asks for this group now
  // (a mismatch would pair unrelated splits, a missing rank would hang).
  uint64_t hash = 1469598103934665603ull; // FNV-1a over shape and axes
  auto mix = [&](int64_t v) {
    hash = (hash ^ (uint64_t)v) * 1099511628211ull;
  };
  mix(mesh_rank);
  for (int64_t v : shape)
    mix(v);
  mix(-1);
  for (int64_t v : axisList)
    mix(v);
  backend.checkAgreement((int64_t)(hash >> 1), "group creation");
  int rank = backend.worldRank();
  // Every rank calls this with the same arguments (SPMD), so the split is
  // collective; the key orders the ranks by their index in the group.
  slot = backend.split(
      meshmath::groupColor(rank, shape, axisList),
      meshmath::indexInGroup(meshmath::delinearize(rank, shape), shape, axisList));
  return reinterpret_cast<dist_group_t *>(slot.get());
}

int64_t dist_group_size(dist_group_t *group) { return commOf(group).size(); }
int64_t dist_group_index(dist_group_t *group) { return commOf(group).rank(); }

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// A tensor seen as [outer][n][inner] around dim `dim`.
struct Around {
  int64_t outer = 1, n = 1, inner = 1;
};

static Around around(const int64_t *shape, int32_t rank, int32_t dim,
                     const char *what) {
  if (dim < 0 || dim >= rank) [[unlikely]]
    failf("%s: dim %d is out of range for rank %d", what, dim, rank);
  for (int32_t d = 0; d < rank; ++d)
    if (shape[d] < 0) [[unlikely]]
      failf("%s: dim %d has negative size %lld", what, d, (long long)shape[d]);
  Around a;
  for (int32_t d = 0; d < dim; ++d)
    a.outer *= shape[d];
  a.n = shape[dim];
  for (int32_t d = dim + 1; d < rank; ++d)
    a.inner *= shape[d];
  return a;
}

/// Copies `blocks` runs of `runBytes` from `from` (stride `fromStride`) to
/// `to` (stride `toStride`).
static void copyRuns(const char *from, int64_t fromStride, char *to,
                     int64_t toStride, int64_t blocks, int64_t runBytes) {
  for (int64_t b = 0; b < blocks; ++b)
    std::memcpy(to + b * toStride, from + b * fromStride, runBytes);
}

// The reductions' uncommon cases (16-bit floats reduced on a wider copy, avg
// divided after the sum) are out of line, so that the common path is a check
// and a tail call into the backend.

[[gnu::noinline]] static void allReduceSlow(dist_group_t *group, void *buffer,
                                           int64_t count, dist_dtype_t dtype,
                                           dist_reduction_t reduction) {
  if (needsWidening(dtype, reduction)) {
    std::vector<char> wide = widen(buffer, count, dtype);
    dist_all_reduce(group, wide.data(), count, widened(dtype), reduction);
    narrow(wide, buffer, count, dtype);
    return;
  }
  getBackend().allReduce(commOf(group), buffer, count, dtype, reduction,
                         "all_reduce");
  divideBy(buffer, count, dtype, commOf(group).size()); // avg
}

void dist_all_reduce(dist_group_t *group, void *buffer, int64_t count,
                     dist_dtype_t dtype, dist_reduction_t reduction) {
  Backend &backend = ready("dist_all_reduce");
  checkDtype(dtype, "all_reduce");
  checkCount(count, "all_reduce");
  checkReduction(reduction, "all_reduce");
  if (reduction == DIST_AVG || needsWidening(dtype, reduction)) [[unlikely]]
    return allReduceSlow(group, buffer, count, dtype, reduction);
  backend.allReduce(commOf(group), buffer, count, dtype, reduction, "all_reduce");
}

[[gnu::noinline]] static void reduceSlow(dist_group_t *group, void *buffer,
                                        int64_t count, dist_dtype_t dtype,
                                        dist_reduction_t reduction,
                                        int64_t root) {
  if (needsWidening(dtype, reduction)) {
    std::vector<char> wide = widen(buffer, count, dtype);
    dist_reduce(group, wide.data(), count, widened(dtype), reduction, root);
    if (commOf(group).rank() == root)
      narrow(wide, buffer, count, dtype);
    return;
  }
  getBackend().reduce(commOf(group), buffer, count, dtype, reduction, root,
                      "reduce");
  if (commOf(group).rank() == root) // avg
    divideBy(buffer, count, dtype, commOf(group).size());
}

void dist_reduce(dist_group_t *group, void *buffer, int64_t count,
                 dist_dtype_t dtype, dist_reduction_t reduction, int64_t root) {
  Backend &backend = ready("dist_reduce");
  checkDtype(dtype, "reduce");
  checkCount(count, "reduce");
  checkReduction(reduction, "reduce");
  if (root < 0 || root >= commOf(group).size()) [[unlikely]]
    failf("reduce: root %lld is out of range for a group of %lld",
          (long long)root, (long long)commOf(group).size());
  if (reduction == DIST_AVG || needsWidening(dtype, reduction)) [[unlikely]]
    return reduceSlow(group, buffer, count, dtype, reduction, root);
  backend.reduce(commOf(group), buffer, count, dtype, reduction, root, "reduce");
}

void dist_broadcast(dist_group_t *group, void *buffer, int64_t count,
                    dist_dtype_t dtype, int64_t root) {
  Backend &backend = ready("dist_broadcast");
  checkDtype(dtype, "broadcast");
  checkCount(count, "broadcast");
  if (root < 0 || root >= commOf(group).size()) [[unlikely]]
    failf("broadcast: root %lld is out of range for a group of %lld",
          (long long)root, (long long)commOf(group).size());
  backend.broadcast(commOf(group), buffer, count * dist_dtype_size(dtype), root,
                    "broadcast");
}

void dist_all_gather(dist_group_t *group, const void *input, void *output,
                     const int64_t *shape, int32_t rank, int32_t dim,
                     dist_dtype_t dtype) {
  Backend &backend = ready("dist_all_gather");
  checkDtype(dtype, "all_gather");
  Around a = around(shape, rank, dim, "all_gather");
  int64_t g = commOf(group).size(), size = dist_dtype_size(dtype);
  int64_t blockBytes = a.n * a.inner * size; // one rank's run per outer index
  int64_t bytes = a.outer * blockBytes;
  if (a.outer == 1) {
    backend.allGather(commOf(group), input, output, bytes, "all_gather");
    return;
  }
  // Gathered as [g][outer][block]; the result is [outer][g][block].
  std::vector<char> gathered(g * bytes);
  backend.allGather(commOf(group), input, gathered.data(), bytes, "all_gather");
  for (int64_t r = 0; r < g; ++r)
    copyRuns(gathered.data() + r * bytes, blockBytes,
             static_cast<char *>(output) + r * blockBytes, g * blockBytes,
             a.outer, blockBytes);
}

void dist_reduce_scatter(dist_group_t *group, const void *input, void *output,
                         const int64_t *shape, int32_t rank, int32_t dim,
                         dist_dtype_t dtype, dist_reduction_t reduction) {
  Backend &backend = ready("dist_reduce_scatter");
  checkDtype(dtype, "reduce_scatter");
  checkReduction(reduction, "reduce_scatter");
  if (needsWidening(dtype, reduction)) {
    int64_t total = 1, g = commOf(group).size();
    for (int32_t d = 0; d < rank; ++d)
      total *= shape[d];
    std::vector<char> wideIn = widen(input, total, dtype);
    std::vector<char> wideOut(total / g * 8);
    dist_reduce_scatter(group, wideIn.data(), wideOut.data(), shape, rank, dim,
                        widened(dtype), reduction);
    narrow(wideOut, output, total / g, dtype);
    return;
  }
  Around a = around(shape, rank, dim, "reduce_scatter");
  int64_t g = commOf(group).size(), size = dist_dtype_size(dtype);
  if (a.n % g != 0) [[unlikely]]
    failf("reduce_scatter: dim %d of size %lld does not divide over %lld ranks",
          dim, (long long)a.n, (long long)g);
  int64_t chunkBytes = a.n / g * a.inner * size; // rank r's run per outer index
  int64_t count = a.outer * (a.n / g) * a.inner;
  if (a.outer == 1) {
    backend.reduceScatter(commOf(group), input, output, count, dtype, reduction,
                          "reduce_scatter");
  } else {
    // [outer][g][chunk] -> [g][outer][chunk], so each rank's part is contiguous.
    std::vector<char> packed(g * count * size);
    for (int64_t r = 0; r < g; ++r)
      copyRuns(static_cast<const char *>(input) + r * chunkBytes, g * chunkBytes,
               packed.data() + r * count * size, chunkBytes, a.outer, chunkBytes);
    backend.reduceScatter(commOf(group), packed.data(), output, count, dtype,
                          reduction, "reduce_scatter");
  }
  if (reduction == DIST_AVG)
    divideBy(output, count, dtype, g);
}

void dist_all_to_all(dist_group_t *group, const void *input, void *output,
                     const int64_t *shape, int32_t rank, int32_t split_dim,
                     int32_t concat_dim, dist_dtype_t dtype) {
  Backend &backend = ready("dist_all_to_all");
  checkDtype(dtype, "all_to_all");
  Around s = around(shape, rank, split_dim, "all_to_all");
  around(shape, rank, concat_dim, "all_to_all");
  int64_t g = commOf(group).size(), size = dist_dtype_size(dtype);
  if (s.n % g != 0) [[unlikely]]
    failf("all_to_all: split dim %d of size %lld does not divide over %lld ranks",
          split_dim, (long long)s.n, (long long)g);
  // Block j is the j-th slice along split_dim; it is contiguous when nothing
  // is outside split_dim, otherwise it is packed.
  int64_t runBytes = s.n / g * s.inner * size;
  int64_t blockBytes = s.outer * runBytes;
  std::vector<char> packed, received;
  const char *send = static_cast<const char *>(input);
  if (s.outer != 1) {
    packed.resize(g * blockBytes);
    for (int64_t j = 0; j < g; ++j)
      copyRuns(static_cast<const char *>(input) + j * runBytes, g * runBytes,
               packed.data() + j * blockBytes, runBytes, s.outer, runBytes);
    send = packed.data();
  }
  // Each received block has the input's shape with split_dim divided; they
  // are concatenated along concat_dim, which is the order they arrive in
  // when nothing is outside concat_dim.
  Around c = around(shape, rank, concat_dim, "all_to_all");
  // A block is the input with split_dim divided by the group size.
  if (split_dim < concat_dim)
    c.outer /= g;
  else if (split_dim == concat_dim)
    c.n /= g;
  else
    c.inner /= g;
  if (c.outer == 1) {
    backend.allToAll(commOf(group), send, output, blockBytes, "all_to_all");
    return;
  }
  received.resize(g * blockBytes);
  backend.allToAll(commOf(group), send, received.data(), blockBytes, "all_to_all");
  int64_t concatRun = c.n * c.inner * size;
  for (int64_t i = 0; i < g; ++i)
    copyRuns(received.data() + i * blockBytes, concatRun,
             static_cast<char *>(output) + i * concatRun, g * concatRun, c.outer,
             concatRun);
}

void dist_send_recv(dist_group_t *group, const void *input, int64_t target,
                    void *output, int64_t source, int64_t count,
                    dist_dtype_t dtype) {
  Backend &backend = ready("dist_send_recv");
  checkDtype(dtype, "send_recv");
  checkCount(count, "send_recv");
  int64_t g = commOf(group).size();
  if (target < -1 || target >= g || source < -1 || source >= g) [[unlikely]]
    failf("send_recv: target %lld or source %lld is out of range for a group "
          "of %lld (-1: none)",
          (long long)target, (long long)source, (long long)g);
  int64_t me = commOf(group).rank();
  if ((target == me) != (source == me)) [[unlikely]]
    failf("send_recv: rank %lld would %s itself without %s itself (target "
          "%lld, source %lld): the call could never complete",
          (long long)me, target == me ? "send to" : "receive from",
          target == me ? "receiving from" : "sending to", (long long)target,
          (long long)source);
  int64_t bytes = count * dist_dtype_size(dtype);
  // Input and output may alias, which MPI forbids: a self exchange copies.
  if (target == me && source == me) {
    std::memmove(output, input, bytes);
    return;
  }
  backend.sendRecv(commOf(group), input, target, output, source, bytes,
                   "send_recv");
}

//===----------------------------------------------------------------------===//
// The single-process backend
//===----------------------------------------------------------------------===//

namespace {
class SelfCommunicator : public Communicator {
public:
  SelfCommunicator() : Communicator(/*size=*/1, /*rank=*/0) {}
};

/// One process: every group has one rank, so collectives copy or do nothing.
class SelfBackend : public Backend {
public:
  const char *name() const override { return "self"; }
  void init(int *, char ***) override {}
  void finalize() override {}
  int worldRank() const override { return 0; }
  int worldSize() const override { return 1; }
  [[noreturn]] void abortJob(int code) override { std::exit(code); }
  void checkAgreement(int64_t, const char *) override {}
  std::unique_ptr<Communicator> split(int64_t, int64_t) override {
    return std::make_unique<SelfCommunicator>();
  }
  void allReduce(Communicator &, void *, int64_t, dist_dtype_t,
                 dist_reduction_t, const char *) override {}
  void reduce(Communicator &, void *, int64_t, dist_dtype_t, dist_reduction_t,
              int64_t, const char *) override {}
  void broadcast(Communicator &, void *, int64_t, int64_t, const char *) override {}
  void allGather(Communicator &, const void *input, void *output, int64_t bytes,
                 const char *) override {
    std::memmove(output, input, bytes);
  }
  void reduceScatter(Communicator &, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype, dist_reduction_t,
                     const char *) override {
    std::memmove(output, input, count * dist_dtype_size(dtype));
  }
  void allToAll(Communicator &, const void *input, void *output, int64_t bytes,
                const char *) override {
    std::memmove(output, input, bytes);
  }
  void sendRecv(Communicator &, const void *input, int64_t, void *output,
                int64_t source, int64_t bytes, const char *) override {
    if (source >= 0)
      std::memmove(output, input, bytes);
  }
};
} // namespace

std::unique_ptr<Backend> distrt::createSelfBackend() {
  return std::make_unique<SelfBackend>();
}
