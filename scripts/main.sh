#!/usr/bin/env bash
# The main job: set up, build, and run dist-opt's pipeline on the example
# model, printing what was done at each step.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-examples/mlp_train_step.mlir}

step() { printf '\n== %s\n' "$*"; }

step "setup (installs only what is missing)"
bash scripts/setup.sh
step "build"
bash scripts/build.sh >/dev/null
echo "built build/bin/dist-opt"

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
