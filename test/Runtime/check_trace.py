#!/usr/bin/env python3
"""The trace test: runs `dist-runtime-test trace` on N ranks with DIST_TRACE
set, checks every rank's file (JSON in the Chrome trace event format, every
collective's blocking call, start, flight, wait and end with its bytes, group
and comm index, compute between the calls), then merges the files with
scripts/merge_traces.py and checks the merged trace (one track per rank, every
event kept, one time axis).

    check_trace.py --ranks N --dir DIR --merge merge_traces.py -- LAUNCH... BINARY
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

COLLECTIVES = ["all_reduce", "reduce", "broadcast", "all_gather",
               "reduce_scatter", "all_to_all", "send_recv"]
ELEMENTS = 16  # f32 elements per block in runForTrace
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def check_group(args, ranks, comm, where):
    expect(args.get("comm") == comm, f"{where}: comm {args.get('comm')} != {comm}")
    expect(args.get("group_size") == group_size(ranks), f"{where}: group_size")
    expect(args.get("mesh") == ([ranks] if ranks <= 2 else [2, ranks // 2]),
           f"{where}: mesh {args.get('mesh')}")
    expect(args.get("axes") == [0], f"{where}: axes {args.get('axes')}")
    expect("group" in args and "comm " + str(comm) in args["group"],
           f"{where}: group label {args.get('group')}")


def group_size(ranks):
    return 2 if ranks > 2 else ranks  # axis 0 of [N] or [2, N/2]


def check_rank(path, rank, ranks):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    other = trace["otherData"]
    expect(other["rank"] == rank and other["world_size"] == ranks,
           f"{path}: otherData {other}")
    g = group_size(ranks)
    expect(all(e["pid"] == rank and e["tid"] == 0 for e in events),
           f"{path}: every event on the rank's track")
    names = {e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "process_name"}
    expect(names == {f"rank {rank}"}, f"{path}: process name {names}")
    by_kind = {}
    for e in events:
        by_kind.setdefault((e["cat"], e["name"], e["ph"]), []).append(e)
    for name in COLLECTIVES:
        blocks = g if name in ("reduce_scatter", "all_to_all") else 1
        where = f"rank {rank} {name}"
        calls = by_kind.get(("collective", name, "X"), [])
        expect(len(calls) == 1, f"{where}: {len(calls)} blocking calls")
        for call in calls:
            expect(call["args"]["bytes"] == 4 * ELEMENTS * blocks,
                   f"{where}: bytes {call['args']['bytes']}")
            expect(call["dur"] >= 0, f"{where}: duration")
            check_group(call["args"], ranks, 0, where)
        starts = by_kind.get(("start", name + "_start", "X"), [])
        expect(len(starts) == 1, f"{where}: {len(starts)} starts")
        for start in starts:
            args = start["args"]
            check_group(args, ranks, 1, where + " start")
            expect(args["bytes"] == 4 * ELEMENTS * blocks,
                   f"{where}: start bytes {args['bytes']}")
            request = args["request"]
            flight = [e for e in events if e["cat"] == "in_flight"
                      and e.get("id") == f"rank{rank}.request{request}"]
            phases = sorted(e["ph"] for e in flight)
            expect(phases == ["b", "e"], f"{where}: in-flight events {phases}")
            if phases == ["b", "e"]:
                begin = next(e for e in flight if e["ph"] == "b")
                end = next(e for e in flight if e["ph"] == "e")
                expect(end["ts"] >= begin["ts"] and end["args"]["completed"],
                       f"{where}: flight from {begin['ts']} to {end['ts']}")
            waits = [e for e in events if e["cat"] == "wait"
                     and e["args"]["request"] == request]
            expect(len(waits) == 1 and waits[0]["args"]["collective"] == name
                   and waits[0]["ts"] >= start["ts"] + start["dur"] - 1e-3,
                   f"{where}: wait {waits}")
    compute = by_kind.get(("compute", "compute", "X"), [])
    expect(len(compute) >= 2 * len(COLLECTIVES),
           f"rank {rank}: {len(compute)} compute regions")
    expect(any(e["dur"] >= 150 for e in compute),
           f"rank {rank}: no compute region of the 200 us spins")
    expect(by_kind.get(("runtime", "progress", "X")),
           f"rank {rank}: no progress calls")
    # The calls and the compute between them tile the rank's time.
    spans = sorted((e["ts"], e["dur"]) for e in events if e["ph"] == "X")
    for (ts, dur), (next_ts, _) in zip(spans, spans[1:]):
        expect(next_ts >= ts + dur - 1e-3, f"rank {rank}: overlap at {ts}")
    return events


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--merge", required=True)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    shutil.rmtree(args.dir, ignore_errors=True)
    env = dict(os.environ, DIST_TRACE=args.dir)
    run = subprocess.run(args.command + ["trace"], env=env, timeout=120)
    if run.returncode != 0:
        print(f"the traced run failed ({run.returncode})")
        return 1
    per_rank = {}
    for rank in range(args.ranks):
        path = os.path.join(args.dir, f"rank-{rank}.json")
        if not os.path.exists(path):
            failures.append(f"no {path}")
            continue
        per_rank[rank] = check_rank(path, rank, args.ranks)

    merged_path = os.path.join(args.dir, "merged.json")
    merge = subprocess.run([sys.executable, args.merge, args.dir])
    expect(merge.returncode == 0, "merge_traces.py failed")
    if merge.returncode == 0:
        with open(merged_path) as f:
            merged = json.load(f)
        events = merged["traceEvents"]
        pids = {e["pid"] for e in events}
        expect(pids == set(range(args.ranks)), f"merged: tracks {pids}")
        expect(len(events) == sum(len(e) for e in per_rank.values()),
               "merged: events lost or added")
        for rank in range(args.ranks):
            named = [e for e in events if e["ph"] == "M" and e["pid"] == rank
                     and e["name"] == "process_name"]
            expect(len(named) == 1 and named[0]["args"]["name"] == f"rank {rank}",
                   f"merged: track name of rank {rank}")
            for name in COLLECTIVES:
                expect(any(e["pid"] == rank and e["name"] == name
                           and e["cat"] == "collective" for e in events),
                       f"merged: rank {rank} lost {name}")
        timed = [e["ts"] for e in events if e["ph"] != "M"]
        expect(min(timed) >= 0, "merged: negative times")
        ids = [(e["id"], e["ph"]) for e in events if e["cat"] == "in_flight"]
        expect(len(ids) == len(set(ids)), "merged: async ids collide")
    for failure in failures[:30]:
        print("FAILED:", failure)
    print(f"trace test on {args.ranks} ranks: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
