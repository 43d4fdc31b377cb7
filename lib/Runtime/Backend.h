//===- Backend.h - Communication backends of the dist runtime ---*- C++ -*-===//
//
// The runtime's core (Runtime.cpp) handles the C ABI, groups, requests,
// widened reductions and the trace; a backend moves contiguous blocks between
// the ranks of a communicator. Backends register themselves by name with a
// priority (as c10d's Backend registry): MPIBackend.cpp ("mpi"),
// SelfBackend.cpp ("self", one process). DIST_BACKEND picks one by name; by
// default the runtime takes the registered backend of highest priority. A
// backend built as its own shared library (libdist_backend_<name>.so next to
// libdist_runtime.so, e.g. nccl, which must not load on machines without a
// GPU driver) registers itself when DIST_BACKEND names it and the core loads
// it.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_LIB_RUNTIME_BACKEND_H
#define DIST_LIB_RUNTIME_BACKEND_H

#include "Support.h"

#include <memory>
#include <string>
#include <vector>

namespace distrt {

/// The ranks of one group, as the backend knows them. Size and rank are
/// plain fields: every collective reads them.
class Communicator {
public:
  Communicator(int64_t size, int64_t rank) : commSize(size), commRank(rank) {}
  virtual ~Communicator() = default;
  int64_t size() const { return commSize; }
  int64_t rank() const { return commRank; }
  /// The group as errors and the trace name it ("{mesh [2, 4], axes [1],
  /// comm 0, index 1 of 4}"); set by the core when it creates the group.
  const char *label() const { return groupLabel.c_str(); }
  void setLabel(std::string label) { groupLabel = std::move(label); }

private:
  int64_t commSize, commRank;
  std::string groupLabel;
};

enum class CollectiveKind {
  AllReduce,
  Reduce,
  Broadcast,
  AllGather,
  ReduceScatter,
  AllToAll,
  SendRecv,
};

/// "all_reduce", ... (the C call's name without dist_).
const char *collectiveName(CollectiveKind kind);

/// One collective on contiguous buffers, with every argument of its C call.
/// In-place collectives (all_reduce, reduce, broadcast) use `output` only.
struct Collective {
  CollectiveKind kind;
  Communicator *comm;
  const void *input;
  void *output;
  int64_t count;
  dist_dtype_t dtype;
  dist_reduction_t reduction;
  int64_t root;   // reduce, broadcast; the target of send_recv
  int64_t source; // send_recv
  dist_stream_t stream;
  const char *what; // the dist call, for errors ("all_reduce_start")
};

/// A backend's collective in flight (c10d's Work).
class Work {
public:
  virtual ~Work() = default;
  /// True once the collective completed; never blocks (it lets the backend
  /// progress).
  virtual bool test() = 0;
  /// Blocks until the collective completed, under the watchdog.
  virtual void wait() = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;
  virtual void init(int *argc, char ***argv) = 0;
  virtual void finalize() = 0;
  /// The rank in the world; -1 until `init` knows it (errors on the way).
  virtual int worldRank() const = 0;
  virtual int worldSize() const = 0;
  /// Ends every process of the job (after an error was reported).
  [[noreturn]] virtual void abortJob(int code) = 0;
  /// Fails unless every rank of the world passes the same `key` (within the
  /// timeout): collective set-up steps check that all ranks agree first.
  virtual void checkAgreement(int64_t key, const char *what) = 0;
  /// Splits the world: ranks with equal `color` form a new communicator,
  /// ordered by `key`. Every call gives a distinct communicator.
  virtual std::unique_ptr<Communicator> split(int64_t color, int64_t key) = 0;
  /// Whether the collectives take streams (a CPU backend takes only null).
  virtual bool usesStreams() const { return false; }
  /// Whether the buffers are device memory the core must not touch (a GPU
  /// backend): the backend then gets every collective as called (averages,
  /// 16-bit floats, a send_recv to itself) and stages what it must itself.
  virtual bool buffersOnDevice() const { return false; }

  // Blocking collectives without a stream: the fast path of the C calls, one
  // virtual call each. Counts are elements (of one block, for the collectives
  // that move blocks); `what` names the dist call for errors. The core has
  // checked every argument.
  virtual void allReduce(Communicator &comm, void *buffer, int64_t count,
                         dist_dtype_t dtype, dist_reduction_t reduction,
                         const char *what) = 0;
  virtual void reduce(Communicator &comm, void *buffer, int64_t count,
                      dist_dtype_t dtype, dist_reduction_t reduction,
                      int64_t root, const char *what) = 0;
  virtual void broadcast(Communicator &comm, void *buffer, int64_t count,
                         dist_dtype_t dtype, int64_t root,
                         const char *what) = 0;
  virtual void allGather(Communicator &comm, const void *input, void *output,
                         int64_t count, dist_dtype_t dtype,
                         const char *what) = 0;
  virtual void reduceScatter(Communicator &comm, const void *input,
                             void *output, int64_t count, dist_dtype_t dtype,
                             dist_reduction_t reduction, const char *what) = 0;
  virtual void allToAll(Communicator &comm, const void *input, void *output,
                        int64_t count, dist_dtype_t dtype,
                        const char *what) = 0;
  /// Sends `input` to `target` (if >= 0) and receives `output` from `source`
  /// (if >= 0); neither is the caller itself.
  virtual void sendRecv(Communicator &comm, const void *input, int64_t target,
                        void *output, int64_t source, int64_t count,
                        dist_dtype_t dtype, const char *what) = 0;

  /// Runs `c` to completion. The default ignores the stream and calls the
  /// blocking collective above; a backend with streams orders it on one.
  virtual void run(const Collective &c);

  /// Starts `c` and returns its work, or null when it completed in the call.
  virtual std::unique_ptr<Work> start(const Collective &c) = 0;
};

bool isReducing(CollectiveKind kind);

/// Reductions a CPU backend gets staged: averages and widened reductions.
inline bool needsStaging(dist_dtype_t dtype, dist_reduction_t reduction) {
  return reduction == DIST_AVG || needsWidening(dtype, reduction);
}

/// A reduction the backend runs on other buffers than the caller's (a wide
/// copy), or whose result is finished afterwards (an average's division).
struct Staging {
  std::vector<char> wideIn, wideOut;
  bool divide = false, narrowBack = false;
};

/// What a backend runs for `user` (on host buffers): averages become sums,
/// widened reductions run on copies in `staging`.
Collective stage(const Collective &user, Staging &staging);

/// Divides and narrows the result of `sent` into the caller's buffer.
void finish(const Collective &user, const Collective &sent,
            const Staging &staging);

/// A backend that runs every collective through one descriptor (`run`):
/// its blocking calls build the descriptor (a backend that orders
/// collectives on streams, or sends them to a store).
class DescriptorBackend : public Backend {
public:
  void allReduce(Communicator &comm, void *buffer, int64_t count,
                 dist_dtype_t dtype, dist_reduction_t reduction,
                 const char *what) override;
  void reduce(Communicator &comm, void *buffer, int64_t count,
              dist_dtype_t dtype, dist_reduction_t reduction, int64_t root,
              const char *what) override;
  void broadcast(Communicator &comm, void *buffer, int64_t count,
                 dist_dtype_t dtype, int64_t root, const char *what) override;
  void allGather(Communicator &comm, const void *input, void *output,
                 int64_t count, dist_dtype_t dtype, const char *what) override;
  void reduceScatter(Communicator &comm, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype,
                     dist_reduction_t reduction, const char *what) override;
  void allToAll(Communicator &comm, const void *input, void *output,
                int64_t count, dist_dtype_t dtype, const char *what) override;
  void sendRecv(Communicator &comm, const void *input, int64_t target,
                void *output, int64_t source, int64_t count,
                dist_dtype_t dtype, const char *what) override;
  void run(const Collective &c) override = 0;
};

/// Creates a backend: registered with its name and priority.
using BackendFactory = std::unique_ptr<Backend> (*)();

/// Adds a backend to the registry (at static initialization: every backend's
/// file holds a `BackendRegistration`).
void registerBackend(const char *name, int priority, BackendFactory factory);

/// The registered names, by decreasing priority.
std::vector<std::string> registeredBackends();

/// A new backend registered as `name`, or of the highest priority when
/// `name` is empty; null when there is none.
std::unique_ptr<Backend> createBackend(const std::string &name);

struct BackendRegistration {
  BackendRegistration(const char *name, int priority, BackendFactory factory) {
    registerBackend(name, priority, factory);
  }
};

} // namespace distrt

#endif // DIST_LIB_RUNTIME_BACKEND_H
