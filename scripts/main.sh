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

step "round trip: print and re-parse the program"
"$dist_opt" "$model" | "$dist_opt" --dist-verify -o /dev/null && echo "round trip OK"

step "done"
echo "Next phases (propagation, partitioning, multi-rank execution) land with"
echo "the issues that build on this foundation; see docs/Design.md."
