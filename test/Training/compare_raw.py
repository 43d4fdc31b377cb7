#!/usr/bin/env python3
"""Compares raw result files pairwise: compare_raw.py [--tolerance T] DTYPE A B [DTYPE A B ...].

Each pair must have the same number of elements of DTYPE (f32, f64, i64, i32)
and differ by at most T times the largest magnitude of A (0 for integers).
Prints one line per pair and PASS or FAIL. Python's standard library only.
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
        a, b = read(a_path, dtype), read(b_path, dtype)
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
