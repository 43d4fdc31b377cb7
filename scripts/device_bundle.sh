#!/bin/bash
# Makes a run exported by `dist-run --export-ranks DIR` self-contained for a
# machine without LLVM, MPI or dist (the `device` GPU machine): DIR/bin gets
# dist-step, DIR/lib every library it and DIR/partitioned.so load (the ldd
# closure, plus the nccl backend and the CUDA runtime library), except
# glibc's, which the target machine has (version 2.36 or newer). There:
#
#   DIR/run.sh N [--synthetic-inputs]
#   (launch.py with DIR/lib on LD_LIBRARY_PATH, after checking the glibc;
#   DIST_BACKEND=nccl for several GPUs; DIST_NCCL_LIBRARY names NCCL and
#   LD_LIBRARY_PATH cuBLAS when they are not on the loader's path: PyTorch's
#   wheels carry both)
#
# then, back here: dist-run --judge DIR.
#   scripts/device_bundle.sh DIR [BUILD_DIR]
#   scripts/device_bundle.sh --libs-only LIB_DIR ROOT...
# The second form copies only the libraries ROOT... load (the same closure and
# glibc rule) into LIB_DIR: scripts/gpu_check.sh bundles its test executables so.
set -euo pipefail

# copy_closure LIB_DIR ROOT...: every library the roots load, by the name it
# is needed as (ldd's left column), but glibc's.
copy_closure() {
  local libdir=$1 root
  shift
  mkdir -p "$libdir"
  for root in "$@"; do
    ldd "$root" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
  done | sort -u | while read -r name path; do
    case "$name" in
      libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libresolv.so.*) continue ;;
    esac
    [ "$path" -ef "$libdir/$name" ] || cp -L "$path" "$libdir/$name"
  done
}

if [ "${1:-}" = --libs-only ]; then
  [ $# -ge 3 ] || { echo "usage: scripts/device_bundle.sh --libs-only LIB_DIR ROOT..." >&2; exit 1; }
  shift
  copy_closure "$@"
  exit 0
fi

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
copy_closure "$dir/lib" "${roots[@]}"
# The newest glibc symbol anything here needs: run.sh checks the machine has
# it before the loader would fail with a less helpful message.
glibc=$(for f in "$dir/bin/dist-step" "$dir/partitioned.so" "$dir"/lib/*; do
          objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9.]*'
        done | sed 's/GLIBC_//' | sort -V | tail -1)
cp "$(dirname "$0")/launch.py" "$dir/bin/launch.py"
cat > "$dir/run.sh" <<RUN
#!/bin/sh
# Runs this exported step on N ranks here: run.sh N [--synthetic-inputs]
# (made by scripts/device_bundle.sh; one GPU per rank, DIST_BACKEND=nccl for
# several; cuBLAS and NCCL from LD_LIBRARY_PATH / DIST_NCCL_LIBRARY).
here=\$(cd "\$(dirname "\$0")" && pwd)
need=${glibc:-0}
have=\$(ldd --version 2>/dev/null | head -1 | awk '{print \$NF}')
if [ "\$(printf '%s\\n%s\\n' "\$need" "\$have" | sort -V | head -1)" != "\$need" ]; then
  echo "run.sh: this bundle needs glibc \$need or newer; this machine has \${have:-none}" >&2
  exit 1
fi
n=\${1:?usage: run.sh N [--synthetic-inputs]}
shift
LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" \\
  exec python3 "\$here/bin/launch.py" -n "\$n" -- "\$here/bin/dist-step" "\$@" "\$here"
RUN
chmod +x "$dir/run.sh"
echo "device_bundle: $dir is ready ($(du -sh "$dir" | cut -f1), glibc ${glibc:-?} or newer): copy it to the other machine and run"
echo "  $dir/run.sh N"
