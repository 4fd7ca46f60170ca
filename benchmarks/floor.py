"""The floor: the least work grading a notebook needs, running the notebook's own code once.

    python -m benchmarks.floor [--rounds 3] [--timeout 10]
    python -m benchmarks.floor --course DIR [--students A,B] [--timeout 10]

No grader can skip running each submission's code. The floor runs it with nothing
around it: each notebook's code cells in order, in one plain Python process of its
own (forked from a warm one that has numpy and matplotlib imported, as grading's
zygote has: the interpreter's start is not counted), a cell that raises skipped as
a kernel would record its error and go on, each cell stopped at the same per-cell
timeout as grading (SIGALRM, as a kernel is interrupted), a cell's last expression
turned into its repr as a kernel's display hook does, and every open figure
rendered to PNG after its cell and closed, as the inline backend does. No probes,
no kernel, no messages, no sandbox, no gradebook. `floor(paths)` runs notebooks
so on `cores` warm processes at once and returns their CPU (user + system of each
notebook's process, from wait4) and the wall time of the whole run;
benchmarks/grade_class.py runs it over the class it grades.

On the answer keys in solutions/, this prints that floor, and also times each
answer key in a kernel forked from the warm zygote (as grading uses): the kernel's
start-up, the cells alone, the shutdown, and the CPU the kernel and this process burn.

With --course, on a course directory this grader graded: every notebook it ran, alone, one at a time (so
no notebook waits for a core): its floor, the submission in a forked kernel, and the notebook as grading
ran it (executed/: the probes in), CPU a notebook by assignment. What a kernel costs around a notebook's
own code, apart from what a busy machine adds in a grading run.
"""
import argparse
import ast
import io
import json
import os
import queue
import resource
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .cpu_by_process import cpu_seconds

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"

# As grading's kernels have it (grader/engine/sandbox_policy.py): one BLAS thread each, so that
# notebooks side by side do not fight over the cores.
FLOOR_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}


# ------------------------------------------------------------------ the floor: a notebook's cells, nothing else

class CellTimeout(KeyboardInterrupt):
    """The cell's time is up: raised in the cell as a kernel's interrupt raises KeyboardInterrupt."""


def _alarm(signum, frame):
    raise CellTimeout()


def render_figures():
    """Every open figure to PNG, then closed: what the inline backend does after a cell (and on plt.show())."""
    import matplotlib.pyplot as plt
    for number in plt.get_fignums():
        fig = plt.figure(number)
        fig.canvas.print_figure(io.BytesIO(), format="png", bbox_inches="tight")
    plt.close("all")


def run_cell(source, namespace):
    """One cell as a kernel runs it: its statements, then its last expression's repr; 'ok' or what stopped it."""
    try:
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
            if value is not None:
                repr(value)
        return "ok"
    except CellTimeout:
        return "timeout"
    except BaseException:  # noqa: BLE001 (SystemExit too: a kernel records it and goes on)
        return "error"


def run_cells(sources, timeout):
    """The cells in order in this process: {"ok": n, "error": n, "timeout": n, "wall": seconds}."""
    namespace = {"__name__": "__main__"}
    counts = {"ok": 0, "error": 0, "timeout": 0}
    signal.signal(signal.SIGALRM, _alarm)
    start = time.perf_counter()
    for source in sources:
        out = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()  # what a kernel sends back as stream outputs
        signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)  # again every second, if the interrupt is swallowed
        try:
            outcome = run_cell(source, namespace)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            render_figures()
        except BaseException:  # noqa: BLE001 (a figure that cannot be drawn: the inline backend shows the error)
            pass
        sys.stdout, sys.stderr = out
        counts[outcome] += 1
    counts["wall"] = time.perf_counter() - start
    return counts


def serve():
    """A warm floor process: imports what notebooks import, then forks one child per notebook path on stdin.

    Answers one JSON line per path: the child's cell counts, its CPU seconds (wait4) and wall."""
    import numpy  # noqa: F401
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.show = lambda *args, **kwargs: render_figures()  # as inline: plt.show() draws the figures and closes them
    out = sys.stdout
    print(json.dumps({"ready": os.getpid()}), file=out, flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        sources = [c.source for c in nbformat.read(request["path"], as_version=4).cells if c.cell_type == "code"]
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)  # the notebook's input() and prints below Python reach neither side of the protocol
            os.dup2(null, 1)
            try:
                os.write(write, json.dumps(run_cells(sources, request["timeout"])).encode())
            finally:
                os._exit(0)
        os.close(write)
        ready, _, _ = select.select([read], [], [], request["notebook_timeout"])
        if not ready:
            os.kill(pid, signal.SIGKILL)  # past the notebook's limit, as grading kills the kernel
        data = b""
        while chunk := os.read(read, 1 << 16):
            data += chunk
        os.close(read)
        _, _, usage = os.wait4(pid, 0)
        result = json.loads(data) if data else {"ok": 0, "error": 0, "timeout": 0, "wall": request["notebook_timeout"],
                                                "killed": True}
        result.update(path=request["path"], cpu=usage.ru_utime + usage.ru_stime)
        print(json.dumps(result), file=out, flush=True)


@dataclass
class Floor:
    notebooks: list  # one dict a notebook: path, ok, error, timeout (cells), wall (its cells), cpu (its process)
    wall: float      # seconds from the first notebook handed out to the last one done, on `cores` processes
    cores: int

    @property
    def cpu(self):
        return sum(n["cpu"] for n in self.notebooks)


def _run_on_servers(paths, cores, env, limits):
    """`cores` warm floor processes, each given notebooks until none is left; (their results, the wall time)."""
    root = str(Path(__file__).resolve().parents[1])
    todo, results, servers = queue.Queue(), [], []
    for path in paths:
        todo.put(str(path))

    def drive(server):
        while True:
            try:
                path = todo.get_nowait()
            except queue.Empty:
                return
            server.stdin.write(json.dumps({"path": path, **limits}) + "\n")
            server.stdin.flush()
            results.append(json.loads(server.stdout.readline()))

    try:  # started inside: a process that fails to start leaves none of the others running
        for _ in range(cores):
            servers.append(subprocess.Popen([sys.executable, "-c", "from benchmarks.floor import serve; serve()"],
                                            cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            text=True))
        for server in servers:  # warm: numpy and matplotlib imported before the clock starts
            assert "ready" in json.loads(server.stdout.readline())
        start = time.perf_counter()
        threads = [threading.Thread(target=drive, args=(s,)) for s in servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results, time.perf_counter() - start
    finally:
        for server in servers:
            server.stdin.close()
            server.wait()


def floor(paths, timeout=10, notebook_timeout=None, cores=None):
    """Run every notebook's cells the floor's way on `cores` warm processes (default: all); returns a Floor."""
    cores = cores or os.cpu_count() or 1
    notebook_timeout = notebook_timeout or 10 * timeout  # as grade_class's default
    # A font cache of the run's own, as grading's kernels have one (the sandbox's /tmp): the machine's may
    # have been written by another matplotlib without this one's fonts, and every figure with mathematics
    # would look for them and warn.
    with tempfile.TemporaryDirectory(prefix="floor-mpl-") as fonts:
        results, wall = _run_on_servers(paths, cores, {**os.environ, **FLOOR_ENV, "MPLCONFIGDIR": fonts},
                                        {"timeout": timeout, "notebook_timeout": notebook_timeout})
    if len(results) != len(paths):
        raise RuntimeError(f"floor: {len(results)} of {len(paths)} notebooks ran")
    return Floor(sorted(results, key=lambda r: r["path"]), wall, cores)


# ------------------------------------------------------------------ around the floor: a forked kernel's cost
def cpu_of(pid):
    """User + system CPU seconds of a process (from /proc), 0 if it is gone."""
    now = cpu_seconds(pid)
    return now[0] if now else 0.0


def time_notebook(path, timeout=120, as_graded=False):
    """One notebook in a kernel forked from the warm zygote: its start, cells and stop (s), its CPU and ours.
    as_graded: a student's notebook, run as grading runs it (a cell that raises, or is interrupted at
    `timeout` seconds, is recorded and the next one runs); else an answer key, which must run through."""
    from nbclient import NotebookClient
    from grader.engine.forkserver import ForkedKernelManager
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_manager_class=ForkedKernelManager, shutdown_kernel="immediate",
                            allow_errors=as_graded, interrupt_on_timeout=as_graded)
    me = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    with client.setup_kernel():
        t1 = time.perf_counter()
        pid = client.km.kernel_host_pid()
        before = cpu_of(pid)
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        t2 = time.perf_counter()
        kernel_cpu = cpu_of(pid) - before
    t3 = time.perf_counter()
    after = resource.getrusage(resource.RUSAGE_SELF)
    grader_cpu = (after.ru_utime + after.ru_stime) - (me.ru_utime + me.ru_stime)
    return {"start": t1 - t0, "cells": t2 - t1, "stop": t3 - t2, "kernel_cpu": kernel_cpu, "client_cpu": grader_cpu}


def alone(course, students=None, timeout=10):
    """Every notebook a grading run of `course` ran (its executed/), alone, one at a time: its floor, the
    submission (submitted/) in a forked kernel, and the executed notebook (probes in) in a forked kernel.
    {assignment or "all": {"notebooks": n, "floor": CPU-s, "kernel": CPU-s, "probed": CPU-s}}."""
    course = Path(course)
    pairs = [(executed, course / "submitted" / executed.relative_to(course / "executed"))
             for executed in sorted((course / "executed").glob("*/*/*.ipynb"))
             if students is None or executed.parts[-3] in students]
    if not pairs:
        raise SystemExit(f"benchmarks.floor: no executed notebooks under {course / 'executed'}")
    plain = floor([submitted for _, submitted in pairs], timeout, cores=1)
    floor_cpu = {r["path"]: r["cpu"] for r in plain.notebooks}
    time_notebook(pairs[0][1], timeout, as_graded=True)  # the zygote starts here, not in the first timing
    totals = {}
    for executed, submitted in pairs:
        cpu = {"floor": floor_cpu[str(submitted)],
               "kernel": time_notebook(submitted, timeout, as_graded=True)["kernel_cpu"],
               "probed": time_notebook(executed, timeout, as_graded=True)["kernel_cpu"]}
        for key in (executed.parent.name, "all"):
            total = totals.setdefault(key, {"notebooks": 0, "floor": 0.0, "kernel": 0.0, "probed": 0.0})
            total["notebooks"] += 1
            for name, seconds in cpu.items():
                total[name] += seconds
    return totals


def print_alone(totals):
    print(f"{'assignment':30} {'notebooks':>9} {'floor':>7} {'kernel':>7} {'/floor':>7} {'probed':>7} {'/floor':>7}"
          "  (CPU-s a notebook)")
    for key, t in sorted(totals.items(), key=lambda kv: (kv[0] == "all", kv[0])):
        n = t["notebooks"]
        print(f"{key:30} {n:9d} {t['floor'] / n:7.3f} {t['kernel'] / n:7.3f} {t['kernel'] / t['floor']:6.2f}x "
              f"{t['probed'] / n:7.3f} {t['probed'] / t['floor']:6.2f}x")


def summary(result, notebooks=None):
    """The floor in one line: CPU and wall a notebook, and the run's wall on its cores."""
    n = notebooks or len(result.notebooks)
    cells = {k: sum(r[k] for r in result.notebooks) for k in ("ok", "error", "timeout")}
    return (f"{result.cpu / n:.3f} CPU-s a notebook ({result.cpu:.1f} CPU-s in all, {result.cpu / result.cores:.1f} s "
            f"over {result.cores} cores); {result.wall:.1f} s wall on {result.cores} processes, "
            f"{result.wall / n:.3f} s a notebook; cells {cells['ok']} ran, {cells['error']} raised, "
            f"{cells['timeout']} stopped at the timeout")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="runs per notebook; the median is shown")
    parser.add_argument("--timeout", type=int, default=10, help="seconds per cell (default 10, as the benchmark)")
    parser.add_argument("--course", help="a course directory this grader graded: its notebooks alone (above)")
    parser.add_argument("--students", help="with --course: these students only (comma-separated ids)")
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    if args.course:
        totals = alone(args.course, args.students.split(",") if args.students else None, args.timeout)
        print(f"each notebook alone, one at a time, from {args.course} (cell timeout {args.timeout} s):")
        print_alone(totals)
        return 0
    keys = sorted(SOLUTIONS.glob("*/*.ipynb"))
    print(f"machine: {cores} cores, load average {os.getloadavg()[0]:.2f}")
    plain = floor(keys * args.rounds, args.timeout, cores=cores)
    print(f"floor of the answer keys ({args.rounds} rounds), each in a plain process: {summary(plain)}")
    by_key = {str(k): sorted(r["cpu"] for r in plain.notebooks if r["path"] == str(k)) for k in keys}
    print(f"{'notebook':34} {'floor':>6} {'start':>6} {'cells':>6} {'stop':>6} {'kernel CPU':>10} {'client CPU':>10}"
          "  (s, median; floor and kernel CPU in CPU-s)")
    totals = []
    time_notebook(keys[0])  # the zygote starts here, not in the first timing
    for path in keys:
        runs = [time_notebook(path) for _ in range(args.rounds)]
        med = {k: sorted(r[k] for r in runs)[len(runs) // 2] for k in runs[0]}
        med["floor"] = by_key[str(path)][len(by_key[str(path)]) // 2]
        totals.append(med)
        print(f"{path.stem:34} {med['floor']:6.2f} {med['start']:6.2f} {med['cells']:6.2f} {med['stop']:6.2f} "
              f"{med['kernel_cpu']:10.2f} {med['client_cpu']:10.2f}")
    mean = {k: sum(t[k] for t in totals) / len(totals) for k in totals[0]}
    print(f"{'mean':34} {mean['floor']:6.2f} {mean['start']:6.2f} {mean['cells']:6.2f} {mean['stop']:6.2f} "
          f"{mean['kernel_cpu']:10.2f} {mean['client_cpu']:10.2f}")
    per = mean["kernel_cpu"] / cores
    print(f"in a kernel: the cells' own CPU, {mean['kernel_cpu']:.2f} s a notebook over {cores} cores = "
          f"{per:.2f} s a notebook, {1 / per:.1f} notebooks/s; with the client's side of the messages "
          f"({mean['client_cpu']:.2f} s) {(mean['kernel_cpu'] + mean['client_cpu']) / cores:.2f} s a notebook")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
