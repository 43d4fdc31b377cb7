#!/usr/bin/env python3
"""Compile time of dist-propagate + dist-partition vs upstream MLIR's
sharding-propagation + shard-partition, on the same programs, in one run.

Programs (generated):
  mlp N     N layers of matmul + (bias + relu as one linalg.generic), weights
            alternating column- and row-parallel over a mesh of 4.
  users N   one sharded value with N users.
  devices D the 1000-layer MLP on a mesh of D devices, [D/4, 4] (time must
            not grow with D).

Times are the pass wall times from --mlir-timing (parsing and printing are
excluded), the fastest of --repeat runs; dist and upstream runs alternate and
the ratio is the median of the per-round ratios. With --instructions, the measure is
instead the number of instructions executed in mlir::PassManager::run (the
passes and the verifier after each), counted by valgrind's callgrind: exact
and repeatable, but about 50x slower, so use smaller sizes. With
--no-verifier, both compilers run with --verify-each=false: the measure is
the two passes alone, without MLIR's verifier (which re-verifies every op,
mostly linalg's own checks, after each pass). Usage:
  bench/compile_time.py [--dist-opt build/bin/dist-opt] [--mlir-opt ...]
                        [--sizes 100,1000,5000,20000] [--repeat 3]
                        [--instructions] [--no-verifier] [--growth-rounds 7]

With sizes 5000 and 20000, the growth between them is also measured with the
two sizes timed back to back, round after round (--growth-rounds), so that a
drift of the machine's speed between the two rows does not count.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

H = 16   # hidden size
B = 8    # batch


def mlp(layers, dialect, devices=4):
    """An N-layer MLP annotated with dist or with upstream's shard."""
    out = []
    # The weights split over an axis of 4; more devices add a second axis
    # (so every split divides), which must not cost compile time.
    if dialect == "dist":
        out.append(f"dist.mesh @mesh [rest = {devices // 4}, mp = 4]")
    else:
        out.append(f"shard.grid @mesh(shape = {devices // 4}x4)")
    args = ", ".join(
        f"%w{i}: tensor<{H}x{H}xf32>" +
        (f" {{dist.sharding = #dist.sharding<@mesh, {'[{}, {mp}]' if i % 2 == 0 else '[{mp}, {}]'}>}}"
         if dialect == "dist" else "")
        for i in range(layers))
    biases = ", ".join(f"%b{i}: tensor<{B}x{H}xf32>" for i in range(layers))
    out.append(f"func.func @mlp(%x: tensor<{B}x{H}xf32>, {biases}, {args}) -> tensor<{B}x{H}xf32> {{")
    out.append("  %zero = arith.constant 0.0 : f32")
    if dialect == "shard":
        out.append("  %col = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding")
        out.append("  %row = shard.sharding @mesh split_axes = [[1]] : !shard.sharding")
    h = "%x"
    for i in range(layers):
        w = f"%w{i}"
        if dialect == "shard":
            kind = "col" if i % 2 == 0 else "row"
            out.append(f"  %ws{i} = shard.shard %w{i} to %{kind} annotate_for_users : tensor<{H}x{H}xf32>")
            w = f"%ws{i}"
        # One empty tensor and one bias per layer: upstream's partitioner fails
        # when one value is used under two layouts.
        out.append(f"  %e{i} = tensor.empty() : tensor<{B}x{H}xf32>")
        out.append(f"  %z{i} = linalg.fill ins(%zero : f32) outs(%e{i} : tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32>")
        out.append(f"  %m{i} = linalg.matmul ins({h}, {w} : tensor<{B}x{H}xf32>, tensor<{H}x{H}xf32>) "
                   f"outs(%z{i} : tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32>")
        out.append(f"  %h{i} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, "
                   f"affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]}} "
                   f"ins(%m{i}, %b{i} : tensor<{B}x{H}xf32>, tensor<{B}x{H}xf32>) outs(%e{i} : tensor<{B}x{H}xf32>) {{")
        out.append("  ^bb0(%a: f32, %c: f32, %o: f32):")
        out.append("    %s = arith.addf %a, %c : f32")
        out.append("    %r = arith.maximumf %s, %zero : f32")
        out.append("    linalg.yield %r : f32")
        out.append(f"  }} -> tensor<{B}x{H}xf32>")
        h = f"%h{i}"
    out.append(f"  return {h} : tensor<{B}x{H}xf32>")
    out.append("}")
    return "\n".join(out) + "\n"


def many_users(users, dialect):
    """One value, split over the mesh, with `users` elementwise users."""
    out = []
    if dialect == "dist":
        out.append("dist.mesh @mesh [mp = 4]")
        out.append(f"func.func @users(%x: tensor<{B}x{H}xf32> {{dist.sharding = #dist.sharding<@mesh, [{{mp}}, {{}}]>}}) -> tensor<{B}x{H}xf32> {{")
        x = "%x"
    else:
        out.append("shard.grid @mesh(shape = 4)")
        out.append(f"func.func @users(%x0: tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32> {{")
        out.append("  %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding")
        out.append(f"  %x = shard.shard %x0 to %s annotate_for_users : tensor<{B}x{H}xf32>")
        x = "%x"
    for i in range(users):
        out.append(f"  %e{i} = tensor.empty() : tensor<{B}x{H}xf32>")
        out.append(f"  %u{i} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], "
                   f"iterator_types = [\"parallel\", \"parallel\"]}} ins({x} : tensor<{B}x{H}xf32>) outs(%e{i} : tensor<{B}x{H}xf32>) {{")
        out.append("  ^bb0(%a: f32, %o: f32):")
        out.append("    %n = arith.negf %a : f32")
        out.append("    linalg.yield %n : f32")
        out.append(f"  }} -> tensor<{B}x{H}xf32>")
    out.append(f"  return %u{users - 1} : tensor<{B}x{H}xf32>")
    out.append("}")
    return "\n".join(out) + "\n"


TIMING = re.compile(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.*?)\s*$")


def pass_seconds(cmd, path, names):
    """The summed wall time of the passes in `names`, in one run."""
    result = subprocess.run(cmd + [path, "--mlir-timing", "-o", os.devnull],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[:3]
    total = 0.0
    for line in result.stderr.splitlines():
        m = TIMING.match(line)
        if m and m.group(2) in names:
            total += float(m.group(1))
    return total, None


REFS = re.compile(r"I\s+refs:\s+([0-9,]+)")


def pass_instructions(cmd, path, names):
    """Instructions executed in PassManager::run (passes + verifier)."""
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as out:
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}",
             "--toggle-collect=mlir::PassManager::run(*"] + cmd + [path, "-o", os.devnull],
            capture_output=True, text=True)
    if result.returncode != 0:
        return None, [l for l in result.stderr.splitlines() if not l.startswith("==")][:3]
    match = REFS.search(result.stderr)
    if not match:
        return None, ["no instruction count in valgrind's output"]
    return float(match.group(1).replace(",", "")), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-opt", default="build/bin/dist-opt")
    parser.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    parser.add_argument("--sizes", default="100,1000,5000,20000")
    parser.add_argument("--users", type=int, default=20000, help="0: skip that program")
    parser.add_argument("--devices", default="8,4096", help="'': skip those programs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions with callgrind instead of timing")
    parser.add_argument("--growth-rounds", type=int, default=7,
                        help="rounds of 5000 and 20000 layers timed back to back")
    parser.add_argument("--no-verifier", action="store_true",
                        help="run both compilers with --verify-each=false")
    args = parser.parse_args()
    # Options both compilers take, before the pass options.
    common = ["--verify-each=false"] if args.no_verifier else []
    measure_passes = pass_instructions if args.instructions else pass_seconds
    unit = "instructions" if args.instructions else "s"

    dist_cmd = [args.dist_opt] + common + ["--dist-propagate", "--dist-partition"]
    dist_passes = {"DistPropagate", "DistPartition"}
    up_cmd = [args.mlir_opt] + common + [
              "--pass-pipeline=builtin.module(func.func(sharding-propagation,shard-partition))"]
    up_passes = {"ShardingPropagation", "Partition"}

    def fmt(value):
        if value is None:
            return "failed"
        return f"{value / 1e6:.1f}M" if args.instructions else f"{value:.4f}"

    rows = []
    notes = {}
    with tempfile.TemporaryDirectory() as tmp:
        def measure(label, make):
            paths = {}
            for dialect in ("dist", "shard"):
                paths[dialect] = os.path.join(tmp, f"{dialect}.mlir")
                with open(paths[dialect], "w") as f:
                    f.write(make(dialect))
            sides = {"dist": (dist_cmd, dist_passes), "shard": (up_cmd, up_passes)}
            # The two sides alternate, so that a machine whose speed drifts
            # slows both alike; the ratio is the median of the per-round
            # ratios.
            samples = {"dist": [], "shard": []}
            rounds = 1 if args.instructions else args.repeat
            while len(samples["shard"]) < rounds:
                for dialect, (cmd, names) in sides.items():
                    value, error = measure_passes(cmd, paths[dialect], names)
                    if error and dialect == "shard" and label not in notes:
                        # Upstream's partitioner crashes on some programs:
                        # compare propagation alone, from the start.
                        print(f"{label} upstream: failed: {' / '.join(error)}", file=sys.stderr)
                        notes[label] = "propagation only: upstream's partition crashes"
                        sides = {"dist": ([args.dist_opt] + common + ["--dist-propagate"],
                                          {"DistPropagate"}),
                                 "shard": ([args.mlir_opt] + common + [
                                            "--pass-pipeline=builtin.module("
                                            "func.func(sharding-propagation))"],
                                           {"ShardingPropagation"})}
                        samples = {"dist": [], "shard": []}
                        break
                    if error:
                        print(f"{label} {dialect}: failed: {' / '.join(error)}", file=sys.stderr)
                        rows.append((label, None, None, None))
                        return
                    samples[dialect].append(value)
            d, s = min(samples["dist"]), min(samples["shard"])
            ratio = statistics.median(a / b for a, b in zip(samples["dist"], samples["shard"]))
            rows.append((label, d, s, ratio))
            print(f"{label:>24}  dist {fmt(d)} {unit}  upstream {fmt(s)} {unit}  ratio {ratio:.2f}",
                  flush=True)

        for n in [int(x) for x in args.sizes.split(",")]:
            measure(f"mlp {n} layers", lambda dialect, n=n: mlp(n, dialect))
        if args.users > 0:
            measure(f"1 value, {args.users} users", lambda dialect: many_users(args.users, dialect))
        for d in [int(x) for x in args.devices.split(",") if x]:
            measure(f"mlp 1000 layers, {d} devices", lambda dialect, d=d: mlp(1000, dialect, d))

    # Linear growth: 20000 layers within 4.4x of 5000.
    by_label = {label: d for label, d, _, _ in rows}
    if "mlp 5000 layers" in by_label and "mlp 20000 layers" in by_label:
        growth = by_label["mlp 20000 layers"] / by_label["mlp 5000 layers"]
        print(f"dist growth 5000 -> 20000 layers: {growth:.2f}x (linear: 4x; goal <= 4.4x)")
        if not args.instructions and args.growth_rounds > 0:
            # The two rows above were timed minutes apart, and this machine's
            # speed drifts by more than the margin over such spans. Time the
            # two sizes back to back instead: the growth is the median of
            # the per-round ratios (as for dist / upstream).
            with tempfile.TemporaryDirectory() as tmp:
                for name, cmd, names in (("dist", dist_cmd, dist_passes),
                                         ("upstream", up_cmd, up_passes)):
                    dialect = "dist" if name == "dist" else "shard"
                    paths = []
                    for n in (5000, 20000):
                        paths.append(os.path.join(tmp, f"{dialect}{n}.mlir"))
                        with open(paths[-1], "w") as f:
                            f.write(mlp(n, dialect))
                    ratios = []
                    for _ in range(args.growth_rounds):
                        small, _ = measure_passes(cmd, paths[0], names)
                        large, _ = measure_passes(cmd, paths[1], names)
                        if small and large:
                            ratios.append(large / small)
                    if ratios:
                        print(f"{name} growth 5000 -> 20000 layers, paired rounds: "
                              f"median {statistics.median(ratios):.2f}x "
                              f"(min {min(ratios):.2f}, max {max(ratios):.2f}, "
                              f"{len(ratios)} rounds)", flush=True)

    print(f"\n| program | dist ({unit}) | upstream ({unit}) | dist / upstream |")
    print("|---|---|---|---|")
    for label, d, s, r in rows:
        ratio = "-" if r is None else f"{r:.2f}"
        note = f" ({notes[label]})" if label in notes else ""
        print(f"| {label}{note} | {fmt(d)} | {fmt(s)} | {ratio} |")


if __name__ == "__main__":
    main()
