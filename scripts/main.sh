#!/usr/bin/env bash
# The main job: set up, build, then generate a GPT-style training step, make
# it data parallel with gradient buckets, train it for a few steps on 4 ranks
# and print what was done. With a model file as argument, walks that
# annotated program through the partitioning pipeline instead.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "setup (installs only what is missing)"
bash scripts/setup.sh
step "build"
bash scripts/build.sh >/dev/null
echo "built build/bin/dist-opt, dist-gen, dist-run"

if [[ $# -eq 0 ]]; then
  out_dir=${DIST_OUT_DIR:-build/examples}
  mkdir -p "$out_dir"
  gpt="$out_dir/gpt_train_step.mlir"
  dp="$out_dir/gpt_train_step.dp.mlir"
  partitioned="$out_dir/gpt_train_step.dp.partitioned.mlir"
  shape="--layers 2 --hidden 64 --heads 4 --seq 32 --vocab 256 --batch 8"
  # Momentum rather than Adam: Adam's first step divides each gradient by its
  # own magnitude, so a gradient element that cancels to ~1e-8 (GPT-2's
  # initialization makes a few) turns the rounding of its sum into updates
  # that differ per summation order by more than dist-run's per-tensor judge
  # allows. Adam steps are checked against PyTorch in test/Training.
  step "generate a GPT training step (dist-gen gpt $shape --optimizer momentum --mesh dp=4) -> $gpt"
  # shellcheck disable=SC2086
  build/bin/dist-gen gpt $shape --optimizer momentum --clip-grad-norm 1.0 --mesh dp=4 -o "$gpt"
  echo "  parameters: $(grep -o 'dist.param' "$gpt" | wc -l), gradients: $(grep -o 'dist.grad_of' "$gpt" | wc -l)," \
       "ops: $(grep -cE '^ +%' "$gpt")"
  step "make it data parallel over dp with 2 communicators (dist-data-parallel) -> $dp"
  build/bin/dist-opt "$gpt" --dist-data-parallel="axis=dp num-comms=2" -o "$dp"
  echo "  batch split over dp: $(grep -o 'dist.sharding<@mesh, \[{dp}' "$dp" | wc -l) argument(s);" \
       "gradients pinned to their parameter's layout: $(grep -c 'dist.annotate' "$dp")"
  step "partition, then pack gradients into 32 MB buckets and make collectives async -> $partitioned"
  build/bin/dist-opt "$dp" --dist-auto-partition --dist-fuse-gradients="summary" --dist-make-async \
    -o "$partitioned" 2>&1 | grep -E 'remark:' | sed -E 's/^[^ ]+: remark: /  /'
  step "communication per step (dist-comm-report)"
  build/bin/dist-opt "$partitioned" --dist-comm-report -o /dev/null 2>&1 \
    | grep -E 'remark:' | sed -E 's/^[^ ]+: remark: /  /'
  if command -v mpirun >/dev/null; then
    run_dir="$out_dir/gpt_run"
    rm -rf "$run_dir"
    step "train 5 steps on 4 MPI ranks (dist-run), every step compared with the serial run on the global batch"
    build/bin/dist-run "$dp" --steps 5 --time --keep --work-dir "$run_dir" \
      --per-rank-passes='dist-fuse-gradients,dist-make-async' | grep -vE '^result #'
    step "loss per step: serial run vs rank 0 of the 4-rank run"
    python3 - "$run_dir" <<'PY'
import glob, re, struct, sys
run = sys.argv[1]
# The loss is the step's last result.
loss = max(int(re.search(r"result(\d+)\.", p).group(1))
           for p in glob.glob(f"{run}/result*.step1.serial.bin"))
step = 1
while True:
    try:
        serial = open(f"{run}/result{loss}.step{step}.serial.bin", "rb").read()
        rank0 = open(f"{run}/result{loss}.step{step}.rank0.bin", "rb").read()
    except FileNotFoundError:
        break
    print(f"  step {step}: serial {struct.unpack('<f', serial)[0]:.6f}, 4 ranks {struct.unpack('<f', rank0)[0]:.6f}")
    step += 1
PY
  else
    echo "mpirun not found: skipping the 4-rank run"
  fi
  step "done"
  echo "The generated, data-parallel and per-rank programs are in $out_dir;"
  echo "scripts/main.sh examples/mlp_train_step.mlir walks an annotated model through the pipeline."
  exit 0
fi

model=$1

dist_opt=build/bin/dist-opt
step "model: $model"
grep -E '^ *dist\.mesh' "$model" | sed 's/^ */mesh: /'
grep -oE '%[a-z0-9_]+: tensor<[^>]*> \{dist\.sharding = #dist\.sharding<[^}]*(\{[^}]*\}[^}]*)*>\}' "$model" \
  | sed -E 's/\{dist\.sharding = (.*)\}$/-> \1/; s/^/argument /' || true

step "verify the annotated global program (dist-verify phase=global)"
"$dist_opt" "$model" --dist-verify="phase=global summary=true" -o /dev/null 2>&1 \
  | sed -E 's/^[^ ]+: remark: //'

step "complete shardings (dist-propagate): layout of every op's results"
"$dist_opt" "$model" --dist-propagate 2>&1 \
  | grep -E '^ +%[a-z0-9_]+ = [a-z]+\.[a-z_]+ .*dist\.shardings' \
  | sed -E 's/^ +(%[a-z0-9_]+) = ([a-z._]+).*dist\.shardings = \[#dist\.sharding<@[a-z0-9_]+, (.*)>\].*/  \1 \2: \3/'

out_dir=${DIST_OUT_DIR:-build/examples}
mkdir -p "$out_dir"
partitioned="$out_dir/$(basename "$model" .mlir).partitioned.mlir"
step "partition into the per-rank program (dist-auto-partition) -> $partitioned"
"$dist_opt" "$model" --dist-auto-partition -o "$partitioned"
grep -E '^ *func\.func' "$partitioned" | sed -E 's/ \{dist\.partitioned_as = #dist\.sharding<[^>]*>\}//g; s/^ */  /'
echo "  collectives in the per-rank program:"
grep -oE 'dist\.(all_reduce|all_gather|reduce_scatter|all_to_all|reduce|broadcast|permute) [^:]*: [^ ]+' "$partitioned" \
  | sed 's/^/    /'

step "communication per execution (dist-comm-report)"
"$dist_opt" "$partitioned" --dist-comm-report -o /dev/null 2>&1 \
  | grep -E 'remark:' | sed -E 's/^[^ ]+: remark: /  /'

step "lower the per-rank program to LLVM (dist-lower-to-llvm): runtime calls in it"
"$dist_opt" "$partitioned" --dist-lower-to-llvm \
  | grep -oE 'llvm\.call @(dist_[a-z_]+|cblas_[a-z]+)' | sort | uniq -c | sed 's/^ */  /'

if command -v mpirun >/dev/null; then
  step "run it (dist-run): serial vs 4 MPI ranks, every result compared"
  build/bin/dist-run "$model" --ranks 4
else
  echo "mpirun not found: skipping the 4-rank run"
fi

step "done"
echo "The per-rank program is in $partitioned; dist-run --keep leaves the"
echo "lowered programs and data for a closer look (docs/DistRun.md)."
