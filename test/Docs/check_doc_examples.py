#!/usr/bin/env python3
"""Runs dist-opt on every ```mlir block of the given Markdown files.

A block whose first line is `// dist-opt FLAGS` runs with those flags; a block
holding `expected-` lines runs with -verify-diagnostics. Exits non-zero if any
block fails, naming the file and line of each.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

parser = argparse.ArgumentParser()
parser.add_argument("--dist-opt", required=True)
parser.add_argument("files", nargs="+")
args = parser.parse_args()

blocks = failed = 0
for path in args.files:
    text = open(path).read()
    for match in re.finditer(r"^```mlir\n(.*?)^```", text, re.S | re.M):
        block = match.group(1)
        blocks += 1
        line = text[: match.start()].count("\n") + 1
        first = block.splitlines()[0] if block.strip() else ""
        flags = first[len("// dist-opt"):].split() if first.startswith("// dist-opt") else []
        if "expected-" in block and "-verify-diagnostics" not in flags:
            flags.append("-verify-diagnostics")
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write(block)
        result = subprocess.run([args.dist_opt, f.name, "-o", os.devnull] + flags,
                                capture_output=True, text=True)
        os.unlink(f.name)
        if result.returncode != 0:
            failed += 1
            print(f"FAIL {path}:{line} {' '.join(flags)}\n{result.stderr[:2000]}")
print(f"doc examples: {blocks} blocks, {failed} failed")
sys.exit(1 if failed else 0)
