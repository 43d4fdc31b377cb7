#!/usr/bin/python3
"""GPT block training step on one GPU: dist vs PyTorch eager and torch.compile.

Issue 15's benchmark: forward + backward + Adam of a generated GPT block
(1 layer, hidden 1024, 16 heads, sequence 1024, batch 8; f32, and bf16 with
f32 master weights), with the share of dist's step spent in cuBLAS. The GPU
machine has no LLVM, so it runs in two halves:

  here:   /usr/bin/python3 bench/gpu_gpt.py prepare [--out build/gpu-bench]
          (dist-gen, dist-run --device=gpu --export-ranks --no-compare, and
          scripts/device_bundle.sh for each type: what `dist-step` runs)
  there:  python3 bench/gpu_gpt.py run [--out build/gpu-bench]
          (dist-step's median step time, its profile (DIST_CUDA_PROFILE=2:
          the time in cuBLAS and in generated kernels, the longest), and the same
          model in PyTorch, eager and compiled, on the same GPU)

The PyTorch model is the functional GPT of the training tests
(test/Training/check_against_torch.py) with torch.optim.Adam; bf16 runs it
under torch.autocast with f32 parameters (PyTorch's mixed precision).
`run --torch-device cpu` (tiny sizes, e.g. --hidden 32 --seq 16) checks the
PyTorch half without a GPU; with `--emulate` on both halves (`prepare
--emulate`: the kernels run on the host, dist-gpu-emulate-kernels; `run
--emulate`: dist-step on the fake driver and cuBLAS of test/Runtime) the
dist half runs here too, so the whole harness is checked (its times mean
nothing).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
TYPES = ("f32", "bf16")
sys.path.insert(0, os.path.join(ROOT, "test", "Training"))


def torch_library_path():
    from check_against_torch import torch_library_path as library_path
    return library_path()


def add_model_arguments(parser):
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=6, help="timed steps (one more first)")


def prepare(args):
    for dtype in TYPES:
        out = os.path.join(args.out, dtype)
        step = os.path.join(args.out, "gpt-%s.mlir" % dtype)
        os.makedirs(args.out, exist_ok=True)
        command = [os.path.join(args.bin, "dist-gen"), "gpt", "--layers", "1",
                   "--hidden", str(args.hidden), "--heads", str(args.heads),
                   "--seq", str(args.seq), "--batch", str(args.batch), "--vocab",
                   str(args.vocab), "--optimizer", "adam", "--mesh", "dp=1",
                   "--parallel", "dp", "-o", step]
        if dtype == "bf16":
            command += ["--dtype", "bf16", "--master-weights"]
        subprocess.run(command, check=True)
        subprocess.run(["rm", "-rf", out], check=True)
        env = dict(os.environ, PATH="/usr/local/cuda/bin:" + os.environ["PATH"],
                   CUDA_HOME="/usr/local/cuda")
        subprocess.run([os.path.join(args.bin, "dist-run"), step, "--device=gpu",
                        "--steps", str(args.steps + 1), "--no-compare",
                        "--export-ranks", out] +
                       (["--emulate-gpu-kernels"] if args.emulate else []) +
                       args.dist_run_arg,
                       check=True, env=env)
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "device_bundle.sh"), out,
                        os.path.join(args.bin, "..")], check=True)
        # The weights would not fit the 64 MiB a device run carries: dist-step
        # draws them (--synthetic-inputs) in the ranges the manifest keeps.
        for name in os.listdir(out):
            if re.match(r"arg\d+\..*bin$", name):
                os.remove(os.path.join(out, name))
    print("prepared %s: carry it to the GPU machine and run `bench/gpu_gpt.py run`" % args.out)
    return 0


PROFILE_LINE = re.compile(r"dist cuda profile on rank 0: (.*): (\d+) in ([0-9.]+) ms$")
PROFILE_TOTALS = re.compile(r"(\d+) cuBLAS call\(s\) in ([0-9.]+) ms, (\d+) kernel "
                            r"launch\(es\) in ([0-9.]+) ms")


def time_dist(args, dtype):
    """dist-step's median step time (ms), from a run without the profile (the
    step on one stream, the host waiting only at its end), and its profile
    per step: DIST_CUDA_PROFILE=2 (each product and launch timed on the GPU
    by events around it) over 1 + --steps steps, of which dist-step leaves
    the first out (it loads cuBLAS's and the kernels' code), divided by
    --steps. Returns (median ms, {"cuBLAS": ms, "kernels": ms, "launches":
    count, "top": [(what, ms)]})."""
    out = os.path.abspath(os.path.join(args.out, dtype))

    def run(profile, steps=None):
        # Emulated: the fake driver and cuBLAS of the build stand in.
        fake = [os.path.abspath(os.path.join(args.bin, "..", "test", "Runtime", "fake-cuda"))]
        env = dict(os.environ, DIST_BACKEND="self",
                   LD_LIBRARY_PATH=":".join([os.path.join(out, "lib")] +
                                            (fake if args.emulate else torch_library_path())))
        env.pop("DIST_CUDA_PROFILE", None)
        env["DIST_CUBLAS_TF32"] = "1" if args.tf32 else "0"
        if profile:
            env["DIST_CUDA_PROFILE"] = "2"
        command = [os.path.join(out, "bin", "dist-step"), "--synthetic-inputs"]
        if steps:
            command += ["--steps", str(steps)]
        result = subprocess.run(command + [out], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            sys.exit("dist-step failed:\n" + result.stdout)
        with open(os.path.join(out, "times.rank0.txt")) as f:
            return [float(line) * 1e3 for line in f if line.strip()], result.stdout

    def profile(steps):
        _, output = run(True, steps)
        totals = PROFILE_TOTALS.search(output)
        if not totals:
            sys.exit("dist-step printed no profile:\n" + output)
        if "since step 2" not in output:
            sys.exit("dist-step's profile did not leave the first step out:\n" + output)
        entries = {m.group(1): float(m.group(3)) for m in map(PROFILE_LINE.search,
                                                              output.splitlines()) if m}
        return ({"cuBLAS": float(totals.group(2)), "kernels": float(totals.group(4)),
                 "launches": int(totals.group(3))}, entries)

    times, _ = run(profile=False)
    totals, entries = profile(1 + args.steps)
    per_step = {k: v / args.steps for k, v in totals.items()}
    per_step["launches"] = round(per_step["launches"])
    per_step["top"] = sorted(((what, ms / args.steps) for what, ms in entries.items()),
                             key=lambda e: -e[1])[:args.top]
    return statistics.median(times[1:]), per_step


def time_torch(args, dtype, compiled, device):
    import torch
    from check_against_torch import Compute, gpt_loss

    # f32 products in TF32 on tensor cores only with --tf32, as dist's.
    torch.set_float32_matmul_precision("high" if args.tf32 else "highest")
    opts = argparse.Namespace(layers=1, hidden=args.hidden, heads=args.heads, seq=args.seq,
                              vocab=args.vocab, batch=args.batch)
    gen = torch.Generator().manual_seed(0)
    H, V, S = args.hidden, args.vocab, args.seq
    shapes = {"wte": (V, H), "wpe": (S, H), "lnf.weight": (H,), "lnf.bias": (H,)}
    for name, shape in {"ln1.weight": (H,), "ln1.bias": (H,), "ln2.weight": (H,),
                        "ln2.bias": (H,), "attn.q.weight": (H, H), "attn.q.bias": (H,),
                        "attn.k.weight": (H, H), "attn.v.weight": (H, H),
                        "attn.v.bias": (H,), "attn.proj.weight": (H, H),
                        "attn.proj.bias": (H,), "mlp.fc1.weight": (H, 4 * H),
                        "mlp.fc1.bias": (4 * H,), "mlp.fc2.weight": (4 * H, H),
                        "mlp.fc2.bias": (H,)}.items():
        shapes["h.0." + name] = shape
    params = {k: (torch.randn(v, generator=gen) * 0.02).to(device).requires_grad_()
              for k, v in shapes.items()}
    batch = {"ids": torch.randint(0, V, (args.batch, S), generator=gen).to(device),
             "labels": torch.randint(0, V, (args.batch, S), generator=gen).to(device)}
    optimizer = torch.optim.Adam(params.values(), lr=1e-3)

    def loss_fn(p, b):
        if dtype == "bf16":
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                return gpt_loss(p, b, opts, Compute(torch.float32))
        return gpt_loss(p, b, opts, Compute(torch.float32))

    if compiled and not hasattr(torch, "compile"):
        return float("nan")  # PyTorch before 2.0
    forward = torch.compile(loss_fn) if compiled else loss_fn
    times = []
    for _ in range(args.steps + 2):  # compilation in the first
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        forward(params, batch).backward()
        optimizer.step()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times[2:])


def run(args):
    import torch
    device = args.torch_device or ("cuda" if torch.cuda.is_available() else None)
    if device is None:
        sys.exit("no GPU (torch.cuda.is_available() is false); --torch-device cpu checks "
                 "the PyTorch half")
    print("GPT block: hidden %d, %d heads, sequence %d, batch %d, vocabulary %d, Adam; %s" %
          (args.hidden, args.heads, args.seq, args.batch, args.vocab,
           (torch.cuda.get_device_name() if device == "cuda" else device) +
           ("; dist emulated on the CPU (fake driver and cuBLAS): times mean nothing"
            if args.emulate else "") +
           ("; f32 products in TF32 (DIST_CUBLAS_TF32=1, "
            "torch.set_float32_matmul_precision('high'))" if args.tf32 else "")))
    for dtype in TYPES:
        if not args.dist_only:
            eager = time_torch(args, dtype, False, device)
            compiled = time_torch(args, dtype, True, device)
        if device != "cuda" and not args.emulate:
            print("  %-4s PyTorch eager %.2f ms, torch.compile %.2f ms (no dist on %s)" %
                  (dtype, eager, compiled, device))
            continue
        dist_ms, shares = time_dist(args, dtype)
        if args.dist_only:
            print("  %-4s dist %.2f ms" % (dtype, dist_ms))
        else:
            print("  %-4s dist %.2f ms, PyTorch eager %.2f ms, torch.compile %.2f ms: "
                  "dist/eager %.2f, dist/compile %.2f" %
                  (dtype, dist_ms, eager, compiled, dist_ms / eager, dist_ms / compiled))
        print("       dist's step (profiled by events around each call): cuBLAS %.2f ms (%.0f%%), "
              "generated kernels %.2f ms (%.0f%%, %d launches)" %
              (shares["cuBLAS"], 100 * shares["cuBLAS"] / dist_ms, shares["kernels"],
               100 * shares["kernels"] / dist_ms, shares["launches"]))
        for what, ms in shares["top"]:
            print("         %8.3f ms  %s" % (ms, what))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=("prepare", "run"))
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "gpu-bench"))
    parser.add_argument("--torch-device", default=None, help="run: cpu to check without a GPU")
    parser.add_argument("--emulate", action="store_true",
                        help="prepare: kernels emulated on the host; run: dist-step on the "
                             "fake driver and cuBLAS (with --torch-device cpu: the whole "
                             "harness without a GPU)")
    parser.add_argument("--dist-run-arg", action="append", default=[],
                        help="prepare: one more dist-run argument (repeatable), e.g. "
                             "--dist-run-arg=--gpu-block-reduction-min-extent=0 for the "
                             "step without block reductions, prepared into another --out")
    parser.add_argument("--dist-only", action="store_true",
                        help="run: time dist's step alone (a variant prepared with "
                             "--dist-run-arg, beside a full run of the default)")
    parser.add_argument("--tf32", action="store_true",
                        help="run: f32 products may round their inputs to TF32 on tensor "
                             "cores, in dist (DIST_CUBLAS_TF32=1) and in PyTorch "
                             "(set_float32_matmul_precision('high')); off: both f32")
    parser.add_argument("--top", type=int, default=12,
                        help="run: list dist's longest kernels and products")
    add_model_arguments(parser)
    args = parser.parse_args()
    return prepare(args) if args.phase == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
