//===- Backend.h - Communication backends of the dist runtime ---*- C++ -*-===//
//
// The runtime's core (Runtime.cpp) handles groups, layouts and the C ABI; a
// backend moves bytes between the ranks of a communicator. Backends: MPI
// (CPU, multi-process), self (one process, no MPI); NCCL plugs in here.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_LIB_RUNTIME_BACKEND_H
#define DIST_LIB_RUNTIME_BACKEND_H

#include "dist/Runtime/DistRuntime.h"

#include <memory>
#include <string>

namespace distrt {

/// The ranks of one group, as the backend knows them. Size and rank are
/// plain fields: every collective reads them.
class Communicator {
public:
  Communicator(int64_t size, int64_t rank) : commSize(size), commRank(rank) {}
  virtual ~Communicator() = default;
  int64_t size() const { return commSize; }
  int64_t rank() const { return commRank; }

private:
  int64_t commSize, commRank;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;
  virtual void init(int *argc, char ***argv) = 0;
  virtual void finalize() = 0;
  virtual int worldRank() const = 0;
  virtual int worldSize() const = 0;
  /// Ends every process of the job (after an error was reported).
  [[noreturn]] virtual void abortJob(int code) = 0;
  /// Fails unless every rank of the world passes the same `key` (within the
  /// timeout): collective set-up steps check that all ranks agree first.
  virtual void checkAgreement(int64_t key, const char *what) = 0;
  /// Splits the world: ranks with equal `color` form a communicator,
  /// ordered by `key`.
  virtual std::unique_ptr<Communicator> split(int64_t color, int64_t key) = 0;

  // Collectives on contiguous buffers; the core does every layout change.
  // `what` names the dist collective for error messages.
  virtual void allReduce(Communicator &comm, void *buffer, int64_t count,
                         dist_dtype_t dtype, dist_reduction_t reduction,
                         const char *what) = 0;
  virtual void reduce(Communicator &comm, void *buffer, int64_t count,
                      dist_dtype_t dtype, dist_reduction_t reduction,
                      int64_t root, const char *what) = 0;
  virtual void broadcast(Communicator &comm, void *buffer, int64_t bytes,
                         int64_t root, const char *what) = 0;
  /// `output` gets every rank's `bytes` in rank order.
  virtual void allGather(Communicator &comm, const void *input, void *output,
                         int64_t bytes, const char *what) = 0;
  /// `input` holds size() blocks of `count` elements; rank i gets the
  /// reduction of everyone's block i.
  virtual void reduceScatter(Communicator &comm, const void *input,
                             void *output, int64_t count, dist_dtype_t dtype,
                             dist_reduction_t reduction, const char *what) = 0;
  /// `input` holds size() blocks of `bytes`; block j goes to rank j, and
  /// `output` gets the blocks from every rank in rank order.
  virtual void allToAll(Communicator &comm, const void *input, void *output,
                        int64_t bytes, const char *what) = 0;
  /// Sends `input` to `target` (if >= 0) and receives `output` from `source`
  /// (if >= 0), `bytes` each way.
  virtual void sendRecv(Communicator &comm, const void *input, int64_t target,
                        void *output, int64_t source, int64_t bytes,
                        const char *what) = 0;
};

/// The backend the runtime uses (MPI when the library was built with it).
Backend &getBackend();

/// Reports a runtime failure on stderr (the call, the rank, the message) and
/// ends the whole job with a non-zero exit code.
[[noreturn]] void fail(const std::string &message);

/// `fail` with a printf-style message. Out of line and cold, so that the
/// checks every collective makes stay a compare and a branch: a collective
/// of a few bytes takes well under a microsecond.
[[noreturn, gnu::cold, gnu::noinline, gnu::format(printf, 1, 2)]] void
failf(const char *format, ...);

/// Seconds a collective may take before the job is ended (DIST_TIMEOUT_SECONDS).
double getTimeoutSeconds();

/// Applies `reduction` elementwise: `inout[i] = reduce(inout[i], in[i])`
/// (avg accumulates a sum; the core divides).
void reduceInto(void *inout, const void *in, int64_t count, dist_dtype_t dtype,
                dist_reduction_t reduction);

std::unique_ptr<Backend> createSelfBackend();
#ifdef DIST_RUNTIME_HAVE_MPI
std::unique_ptr<Backend> createMPIBackend();
#endif

} // namespace distrt

#endif // DIST_LIB_RUNTIME_BACKEND_H
