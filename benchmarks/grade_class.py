"""Benchmark: grade one synthetic class with plain serial `nbgrader autograde` and with this grader, side by side.

    python -m benchmarks.grade_class [--students 100] [--assignments all|A,B] [--workers N]
                                     [--timeout 10] [--out DIR] [--seed 1] [--profile] [--cprofile]
                                     [--no-plain] [--scheduler local|ADDRESS]

1. writes a synthetic class (benchmarks/synthetic_class.py) to OUT/submissions;
2. runs its floor (benchmarks/floor.py): each notebook the graders run, its code cells alone
   in a plain Python process, with the same cell timeout, on as many processes as cores;
3. grades it twice, each into its own fresh course directory, with the same
   COURSE_GRADING_SEED (taken from the environment, or drawn and printed) and the
   same cell timeout: OUT/parallel with grade_class(workers=N), OUT/plain with
   grade_class(serial=True), which is stock `nbgrader autograde` per assignment;
4. compares part_score and needs_manual_grade of every (student, assignment, part)
   in the two gradebooks, prints every difference and exits 1 if there is one;
5. prints the machine, notebooks graded, wall seconds and CPU seconds a notebook for the
   floor and both graders (a grader's CPU: this process and its descendants, read from
   /proc by benchmarks/cpu_by_process.py), notebooks per second, and the ratios this
   grader / plain nbgrader and this grader / floor; with --profile, the CPU seconds of
   each kind of process in both runs (kernels, judgement kernels, nbgrader, workers, this process);
   with --cprofile, where this grader's main process spends time (cProfile, also
   saved to OUT/parallel.pstats).
"""
import argparse
import cProfile
import io
import os
import platform
import pstats
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbgrader
import numpy as np

from grader.engine import report
from grader.engine.grade import grade_class
from grader.engine.nbgrader_plugin import SEED_VARIABLE

from . import synthetic_class
from .cpu_by_process import CpuByProcess
from .floor import floor as run_floor, summary as floor_summary


@dataclass
class Run:
    name: str
    course: Path
    seconds: float
    rows: list            # grader.engine.report.collect(course): a row per student, assignment and part
    profile: object = None  # cProfile.Profile of the run, with --cprofile
    cpu: object = None      # CpuByProcess of the run: the CPU of its processes, by kind


def machine():
    """The machine in one line: what the numbers depend on."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"machine: {os.cpu_count()} cores ({usable} usable), {platform.machine()}, {platform.system()} "
            f"{platform.release()}; Python {platform.python_version()}, numpy {np.__version__}, "
            f"nbgrader {nbgrader.__version__}; {load()}")


def load():
    """The load average: on a shared machine, other work skews both timings (and the ratio)."""
    return "load average %.1f %.1f %.1f (1, 5, 15 min)" % os.getloadavg()


def grade(name, submissions, course, cprofile=False, **options):
    """Grade the class into course with grade_class(**options); time it, count its CPU (and cProfile it if asked)."""
    say = lambda *args: print(f"  [{name}]", *args, flush=True)  # noqa: E731
    profiler = cProfile.Profile() if cprofile else None
    cpu = CpuByProcess()
    start = time.perf_counter()
    with cpu:
        if profiler:
            profiler.enable()
        try:
            grade_class(submissions, course, say=say, **options)
        finally:
            if profiler:
                profiler.disable()
    seconds = time.perf_counter() - start
    # Both runs are read back from their gradebooks by the same code (not grade_class's return
    # value), so a difference can only come from what the grading wrote.
    return Run(name, Path(course), seconds, report.collect(course), profiler, cpu)


def scores(rows):
    """{(student, assignment, part): (part_score, needs_manual_grade)}."""
    return {(r["student_id"], r["assignment"], r["part"]): (r["part_score"], r["needs_manual_grade"]) for r in rows}


def differences(plain, fast):
    """Every (student, assignment, part) whose score or manual flag differs, or that one gradebook lacks."""
    a, b = scores(plain.rows), scores(fast.rows)
    out = []
    for key in sorted(a.keys() | b.keys()):
        if a.get(key) != b.get(key):
            shown = [f"{run.name} " + ("no row" if s is None else f"score={s[0]!r} manual={s[1]!r}")
                     for run, s in ((plain, a.get(key)), (fast, b.get(key)))]
            out.append(f"{' / '.join(key)}: " + ", ".join(shown))
    return out


def graded(run):
    """(student, assignment) of every submission with rows in this run's gradebook."""
    return {(r["student_id"], r["assignment"]) for r in run.rows}


def ungraded(plan, run):
    """The notebooks of the class handed in under their own name that have no row in this run's gradebook."""
    # A "missing" notebook was handed in under another name: whether intake gives the student
    # a row (a zero) or only names the file is intake's call, the same in both runs, so it
    # is left to the score comparison.
    done = graded(run)
    return [e for e in plan if e.kind != "missing" and (e.student_id, e.assignment) not in done]


def profile_summary(profiler, path, top=25):
    """The profile saved to path; as text, its top functions by cumulative time, then by own time."""
    profiler.dump_stats(str(path))
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text).strip_dirs()
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top // 2)
    return text.getvalue().strip()


def floor_of(submissions, plan, timeout):
    """The floor of the class (benchmarks/floor.py): every notebook handed in under its own name (the ones
    both graders run; a misnamed one is graded as missing, with nothing run), its cells in a plain process."""
    return run_floor([Path(submissions) / e.path for e in plan if e.kind != "missing"], timeout)


def benchmark(out, plan, workers=None, timeout=10, cprofile=False, plain=True, scheduler=None):
    """Write the class, run its floor, grade it both ways (this grader alone if not `plain`) into fresh course
    directories; returns (parallel run, plain run or None, floor). scheduler: this grader's (grade_class's)."""
    out = Path(out)
    print(f"class: {synthetic_class.describe(plan)} -> {out / 'submissions'}", flush=True)
    submissions = synthetic_class.write(out / "submissions", plan)
    only = sorted({e.assignment for e in plan})
    floor = floor_of(submissions, plan, timeout)
    print(f"  [floor] {floor_summary(floor, len(plan))}", flush=True)
    # This grader goes before plain nbgrader: plain nbgrader then runs with the disk cache already
    # warm, which can only flatter it, so the ratio printed is if anything too low.
    fast = grade("parallel", submissions, out / "parallel", cprofile, only=only, workers=workers, timeout=timeout,
                 scheduler=scheduler)
    if not plain:
        return fast, None, floor
    return fast, grade("plain", submissions, out / "plain", only=only, serial=True, timeout=timeout), floor


def side_by_side(plan, floor, fast, plain):
    """The table of the floor and both graders, per notebook of the class, and the ratios."""
    n = len(plan)
    lines = [f"\n{'':10}{'notebooks':>10}{'in gradebook':>14}{'wall s':>10}{'wall s/nb':>11}{'CPU s/nb':>10}"
             f"{'notebooks/s':>13}",
             f"{'floor':10}{n:>10}{'-':>14}{floor.wall:>10.1f}{floor.wall / n:>11.3f}{floor.cpu / n:>10.3f}"
             f"{n / floor.wall:>13.2f}"]
    for run in filter(None, (plain, fast)):
        rows = len(graded(run) & {(e.student_id, e.assignment) for e in plan})
        lines.append(f"{run.name:10}{n:>10}{rows:>14}{run.seconds:>10.1f}{run.seconds / n:>11.3f}"
                     f"{run.cpu.own() / n:>10.3f}{n / run.seconds:>13.2f}")
    if plain:
        lines.append(f"ratio: this grader is {plain.seconds / fast.seconds:.2f}x plain serial nbgrader autograde "
                     f"(wall)")
    lines.append(f"this grader / floor: wall {fast.seconds / floor.wall:.2f}x, "
                 f"CPU a notebook {fast.cpu.own() / floor.cpu:.2f}x" + (
                     f" (plain nbgrader / floor: wall {plain.seconds / floor.wall:.2f}x, "
                     f"CPU {plain.cpu.own() / floor.cpu:.2f}x)" if plain else ""))
    lines.append(f"floor: {floor_summary(floor, n)}")
    lines.append("CPU of a grader: its process and every process it started (kernels, workers, nbgrader), "
                 "read from /proc; other work on the machine (and the OS) meanwhile: "
                 + (f"plain {plain.cpu.other():.1f} CPU-s, " if plain else "")
                 + f"parallel {fast.cpu.other():.1f} CPU-s")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.grade_class", description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--assignments", default="all", help="all, or a comma-separated list (default all)")
    parser.add_argument("--workers", type=int, default=None, help="this grader's workers (default: its own)")
    parser.add_argument("--scheduler", default=None,
                        help="this grader on Dask: 'local' (a LocalCluster of --workers processes) or a scheduler's "
                             "address (default: local worker processes)")
    parser.add_argument("--no-plain", action="store_true",
                        help="floor and this grader only: plain nbgrader's time grows in proportion to the class "
                             "(measure it on a smaller one); scores are then not compared")
    parser.add_argument("--timeout", type=int, default=10, help="seconds per cell, both runs (default 10)")
    parser.add_argument("--out", help="an empty or new folder for the class and both course directories "
                                      "(default: a new temporary folder, kept)")
    parser.add_argument("--seed", type=int, default=1, help="fixes the class's mix (default 1)")
    parser.add_argument("--profile", action="store_true",
                        help="where the CPU went in both runs, by kind of process (benchmarks/cpu_by_process.py)")
    parser.add_argument("--cprofile", action="store_true",
                        help="also cProfile this grader's main process (it slows that process down)")
    args = parser.parse_args(argv)

    if args.students < 1:
        parser.error("--students must be at least 1")
    try:
        plan = synthetic_class.draw(args.students, synthetic_class.parse_assignments(args.assignments), args.seed)
    except ValueError as e:
        parser.error(str(e))
    if args.out and Path(args.out).exists() and any(Path(args.out).iterdir()):
        parser.error(f"--out {args.out}: not empty; both runs need fresh course directories, give a new folder")
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="grade-benchmark-"))
    if not os.environ.get(SEED_VARIABLE):
        os.environ[SEED_VARIABLE] = str(secrets.randbits(32))  # both runs then draw the same fresh inputs
    print(machine())
    print(f"class seed {args.seed}; grading seed {SEED_VARIABLE}={os.environ[SEED_VARIABLE]}; "
          f"cell timeout {args.timeout} s; workers {args.workers or 'default'}", flush=True)
    fast, plain, floor = benchmark(out, plan, args.workers, args.timeout, args.cprofile, not args.no_plain,
                                   args.scheduler)
    print(f"after the three runs: {load()}")
    return results(plan, floor, fast, plain, out, args.profile)


def results(plan, floor, fast, plain, out, profile=False):
    """Print what the three runs measured and whether the scores agree; the exit code (1: they do not)."""
    n = len(plan)
    print(side_by_side(plan, floor, fast, plain))
    for run in filter(None, (plain, fast)):
        if profile:
            print(f"\n{run.name}: where the CPU went ({os.cpu_count()} cores x {run.seconds:.0f} s wall)\n"
                  f"{run.cpu.table(n, run.seconds)}")
    if fast.profile:
        # cProfile sees the thread that called grade_class: waiting on workers shows as lock acquires.
        print(f"\nprofile of this grader's main process (its main thread; workers not included):\n"
              f"{profile_summary(fast.profile, Path(out) / 'parallel.pstats')}")

    failed = False
    for run in filter(None, (plain, fast)):
        lost = ungraded(plan, run)
        if lost:
            failed = True
            print(f"\n{run.name}: {len(lost)} notebooks have no row in the gradebook:")
            for e in lost:
                print(f"  {e.path} ({e.kind})")
    diff = differences(plain, fast) if plain else []
    if not plain:
        print("\nscores not compared: plain nbgrader did not run (--no-plain)")
    elif diff:
        failed = True
        print(f"\nscores differ on {len(diff)} parts:")
        print("\n".join(f"  {d}" for d in diff))
    else:
        print(f"\nscores identical: {len(scores(plain.rows))} parts of {n} notebooks")
    print(f"course directories: {', '.join(str(Path(out) / r.name) for r in filter(None, (plain, fast)))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
