#!/usr/bin/env bash
# The differential tester: random annotated programs on new seeds, each run
# serially and on its mesh's ranks by dist-run and compared
# (test/Fuzz/run_fuzz.py; docs/Development.md, "The differential tester").
#
#   bash scripts/fuzz.sh                 # 1,000 programs from a new first seed
#   bash scripts/fuzz.sh 200             # 200 programs
#   bash scripts/fuzz.sh 1000 123000     # 1,000 programs from seed 123000
#
# Builds dist-opt and dist-run first. Programs that do not pass are kept in
# build/fuzz-out/ (FUZZ_OUT overrides it) with their logs; the exit status is 0
# only when every program passes. Extra arguments after the first two go to
# run_fuzz.py (e.g. --timeout 60, --compile-only).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${DIST_BUILD_DIR:-build}
count=${1:-1000}
# New seeds: the first one comes from the clock, so that runs a few hours
# apart do not overlap; it is printed, so that a run can be repeated.
start=${2:-$(( ($(date +%s) / 60 % 4000000) * 1000 ))}
shift $(( $# < 2 ? $# : 2 ))

if [[ ! -f "$build_dir/build.ninja" ]]; then
  bash scripts/build.sh
fi
cmake --build "$build_dir" --target dist-opt dist-run dist_runtime

echo "fuzz: $count programs from seed $start (repeat with: bash scripts/fuzz.sh $count $start)"
exec python3 test/Fuzz/run_fuzz.py --start "$start" --count "$count" \
  --dist-opt "$build_dir/bin/dist-opt" --dist-run "$build_dir/bin/dist-run" \
  --out "${FUZZ_OUT:-$build_dir/fuzz-out}" --quiet "$@"
