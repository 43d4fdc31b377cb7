//===- Support.h - What the runtime's core and backends share ---*- C++ -*-===//
//
// Errors, the timeout and its watchdog, and the element-type arithmetic no
// communication library does natively (16-bit floats, i1, widened
// reductions). The core (Runtime.cpp) and every backend use this unit; it
// calls neither, so nothing depends on itself in a circle.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_LIB_RUNTIME_SUPPORT_H
#define DIST_LIB_RUNTIME_SUPPORT_H

#include "dist/Runtime/DistRuntime.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace distrt {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// What a fatal error needs from the process that runs the job: the core
/// installs one once the backend exists.
class FatalHandler {
public:
  virtual ~FatalHandler() = default;
  /// The world rank, or -1 before the backend started.
  virtual int rank() = 0;
  virtual const char *backendName() = 0;
  /// Last words before the process ends (writes the trace).
  virtual void beforeExit() = 0;
  /// Ends every process of the job.
  [[noreturn]] virtual void abortJob(int code) = 0;
};

void setFatalHandler(FatalHandler *handler);

/// Reports a runtime failure on stderr (the rank, the backend, the message)
/// and ends the whole job with a non-zero exit code.
[[noreturn, gnu::cold, gnu::noinline]] void fail(const std::string &message);

/// `fail` with a printf-style message. Out of line and cold, so that the
/// checks every collective makes stay a compare and a branch.
[[noreturn, gnu::cold, gnu::noinline, gnu::format(printf, 1, 2)]] void
failf(const char *format, ...);

/// `fail` from a thread that watches the caller's (a communication library
/// runs single-threaded, so the job is not aborted through it): reports,
/// writes the trace, and ends this process; the launcher, or the peers'
/// own timeouts, end the others.
[[noreturn, gnu::cold, gnu::noinline]] void
failOffThread(const std::string &message);

/// Seconds a collective may take before the job is ended
/// (DIST_TIMEOUT_SECONDS, 300 by default).
double getTimeoutSeconds();

/// Ends the process when a blocking call runs longer than the limit. Its
/// thread starts with the backend, so arming is three relaxed stores and a
/// release store of the call's sequence number (no clock read, lock or
/// wake-up: a collective of a few bytes takes under a microsecond). The
/// thread polls a few times per second and times a call from the first poll
/// that sees it, so it fires between the limit and the limit plus one poll
/// period after the call began. It calls no communication library (which
/// runs single-threaded): it reports and exits, and the launcher then ends
/// the other ranks.
class Watchdog {
public:
  /// Starts the watching thread (once, however often the runtime starts).
  void start(int rank, const char *backend);

  /// `call` is the library call, `what` the dist call, `group` its group.
  void arm(const char *call, const char *what, const char *group) {
    currentCall.store(call, std::memory_order_relaxed);
    currentWhat.store(what, std::memory_order_relaxed);
    currentGroup.store(group, std::memory_order_relaxed);
    active.store(++lastArmed, std::memory_order_release);
  }

  void disarm() { active.store(0, std::memory_order_release); }

private:
  [[noreturn]] void run();

  bool started = false;
  int rank = -1;
  const char *backend = "";
  double seconds = 0; // Set before the thread starts.
  /// Sequence number of the call in flight (0: none); only the caller's
  /// thread writes it, so `lastArmed` needs no atomics.
  std::atomic<uint64_t> active{0};
  uint64_t lastArmed = 0;
  std::atomic<const char *> currentCall{""};
  std::atomic<const char *> currentWhat{""};
  std::atomic<const char *> currentGroup{""};
};

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

constexpr int kNumDtypes = DIST_I1 + 1;
constexpr int kNumReductions = DIST_AVG + 1;

inline bool isValidDtype(dist_dtype_t dtype) {
  return (unsigned)dtype < (unsigned)kNumDtypes;
}
inline bool isValidReduction(dist_reduction_t reduction) {
  return (unsigned)reduction < (unsigned)kNumReductions;
}

/// Bytes per element; requires a valid `dtype`. The table is an immediate
/// (a nibble per type), not an exported array read through the GOT.
inline int64_t elementSize(dist_dtype_t dtype) {
  // By dist_dtype_t from the lowest nibble: 4 8 2 2 4 8 1 2 1.
  constexpr uint64_t sizes = 0x121842284;
  return (sizes >> (4 * dtype)) & 0xf;
}

const char *dtypeName(dist_dtype_t dtype);
const char *reductionName(dist_reduction_t reduction);

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t b);
uint16_t floatToBf16(float f);

/// Applies `reduction` elementwise: `inout[i] = reduce(inout[i], in[i])`
/// (avg accumulates a sum; the caller divides). Integers wrap; i1 follows
/// the i1 rules of DistRuntime.h; 16-bit floats go through float.
void reduceInto(void *inout, const void *in, int64_t count, dist_dtype_t dtype,
                dist_reduction_t reduction);

/// A reduction that would lose precision or overflow in the element type
/// runs on a wider copy: 16-bit float sums, products and averages on f32;
/// i8, i16 and i32 averages on i64.
inline bool needsWidening(dist_dtype_t dtype, dist_reduction_t reduction) {
  // Bit 5 * dtype + reduction (sum 0, max 1, min 2, prod 3, avg 4).
  constexpr uint64_t widened =
      (0x19ull << (5 * DIST_F16)) | (0x19ull << (5 * DIST_BF16)) |
      (0x10ull << (5 * DIST_I32)) | (0x10ull << (5 * DIST_I8)) |
      (0x10ull << (5 * DIST_I16));
  return (widened >> (5 * dtype + reduction)) & 1;
}

/// The type a widened reduction runs in: f32 for 16-bit floats, i64 else.
inline dist_dtype_t widenedType(dist_dtype_t dtype) {
  return dtype == DIST_F16 || dtype == DIST_BF16 ? DIST_F32 : DIST_I64;
}

/// Converts `count` elements of `dtype` to `widenedType(dtype)` and back.
void widen(const void *narrow, void *wide, int64_t count, dist_dtype_t dtype);
void narrow(const void *wide, void *narrow, int64_t count, dist_dtype_t dtype);

/// avg = sum / n, elementwise (integers round toward zero).
void divideBy(void *buffer, int64_t count, dist_dtype_t dtype, int64_t n);

} // namespace distrt

#endif // DIST_LIB_RUNTIME_SUPPORT_H
