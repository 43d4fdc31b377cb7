#!/usr/bin/env python3
"""Every dist-run example (test/E2E, examples/) on one GPU, checked against the CPU.

Issue 15 asks that every example run on one GPU and equal the CPU serial
result. The GPU machine has no LLVM (dist-run cannot run there), and a
session's device time is short, so the examples travel as one bundle and run
in one call:

  here:   python3 scripts/gpu_examples.py prepare [--out build/gpu-examples]
          each example (each public entry of the multi-entry ones) exported by
          `dist-run --device=gpu --export-ranks` with every mesh reshaped to
          one device (--mesh NAME=1x..x1), the serial run made
          here; one dist-step and one library closure for all
          (scripts/device_bundle.sh)
  there:  build/gpu-examples/device/run_all.sh $OUT/results.tgz
          (carry build/gpu-examples/device: what dist-step reads, one
          dist-step and one library closure for all)
          (each example through dist-step on one GPU, with a time limit; the
          results, times and logs packed into one file, as $OUT returns at
          most 8)
  here:   python3 scripts/gpu_examples.py judge [--out build/gpu-examples]
          [--results FILE]
          (the results unpacked, `dist-run --judge` on each, one line each and
          a summary; exit status 1 unless all pass)
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def entries(path):
    """The public functions with a body of an MLIR file, in order."""
    text = open(path).read()
    names = re.findall(r"^\s*func\.func\s+@([\w$.]+)\s*\(", text, re.M)
    return names


def one_device_meshes(path):
    """--mesh options that reshape every mesh of an MLIR file to one device."""
    text = open(path).read()
    ranks = {name: axes.count("=")
             for name, axes in re.findall(r"dist\.mesh\s+@([\w$.]+)\s*\[([^\]]*)\]", text)}
    # Upstream shard grids (dist-import-shard makes them meshes).
    ranks.update({name: shape.count("x") + 1 for name, shape in
                  re.findall(r"shard\.grid\s+@([\w$.]+)\s*\(\s*shape\s*=\s*([0-9x?]+)", text)})
    options = []
    for name, rank in ranks.items():
        options += ["--mesh", "%s=%s" % (name, "x".join(["1"] * max(1, rank)))]
    return options


def export(dist_run, source, entry, out, env, device):
    # "emulated": the GPU program with its kernels run on the host
    # (dist-gpu-emulate-kernels), for the fake driver and cuBLAS.
    flags = (["--device=gpu", "--emulate-gpu-kernels"] if device == "emulated"
             else ["--device=" + device])
    args = [dist_run, source] + one_device_meshes(source) + flags + [
        "--export-ranks", out]
    if entry:
        args += ["--entry", entry]
    result = subprocess.run(args, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    return result.returncode, result.stdout


def prepare(args):
    build = os.path.abspath(args.build)
    dist_run = os.path.join(build, "bin", "dist-run")
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "ex"))
    env = dict(os.environ)
    cuda = env.get("CUDA_HOME", "/usr/local/cuda")
    env.setdefault("CUDA_HOME", cuda)
    env["PATH"] = os.path.join(cuda, "bin") + os.pathsep + env.get("PATH", "")
    sources = sorted(glob.glob(os.path.join(ROOT, "test", "E2E", "*.mlir")) +
                     glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
    if args.only:
        sources = [s for s in sources if os.path.basename(s)[:-5] in args.only.split(",")]
    # A split-file example (`//--- NAME` parts, lit's split-file) is its parts.
    parts = []
    for source in sources:
        text = open(source).read()
        pieces = re.split(r"^//--- (\S+)\n", text, flags=re.M)
        base = os.path.basename(source)[:-5]
        if os.path.basename(os.path.dirname(source)) == "examples":
            base = "examples." + base
        if len(pieces) == 1:
            parts.append((base, source))
            continue
        os.makedirs(os.path.join(out, "src"), exist_ok=True)
        for part, body in zip(pieces[1::2], pieces[2::2]):
            name = base + "." + os.path.splitext(part)[0]
            path = os.path.join(out, "src", name + ".mlir")
            with open(path, "w") as f:
                f.write(body)
            parts.append((name, path))
    exported, skipped = [], []
    for name, source in parts:
        code, log = export(dist_run, source, None, os.path.join(out, "ex", name), env,
                           args.device)
        if code != 0 and "several public functions" in log:
            # One export per entry.
            shutil.rmtree(os.path.join(out, "ex", name), ignore_errors=True)
            for entry in entries(source):
                target = os.path.join(out, "ex", name + "." + entry)
                code, log = export(dist_run, source, entry, target, env, args.device)
                (exported if code == 0 else skipped).append(
                    (name + "." + entry, log.strip().splitlines()[-1:] if code else ""))
                if code != 0:
                    shutil.rmtree(target, ignore_errors=True)
            continue
        (exported if code == 0 else skipped).append(
            (name, log.strip().splitlines()[-1:] if code else ""))
        if code != 0:
            shutil.rmtree(os.path.join(out, "ex", name), ignore_errors=True)
    if not exported:
        sys.exit("gpu_examples: no example could be exported")
    # What travels (OUT/device): what dist-step reads of each example (the
    # references and serial results stay here for the judge), and one
    # dist-step and library closure for all, the bundle of the first.
    device = os.path.join(out, "device")
    for name, _ in exported:
        source = os.path.join(out, "ex", name)
        target = os.path.join(device, "ex", name)
        os.makedirs(target)
        for file in os.listdir(source):
            if file in ("partitioned.so", "partitioned.manifest") or ".rank" in file:
                shutil.copy(os.path.join(source, file), target)
    first = os.path.join(device, "ex", exported[0][0])
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "device_bundle.sh"), first, build],
                   check=True, stdout=subprocess.DEVNULL)
    for part in ("bin", "lib"):
        shutil.move(os.path.join(first, part), os.path.join(device, part))
    need = re.search(r"^need=(\S*)", open(os.path.join(first, "run.sh")).read(), re.M).group(1)
    os.remove(os.path.join(first, "run.sh"))
    with open(os.path.join(device, "run_all.sh"), "w") as f:
        f.write(RUN_ALL.replace("@NEED@", need))
    os.chmod(os.path.join(device, "run_all.sh"), 0o755)
    for name, why in skipped:
        print("skipped %s: %s" % (name, " ".join(why)))
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(device) for f in fs)
    print("gpu_examples: %d example(s) exported to %s; %d skipped. Carry %s/device (%.1f MB); "
          "there: %s/device/run_all.sh $OUT/results.tgz; then here: scripts/gpu_examples.py "
          "judge --results FILE" % (len(exported), args.out, len(skipped), args.out, size / 1e6,
                                   args.out))


RUN_ALL = r"""#!/bin/sh
# Runs every exported example on one GPU (made by scripts/gpu_examples.py
# prepare), then packs the results: run_all.sh [RESULTS.tgz] [SECONDS]
here=$(cd "$(dirname "$0")" && pwd)
need=@NEED@
have=$(ldd --version 2>/dev/null | head -1 | awk '{print $NF}')
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
  echo "run_all.sh: this bundle needs glibc $need or newer; this machine has ${have:-none}" >&2
  exit 1
fi
results=${1:-$here/results.tgz}
limit=${2:-120}
: > "$here/run_all.log"
for d in "$here"/ex/*/; do
  name=$(basename "$d")
  rm -f "$d"/result*.rank*.bin "$d"/times.rank*.txt
  LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout "$limit" python3 "$here/bin/launch.py" -n 1 -- "$here/bin/dist-step" "$d" \
    > "$d/run.log" 2>&1
  echo "$name exit $?" | tee -a "$here/run_all.log"
done
cd "$here" && tar czf "$results" run_all.log ex/*/run.log \
  $(ls ex/*/result*.rank*.bin ex/*/times.rank*.txt 2>/dev/null)
echo "run_all.sh: results in $results"
"""


def judge(args):
    build = os.path.abspath(args.build)
    out = os.path.abspath(args.out)
    results = args.results or os.path.join(out, "device", "results.tgz")
    if not os.path.exists(results):
        sys.exit("gpu_examples: %s is missing (run_all.sh writes it)" % results)
    with tarfile.open(results) as tar:
        tar.extractall(out)
    runs = {}
    log = os.path.join(out, "run_all.log")
    if os.path.exists(log):
        for line in open(log):
            name, _, code = line.rpartition(" exit ")
            runs[name.strip()] = code.strip()
    names = sorted(os.listdir(os.path.join(out, "ex")))
    passed = 0
    for name in names:
        directory = os.path.join(out, "ex", name)
        if runs.get(name, "missing") != "0":
            tail = ""
            run_log = os.path.join(directory, "run.log")
            if os.path.exists(run_log):
                lines = open(run_log).read().strip().splitlines()
                tail = lines[-1] if lines else ""
            print("%s: the GPU run failed (exit %s): %s" % (name, runs.get(name, "missing"), tail))
            continue
        result = subprocess.run([os.path.join(build, "bin", "dist-run"), "--judge", directory],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        last = result.stdout.strip().splitlines()[-1:] or [""]
        ok = result.returncode == 0 and last[0].startswith("PASS")
        passed += ok
        print("%s: %s" % (name, last[0]))
    print("gpu_examples: %d of %d example(s) on one GPU equal the CPU serial run"
          % (passed, len(names)))
    return 0 if passed == len(names) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("prepare", "judge"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "gpu-examples"))
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--only", help="prepare: comma-separated example names")
    parser.add_argument("--device", default="gpu", choices=("gpu", "cpu", "emulated"),
                        help="prepare: cpu exports CPU steps (tests the round trip here); "
                        "emulated the GPU programs with their kernels run on the host "
                        "(run_all.sh with the fake driver and cuBLAS of test/Runtime on "
                        "LD_LIBRARY_PATH: the GPU lowering checked without a GPU)")
    parser.add_argument("--results", help="judge: the packed results (default OUT/results.tgz)")
    args = parser.parse_args()
    return prepare(args) if args.command == "prepare" else judge(args)


if __name__ == "__main__":
    sys.exit(main() or 0)
