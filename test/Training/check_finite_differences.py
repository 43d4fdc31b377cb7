#!/usr/bin/env python3
"""Checks dist-gen's backward pass by finite differences (no PyTorch needed).

    check_finite_differences.py --bin build/bin [--directions 3] -- gpt --layers 1 ...

Generates the step in f64 with its gradients returned, runs it once with
dist-run for the loss and the gradients g, then for random directions v
compares the central difference (L(p + e v) - L(p - e v)) / 2e of the loss
with <g, v>, over all parameters at once. Python's standard library only.
"""

import argparse
import array
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

from step_signature import parse_signature


CODES = {"f64": "d", "i32": "i", "i64": "q"}


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def run_step(bin_dir, step_file, work, values, args, results):
    """Runs the step once; returns {result name: list of numbers}."""
    run_dir = os.path.join(work, "run")
    shutil.rmtree(run_dir, ignore_errors=True)
    command = [os.path.join(bin_dir, "dist-run"), step_file, "--keep", "--work-dir", run_dir]
    for i, (arg, data) in enumerate(zip(args, values)):
        path = os.path.join(work, "arg%d.bin" % i)
        with open(path, "wb") as f:
            f.write(array.array(CODES[arg.element], data).tobytes())
        command += ["--input", "%d=%s" % (i, path)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    outputs = {}
    for i, result in enumerate(results):
        with open(os.path.join(run_dir, "result%d.step1.serial.bin" % i), "rb") as f:
            outputs[result.name] = array.array(CODES[result.element], f.read()).tolist()
    return outputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--directions", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1e-6)
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("gen", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    gen_args = options.gen[1:] if options.gen and options.gen[0] == "--" else options.gen

    work = tempfile.mkdtemp(prefix="dist-fd-")
    step_file = os.path.join(work, "step.mlir")
    subprocess.run([os.path.join(options.bin, "dist-gen")] + gen_args +
                   ["--dtype", "f64", "--optimizer", "sgd", "--return-gradients",
                    "-o", step_file], check=True)
    with open(step_file) as f:
        args, results = parse_signature(f.read(), "train_step")

    rng = random.Random(options.seed)
    values = []
    for arg in args:
        n = count(arg.shape)
        if arg.input_range:
            values.append([rng.randrange(*arg.input_range) for _ in range(n)])
        elif arg.is_param and re.search(r"ln\w*\.weight$", arg.name):
            values.append([1.0 + 0.1 * rng.gauss(0, 1) for _ in range(n)])
        else:
            scale = 0.3 if arg.is_param else 1.0
            values.append([scale * rng.gauss(0, 1) for _ in range(n)])

    base = run_step(options.bin, step_file, work, values, args, results)
    params = [i for i, a in enumerate(args) if a.is_param]
    worst = 0.0
    failures = 0
    for direction in range(options.directions):
        v = {i: [rng.gauss(0, 1) for _ in values[i]] for i in params}
        predicted = sum(g * d for i in params
                        for g, d in zip(base["grad." + args[i].name], v[i]))
        losses = []
        for sign in (1.0, -1.0):
            moved = list(values)
            for i in params:
                moved[i] = [x + sign * options.epsilon * d for x, d in zip(values[i], v[i])]
            losses.append(run_step(options.bin, step_file, work, moved, args, results)["loss"][0])
        measured = (losses[0] - losses[1]) / (2 * options.epsilon)
        error = abs(measured - predicted) / max(abs(predicted), 1e-12)
        worst = max(worst, error)
        status = "ok" if error <= options.tolerance else "FAIL"
        failures += status == "FAIL"
        print("direction %d: <gradient, v> %.12g, finite difference %.12g, relative error %.2e %s"
              % (direction, predicted, measured, error, status))
    shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("FAIL: %d of %d direction(s) disagree" % (failures, options.directions))
        return 1
    print("PASS: the gradients match finite differences in %d direction(s) (largest relative "
          "error %.2e)" % (options.directions, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
