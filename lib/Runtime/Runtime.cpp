//===- Runtime.cpp - The dist runtime's C ABI -----------------------------===//
//
// The core: the choice of backend, groups (cached communicators), argument
// checks, requests of the non-blocking collectives, reductions the backends
// do not run as called (averages, 16-bit floats and narrow integers on a wide
// copy) and the trace. Backends move contiguous blocks.
//
// A blocking collective's common path is its checks (a compare and a branch
// each), one more branch and one virtual call into the backend. Everything
// else (a stream, a staged reduction, requests in flight, the trace) leaves
// that path through the one branch, on `detour` or the arguments.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include "dist/Support/MeshMath.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <sys/stat.h>
#include <tuple>
#include <unordered_map>
#include <vector>

using namespace distrt;

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

namespace {

Backend *backendInstance = nullptr;
bool initialized = false;
/// True while a blocking call must leave the fast path: the trace is on or
/// requests are in flight (which every runtime call lets progress).
bool detour = false;
bool traceOn = false;

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// A group: its mesh shape, axes and communicator index.
using GroupKey = std::tuple<meshmath::Shape, meshmath::AxisList, int32_t>;
std::map<GroupKey, std::unique_ptr<Communicator>> &groupCache() {
  static std::map<GroupKey, std::unique_ptr<Communicator>> cache;
  return cache;
}
std::mutex groupMutex;

} // namespace

//===----------------------------------------------------------------------===//
// Trace
//===----------------------------------------------------------------------===//

namespace {

struct TraceEvent {
  enum Kind : uint8_t { Call, Start, Wait, Progress, GetGroup } kind;
  const char *name; // the call: "all_reduce", "all_reduce_start", ...
  CollectiveKind collective;
  dist_dtype_t dtype;
  dist_reduction_t reduction;
  const Communicator *comm;
  int64_t count;
  uint64_t request;
  int64_t begin, end; // ns on the steady clock
  int64_t done;       // Start: when the collective completed (0: not yet)
  int64_t completed;  // Progress: requests it saw complete
};

/// Every rank's events in memory, written as Chrome trace JSON at
/// dist_finalize (or on a fatal error). Recording costs nothing when the
/// trace is off: every recording site is behind `detour`.
class Trace {
public:
  void start(const char *directory) {
    dir = directory;
    epochNs = nowNs();
    epochUs = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
    events.reserve(4096);
  }

  /// A runtime call begins: returns the time. If the process ends before
  /// the call's event is added (a fatal error, a timeout), the trace shows
  /// the call as unfinished.
  int64_t begin(const char *call) {
    pendingCall = call;
    pendingSince = nowNs();
    return pendingSince;
  }

  /// The index of the new event, or -1 when the trace is full.
  int64_t add(const TraceEvent &event) {
    pendingCall = nullptr;
    if (events.size() >= kMaxEvents) {
      ++dropped;
      return -1;
    }
    events.push_back(event);
    return (int64_t)events.size() - 1;
  }

  void markDone(int64_t index, int64_t time) {
    if (index >= 0 && events[index].done == 0)
      events[index].done = time;
  }

  void write(int rank, int worldSize, const char *backend);

private:
  static constexpr size_t kMaxEvents = 1 << 20;
  std::string dir;
  int64_t epochNs = 0, epochUs = 0;
  std::vector<TraceEvent> events;
  uint64_t dropped = 0;
  bool written = false;
  const char *pendingCall = nullptr;
  int64_t pendingSince = 0;
};

Trace trace;

/// mkdir -p.
bool makeDirectories(const std::string &path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/')
      continue;
    std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      return false;
  }
  return true;
}

void writeJsonString(FILE *out, const char *text) {
  std::fputc('"', out);
  for (const char *c = text; *c; ++c) {
    if (*c == '"' || *c == '\\')
      std::fprintf(out, "\\%c", *c);
    else if ((unsigned char)*c < 0x20)
      std::fprintf(out, "\\u%04x", *c);
    else
      std::fputc(*c, out);
  }
  std::fputc('"', out);
}

void writeList(FILE *out, const std::vector<int64_t> &values) {
  std::fputc('[', out);
  for (size_t i = 0; i < values.size(); ++i)
    std::fprintf(out, "%s%lld", i ? ", " : "", (long long)values[i]);
  std::fputc(']', out);
}

void Trace::write(int rank, int worldSize, const char *backend) {
  if (written)
    return;
  written = true;
  int64_t finished = nowNs();
  if (!makeDirectories(dir)) {
    std::fprintf(stderr, "dist runtime: cannot create the trace directory %s: %s\n",
                 dir.c_str(), std::strerror(errno));
    return;
  }
  std::string path = dir + "/rank-" + std::to_string(rank) + ".json";
  FILE *out = std::fopen(path.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "dist runtime: cannot write the trace %s: %s\n",
                 path.c_str(), std::strerror(errno));
    return;
  }
  std::unordered_map<const Communicator *, const GroupKey *> groups;
  for (auto &entry : groupCache())
    groups[entry.second.get()] = &entry.first;

  auto us = [&](int64_t ns) { return (double)(ns - epochNs) / 1000.0; };
  bool first = true;
  // Every event opens with its kind, time and track (pid = rank, tid 0).
  auto open = [&](const char *name, const char *category, const char *phase,
                  int64_t time) {
    std::fprintf(out, "%s\n{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"%s\", "
                      "\"ts\": %.3f, \"pid\": %d, \"tid\": 0",
                 first ? "" : ",", name, category, phase, us(time), rank);
    first = false;
  };
  auto groupArgs = [&](const Communicator *comm) {
    const GroupKey *group = groups.count(comm) ? groups[comm] : nullptr;
    std::fprintf(out, "\"group\": ");
    writeJsonString(out, comm->label());
    if (group) {
      std::fprintf(out, ", \"mesh\": ");
      writeList(out, std::get<0>(*group));
      std::fprintf(out, ", \"axes\": ");
      writeList(out, std::get<1>(*group));
      std::fprintf(out, ", \"comm\": %d", std::get<2>(*group));
    }
    std::fprintf(out, ", \"group_size\": %lld, \"group_index\": %lld",
                 (long long)comm->size(), (long long)comm->rank());
  };
  auto collectiveArgs = [&](const TraceEvent &e) {
    int64_t blocks = e.collective == CollectiveKind::ReduceScatter ||
                             e.collective == CollectiveKind::AllToAll
                         ? e.comm->size()
                         : 1;
    std::fprintf(out, "\"bytes\": %lld, \"count\": %lld, \"dtype\": \"%s\", ",
                 (long long)(e.count * blocks * elementSize(e.dtype)),
                 (long long)e.count, dtypeName(e.dtype));
    if (e.collective == CollectiveKind::AllReduce ||
        e.collective == CollectiveKind::Reduce ||
        e.collective == CollectiveKind::ReduceScatter)
      std::fprintf(out, "\"reduction\": \"%s\", ", reductionName(e.reduction));
    groupArgs(e.comm);
  };

  std::fprintf(out, "{\"traceEvents\": [");
  open("process_name", "__metadata", "M", epochNs);
  std::fprintf(out, ", \"args\": {\"name\": \"rank %d\"}}", rank);
  open("thread_name", "__metadata", "M", epochNs);
  std::fprintf(out, ", \"args\": {\"name\": \"rank %d\"}}", rank);
  open("process_sort_index", "__metadata", "M", epochNs);
  std::fprintf(out, ", \"args\": {\"sort_index\": %d}}", rank);

  // Compute: the time between runtime calls (events are in call order).
  int64_t lastEnd = epochNs;
  auto compute = [&](int64_t until) {
    if (until > lastEnd) {
      open("compute", "compute", "X", lastEnd);
      std::fprintf(out, ", \"dur\": %.3f}", (until - lastEnd) / 1000.0);
    }
  };
  for (const TraceEvent &e : events) {
    compute(e.begin);
    lastEnd = e.end;
    double duration = (e.end - e.begin) / 1000.0;
    switch (e.kind) {
    case TraceEvent::Call:
      open(e.name, "collective", "X", e.begin);
      std::fprintf(out, ", \"dur\": %.3f, \"args\": {", duration);
      collectiveArgs(e);
      std::fprintf(out, "}}");
      break;
    case TraceEvent::Start: {
      open(e.name, "start", "X", e.begin);
      std::fprintf(out, ", \"dur\": %.3f, \"args\": {\"request\": %llu, ",
                   duration, (unsigned long long)e.request);
      collectiveArgs(e);
      std::fprintf(out, "}}");
      // The collective in flight, from its start to its completion, as an
      // async slice.
      for (int side = 0; side < 2; ++side) {
        int64_t time = side == 0 ? e.begin : e.done ? e.done : finished;
        open(collectiveName(e.collective), "in_flight", side == 0 ? "b" : "e",
             time);
        std::fprintf(out, ", \"id\": \"rank%d.request%llu\", \"args\": {",
                     rank, (unsigned long long)e.request);
        if (side == 0)
          collectiveArgs(e);
        else
          std::fprintf(out, "\"completed\": %s", e.done ? "true" : "false");
        std::fprintf(out, "}}");
      }
      break;
    }
    case TraceEvent::Wait:
      open("wait", "wait", "X", e.begin);
      std::fprintf(out,
                   ", \"dur\": %.3f, \"args\": {\"request\": %llu, "
                   "\"collective\": \"%s\", ",
                   duration, (unsigned long long)e.request,
                   collectiveName(e.collective));
      collectiveArgs(e);
      std::fprintf(out, "}}");
      break;
    case TraceEvent::Progress:
      open("progress", "runtime", "X", e.begin);
      std::fprintf(out, ", \"dur\": %.3f, \"args\": {\"completed\": %lld}}",
                   duration, (long long)e.completed);
      break;
    case TraceEvent::GetGroup:
      open("get_group", "runtime", "X", e.begin);
      std::fprintf(out, ", \"dur\": %.3f, \"args\": {", duration);
      groupArgs(e.comm);
      std::fprintf(out, "}}");
      break;
    }
  }
  if (pendingCall) {
    compute(pendingSince);
    open(pendingCall, "unfinished", "X", pendingSince);
    std::fprintf(out, ", \"dur\": %.3f, \"args\": {\"unfinished\": true}}",
                 (finished - pendingSince) / 1000.0);
  } else {
    compute(finished);
  }
  std::fprintf(out,
               "\n], \"displayTimeUnit\": \"ms\", \"otherData\": {\"rank\": %d, "
               "\"world_size\": %d, \"backend\": \"%s\", \"epoch_us\": %lld, "
               "\"dropped_events\": %llu}}\n",
               rank, worldSize, backend, (long long)epochUs,
               (unsigned long long)dropped);
  std::fclose(out);
}

void writeTrace() {
  if (traceOn && backendInstance && initialized)
    trace.write(backendInstance->worldRank(), backendInstance->worldSize(),
                backendInstance->name());
}

} // namespace

//===----------------------------------------------------------------------===//
// Backend choice and fatal errors
//===----------------------------------------------------------------------===//

namespace {

class CoreFatalHandler : public FatalHandler {
public:
  int rank() override {
    // A backend knows its rank once its start-up got that far (-1 before).
    return backendInstance ? backendInstance->worldRank() : -1;
  }
  const char *backendName() override {
    return backendInstance ? backendInstance->name() : "no";
  }
  void beforeExit() override { writeTrace(); }
  [[noreturn]] void abortJob(int code) override {
    if (backendInstance)
      backendInstance->abortJob(code);
    std::exit(code);
  }
};

CoreFatalHandler coreFatalHandler;

/// Loads libdist_backend_<name>.so from the directory of this library; its
/// static initializers register the backend. Returns what was tried.
std::string loadPlugin(const std::string &name) {
  for (char c : name)
    if (!std::isalnum((unsigned char)c) && c != '_')
      return "";
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&dist_init), &info) || !info.dli_fname)
    return "";
  std::string self = info.dli_fname;
  size_t slash = self.rfind('/');
  std::string path = (slash == std::string::npos ? std::string(".")
                                                 : self.substr(0, slash)) +
                     "/libdist_backend_" + name + ".so";
  struct stat status;
  if (stat(path.c_str(), &status) != 0)
    return "no " + path;
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))
    fail("DIST_BACKEND=" + name + ": cannot load " + path + ": " + dlerror());
  return path;
}

Backend &getBackend() {
  if (backendInstance)
    return *backendInstance;
  setFatalHandler(&coreFatalHandler);
  const char *choice = std::getenv("DIST_BACKEND");
  std::string name = choice ? choice : "";
  std::unique_ptr<Backend> backend = createBackend(name);
  std::string tried;
  if (!backend && !name.empty()) {
    tried = loadPlugin(name);
    backend = createBackend(name);
  }
  if (!backend) {
    std::string names;
    for (const std::string &registered : registeredBackends())
      names += (names.empty() ? "" : ", ") + registered;
    fail("DIST_BACKEND=" + name + " is not a registered backend (registered: " +
         names + (tried.empty() ? "" : "; " + tried) + ")");
  }
  backendInstance = backend.release();
  return *backendInstance;
}

/// The backend, once dist_init ran (it creates the backend).
inline Backend &ready(const char *what) {
  if (!initialized) [[unlikely]]
    failf("%s called before dist_init", what);
  return *backendInstance;
}

/// Reports a failure of `what` on `comm`.
[[noreturn, gnu::cold, gnu::noinline, gnu::format(printf, 3, 4)]] void
failIn(const Communicator &comm, const char *what, const char *format, ...) {
  va_list args;
  va_start(args, format);
  char message[512];
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  failf("%s in group %s: %s", what, comm.label(), message);
}

} // namespace

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

namespace {

// A group handle is its backend communicator itself (dist_group stays an
// incomplete type): a collective reads the communicator through the handle
// with no object in between.
inline Communicator &groupOf(dist_group_t *group, const char *what) {
  if (!group) [[unlikely]]
    failf("%s: null group", what);
  return *reinterpret_cast<Communicator *>(group);
}

inline void checkDtype(const Communicator &comm, dist_dtype_t dtype,
                       const char *what) {
  if (!isValidDtype(dtype)) [[unlikely]]
    failIn(comm, what, "unknown element type %d", (int)dtype);
}

inline void checkCount(const Communicator &comm, int64_t count,
                       const char *what) {
  if (count < 0) [[unlikely]]
    failIn(comm, what, "negative element count %lld", (long long)count);
}

inline void checkReduction(const Communicator &comm, dist_reduction_t reduction,
                           const char *what) {
  if (!isValidReduction(reduction)) [[unlikely]]
    failIn(comm, what, "unknown reduction %d", (int)reduction);
}

inline void checkRoot(const Communicator &comm, int64_t root,
                      const char *what) {
  if ((uint64_t)root >= (uint64_t)comm.size()) [[unlikely]]
    failIn(comm, what, "root %lld is out of range for a group of %lld",
           (long long)root, (long long)comm.size());
}

inline void checkPartners(const Communicator &comm, int64_t target,
                          int64_t source, const char *what) {
  int64_t g = comm.size();
  if (target < -1 || target >= g || source < -1 || source >= g) [[unlikely]]
    failIn(comm, what,
           "target %lld or source %lld is out of range for a group of %lld "
           "(-1: none)",
           (long long)target, (long long)source, (long long)g);
  int64_t me = comm.rank();
  if ((target == me) != (source == me)) [[unlikely]]
    failIn(comm, what,
           "rank %lld would %s itself without %s itself (target %lld, source "
           "%lld): the call could never complete",
           (long long)me, target == me ? "send to" : "receive from",
           target == me ? "receiving from" : "sending to", (long long)target,
           (long long)source);
}

/// The checks the fast path does not make: streams and i1 averages.
void checkRare(const Collective &c) {
  if (c.stream && !backendInstance->usesStreams())
    failIn(*c.comm, c.what,
           "a stream was passed, but the %s backend runs on the CPU (only "
           "null streams)",
           backendInstance->name());
  if (isReducing(c.kind) && c.dtype == DIST_I1 && c.reduction == DIST_AVG)
    failIn(*c.comm, c.what, "i1 has no average");
}

/// Every check of `c` (the non-blocking calls make them all here).
void checkAll(const Collective &c) {
  checkDtype(*c.comm, c.dtype, c.what);
  checkCount(*c.comm, c.count, c.what);
  if (isReducing(c.kind))
    checkReduction(*c.comm, c.reduction, c.what);
  if (c.kind == CollectiveKind::Reduce || c.kind == CollectiveKind::Broadcast)
    checkRoot(*c.comm, c.root, c.what);
  if (c.kind == CollectiveKind::SendRecv)
    checkPartners(*c.comm, c.root, c.source, c.what);
  checkRare(c);
}

} // namespace

//===----------------------------------------------------------------------===//
// Staged reductions
//===----------------------------------------------------------------------===//

namespace {

/// A send_recv with the caller itself as its partners is a local copy
/// (input and output may alias, which the backends' calls forbid).
/// (A backend on device buffers copies those itself: the core touches no
/// device memory.)
bool isSelfExchange(const Collective &c) {
  return c.kind == CollectiveKind::SendRecv && c.root >= 0 &&
         c.root == c.comm->rank() && !backendInstance->buffersOnDevice();
}

/// What the backend runs for `user`: the staged reduction, unless the
/// backend's buffers are on a device (it then stages what it must itself).
Collective prepare(const Collective &user, Staging &staging) {
  if (backendInstance->buffersOnDevice()) {
    staging.divide = staging.narrowBack = false;
    return user;
  }
  return stage(user, staging);
}

TraceEvent eventFor(TraceEvent::Kind kind, const Collective &c, int64_t begin) {
  TraceEvent e{};
  e.kind = kind;
  e.name = c.what;
  e.collective = c.kind;
  e.dtype = c.dtype;
  e.reduction = c.reduction;
  e.comm = c.comm;
  e.count = c.count;
  e.begin = begin;
  return e;
}

} // namespace

//===----------------------------------------------------------------------===//
// Requests
//===----------------------------------------------------------------------===//

namespace {

/// A started collective. The handle given out is its id (never reused), so
/// a second wait on it is recognized, not mistaken for a newer request.
struct Request {
  uint64_t id = 0;
  Collective user, sent;
  Staging staging;
  std::unique_ptr<Work> work; // null once complete
  int64_t traceIndex = -1;
};

std::vector<std::unique_ptr<Request>> inFlight;
std::vector<std::unique_ptr<Request>> requestPool; // keeps staging buffers
uint64_t lastRequestId = 0;

/// The last requests waited for, to name the call of a second wait.
struct WaitedRequest {
  uint64_t id;
  const char *what;
  const Communicator *comm;
};
WaitedRequest recentlyWaited[256];

void updateDetour() { detour = traceOn || !inFlight.empty(); }

/// Tests every request in flight; returns how many completed.
int64_t progressAll() {
  int64_t completed = 0;
  for (std::unique_ptr<Request> &request : inFlight) {
    if (request->work && request->work->test()) {
      request->work.reset();
      ++completed;
      if (traceOn)
        trace.markDone(request->traceIndex, nowNs());
    }
  }
  return completed;
}

dist_request_t *startCollective(const Collective &user) {
  Backend &backend = ready(user.what);
  checkAll(user);
  if (!inFlight.empty())
    progressAll();
  int64_t begin = traceOn ? trace.begin(user.what) : 0;
  std::unique_ptr<Request> request;
  if (requestPool.empty()) {
    request = std::make_unique<Request>();
  } else {
    request = std::move(requestPool.back());
    requestPool.pop_back();
  }
  request->id = ++lastRequestId;
  request->user = user;
  request->sent = prepare(user, request->staging);
  if (isSelfExchange(user))
    std::memmove(user.output, user.input, user.count * elementSize(user.dtype));
  else
    request->work = backend.start(request->sent);
  request->traceIndex = -1;
  if (traceOn) {
    TraceEvent e = eventFor(TraceEvent::Start, user, begin);
    e.request = request->id;
    e.end = nowNs();
    e.done = request->work ? 0 : e.end;
    request->traceIndex = trace.add(e);
  }
  auto *handle = reinterpret_cast<dist_request_t *>((uintptr_t)request->id);
  inFlight.push_back(std::move(request));
  detour = true;
  return handle;
}

[[noreturn, gnu::cold]] void failWait(dist_request_t *handle) {
  if (!handle)
    fail("dist_wait: null request");
  uint64_t id = (uintptr_t)handle;
  if (id == 0 || id > lastRequestId)
    failf("dist_wait: %p is no request (dist_*_start calls return them)",
          (void *)handle);
  for (const WaitedRequest &waited : recentlyWaited)
    if (waited.id == id)
      failf("dist_wait: request #%llu (%s in group %s) was already waited for",
            (unsigned long long)id, waited.what, waited.comm->label());
  failf("dist_wait: request #%llu was already waited for",
        (unsigned long long)id);
}

} // namespace

void dist_wait(dist_request_t *handle) {
  ready("dist_wait");
  uint64_t id = (uintptr_t)handle;
  size_t position = 0;
  while (position < inFlight.size() && inFlight[position]->id != id)
    ++position;
  if (position == inFlight.size()) [[unlikely]] // ids start at 1: null too
    failWait(handle);
  int64_t begin = traceOn ? trace.begin("wait") : 0;
  progressAll(); // the others too: the trace sees when they completed
  std::unique_ptr<Request> request = std::move(inFlight[position]);
  inFlight[position] = std::move(inFlight.back());
  inFlight.pop_back();
  if (request->work) {
    request->work->wait();
    request->work.reset();
  }
  finish(request->user, request->sent, request->staging);
  if (traceOn) {
    int64_t end = nowNs();
    trace.markDone(request->traceIndex, end);
    TraceEvent e = eventFor(TraceEvent::Wait, request->user, begin);
    e.request = id;
    e.end = end;
    trace.add(e);
  }
  recentlyWaited[id % 256] = {id, request->user.what, request->user.comm};
  requestPool.push_back(std::move(request));
  updateDetour();
}

void dist_progress(void) {
  ready("dist_progress");
  int64_t begin = traceOn ? trace.begin("progress") : 0;
  int64_t completed = progressAll();
  if (traceOn) {
    TraceEvent e{};
    e.kind = TraceEvent::Progress;
    e.begin = begin;
    e.end = nowNs();
    e.completed = completed;
    trace.add(e);
  }
}

//===----------------------------------------------------------------------===//
// Lifetime and groups
//===----------------------------------------------------------------------===//

void dist_init(int *argc, char ***argv) {
  if (initialized)
    return;
  getBackend().init(argc, argv);
  initialized = true;
  const char *traceDir = std::getenv("DIST_TRACE");
  if (traceDir && *traceDir) {
    traceOn = true;
    trace.start(traceDir);
  }
  updateDetour();
}

void dist_finalize(void) {
  if (!initialized)
    return;
  if (!inFlight.empty()) {
    for (const std::unique_ptr<Request> &request : inFlight)
      std::fprintf(stderr,
                   "dist runtime error on rank %d (%s backend): dist_finalize: "
                   "request #%llu started by %s in group %s was never waited "
                   "for\n",
                   backendInstance->worldRank(), backendInstance->name(),
                   (unsigned long long)request->id, request->user.what,
                   request->user.comm->label());
    failf("dist_finalize: %zu request(s) were never waited for (every "
          "dist_*_start needs one dist_wait)",
          inFlight.size());
  }
  writeTrace();
  groupCache().clear(); // frees the communicators before the backend stops
  getBackend().finalize();
  initialized = false;
  traceOn = false;
  updateDetour();
}

int dist_world_rank(void) { return ready("dist_world_rank").worldRank(); }
int dist_world_size(void) { return ready("dist_world_size").worldSize(); }
const char *dist_backend_name(void) { return getBackend().name(); }

static std::string describe(const meshmath::Shape &shape,
                            const meshmath::AxisList &axes, int32_t comm,
                            const Communicator &communicator) {
  auto list = [](const std::vector<int64_t> &values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i)
      text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
  };
  return "{mesh " + list(shape) + ", axes " + list(axes) + ", comm " +
         std::to_string(comm) + ", index " +
         std::to_string(communicator.rank()) + " of " +
         std::to_string(communicator.size()) + "}";
}

dist_group_t *dist_get_group(const int64_t *mesh_shape, int32_t mesh_rank,
                             const int64_t *axes, int32_t num_axes,
                             int32_t comm) {
  Backend &backend = ready("dist_get_group");
  if (mesh_rank < 0 || num_axes < 0 || (mesh_rank && !mesh_shape) ||
      (num_axes && !axes))
    failf("dist_get_group: a mesh of rank %d with %d axes", mesh_rank,
          num_axes);
  if (comm < 0)
    failf("dist_get_group: negative communicator index %d", comm);
  meshmath::Shape shape(mesh_shape, mesh_shape + mesh_rank);
  meshmath::AxisList axisList(axes, axes + num_axes);
  std::lock_guard<std::mutex> lock(groupMutex);
  std::unique_ptr<Communicator> &group = groupCache()[{shape, axisList, comm}];
  if (group)
    return reinterpret_cast<dist_group_t *>(group.get());
  int64_t begin = traceOn ? trace.begin("get_group") : 0;
  for (int64_t size : shape)
    if (size <= 0)
      failf("dist_get_group: mesh axis of size %lld", (long long)size);
  if (meshmath::numDevices(shape) != backend.worldSize())
    failf("dist_get_group: the mesh has %lld devices but the job has %d ranks",
          (long long)meshmath::numDevices(shape), backend.worldSize());
  for (int64_t axis : axisList)
    if (axis < 0 || axis >= mesh_rank)
      failf("dist_get_group: axis %lld is out of range for a mesh of rank %d",
            (long long)axis, mesh_rank);
  for (int32_t i = 0; i < num_axes; ++i)
    for (int32_t j = i + 1; j < num_axes; ++j)
      if (axes[i] == axes[j])
        failf("dist_get_group: axis %lld appears twice", (long long)axes[i]);
  // The split is collective: make sure every rank asks for this group now
  // (a mismatch would pair unrelated splits, a missing rank would hang).
  uint64_t hash = 1469598103934665603ull; // FNV-1a over shape, axes, comm
  auto mix = [&](int64_t v) { hash = (hash ^ (uint64_t)v) * 1099511628211ull; };
  mix(mesh_rank);
  for (int64_t v : shape)
    mix(v);
  mix(-1);
  for (int64_t v : axisList)
    mix(v);
  mix(-2);
  mix(comm);
  backend.checkAgreement((int64_t)(hash >> 1), "dist_get_group");
  int rank = backend.worldRank();
  // Every rank calls this with the same arguments (SPMD), so the split is
  // collective; the key orders the ranks by their index in the group. Each
  // comm index gets its own split: a distinct communicator.
  group = backend.split(
      meshmath::groupColor(rank, shape, axisList),
      meshmath::indexInGroup(meshmath::delinearize(rank, shape), shape,
                             axisList));
  group->setLabel(describe(shape, axisList, comm, *group));
  if (traceOn) {
    TraceEvent e{};
    e.kind = TraceEvent::GetGroup;
    e.comm = group.get();
    e.begin = begin;
    e.end = nowNs();
    trace.add(e);
  }
  return reinterpret_cast<dist_group_t *>(group.get());
}

int64_t dist_group_size(dist_group_t *group) {
  return groupOf(group, "dist_group_size").size();
}
int64_t dist_group_index(dist_group_t *group) {
  return groupOf(group, "dist_group_index").rank();
}

int64_t dist_dtype_size(dist_dtype_t dtype) {
  if (!isValidDtype(dtype))
    failf("dist_dtype_size: unknown element type %d", (int)dtype);
  return elementSize(dtype);
}

//===----------------------------------------------------------------------===//
// Blocking collectives
//===----------------------------------------------------------------------===//

/// A blocking collective off the fast path: a stream, a staged reduction,
/// requests in flight (which it lets progress first) or the trace.
[[gnu::noinline]] static void runSlow(const Collective &user) {
  checkRare(user);
  if (!inFlight.empty())
    progressAll();
  int64_t begin = traceOn ? trace.begin(user.what) : 0;
  if (isSelfExchange(user)) {
    std::memmove(user.output, user.input, user.count * elementSize(user.dtype));
  } else if (isReducing(user.kind) && needsStaging(user.dtype, user.reduction)) {
    Staging staging;
    Collective sent = prepare(user, staging);
    backendInstance->run(sent);
    finish(user, sent, staging);
  } else {
    backendInstance->run(user);
  }
  if (traceOn) {
    TraceEvent e = eventFor(TraceEvent::Call, user, begin);
    e.end = nowNs();
    trace.add(e);
  }
}

void dist_all_reduce(dist_group_t *group, void *buffer, int64_t count,
                     dist_dtype_t dtype, dist_reduction_t reduction,
                     dist_stream_t stream) {
  Backend &backend = ready("dist_all_reduce");
  Communicator &comm = groupOf(group, "all_reduce");
  checkDtype(comm, dtype, "all_reduce");
  checkCount(comm, count, "all_reduce");
  checkReduction(comm, reduction, "all_reduce");
  if (detour || stream || needsStaging(dtype, reduction)) [[unlikely]]
    return runSlow({CollectiveKind::AllReduce, &comm, buffer, buffer, count,
                    dtype, reduction, 0, 0, stream, "all_reduce"});
  backend.allReduce(comm, buffer, count, dtype, reduction, "all_reduce");
}

void dist_reduce(dist_group_t *group, void *buffer, int64_t count,
                 dist_dtype_t dtype, dist_reduction_t reduction, int64_t root,
                 dist_stream_t stream) {
  Backend &backend = ready("dist_reduce");
  Communicator &comm = groupOf(group, "reduce");
  checkDtype(comm, dtype, "reduce");
  checkCount(comm, count, "reduce");
  checkReduction(comm, reduction, "reduce");
  checkRoot(comm, root, "reduce");
  if (detour || stream || needsStaging(dtype, reduction)) [[unlikely]]
    return runSlow({CollectiveKind::Reduce, &comm, buffer, buffer, count,
                    dtype, reduction, root, 0, stream, "reduce"});
  backend.reduce(comm, buffer, count, dtype, reduction, root, "reduce");
}

void dist_broadcast(dist_group_t *group, void *buffer, int64_t count,
                    dist_dtype_t dtype, int64_t root, dist_stream_t stream) {
  Backend &backend = ready("dist_broadcast");
  Communicator &comm = groupOf(group, "broadcast");
  checkDtype(comm, dtype, "broadcast");
  checkCount(comm, count, "broadcast");
  checkRoot(comm, root, "broadcast");
  if (detour || stream) [[unlikely]]
    return runSlow({CollectiveKind::Broadcast, &comm, buffer, buffer, count,
                    dtype, DIST_SUM, root, 0, stream, "broadcast"});
  backend.broadcast(comm, buffer, count, dtype, root, "broadcast");
}

void dist_all_gather(dist_group_t *group, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype, dist_stream_t stream) {
  Backend &backend = ready("dist_all_gather");
  Communicator &comm = groupOf(group, "all_gather");
  checkDtype(comm, dtype, "all_gather");
  checkCount(comm, count, "all_gather");
  if (detour || stream) [[unlikely]]
    return runSlow({CollectiveKind::AllGather, &comm, input, output, count,
                    dtype, DIST_SUM, 0, 0, stream, "all_gather"});
  backend.allGather(comm, input, output, count, dtype, "all_gather");
}

void dist_reduce_scatter(dist_group_t *group, const void *input, void *output,
                         int64_t count, dist_dtype_t dtype,
                         dist_reduction_t reduction, dist_stream_t stream) {
  Backend &backend = ready("dist_reduce_scatter");
  Communicator &comm = groupOf(group, "reduce_scatter");
  checkDtype(comm, dtype, "reduce_scatter");
  checkCount(comm, count, "reduce_scatter");
  checkReduction(comm, reduction, "reduce_scatter");
  if (detour || stream || needsStaging(dtype, reduction)) [[unlikely]]
    return runSlow({CollectiveKind::ReduceScatter, &comm, input, output, count,
                    dtype, reduction, 0, 0, stream, "reduce_scatter"});
  backend.reduceScatter(comm, input, output, count, dtype, reduction,
                        "reduce_scatter");
}

void dist_all_to_all(dist_group_t *group, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype, dist_stream_t stream) {
  Backend &backend = ready("dist_all_to_all");
  Communicator &comm = groupOf(group, "all_to_all");
  checkDtype(comm, dtype, "all_to_all");
  checkCount(comm, count, "all_to_all");
  if (detour || stream) [[unlikely]]
    return runSlow({CollectiveKind::AllToAll, &comm, input, output, count,
                    dtype, DIST_SUM, 0, 0, stream, "all_to_all"});
  backend.allToAll(comm, input, output, count, dtype, "all_to_all");
}

void dist_send_recv(dist_group_t *group, const void *input, int64_t target,
                    void *output, int64_t source, int64_t count,
                    dist_dtype_t dtype, dist_stream_t stream) {
  Backend &backend = ready("dist_send_recv");
  Communicator &comm = groupOf(group, "send_recv");
  checkDtype(comm, dtype, "send_recv");
  checkCount(comm, count, "send_recv");
  checkPartners(comm, target, source, "send_recv");
  if (detour || stream) [[unlikely]]
    return runSlow({CollectiveKind::SendRecv, &comm, input, output, count,
                    dtype, DIST_SUM, target, source, stream, "send_recv"});
  // Input and output may alias, which MPI forbids: a self exchange copies
  // (a backend on device buffers copies them itself).
  if (target == comm.rank() && !backend.buffersOnDevice()) {
    std::memmove(output, input, count * elementSize(dtype));
    return;
  }
  backend.sendRecv(comm, input, target, output, source, count, dtype,
                   "send_recv");
}

//===----------------------------------------------------------------------===//
// Non-blocking collectives
//===----------------------------------------------------------------------===//

dist_request_t *dist_all_reduce_start(dist_group_t *group, void *buffer,
                                      int64_t count, dist_dtype_t dtype,
                                      dist_reduction_t reduction,
                                      dist_stream_t stream) {
  return startCollective({CollectiveKind::AllReduce,
                          &groupOf(group, "all_reduce_start"), buffer, buffer,
                          count, dtype, reduction, 0, 0, stream,
                          "all_reduce_start"});
}

dist_request_t *dist_reduce_start(dist_group_t *group, void *buffer,
                                  int64_t count, dist_dtype_t dtype,
                                  dist_reduction_t reduction, int64_t root,
                                  dist_stream_t stream) {
  return startCollective({CollectiveKind::Reduce, &groupOf(group, "reduce_start"),
                          buffer, buffer, count, dtype, reduction, root, 0,
                          stream, "reduce_start"});
}

dist_request_t *dist_broadcast_start(dist_group_t *group, void *buffer,
                                     int64_t count, dist_dtype_t dtype,
                                     int64_t root, dist_stream_t stream) {
  return startCollective({CollectiveKind::Broadcast,
                          &groupOf(group, "broadcast_start"), buffer, buffer,
                          count, dtype, DIST_SUM, root, 0, stream,
                          "broadcast_start"});
}

dist_request_t *dist_all_gather_start(dist_group_t *group, const void *input,
                                      void *output, int64_t count,
                                      dist_dtype_t dtype,
                                      dist_stream_t stream) {
  return startCollective({CollectiveKind::AllGather,
                          &groupOf(group, "all_gather_start"), input, output,
                          count, dtype, DIST_SUM, 0, 0, stream,
                          "all_gather_start"});
}

dist_request_t *dist_reduce_scatter_start(dist_group_t *group,
                                          const void *input, void *output,
                                          int64_t count, dist_dtype_t dtype,
                                          dist_reduction_t reduction,
                                          dist_stream_t stream) {
  return startCollective({CollectiveKind::ReduceScatter,
                          &groupOf(group, "reduce_scatter_start"), input,
                          output, count, dtype, reduction, 0, 0, stream,
                          "reduce_scatter_start"});
}

dist_request_t *dist_all_to_all_start(dist_group_t *group, const void *input,
                                      void *output, int64_t count,
                                      dist_dtype_t dtype,
                                      dist_stream_t stream) {
  return startCollective({CollectiveKind::AllToAll,
                          &groupOf(group, "all_to_all_start"), input, output,
                          count, dtype, DIST_SUM, 0, 0, stream,
                          "all_to_all_start"});
}

dist_request_t *dist_send_recv_start(dist_group_t *group, const void *input,
                                     int64_t target, void *output,
                                     int64_t source, int64_t count,
                                     dist_dtype_t dtype,
                                     dist_stream_t stream) {
  return startCollective({CollectiveKind::SendRecv,
                          &groupOf(group, "send_recv_start"), input, output,
                          count, dtype, DIST_SUM, target, source, stream,
                          "send_recv_start"});
}
