//===- runtime_error_test.cpp - Jobs that cannot complete -----------------===//
//
// Each mode makes the job fail; the test checks the error it reports (the
// call, the rank and the group) and that it ends within DIST_TIMEOUT_SECONDS:
//
// mismatch:  rank 0 all-reduces while rank 1 broadcasts: neither completes.
// dead-peer: rank 1 dies before the collective the others wait in.
// bad-send-recv: a send_recv to a group index out of range is refused.
// negative-count: an all_reduce of -1 elements is refused.
// lonely-send-recv: a send_recv to itself that does not receive from itself
// (which could never complete) is refused.
// never-waited: rank 1 starts an all_reduce and never waits for it.
// wait-twice: a request is waited for twice.
// null-request: dist_wait(NULL).
// stuck-wait: rank 0 waits for an all_reduce that rank 1 never starts (it
// blocks in another one, on comm 1): both time out.
// stream: a non-null stream on a CPU backend.
// stream-stuck: an all_reduce on a stream (nccl backend), after which the
// host waits, as a GPU step waits for its stream at its return: a
// collective that never completes, or fails, must still end the job.
// i1-avg: an average of i1.
//
//===----------------------------------------------------------------------===//

#include "dist/Runtime/DistRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

int main(int argc, char **argv) {
  dist_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "mismatch";
  auto is = [&](const char *name) { return std::strcmp(mode, name) == 0; };
  int64_t mesh = dist_world_size(), axis = 0;
  dist_group_t *group = dist_get_group(&mesh, 1, &axis, 1, /*comm=*/0);
  float data[4] = {1, 2, 3, 4}, out[4];
  int rank = dist_world_rank();
  if (is("bad-send-recv"))
    dist_send_recv(group, data, /*target=*/5, out, /*source=*/-1, 4, DIST_F32,
                   nullptr);
  if (is("negative-count"))
    dist_all_reduce(group, data, -1, DIST_F32, DIST_SUM, nullptr);
  if (is("lonely-send-recv"))
    dist_send_recv(group, data, /*target=*/dist_group_index(group), out,
                   /*source=*/-1, 4, DIST_F32, nullptr);
  if (is("dead-peer") && rank == 1)
    _exit(9); // dies without a word to its peers
  if (is("never-waited")) {
    dist_request_t *request =
        dist_all_reduce_start(group, data, 4, DIST_F32, DIST_SUM, nullptr);
    if (rank != 1)
      dist_wait(request);
    dist_finalize();
  }
  if (is("wait-twice")) {
    dist_request_t *request =
        dist_all_reduce_start(group, data, 4, DIST_F32, DIST_SUM, nullptr);
    dist_wait(request);
    dist_wait(request);
  }
  if (is("null-request"))
    dist_wait(nullptr);
  if (is("stuck-wait")) {
    dist_group_t *other = dist_get_group(&mesh, 1, &axis, 1, /*comm=*/1);
    if (rank == 0)
      dist_wait(dist_all_reduce_start(group, data, 4, DIST_F32, DIST_SUM,
                                      nullptr));
    else
      dist_all_reduce(other, data, 4, DIST_F32, DIST_SUM, nullptr);
  }
  if (is("stream")) {
    int fakeStream = 0;
    dist_all_reduce(group, data, 4, DIST_F32, DIST_SUM, &fakeStream);
  }
  if (is("stream-stuck")) {
    int stream = 0; // the fake driver takes any stream
    dist_all_reduce(group, data, 4, DIST_F32, DIST_SUM, &stream);
    for (;;)
      sleep(1);
  }
  if (is("i1-avg")) {
    uint8_t bits[4] = {0, 1, 1, 0};
    dist_all_reduce(group, bits, 4, DIST_I1, DIST_AVG, nullptr);
  }
  if (is("mismatch") && rank == 1)
    dist_broadcast(group, data, 4, DIST_F32, 0, nullptr);
  else
    dist_all_reduce(group, data, 4, DIST_F32, DIST_SUM, nullptr);
  dist_finalize();
  std::printf("unexpectedly completed\n");
  return 0;
}
