#!/usr/bin/env python3
"""Starts a dist job without mpirun: N processes of one command with
PyTorch's env:// variables (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT) and DIST_BACKEND=tcp unless the environment names a backend
(DIST_BACKEND=nccl then starts NCCL through the tcp store). One node; for
several, start one launcher per node with --node-rank, --nodes and the
first node's --addr.

  scripts/launch.py -n 4 -- build/test/Runtime/dist-runtime-test

When a rank fails, the others are ended; the exit code is the first
failing rank's (0 when all succeed). Standard library only.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--nproc", type=int, default=1,
                        help="processes on this node")
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--node-rank", type=int, default=0)
    parser.add_argument("--addr", default="127.0.0.1",
                        help="the first node's address (MASTER_ADDR)")
    parser.add_argument("--port", type=int, default=0,
                        help="the store's port (default: a free one; "
                             "needed with several nodes)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or args.nproc < 1 or args.nodes < 1 or not (
            0 <= args.node_rank < args.nodes):
        parser.error("need a command, -n >= 1 and 0 <= --node-rank < --nodes")
    if args.nodes > 1 and not args.port:
        parser.error("several nodes need an agreed --port")
    port = args.port or free_port()
    world = args.nproc * args.nodes
    processes = []
    for local in range(args.nproc):
        env = dict(os.environ)
        env.update(RANK=str(args.node_rank * args.nproc + local),
                   LOCAL_RANK=str(local), WORLD_SIZE=str(world),
                   MASTER_ADDR=args.addr, MASTER_PORT=str(port))
        env.setdefault("DIST_BACKEND", "tcp")
        processes.append(subprocess.Popen(command, env=env))
    status = 0
    running = list(processes)
    while running:
        for p in list(running):
            code = p.poll()
            if code is None:
                continue
            running.remove(p)
            if code != 0 and status == 0:
                status = code if code > 0 else 128 - code
                for other in running:
                    other.send_signal(signal.SIGTERM)
        time.sleep(0.01)
    return status


if __name__ == "__main__":
    sys.exit(main())
