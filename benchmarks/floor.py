"""The floor: how fast grading could possibly go on this machine.

    python -m benchmarks.floor [--rounds 3]

A notebook cannot be graded faster than its own cells run. For each answer key in
solutions/, this times, in a kernel forked from the warm zygote (as grading uses):
the kernel's start-up, the cells alone, and the shutdown; and the CPU the kernel
and this process burn. The floor for a class is the cells' CPU time over the
cores; what the benchmark measures above it is the price of kernels, messaging,
planning and nbgrader's bookkeeping.
"""
import argparse
import os
import resource
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from grader.engine.forkserver import ForkedKernelManager

from .cpu_by_process import cpu_seconds

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"


def cpu_of(pid):
    """User + system CPU seconds of a process (from /proc), 0 if it is gone."""
    now = cpu_seconds(pid)
    return now[0] if now else 0.0


def kernel_host_pid(km):
    """The forked kernel's pid as this process sees it (the zygote reports its sandbox's pid)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = open(f"/proc/{entry}/status").read()
            except OSError:
                continue
            nspid = next((line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), [])
            if len(nspid) == 2 and int(nspid[1]) == km.provisioner.pid and os.stat(f"/proc/{entry}").st_uid == km._uid:
                return int(entry)
    return None


def time_notebook(path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_manager_class=ForkedKernelManager, shutdown_kernel="immediate")
    me = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    with client.setup_kernel():
        t1 = time.perf_counter()
        pid = kernel_host_pid(client.km)
        before = cpu_of(pid)
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        t2 = time.perf_counter()
        kernel_cpu = cpu_of(pid) - before
    t3 = time.perf_counter()
    after = resource.getrusage(resource.RUSAGE_SELF)
    grader_cpu = (after.ru_utime + after.ru_stime) - (me.ru_utime + me.ru_stime)
    return {"start": t1 - t0, "cells": t2 - t1, "stop": t3 - t2, "kernel_cpu": kernel_cpu, "client_cpu": grader_cpu}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="runs per notebook; the median is shown")
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    print(f"machine: {cores} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"{'notebook':34} {'start':>6} {'cells':>6} {'stop':>6} {'kernel CPU':>10} {'client CPU':>10}  (s, median)")
    totals = []
    time_notebook(sorted(SOLUTIONS.glob("*/*.ipynb"))[0])  # the zygote starts here, not in the first timing
    for path in sorted(SOLUTIONS.glob("*/*.ipynb")):
        runs = [time_notebook(path) for _ in range(args.rounds)]
        med = {k: sorted(r[k] for r in runs)[len(runs) // 2] for k in runs[0]}
        totals.append(med)
        print(f"{path.stem:34} {med['start']:6.2f} {med['cells']:6.2f} {med['stop']:6.2f} "
              f"{med['kernel_cpu']:10.2f} {med['client_cpu']:10.2f}")
    mean = {k: sum(t[k] for t in totals) / len(totals) for k in totals[0]}
    print(f"{'mean':34} {mean['start']:6.2f} {mean['cells']:6.2f} {mean['stop']:6.2f} "
          f"{mean['kernel_cpu']:10.2f} {mean['client_cpu']:10.2f}")
    floor = mean["kernel_cpu"] / cores
    print(f"floor: the cells' own CPU, {mean['kernel_cpu']:.2f} s a notebook over {cores} cores = "
          f"{floor:.2f} s a notebook, {1 / floor:.1f} notebooks/s; with the client's side of the messages "
          f"({mean['client_cpu']:.2f} s) {(mean['kernel_cpu'] + mean['client_cpu']) / cores:.2f} s a notebook")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
