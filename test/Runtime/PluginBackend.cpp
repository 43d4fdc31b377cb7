//===- PluginBackend.cpp - A backend in its own shared library ------------===//
//
// libdist_backend_testplugin.so: the runtime loads it when
// DIST_BACKEND=testplugin names no registered backend, and its static
// initializer registers "testplugin", the way a GPU backend that must not
// load on every machine plugs in. It forwards every call to the self backend
// (one process), so the runtime test runs through it unchanged.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

using namespace distrt;

namespace {

class PluginBackend : public Backend {
public:
  PluginBackend() : inner(createBackend("self")) {}
  const char *name() const override { return "testplugin"; }
  void init(int *argc, char ***argv) override { inner->init(argc, argv); }
  void finalize() override { inner->finalize(); }
  int worldRank() const override { return inner->worldRank(); }
  int worldSize() const override { return inner->worldSize(); }
  [[noreturn]] void abortJob(int code) override { inner->abortJob(code); }
  void checkAgreement(int64_t key, const char *what) override {
    inner->checkAgreement(key, what);
  }
  std::unique_ptr<Communicator> split(int64_t color, int64_t key) override {
    return inner->split(color, key);
  }
  void allReduce(Communicator &comm, void *buffer, int64_t count,
                 dist_dtype_t dtype, dist_reduction_t reduction,
                 const char *what) override {
    inner->allReduce(comm, buffer, count, dtype, reduction, what);
  }
  void reduce(Communicator &comm, void *buffer, int64_t count,
              dist_dtype_t dtype, dist_reduction_t reduction, int64_t root,
              const char *what) override {
    inner->reduce(comm, buffer, count, dtype, reduction, root, what);
  }
  void broadcast(Communicator &comm, void *buffer, int64_t count,
                 dist_dtype_t dtype, int64_t root, const char *what) override {
    inner->broadcast(comm, buffer, count, dtype, root, what);
  }
  void allGather(Communicator &comm, const void *input, void *output,
                 int64_t count, dist_dtype_t dtype, const char *what) override {
    inner->allGather(comm, input, output, count, dtype, what);
  }
  void reduceScatter(Communicator &comm, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype,
                     dist_reduction_t reduction, const char *what) override {
    inner->reduceScatter(comm, input, output, count, dtype, reduction, what);
  }
  void allToAll(Communicator &comm, const void *input, void *output,
                int64_t count, dist_dtype_t dtype, const char *what) override {
    inner->allToAll(comm, input, output, count, dtype, what);
  }
  void sendRecv(Communicator &comm, const void *input, int64_t target,
                void *output, int64_t source, int64_t count,
                dist_dtype_t dtype, const char *what) override {
    inner->sendRecv(comm, input, target, output, source, count, dtype, what);
  }
  std::unique_ptr<Work> start(const Collective &c) override {
    return inner->start(c);
  }

private:
  std::unique_ptr<Backend> inner;
};

BackendRegistration registration("testplugin", /*priority=*/-1, [] {
  return std::unique_ptr<Backend>(new PluginBackend());
});

} // namespace
