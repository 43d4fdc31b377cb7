#!/usr/bin/env python3
"""Static counts of a GPU step's kernels, for comparing lowerings without a GPU.

Reads the IR that `dist-opt --dist-lower-to-nvvm --mlir-print-ir-after=dist-gpu-merge-kernels`
prints (kernels in a gpu.module, launches with constant grids) and reports the launches a step,
the kernels with vector loads or stores, and the bytes the launches' threads load and store: each
memref/vector load and store of a kernel counted once per thread, times the trip counts of the
constant-bound scf.for loops around it (a branch only each block's first thread takes, 1 / block
size). No caches, no cuBLAS: a count of what the generated
kernels ask of memory, not a time.

    dist-opt build/gpu-check/bench/bf16/partitioned.mlir --dist-lower-to-nvvm=update-in-place=true \\
        --mlir-print-ir-after=dist-gpu-merge-kernels -o /dev/null 2> /tmp/bf16.mlir
    python3 bench/kernel_bytes.py /tmp/bf16.mlir --top 10
"""

import argparse
import re
import sys

ELEMENT_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1,
                 "i16": 2, "i32": 4, "i64": 8, "index": 8}


def element_bytes(type_text):
    match = re.search(r"\b(bf16|f16|f32|f64|i1|i8|i16|i32|i64|index)\b", type_text)
    if not match:
        raise ValueError(f"no element type in {type_text!r}")
    return ELEMENT_BYTES[match.group(1)]


def access_bytes(line):
    """Bytes one memory op of `line` moves, or 0 when it is none."""
    if not re.search(r"\b(memref\.load|memref\.store|vector\.load|vector\.store)\b", line):
        return 0
    vector = re.search(r"vector<(\d+)x(\w+)>", line)
    if vector:
        return int(vector.group(1)) * element_bytes(vector.group(2))
    memref = re.findall(r"memref<([^>]*)>", line)
    return element_bytes(memref[-1].split("x")[-1]) if memref else 0


def kernels_of(lines):
    """Each kernel's name -> the lines of its body."""
    kernels, current = {}, None
    for line in lines:
        match = re.match(r"\s*gpu\.func @(\w+)\(", line)
        if match:
            current = match.group(1)
            kernels[current] = []
            continue
        if current is not None:
            kernels[current].append(line)
            # Outlined kernels are one block: one gpu.return, at the end.
            if re.match(r"\s*gpu\.return\b", line):
                current = None
    return kernels


def bytes_per_thread(body, block_x):
    """Bytes one thread moves on average: accesses times the constant trip counts of the loops
    around them; a branch only a block's first thread takes (`%thread_id_x == 0`, as after a
    block-wide reduction) counts 1 / block_x."""
    constants, first_thread, multipliers, total = {}, set(), [1.0], 0.0
    for line in body:
        stripped = line.strip()
        # A region closes (`}`, `} else {`, `} : (f32) -> f32`).
        if stripped.startswith("}") and len(multipliers) > 1:
            multipliers.pop()
        match = re.search(r"(%\w+) = arith\.constant (\d+) : index", line)
        if match:
            constants[match.group(1)] = int(match.group(2))
        match = re.search(r"(%\w+) = arith\.cmpi eq, %thread_id_x, (%\w+) : index", line)
        if match and constants.get(match.group(2)) == 0:
            first_thread.add(match.group(1))
        factor = 1.0
        match = re.search(r"scf\.for %\w+ = (%\w+) to (%\w+) step (%\w+)", line)
        if match:
            low, high, step = (constants.get(name) for name in match.groups())
            trips = (high - low) // step if None not in (low, high, step) and step > 0 else 1
            factor = max(trips, 1)
        match = re.search(r"scf\.if (%\w+) ", line)
        if match and match.group(1) in first_thread:
            factor = 1.0 / block_x
        # A region opens: a loop's body, a branch, a combining region.
        if stripped.endswith("{"):
            multipliers.append(multipliers[-1] * factor)
            continue
        total += access_bytes(line) * multipliers[-1]
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ir", help="IR printed after dist-gpu-merge-kernels")
    parser.add_argument("--top", type=int, default=10, help="kernels to list, most bytes first")
    args = parser.parse_args()
    lines = open(args.ir).read().split("\n")
    kernels = kernels_of(lines)
    launches = []
    for line in lines:
        match = re.search(r"gpu\.launch_func\s+@\w+::@(\w+) blocks in \((%\w+), (%\w+), (%\w+)\)"
                          r" threads in \((%\w+), (%\w+), (%\w+)\)", line)
        if not match:
            continue
        sizes = []
        for dimension in match.groups()[1:]:
            size = re.match(r"%c(\d+)(_\d+)?$", dimension)
            if not size:
                sys.exit(f"kernel_bytes: a launch of @{match.group(1)} has a grid that is not "
                         f"constant ({dimension})")
            sizes.append(int(size.group(1)))
        threads = sizes[0] * sizes[1] * sizes[2] * sizes[3] * sizes[4] * sizes[5]
        kernel = match.group(1)
        launches.append((threads * bytes_per_thread(kernels.get(kernel, []), sizes[3]), kernel,
                         threads))
    vectorized = sum(1 for body in kernels.values()
                     if any(re.search(r"\bvector\.(load|store)\b", line) for line in body))
    total = sum(launch[0] for launch in launches)
    print(f"launches a step: {len(launches)}")
    print(f"kernels: {len(kernels)}, with vector loads or stores: {vectorized}")
    print(f"bytes the kernels load and store a step: {total / 1e6:,.0f} MB "
          f"({total / 4e12 * 1e3:.2f} ms at 4 TB/s)")
    for moved, kernel, threads in sorted(launches, reverse=True)[:args.top]:
        print(f"  {moved / 1e6:10,.1f} MB  {kernel}  ({threads} threads)")


if __name__ == "__main__":
    main()
