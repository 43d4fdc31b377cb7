#!/bin/bash
# Everything issue 15 checks on a GPU, in one call of the `device` machine
# (which has CUDA and PyTorch but no LLVM, MPI or dist):
#
#   here:   scripts/gpu_check.sh prepare [OUT]      (default build/gpu-check)
#           (OUT.tar.xz travels: `carry` it; OUT.local stays, for the judge)
#   there:  tar xJf OUT.tar.xz -C $(dirname OUT); scripts/gpu_check.sh run OUT RESULTS_DIR
#   here:   scripts/gpu_check.sh judge OUT RESULTS_DIR
#
# prepare exports into OUT, compiled for the GPU and bundled with their
# libraries (what the device needs: the serial runs and references stay in
# OUT.local):
#   runtime/   the runtime tests (dist-cuda-runtime-test, dist-runtime-test)
#   examples/  every example (scripts/gpu_examples.py prepare)
#   torch-*/   generated GPT steps for test/Training/check_against_torch.py
#              --from-export (f32 with Adam and clipping, bf16 with master
#              weights; the -rows ones with block reductions and row groups),
#              their serial runs made here
#   bench/     the GPT block benchmark (bench/gpu_gpt.py prepare), unless
#              GPU_CHECK_BENCH=0 (run a second time with --tf32: f32
#              products in TF32 on both sides); bench-loops/ the same steps
#              without block reductions (dist-gpu-block-reductions), timed
#              after it
# run runs them there (each part time-limited; logs and results into
# RESULTS_DIR, $OUT on the device machine): gpu-check.log, examples.tgz,
# torch-NAME.tgz (one a check: the device returns files of up to 16 MB).
# judge compares the GPU's results with the serial runs here.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
phase=${1:?usage: scripts/gpu_check.sh prepare|run|judge [OUT] [RESULTS_DIR]}
out=${2:-$here/build/gpu-check}
gpt="gpt --layers 2 --hidden 64 --heads 4 --seq 32 --vocab 128 --batch 4 --mesh dp=1 --parallel dp"
# The GPT steps checked against PyTorch: name and dist-gen arguments.
checks=(
  "f32|$gpt --optimizer adam --clip-grad-norm 1.0"
  "bf16|$gpt --optimizer adam --dtype bf16 --master-weights"
  "f32-wide|gpt --layers 2 --hidden 256 --heads 8 --seq 128 --vocab 512 --batch 4 --mesh dp=1 --parallel dp --optimizer adam --clip-grad-norm 1.0"
  "f32-rows|$gpt --optimizer adam --clip-grad-norm 1.0"
  "bf16-rows|$gpt --optimizer adam --dtype bf16 --master-weights"
)
# dist-run options of a check: the -rows ones lower the thresholds of
# dist-gpu-block-reductions so that a small GPT's rows (64, 32) take blocks
# and row groups, checked against PyTorch on the GPU.
rows_args="--gpu-block-reduction-min-extent=16 --gpu-block-reduction-min-outputs=1"
dist_run_args() { case "$1" in *-rows) echo "$rows_args" ;; esac; }

prepare() {
  set -e
  local bin=$here/build/bin
  local local_dir=$out.local
  rm -rf "$out" "$local_dir" "$out.tar.xz" && mkdir -p "$out/runtime" "$local_dir"
  # The runtime tests and the libraries they load.
  local tests=$here/build/test/Runtime
  cp "$tests/dist-cuda-runtime-test" "$tests/dist-runtime-test" "$here/scripts/launch.py" \
    "$out/runtime/"
  mkdir -p "$out/runtime/lib"
  cp "$here/build/lib/libdist_backend_nccl.so" "$out/runtime/lib/"
  bash "$here/scripts/device_bundle.sh" --libs-only "$out/runtime/lib" \
    "$out/runtime/dist-cuda-runtime-test" "$out/runtime/dist-runtime-test" \
    "$here/build/lib/libdist_backend_nccl.so"
  /usr/bin/python3 "$here/scripts/gpu_examples.py" prepare --out "$local_dir/examples" \
    > "$local_dir/examples-prepare.log"
  mv "$local_dir/examples/device" "$out/examples"
  local check t model
  for check in "${checks[@]}"; do
    t=${check%%|*} model=${check#*|}
    # shellcheck disable=SC2086
    /usr/bin/python3 "$here/test/Training/check_against_torch.py" --bin "$bin" --steps 3 \
      --dist-run-args="$(dist_run_args "$t")" --export "$local_dir/torch-$t" -- $model > /dev/null
    # What dist-step and the PyTorch half read.
    local from=$local_dir/torch-$t to=$out/torch-$t
    mkdir -p "$to/run"
    cp "$from"/step.mlir "$from"/check.json "$from"/input*.bin "$to/"
    cp -r "$from"/run/{bin,lib,run.sh,partitioned.so,partitioned.manifest} "$to/run/"
    cp "$from"/run/arg*.rank*.bin "$to/run/"
  done
  if [ "${GPU_CHECK_BENCH:-1}" != 0 ]; then
    /usr/bin/python3 "$here/bench/gpu_gpt.py" prepare --bin "$bin" --out "$out/bench" > /dev/null
    # The same steps without block reductions, timed beside them.
    /usr/bin/python3 "$here/bench/gpu_gpt.py" prepare --bin "$bin" --out "$out/bench-loops" \
      --dist-run-arg=--gpu-block-reduction-min-extent=0 > /dev/null
  fi
  tar cf - -C "$(dirname "$out")" "$(basename "$out")" | xz -T2 -9 > "$out.tar.xz"
  echo "gpu_check: $out.tar.xz is ready ($(du -sh "$out.tar.xz" | cut -f1) to carry; $(du -sh "$out" | cut -f1) unpacked)"
}

run() {
  local results=${3:-$out/results}
  mkdir -p "$results"
  local log=$results/gpu-check.log
  exec > >(tee "$log") 2>&1
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ldd --version | head -1
  local libs nccl
  libs=$(python3 -c "import sys; sys.path.insert(0, '$here/test/Training'); \
from check_against_torch import torch_library_path; print(':'.join(torch_library_path()))")
  nccl=$(for d in ${libs//:/ }; do ls "$d"/libnccl.so* 2>/dev/null; done | head -1)
  echo "cuBLAS/NCCL from: $libs (NCCL: ${nccl:-none})"
  export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export DIST_NCCL_LIBRARY=$nccl DIST_TIMEOUT_SECONDS=30
  # The device machine stops a command after 600 s: the benchmark gets what
  # is left of GPU_CHECK_SECONDS.
  local deadline=$((SECONDS + ${GPU_CHECK_SECONDS:-570}))

  echo "== runtime tests"
  local rt=$out/runtime
  LD_LIBRARY_PATH=$rt/lib:$LD_LIBRARY_PATH timeout 60 "$rt/dist-cuda-runtime-test"
  echo "cuda-runtime exit $?"
  local n
  for n in 1 2 4; do
    LD_LIBRARY_PATH=$rt/lib:$LD_LIBRARY_PATH DIST_BACKEND=nccl DIST_TEST_DEVICE_MEMORY=1 \
      timeout 90 python3 "$rt/launch.py" -n $n -- "$rt/dist-runtime-test" 2>&1 | tail -15
    echo "runtime-nccl-$n exit ${PIPESTATUS[0]}"
  done

  echo "== examples"
  timeout 300 "$out/examples/run_all.sh" "$results/examples.tgz" 60 | grep -v " exit 0$"
  echo "examples: $(grep -c ' exit 0$' "$out/examples/run_all.log") of" \
    "$(wc -l < "$out/examples/run_all.log") exit 0"

  echo "== GPT steps against PyTorch on this GPU"
  local check t
  for check in "${checks[@]}"; do
    t=${check%%|*}
    timeout 120 python3 "$here/test/Training/check_against_torch.py" --from-export "$out/torch-$t"
    echo "torch-$t exit $?"
  done
  # For the judge here: the small steps' results, an archive a check (the
  # device returns files of up to 16 MB each, eight at most).
  for t in f32 bf16 f32-rows bf16-rows; do
    (cd "$out" && tar czf "$results/torch-$t.tgz" torch-$t/run/result*.rank*.bin \
      torch-$t/run/times.rank*.txt)
  done

  if [ -d "$out/bench" ]; then
    echo "== benchmark"
    timeout $((deadline - SECONDS)) python3 "$here/bench/gpu_gpt.py" run --out "$out/bench"
    echo "bench exit $?"
  fi
  if [ -d "$out/bench" ]; then
    echo "== benchmark with TF32 f32 products (dist and PyTorch)"
    timeout $((deadline - SECONDS)) python3 "$here/bench/gpu_gpt.py" run --tf32 \
      --out "$out/bench"
    echo "bench-tf32 exit $?"
  fi
  if [ -d "$out/bench-loops" ]; then
    echo "== benchmark without block reductions (dist only)"
    timeout $((deadline - SECONDS)) python3 "$here/bench/gpu_gpt.py" run --dist-only \
      --out "$out/bench-loops"
    echo "bench-loops exit $?"
  fi
}

judge() {
  local results=${3:?usage: scripts/gpu_check.sh judge OUT RESULTS_DIR}
  /usr/bin/python3 "$here/scripts/gpu_examples.py" judge --out "$out.local/examples" \
    --results "$results/examples.tgz"
  local archive
  for archive in "$results"/torch-*.tgz; do
    [ -f "$archive" ] && tar xzf "$archive" -C "$out.local"
  done
  local check t
  for check in "${checks[@]}"; do
    t=${check%%|*}
    [ -f "$out.local/torch-$t/run/times.rank0.txt" ] || continue
    echo "torch-$t on the GPU vs the serial run:"
    "$here/build/bin/dist-run" --judge "$out.local/torch-$t/run" | tail -3
  done
}

case "$phase" in
  prepare) prepare ;;
  run) run "$@" ;;
  judge) judge "$@" ;;
  *) echo "usage: scripts/gpu_check.sh prepare|run|judge [OUT] [RESULTS_DIR]" >&2; exit 2 ;;
esac
