#!/usr/bin/env python3
"""The differential tester: random annotated programs through dist-run.

For every seed, generates the program of that seed (gen_programs.py), checks
that dist-opt accepts it, and runs it with `dist-run FILE --ranks R --seed S`
on as many ranks as its mesh has devices: dist-run computes it serially and
partitioned on R MPI ranks and compares every result. Each program is
reported on one line:

  PASS  seed=17 mesh=2x4 f32 ranks=8 (1.3 s)
  FAIL  seed=18 ... : result #1 ...: FAIL       the runs differ (a miscompile)
  ERROR seed=19 ... : <first error line>        a compile error, crash, timeout,
                                                or an invalid program

A program that does not pass is kept in --out as seed_<S>.mlir with the
output of the failing command in seed_<S>.log. `gen_programs.py S` prints
the same program again. The exit status is 0 only when every program passes.

  run_fuzz.py --seeds 1-20                      # the CI sample
  run_fuzz.py --start 5000 --count 1000         # 1,000 programs on new seeds
  run_fuzz.py --seeds 7 -- --corrupt-rank=1     # extra dist-run arguments
  run_fuzz.py --seeds 1-500 --compile-only      # partition and lower with dist-opt only
  run_fuzz.py --seeds 1-100 --steps 3           # as training loops (results fed back)

Run it alone on the machine: dist-run starts R MPI processes per program.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import gen_programs  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))


def parse_seeds(spec):
    """'1-20', '3,9,40-45' -> list of ints."""
    seeds = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part[1:]:
            lo, hi = part.split("-", 1) if not part.startswith("-") else (part, part)
            lo, hi = int(lo), int(hi)
            if hi < lo:
                raise argparse.ArgumentTypeError("empty seed range %r" % part)
            seeds.extend(range(lo, hi + 1))
        else:
            seeds.append(int(part))
    return seeds


def find_tool(name, given):
    if given:
        path = shutil.which(given) or given
        if not os.path.exists(path):
            sys.exit("run_fuzz: %s not found: %s" % (name, given))
        return path
    local = os.path.join(REPO, "build", "bin", name)
    if os.path.exists(local):
        return local
    path = shutil.which(name)
    if not path:
        sys.exit("run_fuzz: cannot find %s; build it or pass --%s" % (name, name))
    return path


def first_failure(output):
    """The line that explains a failure: a FAIL result, else an error."""
    lines = [l for l in output.splitlines() if l.strip()]
    for l in lines:
        if l.startswith("result #") and l.endswith(": FAIL"):
            return l
    for l in lines:
        if "error" in l.lower() or "failed" in l.lower():
            return l
    return lines[-1] if lines else "(no output)"


def signature(status, detail):
    """A failure without its paths and numbers, to group programs that fail
    the same way."""
    d = re.sub(r"\S*\.mlir(:\d+)*:?", "", detail)
    d = re.sub(r"/tmp/\S+", "", d)
    d = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", d)
    return status + " " + " ".join(d.split())


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, universal_newlines=True)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.output or ""
        if isinstance(out, bytes):
            out = out.decode("utf-8", "replace")
        return None, out + "\nrun_fuzz: no result after %d s" % timeout


def check_one(seed, args, dist_opt, dist_run, workdir):
    """Returns (status, detail, program text, log, description)."""
    try:
        text, g = gen_programs.generate(seed, steps=args.steps > 1)
    except Exception:  # a generator bug: report it, go on with the next seed
        tb = traceback.format_exc()
        return ("ERROR", "the generator failed: " + tb.strip().splitlines()[-1], "", tb,
                "seed=%d" % seed)
    ranks = gen_programs.prod(g.mesh)
    desc = "seed=%d mesh=%s %s ranks=%d" % (seed, "x".join(map(str, g.mesh)), g.elem, ranks)
    path = os.path.join(workdir, "seed_%d.mlir" % seed)
    with open(path, "w") as fh:
        fh.write(text)
    rc, out = run([dist_opt, path, "-o", os.devnull], 60)
    if rc != 0:
        return "ERROR", "invalid program (a generator bug): " + first_failure(out), text, out, desc
    if args.compile_only:
        cmd = [dist_opt, path, "--dist-auto-partition", "--dist-lower-to-llvm", "-o",
               os.devnull]
        rc, out = run(cmd, args.timeout)
        log = "$ " + " ".join(cmd) + "\n" + out
        if rc != 0:
            return "ERROR", first_failure(out), text, log, desc
        return "PASS", "", text, log, desc
    cmd = [dist_run, path, "--ranks", str(ranks), "--seed", str(seed),
           "--timeout", str(args.timeout)] + args.dist_run_args
    if args.steps > 1:
        cmd += ["--steps", str(args.steps)]
    rc, out = run(cmd, 2 * args.timeout + 30)
    log = "$ " + " ".join(cmd) + "\n" + out
    if rc == 0 and "PASS:" in out:
        return "PASS", "", text, log, desc
    failed_results = [l for l in out.splitlines() if l.startswith("result #") and
                      l.endswith(": FAIL")]
    if failed_results:
        return "FAIL", failed_results[0], text, log, desc
    return "ERROR", first_failure(out), text, log, desc


def main(argv=None):
    p = argparse.ArgumentParser(
        description="Runs random annotated programs through dist-run.",
        epilog="Arguments after -- go to dist-run.")
    sel = p.add_mutually_exclusive_group(required=True)
    sel.add_argument("--seeds", type=parse_seeds, help="seeds: 1-20 or 3,9,40-45")
    sel.add_argument("--start", type=int, help="first seed of --count consecutive seeds")
    p.add_argument("--count", type=int, default=1000, help="with --start (default 1000)")
    p.add_argument("--out", default="fuzz-out",
                   help="directory for the programs that do not pass (default fuzz-out)")
    p.add_argument("--keep-all", action="store_true", help="keep every program in --out")
    p.add_argument("--dist-run", help="dist-run to use (default build/bin/dist-run, then PATH)")
    p.add_argument("--dist-opt", help="dist-opt to use (default build/bin/dist-opt, then PATH)")
    p.add_argument("--timeout", type=int, default=120,
                   help="seconds for each of a program's runs (dist-run --timeout)")
    p.add_argument("--steps", type=int, default=1,
                   help="run each program as a training loop of this many steps: "
                   "results marked as next values of arguments of their type "
                   "(gen_programs.py --steps), fed back by dist-run --steps")
    p.add_argument("--compile-only", action="store_true",
                   help="only partition and lower (dist-opt --dist-auto-partition "
                   "--dist-lower-to-llvm); no MPI, no comparison")
    p.add_argument("--quiet", action="store_true", help="print only what does not pass")
    args, rest = p.parse_known_args(argv)
    if rest and rest[0] == "--":
        rest = rest[1:]
    elif rest:
        p.error("unrecognized arguments: %s (dist-run's go after --)" % " ".join(rest))
    args.dist_run_args = rest
    seeds = args.seeds if args.seeds is not None else list(
        range(args.start, args.start + args.count))

    dist_opt = find_tool("dist-opt", args.dist_opt)
    dist_run = None if args.compile_only else find_tool("dist-run", args.dist_run)
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, ".work")
    os.makedirs(work, exist_ok=True)

    counts = {"PASS": 0, "FAIL": 0, "ERROR": 0}
    failing = []
    groups = {}  # signature -> seeds
    t_all = time.time()
    for seed in seeds:
        t0 = time.time()
        status, detail, text, log, desc = check_one(seed, args, dist_opt, dist_run, work)
        counts[status] += 1
        dt = time.time() - t0
        tmp = os.path.join(work, "seed_%d.mlir" % seed)
        if os.path.exists(tmp):
            os.remove(tmp)
        if status != "PASS" or args.keep_all:
            with open(os.path.join(args.out, "seed_%d.mlir" % seed), "w") as fh:
                fh.write(text)
            with open(os.path.join(args.out, "seed_%d.log" % seed), "w") as fh:
                fh.write(log)
        if status != "PASS":
            failing.append(seed)
            groups.setdefault(signature(status, detail), []).append(seed)
            print("%-5s %s (%.1f s): %s" % (status, desc, dt, detail), flush=True)
        elif not args.quiet:
            print("%-5s %s (%.1f s)" % (status, desc, dt), flush=True)
    os.rmdir(work)
    what = "partitioned" if args.compile_only else "run"
    print("fuzz: %d programs %s (seeds %s) in %.0f s: %d PASS, %d FAIL, %d ERROR" %
          (len(seeds), what, describe(seeds), time.time() - t_all, counts["PASS"],
           counts["FAIL"], counts["ERROR"]))
    for sig, group in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print("fuzz: %d x %s (seeds %s)" % (len(group), sig, describe(group)))
    if failing:
        print("fuzz: kept in %s: %s" % (args.out, " ".join("seed_%d.mlir" % s for s in failing)))
        print("fuzz: reproduce one with: %s SEED -o p.mlir && dist-run p.mlir --ranks R --seed SEED"
              % os.path.relpath(os.path.join(HERE, "gen_programs.py")))
        return 1
    return 0


def describe(seeds):
    if not seeds:
        return "none"
    if seeds == list(range(seeds[0], seeds[-1] + 1)):
        return "%d-%d" % (seeds[0], seeds[-1]) if len(seeds) > 1 else str(seeds[0])
    return ",".join(map(str, seeds[:10])) + (",..." if len(seeds) > 10 else "")


if __name__ == "__main__":
    sys.exit(main())
