//===- runtime_error_test.cpp - Jobs that cannot complete -----------------===//
//
// mismatch:  rank 0 all-reduces while rank 1 broadcasts: neither completes.
// dead-peer: rank 1 dies before the collective the others wait in.
// bad-send-recv: a send_recv to a group index out of range is refused.
// negative-count: an all_reduce of -1 elements is refused.
// lonely-send-recv: a send_recv to itself that does not receive from itself
// (which could never complete) is refused.
// Either way the job must end with an error within DIST_TIMEOUT_SECONDS.
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
  int64_t mesh = dist_world_size(), axis = 0;
  dist_group_t *group = dist_get_group(&mesh, 1, &axis, 1);
  float data[4] = {1, 2, 3, 4};
  if (std::strcmp(mode, "bad-send-recv") == 0) {
    float out[4];
    dist_send_recv(group, data, /*target=*/5, out, /*source=*/-1, 4, DIST_F32);
  }
  if (std::strcmp(mode, "negative-count") == 0)
    dist_all_reduce(group, data, -1, DIST_F32, DIST_SUM);
  if (std::strcmp(mode, "lonely-send-recv") == 0) {
    float out[4];
    int64_t me = dist_group_index(group);
    dist_send_recv(group, data, /*target=*/me, out, /*source=*/-1, 4, DIST_F32);
  }
  if (std::strcmp(mode, "dead-peer") == 0 && dist_world_rank() == 1)
    _exit(9); // dies without a word to its peers
  if (std::strcmp(mode, "mismatch") == 0 && dist_world_rank() == 1)
    dist_broadcast(group, data, 4, DIST_F32, 0);
  else
    dist_all_reduce(group, data, 4, DIST_F32, DIST_SUM);
  dist_finalize();
  std::printf("unexpectedly completed\n");
  return 0;
}
