//===- Support.cpp - What the runtime's core and backends share -----------===//

#include "Support.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <type_traits>
#include <unistd.h>

using namespace distrt;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static FatalHandler *fatalHandler = nullptr;

void distrt::setFatalHandler(FatalHandler *handler) { fatalHandler = handler; }

/// The error line every failure prints (the rank, the backend, the message).
static void report(const std::string &message) {
  std::fprintf(stderr, "dist runtime error on rank %d (%s backend): %s\n",
               fatalHandler ? fatalHandler->rank() : -1,
               fatalHandler ? fatalHandler->backendName() : "no",
               message.c_str());
  std::fflush(stderr);
}

void distrt::fail(const std::string &message) {
  report(message);
  if (fatalHandler) {
    // A failure while writing the trace must not recurse.
    FatalHandler *handler = fatalHandler;
    fatalHandler = nullptr;
    handler->beforeExit();
    handler->abortJob(3);
  }
  std::exit(3);
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

void distrt::failOffThread(const std::string &message) {
  report(message);
  if (FatalHandler *handler = fatalHandler) {
    fatalHandler = nullptr;
    handler->beforeExit();
  }
  _exit(1);
}

double distrt::getTimeoutSeconds() {
  static double seconds = [] {
    const char *text = std::getenv("DIST_TIMEOUT_SECONDS");
    double value = text ? std::atof(text) : 0;
    return value > 0 ? value : 300.0;
  }();
  return seconds;
}

//===----------------------------------------------------------------------===//
// Watchdog
//===----------------------------------------------------------------------===//

void Watchdog::start(int rank, const char *backend) {
  if (started)
    return;
  started = true;
  this->rank = rank;
  this->backend = backend;
  seconds = getTimeoutSeconds();
  std::thread([this] { run(); }).detach();
}

void Watchdog::run() {
  using Clock = std::chrono::steady_clock;
  // Poll at a tenth of the limit, between 1 ms and 100 ms.
  double period = std::min(0.1, std::max(0.001, seconds / 10));
  uint64_t watched = 0;
  Clock::time_point since = Clock::now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::duration<double>(period));
    uint64_t call = active.load(std::memory_order_acquire);
    if (call == 0 || call != watched) {
      watched = call;
      since = Clock::now();
      continue;
    }
    if (std::chrono::duration<double>(Clock::now() - since).count() < seconds)
      continue;
    std::fprintf(stderr,
                 "dist runtime error on rank %d (%s backend): %s (%s) in group "
                 "%s did not complete within %g s: a peer rank died or issued "
                 "a different collective (DIST_TIMEOUT_SECONDS sets the "
                 "limit)\n",
                 rank, backend, currentWhat.load(), currentCall.load(),
                 currentGroup.load(), seconds);
    std::fflush(stderr);
    // The caller's thread is stuck in the call: the trace is not changing.
    if (FatalHandler *handler = fatalHandler) {
      fatalHandler = nullptr;
      handler->beforeExit();
    }
    _exit(1);
  }
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

const char *distrt::dtypeName(dist_dtype_t dtype) {
  static const char *names[kNumDtypes] = {"f32", "f64", "f16", "bf16", "i32",
                                          "i64", "i8",  "i16", "i1"};
  return isValidDtype(dtype) ? names[dtype] : "unknown";
}

const char *distrt::reductionName(dist_reduction_t reduction) {
  static const char *names[kNumReductions] = {"sum", "max", "min", "prod",
                                              "avg"};
  return isValidReduction(reduction) ? names[reduction] : "unknown";
}

float distrt::halfToFloat(uint16_t h) {
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

uint16_t distrt::floatToHalf(float f) {
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

float distrt::bf16ToFloat(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t distrt::floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (bits >> 16) | 0x40; // quiet nan
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return bits >> 16;
}

namespace {

template <typename T>
T combine(T a, T b, dist_reduction_t reduction) {
  switch (reduction) {
  case DIST_SUM:
  case DIST_AVG: return a + b;
  case DIST_MAX: return a > b ? a : b;
  case DIST_MIN: return a < b ? a : b;
  case DIST_PROD: return a * b;
  }
  return a;
}

/// Signed integers wrap: add and multiply as unsigned values.
template <typename T, typename U>
T combineWrapping(T a, T b, dist_reduction_t reduction) {
  switch (reduction) {
  case DIST_SUM:
  case DIST_AVG: return (T)(U)((U)a + (U)b);
  case DIST_PROD: return (T)(U)((U)a * (U)b);
  default: return combine(a, b, reduction);
  }
}

template <typename T, T (*Combine)(T, T, dist_reduction_t)>
void reduceTyped(void *inout, const void *in, int64_t count,
                 dist_reduction_t reduction) {
  T *acc = static_cast<T *>(inout);
  const T *other = static_cast<const T *>(in);
  for (int64_t i = 0; i < count; ++i)
    acc[i] = Combine(acc[i], other[i], reduction);
}

template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
void reduceHalf(void *inout, const void *in, int64_t count,
                dist_reduction_t reduction) {
  uint16_t *acc = static_cast<uint16_t *>(inout);
  const uint16_t *other = static_cast<const uint16_t *>(in);
  for (int64_t i = 0; i < count; ++i)
    acc[i] = FromFloat(combine(ToFloat(acc[i]), ToFloat(other[i]), reduction));
}

/// i1 as arith reduces it: sum = xor, prod = min = and, max = or.
uint8_t combineI1(uint8_t a, uint8_t b, dist_reduction_t reduction) {
  switch (reduction) {
  case DIST_SUM:
  case DIST_AVG: return a ^ b;
  case DIST_MAX: return a | b;
  case DIST_MIN:
  case DIST_PROD: return a & b;
  }
  return a;
}

} // namespace

void distrt::reduceInto(void *inout, const void *in, int64_t count,
                        dist_dtype_t dtype, dist_reduction_t reduction) {
  switch (dtype) {
  case DIST_F32:
    return reduceTyped<float, combine<float>>(inout, in, count, reduction);
  case DIST_F64:
    return reduceTyped<double, combine<double>>(inout, in, count, reduction);
  case DIST_I8:
    return reduceTyped<int8_t, combineWrapping<int8_t, uint8_t>>(inout, in,
                                                                 count, reduction);
  case DIST_I16:
    return reduceTyped<int16_t, combineWrapping<int16_t, uint16_t>>(
        inout, in, count, reduction);
  case DIST_I32:
    return reduceTyped<int32_t, combineWrapping<int32_t, uint32_t>>(
        inout, in, count, reduction);
  case DIST_I64:
    return reduceTyped<int64_t, combineWrapping<int64_t, uint64_t>>(
        inout, in, count, reduction);
  case DIST_I1:
    return reduceTyped<uint8_t, combineI1>(inout, in, count, reduction);
  case DIST_F16:
    return reduceHalf<halfToFloat, floatToHalf>(inout, in, count, reduction);
  case DIST_BF16:
    return reduceHalf<bf16ToFloat, floatToBf16>(inout, in, count, reduction);
  }
}

void distrt::widen(const void *narrow, void *wide, int64_t count,
                   dist_dtype_t dtype) {
  auto toI64 = [&](auto *from) {
    int64_t *to = static_cast<int64_t *>(wide);
    for (int64_t i = 0; i < count; ++i)
      to[i] = from[i];
  };
  const uint16_t *half = static_cast<const uint16_t *>(narrow);
  float *single = static_cast<float *>(wide);
  switch (dtype) {
  case DIST_F16:
    for (int64_t i = 0; i < count; ++i)
      single[i] = halfToFloat(half[i]);
    return;
  case DIST_BF16:
    for (int64_t i = 0; i < count; ++i)
      single[i] = bf16ToFloat(half[i]);
    return;
  case DIST_I8: return toI64(static_cast<const int8_t *>(narrow));
  case DIST_I16: return toI64(static_cast<const int16_t *>(narrow));
  case DIST_I32: return toI64(static_cast<const int32_t *>(narrow));
  default: failf("internal error: widening %s", dtypeName(dtype));
  }
}

void distrt::narrow(const void *wide, void *narrow, int64_t count,
                    dist_dtype_t dtype) {
  auto fromI64 = [&](auto *to) {
    const int64_t *from = static_cast<const int64_t *>(wide);
    for (int64_t i = 0; i < count; ++i)
      to[i] = (std::remove_reference_t<decltype(*to)>)from[i];
  };
  uint16_t *half = static_cast<uint16_t *>(narrow);
  const float *single = static_cast<const float *>(wide);
  switch (dtype) {
  case DIST_F16:
    for (int64_t i = 0; i < count; ++i)
      half[i] = floatToHalf(single[i]);
    return;
  case DIST_BF16:
    for (int64_t i = 0; i < count; ++i)
      half[i] = floatToBf16(single[i]);
    return;
  case DIST_I8: return fromI64(static_cast<int8_t *>(narrow));
  case DIST_I16: return fromI64(static_cast<int16_t *>(narrow));
  case DIST_I32: return fromI64(static_cast<int32_t *>(narrow));
  default: failf("internal error: narrowing %s", dtypeName(dtype));
  }
}

void distrt::divideBy(void *buffer, int64_t count, dist_dtype_t dtype,
                      int64_t n) {
  auto scale = [&](auto *data) {
    for (int64_t i = 0; i < count; ++i)
      data[i] /= n;
  };
  switch (dtype) {
  case DIST_F32: return scale(static_cast<float *>(buffer));
  case DIST_F64: return scale(static_cast<double *>(buffer));
  case DIST_I8: return scale(static_cast<int8_t *>(buffer));
  case DIST_I16: return scale(static_cast<int16_t *>(buffer));
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
  case DIST_I1: failf("internal error: an average of i1");
  }
}
