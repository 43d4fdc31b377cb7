#!/bin/bash
# Makes a run exported by `dist-run --export-ranks DIR` self-contained for a
# machine without LLVM, MPI or dist (the `device` GPU machine): DIR/bin gets
# dist-step, DIR/lib every library it and DIR/partitioned.so load (the ldd
# closure, plus the nccl backend and the CUDA runtime library), except
# glibc's, which the target machine has (version 2.36 or newer). There:
#
#   LD_LIBRARY_PATH=DIR/lib python3 scripts/launch.py -n N -- DIR/bin/dist-step DIR
#   (DIST_BACKEND=nccl for several GPUs; DIST_NCCL_LIBRARY names NCCL and
#   LD_LIBRARY_PATH cuBLAS when they are not on the loader's path: PyTorch's
#   wheels carry both)
#
# then, back here: dist-run --judge DIR.
#   scripts/device_bundle.sh DIR [BUILD_DIR]
set -euo pipefail
dir=${1:?usage: scripts/device_bundle.sh DIR [BUILD_DIR]}
build=${2:-$(cd "$(dirname "$0")/.." && pwd)/build}
[ -f "$dir/partitioned.so" ] || { echo "device_bundle: $dir/partitioned.so is missing (dist-run --export-ranks $dir)" >&2; exit 1; }
mkdir -p "$dir/bin" "$dir/lib"
cp "$build/bin/dist-step" "$dir/bin/"
roots=("$dir/partitioned.so" "$build/bin/dist-step")
for extra in libdist_cuda_runtime.so libdist_backend_nccl.so; do
  if [ -f "$build/lib/$extra" ]; then
    cp "$build/lib/$extra" "$dir/lib/"
    roots+=("$build/lib/$extra")
  fi
done
# Every library by the name it is needed as (ldd's left column).
for root in "${roots[@]}"; do
  ldd "$root" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  case "$name" in
    libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libresolv.so.*) continue ;;
  esac
  target="$dir/lib/$name"
  [ "$path" -ef "$target" ] || cp -L "$path" "$target"
done
echo "device_bundle: $dir is ready ($(du -sh "$dir" | cut -f1)): copy it to the other machine and run"
echo "  LD_LIBRARY_PATH=$dir/lib python3 scripts/launch.py -n N -- $dir/bin/dist-step $dir"
