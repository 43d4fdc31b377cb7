//===- NCCLBackend.cpp - The dist runtime over NCCL -----------------------===//
//
// libdist_backend_nccl.so, loaded when DIST_BACKEND=nccl. Collectives run on
// device buffers, on one NCCL communicator per group, each with its own
// communication stream. A host backend (the tcp store for jobs started with
// RANK/WORLD_SIZE and no MPI launcher, else mpi when the runtime has it, else
// self: one process) starts the job, checks that the ranks agree on every
// group, and carries each communicator's NCCL unique id from the group's
// index 0 to the others. NCCL (libnccl.so.2, or DIST_NCCL_LIBRARY) and the
// CUDA driver are opened at dist_init, never linked: the library loads
// anywhere and fails there with a message.
//
// Streams. A collective given a stream `s` runs after the work already on
// `s`, on the communicator's stream (an event recorded on `s` is waited for
// there); `s` waits for its completion event where the result is used: at
// once for the blocking form, at dist_wait for the started one. The host
// never blocks. With a null stream the host is synchronous: the context is
// synchronized first (every kernel that may write the inputs has finished)
// and the call, or dist_wait, returns once the collective completed.
//
// Never a hang: completion is polled, together with NCCL's asynchronous
// error, until the timeout (DIST_TIMEOUT_SECONDS); a collective still running
// then is reported with its call, rank and group, and its communicator is
// aborted before the job ends. The host does not wait for a collective on a
// stream: a monitor thread polls those (as PyTorch's NCCL watchdog does), so
// a step whose host waits for its stream does not hang on one either. The calls that may block inside NCCL
// (communicator creation, the first collective connecting peers) run under
// the watchdog.
//
// What NCCL cannot reduce (i16; i1 sums, which are xor; integer averages,
// whose sums would overflow) is reduced on the host: copied out, run by the
// host backend with the CPU staging, and copied back.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "CudaDriver.h"

#include <nccl.h>

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define DIST_STRINGIFY(x) #x
#define DIST_SYMBOL(x) DIST_STRINGIFY(x)

using namespace distrt;

namespace {

/// The NCCL entry points, resolved from the library opened at dist_init.
#define DIST_NCCL_FUNCTIONS(X)                                                 \
  X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRank)                     \
  X(ncclCommDestroy) X(ncclCommAbort) X(ncclCommGetAsyncError)                 \
  X(ncclGetErrorString) X(ncclGetLastError) X(ncclAllReduce) X(ncclReduce)     \
  X(ncclBroadcast) X(ncclAllGather) X(ncclReduceScatter) X(ncclSend)           \
  X(ncclRecv) X(ncclGroupStart) X(ncclGroupEnd)

struct Nccl {
#define DIST_NCCL_MEMBER(name) decltype(&::name) name = nullptr;
  DIST_NCCL_FUNCTIONS(DIST_NCCL_MEMBER)
#undef DIST_NCCL_MEMBER
  std::string path;
  int version = 0;
};

/// ncclGetLastError is 2.13's (bf16, ncclAvg and asynchronous errors older).
constexpr int kOldestVersion = 21300;

std::string loadNccl(Nccl &nccl) {
  const char *chosen = std::getenv("DIST_NCCL_LIBRARY");
  nccl.path = chosen && *chosen ? chosen : "libnccl.so.2";
  void *library = dlopen(nccl.path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library)
    return "cannot load NCCL (" + nccl.path +
           "; DIST_NCCL_LIBRARY names another): " + dlerror();
#define DIST_RESOLVE(name)                                                     \
  nccl.name =                                                                  \
      reinterpret_cast<decltype(nccl.name)>(dlsym(library, DIST_SYMBOL(name))); \
  if (!nccl.name)                                                              \
    return nccl.path + " lacks " DIST_SYMBOL(name);
  DIST_NCCL_FUNCTIONS(DIST_RESOLVE)
#undef DIST_RESOLVE
  nccl.ncclGetVersion(&nccl.version);
  if (nccl.version < kOldestVersion)
    return nccl.path + " is NCCL " + std::to_string(nccl.version) +
           "; the nccl backend needs 2.13 or newer";
  return "";
}

class StreamMonitor;

class NCCLCommunicator : public Communicator {
public:
  NCCLCommunicator(std::unique_ptr<Communicator> host, const Nccl &nccl,
                   const distcuda::Driver &driver)
      : Communicator(host->size(), host->rank()), host(std::move(host)),
        nccl(nccl), driver(driver) {}
  ~NCCLCommunicator() override;

  /// The same ranks on the host backend (set-up and host reductions).
  std::unique_ptr<Communicator> host;
  ncclComm_t comm = nullptr;
  CUstream stream = nullptr; // where this communicator's collectives run
  /// Set by the first thread that aborts it (the caller's or the monitor's).
  std::atomic<bool> aborted{false};
  /// Held around NCCL's queries of the communicator and its abort, which
  /// the caller's thread and the monitor's may make at once.
  std::mutex ncclMutex;
  /// Watches the collectives callers' streams wait for (null until one).
  StreamMonitor *monitor = nullptr;

private:
  const Nccl &nccl;
  const distcuda::Driver &driver;
};

NCCLCommunicator &get(Communicator &comm) {
  return static_cast<NCCLCommunicator &>(comm);
}

bool isInteger(dist_dtype_t dtype) {
  return dtype == DIST_I32 || dtype == DIST_I64 || dtype == DIST_I8 ||
         dtype == DIST_I16 || dtype == DIST_I1;
}

/// Reductions NCCL has no operation or type for.
bool reducesOnHost(const Collective &c) {
  if (!isReducing(c.kind))
    return false;
  return c.dtype == DIST_I16 || (c.dtype == DIST_I1 && c.reduction == DIST_SUM) ||
         (isInteger(c.dtype) && c.reduction == DIST_AVG);
}

/// NCCL's type for a reduction (the others move bytes). By dist_dtype_t:
/// f32, f64, f16, bf16, i32, i64, i8, i16 (on the host), i1 (a byte of 0 or 1).
ncclDataType_t ncclType(dist_dtype_t dtype) {
  static const ncclDataType_t types[kNumDtypes] = {
      ncclFloat32, ncclFloat64, ncclFloat16, ncclBfloat16, ncclInt32,
      ncclInt64,   ncclInt8,    ncclInt8,    ncclUint8};
  return types[dtype];
}

/// i1's product is an and: the minimum of bytes holding 0 or 1.
ncclRedOp_t ncclOp(dist_dtype_t dtype, dist_reduction_t reduction) {
  switch (reduction) {
  case DIST_SUM: return ncclSum;
  case DIST_MAX: return ncclMax;
  case DIST_MIN: return ncclMin;
  case DIST_PROD: return dtype == DIST_I1 ? ncclMin : ncclProd;
  case DIST_AVG: return ncclAvg;
  }
  return ncclSum;
}

class NCCLBackend;

/// A collective a caller's stream waits for, and the host does not.
struct StreamCollective {
  CUevent ready; // recorded on the caller's stream before it (null: reached)
  CUevent done;  // recorded after it on the communicator's stream
  NCCLCommunicator *comm;
  const char *what, *call;
  /// When the caller's stream reached it (the timeout counts from there: a
  /// step queues its work long before the device gets to it).
  std::chrono::steady_clock::time_point started;
};

/// Polls, on its own thread (started with the first), the collectives that
/// streams wait for: each completes, fails with NCCL's asynchronous error, or
/// times out; a failure is reported with the call, rank and group and ends
/// the process, its communicator aborted (which also frees a stream waiting
/// in it). Never destroyed: its thread runs until the process ends.
class StreamMonitor {
public:
  explicit StreamMonitor(NCCLBackend &backend);
  void watch(const StreamCollective &collective);
  /// Returns once the watched collectives of `comm` completed (true), or at
  /// once when it was aborted or the process is exiting (false: its
  /// collectives are no longer watched, and may still run).
  bool drain(NCCLCommunicator &comm);

private:
  [[noreturn]] void run();

  /// Whether it has collectives of `comm` (under `mutex`).
  bool watches(const NCCLCommunicator &comm) const;

  NCCLBackend &backend;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<StreamCollective> pending;
  bool started = false;
};

/// A started collective: its completion event on the communicator's stream.
class NCCLWork : public Work {
public:
  NCCLWork(NCCLBackend &backend, const Collective &c, const char *call,
           CUevent ready, CUevent done)
      : backend(backend), comm(get(*c.comm)), what(c.what), call(call),
        stream(static_cast<CUstream>(c.stream)), ready(ready), done(done) {}
  ~NCCLWork() override;
  bool test() override;
  void wait() override;

private:
  NCCLBackend &backend;
  NCCLCommunicator &comm;
  const char *what, *call;
  CUstream stream; // the caller's, or null
  CUevent ready;   // on the caller's stream before it, or null
  CUevent done;
};

class NCCLBackend : public DescriptorBackend {
public:
  /// The host backend: the tcp store for a job started with PyTorch's
  /// env:// variables and no MPI launcher (scripts/launch.py, torchrun),
  /// else mpi, else self (one process).
  NCCLBackend() {
    bool mpiLaunched = std::getenv("OMPI_COMM_WORLD_SIZE") ||
                       std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
    if (std::getenv("WORLD_SIZE") && !mpiLaunched)
      host = createBackend("tcp");
    if (!host)
      host = createBackend("mpi");
    if (!host)
      host = createBackend("self");
  }

  const char *name() const override { return "nccl"; }
  bool usesStreams() const override { return true; }
  bool buffersOnDevice() const override { return true; }

  void init(int *argc, char ***argv) override {
    host->init(argc, argv);
    std::string error = loadNccl(nccl);
    if (!error.empty())
      fail(error);
    driver = distcuda::loadDriver(-1, error);
    if (!driver)
      fail(error);
    watchdog.start(host->worldRank(), "nccl");
  }

  void finalize() override { host->finalize(); }
  int worldRank() const override { return host->worldRank(); }
  int worldSize() const override { return host->worldSize(); }
  [[noreturn]] void abortJob(int code) override { host->abortJob(code); }
  void checkAgreement(int64_t key, const char *what) override {
    host->checkAgreement(key, what);
  }

  std::unique_ptr<Communicator> split(int64_t color, int64_t key) override {
    auto comm = std::make_unique<NCCLCommunicator>(host->split(color, key),
                                                   nccl, *driver);
    ncclUniqueId id;
    if (comm->rank() == 0)
      checkNccl(nccl.ncclGetUniqueId(&id), "ncclGetUniqueId", "dist_get_group",
                "new group", nullptr);
    host->broadcast(*comm->host, &id, sizeof(id), DIST_I8, 0,
                    "dist_get_group");
    watchdog.arm("ncclCommInitRank", "dist_get_group", "new group");
    ncclResult_t result = nccl.ncclCommInitRank(&comm->comm, (int)comm->size(),
                                                id, (int)comm->rank());
    watchdog.disarm();
    checkNccl(result, "ncclCommInitRank", "dist_get_group", "new group",
              nullptr);
    checkCuda(driver->cuStreamCreate(&comm->stream, CU_STREAM_NON_BLOCKING),
              "cuStreamCreate", "dist_get_group", "new group");
    return comm;
  }

  void run(const Collective &c) override {
    if (reducesOnHost(c))
      return reduceOnHost(c);
    const char *call = nullptr;
    CUevent ready = nullptr;
    CUevent done = enqueue(c, call, ready);
    if (c.stream) {
      orderOnStream(static_cast<CUstream>(c.stream), ready, done, get(*c.comm),
                    c.what, call);
      return;
    }
    awaitEvent(done, get(*c.comm), c.what, call);
    driver->cuEventDestroy(done);
  }

  /// `stream` waits for `done` (the end of a collective) on the device; the
  /// monitor owns both events from here.
  void orderOnStream(CUstream stream, CUevent ready, CUevent done,
                     NCCLCommunicator &comm, const char *what,
                     const char *call) {
    checkCuda(driver->cuStreamWaitEvent(stream, done, 0), "cuStreamWaitEvent",
              what, comm.label());
    if (!streamMonitor)
      streamMonitor = new StreamMonitor(*this);
    comm.monitor = streamMonitor;
    streamMonitor->watch({ready, done, &comm, what, call, {}});
  }

  std::unique_ptr<Work> start(const Collective &c) override {
    if (reducesOnHost(c)) {
      reduceOnHost(c);
      return nullptr;
    }
    const char *call = nullptr;
    CUevent ready = nullptr;
    CUevent done = enqueue(c, call, ready);
    return std::make_unique<NCCLWork>(*this, c, call, ready, done);
  }

  /// Polls `done` until it completed, NCCL reported an error, or the
  /// timeout passed.
  void awaitEvent(CUevent done, NCCLCommunicator &comm, const char *what,
                  const char *call) {
    auto begin = std::chrono::steady_clock::now();
    double limit = getTimeoutSeconds();
    for (unsigned spins = 0;; ++spins) {
      if (eventDone(done, comm, what, call))
        return;
      if ((spins & 255) == 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
                  .count() > limit)
        fail(timedOut(comm, what, call, limit));
      sched_yield();
    }
  }

  /// Whether `done` completed; fails on a CUDA or an asynchronous NCCL error.
  bool eventDone(CUevent done, NCCLCommunicator &comm, const char *what,
                 const char *call) {
    std::string failure;
    bool completed = pollEvent(done, comm, what, call, failure);
    if (!failure.empty())
      fail(failure);
    return completed;
  }

  /// Whether `done` completed; on a CUDA or an asynchronous NCCL error, sets
  /// `failure` (the communicator is aborted).
  bool pollEvent(CUevent done, NCCLCommunicator &comm, const char *what,
                 const char *call, std::string &failure) {
    CUresult result = driver->cuEventQuery(done);
    if (result == CUDA_SUCCESS)
      return true;
    if (result != CUDA_ERROR_NOT_READY) {
      failure = std::string(what) + " in group " + comm.label() + ": " +
                distcuda::describeFailure(*driver, result, "cuEventQuery");
      return false;
    }
    std::string message;
    {
      std::lock_guard<std::mutex> lock(comm.ncclMutex);
      // Aborted by the other thread, which reports why.
      if (comm.aborted)
        return false;
      ncclResult_t asyncError = ncclSuccess;
      nccl.ncclCommGetAsyncError(comm.comm, &asyncError);
      if (asyncError != ncclSuccess && asyncError != ncclInProgress)
        message = describeNccl(asyncError, comm.comm);
    }
    if (!message.empty()) {
      abort(comm);
      failure = std::string(what) + " (" + call + ") in group " +
                comm.label() + " failed: " + message;
    }
    return false;
  }

  /// Aborts `comm` and says that its collective did not complete in time.
  std::string timedOut(NCCLCommunicator &comm, const char *what,
                       const char *call, double limit) {
    abort(comm);
    char text[64];
    std::snprintf(text, sizeof(text), "%g", limit);
    return std::string(what) + " (" + call + ") in group " + comm.label() +
           " did not complete within " + text +
           " s: a peer rank died or issued a different collective "
           "(DIST_TIMEOUT_SECONDS sets the limit)";
  }

  void abort(NCCLCommunicator &comm) {
    std::lock_guard<std::mutex> lock(comm.ncclMutex);
    if (!comm.aborted.exchange(true))
      nccl.ncclCommAbort(comm.comm);
  }

  /// A driver call that may block (it waits for device work, which may wait
  /// for a peer), under the watchdog.
  template <typename Call>
  void blocking(const char *call, const char *what, const char *group,
                Call &&run) {
    watchdog.arm(call, what, group);
    CUresult result = run();
    watchdog.disarm();
    checkCuda(result, call, what, group);
  }

  void checkCuda(CUresult result, const char *call, const char *what,
                 const char *group) {
    if (result != CUDA_SUCCESS) [[unlikely]]
      failf("%s in group %s: %s", what, group,
            distcuda::describeFailure(*driver, result, call).c_str());
  }

  const distcuda::Driver &cuda() const { return *driver; }

private:
  std::string describeNccl(ncclResult_t result, ncclComm_t comm) {
    std::string text = nccl.ncclGetErrorString(result);
    const char *last = nccl.ncclGetLastError(comm);
    if (last && *last)
      text += std::string(" (") + last + ")";
    return text;
  }

  void checkNccl(ncclResult_t result, const char *call, const char *what,
                 const char *group, ncclComm_t comm) {
    if (result != ncclSuccess && result != ncclInProgress) [[unlikely]]
      failf("%s failed in %s in group %s: %s", call, what, group,
            describeNccl(result, comm).c_str());
  }

  /// Issues `c` on its communicator's stream, after the work its inputs
  /// come from; returns the event recorded after it and names the NCCL call.
  /// With a stream, `ready` is the event recorded on it before.
  CUevent enqueue(const Collective &c, const char *&call, CUevent &ready) {
    NCCLCommunicator &comm = get(*c.comm);
    const char *group = comm.label();
    if (c.stream) {
      ready = newEvent(c.what, group);
      checkCuda(driver->cuEventRecord(ready, static_cast<CUstream>(c.stream)),
                "cuEventRecord", c.what, group);
      checkCuda(driver->cuStreamWaitEvent(comm.stream, ready, 0),
                "cuStreamWaitEvent", c.what, group);
    } else {
      blocking("cuCtxSynchronize", c.what, group,
               [&] { return driver->cuCtxSynchronize(); });
    }
    size_t count = (size_t)c.count;
    size_t bytes = count * (size_t)elementSize(c.dtype);
    ncclDataType_t type = ncclType(c.dtype);
    ncclRedOp_t op = ncclOp(c.dtype, c.reduction);
    ncclComm_t nc = comm.comm;
    CUstream s = comm.stream;
    auto *in = static_cast<const char *>(c.input);
    auto *out = static_cast<char *>(c.output);
    ncclResult_t result = ncclSuccess;
    watchdog.arm("NCCL enqueue", c.what, group);
    switch (c.kind) {
    case CollectiveKind::AllReduce:
      call = "ncclAllReduce";
      result = nccl.ncclAllReduce(out, out, count, type, op, nc, s);
      break;
    case CollectiveKind::Reduce:
      call = "ncclReduce";
      result = nccl.ncclReduce(out, out, count, type, op, (int)c.root, nc, s);
      break;
    case CollectiveKind::Broadcast:
      call = "ncclBroadcast";
      result = nccl.ncclBroadcast(out, out, bytes, ncclUint8, (int)c.root, nc,
                                  s);
      break;
    case CollectiveKind::AllGather:
      call = "ncclAllGather";
      result = nccl.ncclAllGather(in, out, bytes, ncclUint8, nc, s);
      break;
    case CollectiveKind::ReduceScatter:
      call = "ncclReduceScatter";
      result = nccl.ncclReduceScatter(in, out, count, type, op, nc, s);
      break;
    case CollectiveKind::AllToAll: {
      // Block j to index j; the own block is a copy.
      call = "ncclSend/ncclRecv (all_to_all)";
      int64_t me = comm.rank();
      checkCuda(driver->cuMemcpyAsync((CUdeviceptr)(out + me * bytes),
                                      (CUdeviceptr)(in + me * bytes), bytes, s),
                "cuMemcpyAsync", c.what, group);
      result = nccl.ncclGroupStart();
      for (int64_t j = 0; j < comm.size() && result == ncclSuccess; ++j) {
        if (j == me)
          continue;
        result = nccl.ncclSend(in + j * bytes, bytes, ncclUint8, (int)j, nc, s);
        if (result == ncclSuccess)
          result =
              nccl.ncclRecv(out + j * bytes, bytes, ncclUint8, (int)j, nc, s);
      }
      ncclResult_t ended = nccl.ncclGroupEnd();
      if (result == ncclSuccess)
        result = ended;
      break;
    }
    case CollectiveKind::SendRecv:
      call = "ncclSend/ncclRecv (send_recv)";
      if (c.root >= 0 && c.root == comm.rank()) {
        // To itself (the core checked that it receives from itself too).
        if (out != in)
          checkCuda(driver->cuMemcpyAsync((CUdeviceptr)out, (CUdeviceptr)in,
                                          bytes, s),
                    "cuMemcpyAsync", c.what, group);
        break;
      }
      result = nccl.ncclGroupStart();
      if (result == ncclSuccess && c.root >= 0)
        result = nccl.ncclSend(in, bytes, ncclUint8, (int)c.root, nc, s);
      if (result == ncclSuccess && c.source >= 0)
        result = nccl.ncclRecv(out, bytes, ncclUint8, (int)c.source, nc, s);
      {
        ncclResult_t ended = nccl.ncclGroupEnd();
        if (result == ncclSuccess)
          result = ended;
      }
      break;
    }
    watchdog.disarm();
    checkNccl(result, call, c.what, group, nc);
    CUevent done = newEvent(c.what, group);
    checkCuda(driver->cuEventRecord(done, s), "cuEventRecord", c.what, group);
    return done;
  }

  CUevent newEvent(const char *what, const char *group) {
    CUevent event = nullptr;
    checkCuda(driver->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
              "cuEventCreate", what, group);
    return event;
  }

  /// Runs a reduction NCCL lacks on host copies, through the host backend
  /// (with the CPU's staging), and copies the result back.
  void reduceOnHost(const Collective &c) {
    NCCLCommunicator &comm = get(*c.comm);
    const char *group = comm.label();
    if (c.stream)
      blocking("cuStreamSynchronize", c.what, group, [&] {
        return driver->cuStreamSynchronize(static_cast<CUstream>(c.stream));
      });
    else
      blocking("cuCtxSynchronize", c.what, group,
               [&] { return driver->cuCtxSynchronize(); });
    comm.host->setLabel(group);
    size_t bytes = (size_t)c.count * (size_t)elementSize(c.dtype);
    std::vector<char> input, output(bytes);
    Collective user = c;
    user.comm = comm.host.get();
    user.stream = nullptr;
    user.output = output.data();
    if (c.kind == CollectiveKind::ReduceScatter) {
      input.resize(bytes * comm.size());
      copy(input.data(), c.input, input.size(), c.what, group);
      user.input = input.data();
    } else {
      copy(output.data(), c.output, bytes, c.what, group);
      user.input = output.data();
    }
    Staging staging;
    Collective sent = stage(user, staging);
    host->run(sent);
    finish(user, sent, staging);
    copy(c.output, output.data(), bytes, c.what, group);
    // A copy from pageable memory may return before it reached the device,
    // and kernels on non-blocking streams are not ordered after it.
    blocking("cuCtxSynchronize", c.what, group,
             [&] { return driver->cuCtxSynchronize(); });
  }

  void copy(void *to, const void *from, size_t bytes, const char *what,
            const char *group) {
    blocking("cuMemcpy", what, group, [&] {
      return driver->cuMemcpy((CUdeviceptr)to, (CUdeviceptr)from, bytes);
    });
  }

  std::unique_ptr<Backend> host;
  Nccl nccl;
  distcuda::Driver *driver = nullptr;
  Watchdog watchdog;
  StreamMonitor *streamMonitor = nullptr;
};

NCCLCommunicator::~NCCLCommunicator() {
  // The streams' collectives on it end before it does; when they may still
  // run (an abort, a failure's exit) it is left to the process's end.
  if (monitor && !monitor->drain(*this))
    return;
  if (comm && !aborted)
    nccl.ncclCommDestroy(comm);
  if (stream)
    driver.cuStreamDestroy(stream);
}

/// Set at exit (std::exit: after a failure, or a program that never called
/// dist_finalize): the communicators' destructors then wait for nothing.
std::atomic<bool> exiting{false};

StreamMonitor::StreamMonitor(NCCLBackend &backend) : backend(backend) {
  // Registered after the communicators' cache exists, so it runs first.
  std::atexit([] { exiting = true; });
}

void StreamMonitor::watch(const StreamCollective &collective) {
  std::lock_guard<std::mutex> lock(mutex);
  pending.push_back(collective);
  if (!started) {
    started = true;
    std::thread([this] { run(); }).detach();
  }
  changed.notify_all();
}

bool StreamMonitor::watches(const NCCLCommunicator &comm) const {
  for (const StreamCollective &c : pending)
    if (c.comm == &comm)
      return true;
  return false;
}

bool StreamMonitor::drain(NCCLCommunicator &comm) {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] {
    return exiting || comm.aborted || !watches(comm);
  });
  if (!watches(comm))
    return true;
  // The monitor polls only under the lock: it never sees these again.
  pending.erase(std::remove_if(pending.begin(), pending.end(),
                               [&](const StreamCollective &c) {
                                 return c.comm == &comm;
                               }),
                pending.end());
  return false;
}

void StreamMonitor::run() {
  std::string error;
  distcuda::loadDriver(-1, error); // this thread in the device's context
  const distcuda::Driver &driver = backend.cuda();
  double limit = getTimeoutSeconds();
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    changed.wait(lock, [&] { return !pending.empty(); });
    auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < pending.size();) {
      StreamCollective &c = pending[i];
      std::string failure;
      if (c.ready) {
        // The caller's stream has not reached it yet: no clock.
        CUresult result = driver.cuEventQuery(c.ready);
        if (result == CUDA_ERROR_NOT_READY) {
          ++i;
          continue;
        }
        if (result != CUDA_SUCCESS)
          failOffThread(std::string(c.what) + " in group " + c.comm->label() +
                        ": " +
                        distcuda::describeFailure(driver, result,
                                                  "cuEventQuery"));
        driver.cuEventDestroy(c.ready);
        c.ready = nullptr;
        c.started = now;
      }
      if (backend.pollEvent(c.done, *c.comm, c.what, c.call, failure)) {
        driver.cuEventDestroy(c.done);
        pending[i] = pending.back();
        pending.pop_back();
        continue;
      }
      if (failure.empty() && !c.comm->aborted &&
          std::chrono::duration<double>(now - c.started).count() > limit)
        failure = backend.timedOut(*c.comm, c.what, c.call, limit);
      if (!failure.empty())
        failOffThread(failure);
      ++i;
    }
    changed.notify_all();
    if (pending.empty())
      continue;
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    lock.lock();
  }
}

NCCLWork::~NCCLWork() {
  if (ready)
    backend.cuda().cuEventDestroy(ready);
  if (done)
    backend.cuda().cuEventDestroy(done);
}

bool NCCLWork::test() { return backend.eventDone(done, comm, what, call); }

void NCCLWork::wait() {
  if (!stream)
    return backend.awaitEvent(done, comm, what, call);
  backend.orderOnStream(stream, ready, done, comm, what, call);
  ready = done = nullptr;
}

BackendRegistration registration("nccl", /*priority=*/-1, [] {
  return std::unique_ptr<Backend>(new NCCLBackend());
});

} // namespace
