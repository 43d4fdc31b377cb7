#!/usr/bin/env python3
"""Compares raw result files pairwise: compare_raw.py [--tolerance T] DTYPE A B [DTYPE A B ...].

Each pair must have the same number of elements of DTYPE (f32, f64, i64, i32)
and differ by at most T times the largest magnitude of A (0 for integers).
A or B may be several files joined by '+', which stands for their
elementwise mean. Prints one line per pair and PASS or FAIL. Python's standard library
only.
"""

import argparse
import array
import sys

CODES = {"f32": "f", "f64": "d", "i64": "q", "i32": "i"}


def read(path, dtype):
    values = array.array(CODES[dtype])
    with open(path, "rb") as f:
        values.frombytes(f.read())
    return values


def load(spec, dtype):
    """The values of file `spec`, or the mean of the files it joins by '+'
    (None if their lengths differ)."""
    parts = [read(path, dtype) for path in spec.split("+")]
    if any(len(part) != len(parts[0]) for part in parts):
        return None
    if len(parts) == 1:
        return parts[0]
    return [sum(values) / len(parts) for values in zip(*parts)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tolerance", type=float, default=1e-5)
    parser.add_argument("triples", nargs="+", help="DTYPE A B ...")
    args = parser.parse_args()
    if len(args.triples) % 3:
        parser.error("expected DTYPE A B triples")
    failures = 0
    for i in range(0, len(args.triples), 3):
        dtype, a_path, b_path = args.triples[i:i + 3]
        a, b = load(a_path, dtype), load(b_path, dtype)
        if a is None or b is None:
            print("FAIL: the files of %s differ in length" % (a_path if a is None else b_path))
            failures += 1
            continue
        if len(a) != len(b):
            print("FAIL: %s has %d values, %s %d" % (a_path, len(a), b_path, len(b)))
            failures += 1
            continue
        scale = max((abs(x) for x in a), default=0.0)
        error = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
        allowed = args.tolerance * scale if dtype.startswith("f") else 0
        ok = error <= allowed
        failures += not ok
        print("%s: %s vs %s: max difference %.3g (allowed %.3g)" %
              ("ok" if ok else "FAIL", a_path, b_path, error, allowed))
    print("FAIL: %d pair(s) differ" % failures if failures else "PASS: all pairs equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
