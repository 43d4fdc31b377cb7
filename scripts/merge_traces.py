#!/usr/bin/env python3
"""Merges the per-rank traces of a dist run into one Chrome/Perfetto trace.

With DIST_TRACE=<dir>, every rank writes <dir>/rank-<N>.json. This joins them
into one file with one track per rank (pid = rank, named "rank N"), on one
time axis: each rank's times are relative to its own dist_init, and its
"epoch_us" (the wall clock at dist_init) places it against the others.
Open the result in https://ui.perfetto.dev or chrome://tracing.

    python3 scripts/merge_traces.py DIR [-o OUT]    (OUT: DIR/merged.json)

Standard library only; any python3.
"""

import argparse
import glob
import json
import os
import re
import sys


def load_rank(path):
    with open(path) as f:
        trace = json.load(f)
    if not isinstance(trace, dict) or "traceEvents" not in trace:
        raise ValueError(f"{path}: not a trace (no traceEvents)")
    other = trace.get("otherData", {})
    match = re.search(r"rank-(\d+)\.json$", path)
    rank = other.get("rank", int(match.group(1)) if match else None)
    if rank is None:
        raise ValueError(f"{path}: cannot tell its rank")
    return int(rank), int(other.get("epoch_us", 0)), trace


def merge(paths):
    ranks = {}
    for path in paths:
        rank, epoch, trace = load_rank(path)
        if rank in ranks:
            raise ValueError(f"{path}: rank {rank} appears twice")
        ranks[rank] = (epoch, trace, path)
    if not ranks:
        raise ValueError("no rank-<N>.json files")
    start = min(epoch for epoch, _, _ in ranks.values())
    events = []
    other = {"ranks": sorted(ranks), "sources": {}}
    for rank in sorted(ranks):
        epoch, trace, path = ranks[rank]
        shift = epoch - start
        other["sources"][str(rank)] = os.path.basename(path)
        for event in trace["traceEvents"]:
            event = dict(event)
            # One track per rank, whatever the file said.
            event["pid"] = rank
            event["tid"] = 0
            if "ts" in event and event.get("ph") != "M":
                event["ts"] = round(event["ts"] + shift, 3)
            events.append(event)
        dropped = trace.get("otherData", {}).get("dropped_events", 0)
        if dropped:
            print(f"warning: rank {rank} dropped {dropped} events",
                  file=sys.stderr)
    missing = sorted(set(range(max(ranks) + 1)) - set(ranks))
    if missing:
        print(f"warning: no trace for ranks {missing}", file=sys.stderr)
    # Metadata first, then by time: viewers need neither, but people do.
    events.sort(key=lambda e: (e.get("ph") != "M", e.get("ts", 0), e["pid"]))
    return {"traceEvents": events, "displayTimeUnit": "ms", "otherData": other}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+",
                        help="a DIST_TRACE directory, or rank-<N>.json files")
    parser.add_argument("-o", "--output",
                        help="the merged trace (default: DIR/merged.json)")
    args = parser.parse_args()
    paths = []
    for item in args.inputs:
        if not os.path.exists(item):
            parser.error(f"{item}: no such directory or file")
        if os.path.isdir(item):
            paths += sorted(glob.glob(os.path.join(item, "rank-*.json")))
        else:
            paths.append(item)
    output = args.output
    if not output:
        if len(args.inputs) != 1 or not os.path.isdir(args.inputs[0]):
            parser.error("-o is needed unless the input is one directory")
        output = os.path.join(args.inputs[0], "merged.json")
    try:
        merged = merge(paths)
    except (OSError, ValueError) as error:
        print(f"merge_traces: {error}", file=sys.stderr)
        return 1
    with open(output, "w") as f:
        json.dump(merged, f)
        f.write("\n")
    print(f"merged {len(merged['otherData']['ranks'])} ranks, "
          f"{len(merged['traceEvents'])} events into {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
