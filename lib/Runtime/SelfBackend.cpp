//===- SelfBackend.cpp - The dist runtime in one process ------------------===//
//
// One process and no communication library: every group has one rank, so a
// collective copies its block or does nothing, and a started collective is
// complete when its start returns. Runs programs on a mesh of one device
// without a launcher (and under valgrind).
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <cstdlib>
#include <cstring>

using namespace distrt;

namespace {

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
    return std::make_unique<Communicator>(/*size=*/1, /*rank=*/0);
  }

  void allReduce(Communicator &, void *, int64_t, dist_dtype_t,
                 dist_reduction_t, const char *) override {}
  void reduce(Communicator &, void *, int64_t, dist_dtype_t, dist_reduction_t,
              int64_t, const char *) override {}
  void broadcast(Communicator &, void *, int64_t, dist_dtype_t, int64_t,
                 const char *) override {}
  void allGather(Communicator &, const void *input, void *output,
                 int64_t count, dist_dtype_t dtype, const char *) override {
    std::memmove(output, input, count * elementSize(dtype));
  }
  void reduceScatter(Communicator &, const void *input, void *output,
                     int64_t count, dist_dtype_t dtype, dist_reduction_t,
                     const char *) override {
    std::memmove(output, input, count * elementSize(dtype));
  }
  void allToAll(Communicator &, const void *input, void *output, int64_t count,
                dist_dtype_t dtype, const char *) override {
    std::memmove(output, input, count * elementSize(dtype));
  }
  // The only partner is the caller itself, which the core handles.
  void sendRecv(Communicator &, const void *, int64_t, void *, int64_t,
                int64_t, dist_dtype_t, const char *) override {}

  std::unique_ptr<Work> start(const Collective &c) override {
    run(c);
    return nullptr;
  }
};

BackendRegistration registration("self", /*priority=*/0, [] {
  return std::unique_ptr<Backend>(new SelfBackend());
});

} // namespace
