#!/usr/bin/env python3
"""Gradient sync of a data-parallel step: one collective per gradient vs buckets.

    python3 bench/gradient_sync.py [--layers 100] [--width 16] [--ranks 4] [--steps 20] [--repeat 3]
    python3 bench/gradient_sync.py --sync-only [...]

Generates an MLP with 2 x layers small parameter tensors (dist-gen), makes it
data parallel (dist-data-parallel), and trains it with dist-run on N ranks,
unfused and with dist-fuse-gradients, alternating, in one run. The runtime's
trace (DIST_TRACE) gives each rank's time inside collectives per step; the
first step (JIT compilation, ranks arriving at different times) is left out.
Reports the median over repeats of the slowest rank's collective time per
step, of the sync's own time (from the last rank's call to the first rank's
return, see sync_latency),
and of dist-run's median step time.

--sync-only times the gradient sync alone: a step whose only work is the
reduction of the same gradients (tensors of the MLP's parameter shapes, each
a partial sum over dp made by an op marked dist.grad_of, one multiply), so
that ranks do not wait in a collective for others still in backward (on a
machine with fewer cores than ranks that wait is most of the time inside
collectives of a whole step); a scalar reduced first in each step is a
barrier whose time is not counted.
"""

import argparse
import array
import glob
import random
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def write_inputs(work, layers, width, batch):
    """--input options: weights scaled so that 100 layers neither explode nor
    vanish to nothing (dist-run's own random values in [-1, 1) would overflow)."""
    rng = random.Random(0)
    options = []
    values = []
    bound = (3.0 / width) ** 0.5
    for _ in range(layers):
        values.append(("f", [rng.uniform(-bound, bound) * 1.4 for _ in range(width * width)]))
        values.append(("f", [rng.uniform(-0.1, 0.1) for _ in range(width)]))
    values.append(("f", [rng.uniform(-1, 1) for _ in range(batch * width)]))
    values.append(("i", [rng.randrange(width) for _ in range(batch)]))
    for i, (code, data) in enumerate(values):
        path = os.path.join(work, "input%d.bin" % i)
        with open(path, "wb") as f:
            f.write(array.array(code, data).tobytes())
        options += ["--input", "%d=%s" % (i, path)]
    return options


def write_sync_program(path, layers, width, ranks):
    """A step that only reduces gradients shaped as the MLP's parameters."""
    shapes = [(width, width), (width,)] * layers

    def tensor(shape):
        return "tensor<%sxf32>" % "x".join(map(str, shape))

    def sharding(shape, partial=False):
        return "#dist.sharding<@mesh, [%s]%s>" % (", ".join(["{}"] * len(shape)),
                                                   ", partial = sum{dp}" if partial else "")
    args = ["%%p%d: %s {dist.param, dist.sharding = %s}" % (i, tensor(s), sharding(s))
            for i, s in enumerate(shapes)]
    args += ["%%l%d: %s {dist.sharding = %s}" % (i, tensor(s), sharding(s, True))
             for i, s in enumerate(shapes)]
    # A scalar reduced first, as a barrier: the ranks enter the gradient
    # sync together (its time is not counted).
    args.append("%%barrier: tensor<f32> {dist.sharding = %s}" % sharding((), True))
    results = ["tensor<f32> {dist.sharding = %s}" % sharding(())]
    results += ["%s {dist.sharding = %s}" % (tensor(s), sharding(s)) for s in shapes]
    lines = ["dist.mesh @mesh [dp = %d]" % ranks,
             "func.func @sync(%s) -> (%s) {" % (", ".join(args), ", ".join(results))]
    for i, s in enumerate(shapes):
        lines.append("  %%c%d = arith.constant dense<0.5> : %s" % (i, tensor(s)))
        lines.append("  %%g%d = arith.mulf %%l%d, %%c%d {dist.grad_of = %d : i64} : %s"
                     % (i, i, i, i, tensor(s)))
    lines.append("  return %%barrier, %s : tensor<f32>, %s"
                 % (", ".join("%%g%d" % i for i in range(len(shapes))),
                    ", ".join(tensor(s) for s in shapes)))
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def check(bin_dir, program, ranks, passes, inputs):
    """A short run compared with the serial one after every step (the timed
    runs do not compare: writing every step's results between steps would
    put file I/O, and the ranks' skew after it, into the next step's sync)."""
    command = [os.path.join(bin_dir, "dist-run"), program, "--steps", "3",
               "--ranks", str(ranks)] + inputs
    if passes:
        command.append("--per-rank-passes=" + passes)
    out = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if out.returncode != 0 or "PASS" not in out.stdout:
        sys.exit("dist-run failed:\n" + out.stdout)


def run(bin_dir, program, ranks, steps, passes, work, inputs, skip_first=False):
    """skip_first: leave each step's first collective (a barrier) out."""
    trace = tempfile.mkdtemp(dir=work, prefix="trace-")
    env = dict(os.environ, DIST_TRACE=trace)
    command = [os.path.join(bin_dir, "dist-run"), program, "--steps", str(steps), "--time",
               "--no-compare", "--ranks", str(ranks)] + inputs
    if passes:
        command.append("--per-rank-passes=" + passes)
    out = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    if out.returncode != 0:
        sys.exit("dist-run failed:\n" + out.stdout)
    step_ms = [float(m.group(1)) for m in
               re.finditer(r"rank \d+ +[0-9.]+ / +([0-9.]+) /", out.stdout)]
    per_rank = []
    collectives = 0
    # Each rank's blocking collectives, in call order, on one clock (each
    # trace's times count from its own dist_init at wall time epoch_us).
    timelines = []
    for path in glob.glob(os.path.join(trace, "rank-*.json")):
        trace_json = json.load(open(path))
        epoch = int(trace_json.get("otherData", {}).get("epoch_us", 0))
        events = [e for e in trace_json["traceEvents"]
                  if e.get("cat") in ("collective", "wait") and e.get("ph") == "X"]
        timelines.append([(epoch + e["ts"], epoch + e["ts"] + e["dur"]) for e in events
                          if e.get("cat") == "collective"])
        per_step = len([e for e in events if e.get("cat") == "collective"]) // steps
        collectives = per_step - (1 if skip_first else 0)
        # Leave out the first step's events (and each step's barrier).
        per_step_events = len(events) // steps
        kept = [e for k, e in enumerate(events[per_step_events:])
                if not (skip_first and k % per_step_events == 0)]
        per_rank.append(sum(e["dur"] for e in kept) / (steps - 1) / 1000.0)
    return max(per_rank), max(step_ms), collectives, sync_latency(timelines, steps, skip_first)


def sync_latency(timelines, steps, skip_first):
    """The sync's own time per step in ms, without the scheduler's: for each
    collective, from the last rank's call to the first rank's return (the
    result exists from then on). A rank that arrives early waits for the
    others to be scheduled, and one that returns late waited for a core; on
    oversubscribed cores both are time slices, not communication."""
    count = min(len(t) for t in timelines)
    per_step = count // steps
    total = 0.0
    for k in range(per_step, per_step * steps):
        if skip_first and k % per_step == 0:
            continue
        total += max(0.0, min(t[k][1] for t in timelines) - max(t[k][0] for t in timelines))
    return total / (steps - 1) / 1000.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--layers", type=int, default=100)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sync-only", action="store_true",
                        help="time a step that only reduces the gradients")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="dist-bench-sync-")
    widths = ",".join([str(args.width)] * (args.layers + 1))
    generated = os.path.join(work, "step.mlir")
    program = os.path.join(work, "dp.mlir")
    subprocess.run([os.path.join(args.bin, "dist-gen"), "mlp", "--widths", widths,
                    "--batch", str(2 * args.ranks), "--optimizer", "sgd",
                    "--mesh", "dp=%d" % args.ranks, "-o", generated], check=True)
    subprocess.run([os.path.join(args.bin, "dist-opt"), generated, "--dist-data-parallel",
                    "-o", program], check=True)
    inputs = write_inputs(work, args.layers, args.width, 2 * args.ranks)
    if args.sync_only:
        write_sync_program(program, args.layers, args.width, args.ranks)
        inputs = []
    results = {"unfused": [], "fused": []}
    counts = {}
    for passes in ("", "dist-fuse-gradients"):
        check(args.bin, program, args.ranks, passes, inputs)
    for _ in range(args.repeat):
        for name, passes in (("unfused", ""), ("fused", "dist-fuse-gradients")):
            sync, step, count, latency = run(args.bin, program, args.ranks, args.steps, passes,
                                             work, inputs, skip_first=args.sync_only)
            results[name].append((sync, step, latency))
            counts[name] = count
    print("%sMLP with %d parameter tensors (%d layers of %dx%d), %d ranks, %d steps, %d repeats"
          % ("gradient sync alone of an " if args.sync_only else "", 2 * args.layers,
             args.layers, args.width, args.width, args.ranks, args.steps, args.repeat))
    median = {}
    for name in ("unfused", "fused"):
        median[name] = [statistics.median(r[i] for r in results[name]) for i in range(3)]
        sync, step, latency = median[name]
        print("  %-8s %4d collectives/step: %8.3f ms in collectives per step (slowest rank), "
              "%8.3f ms from the last call to the first return, step %8.3f ms (median, slowest rank)"
              % (name, counts[name], sync, latency, step))
    ratio = [median["unfused"][i] / median["fused"][i] for i in range(3)]
    print("  fused is %.1fx faster in time in collectives, %.1fx from the last call to the first return, "
          "%.1fx in step time" % (ratio[0], ratio[2], ratio[1]))

if __name__ == "__main__":
    main()
