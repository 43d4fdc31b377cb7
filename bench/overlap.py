#!/usr/bin/env python3
"""Overlap of gradient sync with backward: dist-schedule vs blocking collectives.

    python3 bench/overlap.py [--widths 256,256,256,256,256] [--batch 256] [--bucket-mb 0.25]
                             [--ranks 4] [--steps 20] [--repeat 3]

Generates a data-parallel MLP step (dist-gen, dist-data-parallel) whose
gradients fill several buckets (dist-fuse-gradients{bucket-mb}), and trains it
with dist-run on N ranks in two variants, alternating, in one run:

  - blocking: each bucket's all_reduce blocks where partitioning put it;
  - scheduled: dist-make-async then dist-schedule, so each bucket starts as
    soon as backward has made its gradients and is waited for at its first
    use (the update), while backward goes on;
  - progress: the same with dist-schedule{progress=true}, a dist_progress
    call before each kernel that runs while buckets are in flight.

Both are first checked against the serial run (3 steps). From the runtime's
trace (DIST_TRACE) and dist-run's step times it reports, per step (medians
over repeats, slowest rank): the blocking step T_b, its time inside
collectives C (the communication), its compute T_b - C, the scheduled step
T_s and its time inside collectives and waits E (the communication left
exposed). Hidden share = 1 - E / C. Goal (issue 14): T_s <= 1.15 x
max(compute, C).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_sync import check, run  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--widths", default="256,256,256,256,256")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--bucket-mb", default="0.25")
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="dist-bench-overlap-")
    generated = os.path.join(work, "step.mlir")
    program = os.path.join(work, "dp.mlir")
    subprocess.run([os.path.join(args.bin, "dist-gen"), "mlp", "--widths", args.widths,
                    "--batch", str(args.batch), "--optimizer", "sgd",
                    "--mesh", "dp=%d" % args.ranks, "-o", generated], check=True)
    subprocess.run([os.path.join(args.bin, "dist-opt"), generated, "--dist-data-parallel",
                    "-o", program], check=True)
    fuse = "dist-fuse-gradients{bucket-mb=%s}" % args.bucket_mb
    variants = (("blocking", fuse), ("scheduled", fuse + ",dist-make-async,dist-schedule"),
                ("progress", fuse + ",dist-make-async,dist-schedule{progress=true}"))
    for _, passes in variants:
        check(args.bin, program, args.ranks, passes, [])
    results = {name: [] for name, _ in variants}
    counts = {}
    for _ in range(args.repeat):
        for name, passes in variants:
            in_collectives, step, count, _ = run(args.bin, program, args.ranks, args.steps,
                                                 passes, work, [])
            results[name].append((in_collectives, step))
            counts[name] = count
    median = {name: [statistics.median(r[i] for r in results[name]) for i in range(2)]
              for name in results}
    comm, blocking = median["blocking"]
    compute = blocking - comm
    bound = max(compute, comm)
    print("MLP %s, batch %d, buckets of %s MB (%d collectives/step), %d ranks, %d steps, "
          "%d repeats" % (args.widths, args.batch, args.bucket_mb, counts["blocking"],
                          args.ranks, args.steps, args.repeat))
    print("  blocking:  step %8.3f ms, in collectives %8.3f ms (compute %8.3f ms)"
          % (blocking, comm, compute))
    for name in ("scheduled", "progress"):
        exposed, scheduled = median[name]
        print("  %-10s step %8.3f ms, in collectives and waits %8.3f ms: hidden %3.0f%%, "
              "/ blocking %.2f, / max(compute, communication) %.2f (goal <= 1.15)"
              % (name + ":", scheduled, exposed,
                 100 * (1 - exposed / comm) if comm > 0 else 0.0, scheduled / blocking,
                 scheduled / bound))


if __name__ == "__main__":
    main()
