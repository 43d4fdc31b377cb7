#!/usr/bin/env bash
# Sets up, builds, and runs every test suite: the lit/FileCheck suite
# (check-dist) and the ctest suites (C++ unit tests, install consumer).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build_dir=${DIST_BUILD_DIR:-build}

echo "== lit suite (check-dist)"
cmake --build "$build_dir" --target check-dist

echo "== ctest (unit tests, install consumer)"
ctest --test-dir "$build_dir" --output-on-failure -j 2
