#!/usr/bin/env bash
# Instructions the runtime adds to one collective call: each collective of
# 8 bytes, CALLS times through the runtime and CALLS times as the same MPI
# call, on one rank under callgrind; the difference over CALLS. Exact and
# independent of the machine's load (which makes timings of sub-microsecond
# calls move by 10%). On one rank send_recv exchanges with itself, which the
# runtime does as a local copy and MPI_Sendrecv through MPI; dist.permute
# lowers to send_recv. About a minute.
#   bash bench/runtime_overhead.sh [build-dir] [calls]
set -euo pipefail
build=${1:-build}
calls=${2:-20000}
bin="$build/bench/dist-bench-runtime-overhead"
[[ -x "$bin" ]] || { echo "build $bin first (cmake --build $build --target dist-bench-runtime-overhead)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
count() { # collective side -> instructions
  mpirun -np 1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$calls" 2>&1 |
    sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
echo "| collective | instructions added per call |"
echo "|---|---|"
for collective in all_reduce all_gather reduce_scatter broadcast reduce all_to_all send_recv all_reduce_start; do
  runtime=$(count "$collective" runtime)
  mpi=$(count "$collective" mpi)
  echo "| $collective | $(( (runtime - mpi) / calls )) |"
done
