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

if command -v mpirun >/dev/null && [[ -x build/test/Runtime/dist-runtime-test ]]; then
  step "the runtime on 4 MPI ranks: every collective checked against a reference"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --oversubscribe -np 4 build/test/Runtime/dist-runtime-test
fi

step "done"
echo "The per-rank program is in $partitioned. Lowering it to calls into the"
echo "runtime (and running it with dist-run) is the next step; see docs/Runtime.md."
