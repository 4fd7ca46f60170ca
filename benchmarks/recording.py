"""What recording costs: a class this grader graded is graded again in a copy of its course directory, where
every notebook is found already run in <course>/executed, so no student's kernel runs. What is left is what a
grading run does around the kernels: nbgrader's records (sanitizing, the probes put in again, the verdicts, the
gradebook), the judgement kernels they start, the plan and this process.

    python -m benchmarks.recording COURSE SUBMISSIONS [--timeout 10] [--rounds 2] [--out DIR]

COURSE is a course directory benchmarks.grade_class graded (OUT/parallel) and SUBMISSIONS the class it graded
(OUT/submissions), with the grading seed it used: COURSE_GRADING_SEED as it was then (grade_class prints it), or the
course's own .grading_secret, and its cell timeout (the executed notebooks are kept by it). Each round grades a fresh
copy (under --out, default a new temporary folder) and prints the CPU seconds by kind of process
(benchmarks/cpu_by_process.py). Two rounds of the same code differ by the machine's noise: compare rounds of two
versions of the code on the same course, side by side.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.cpu_by_process import CpuByProcess
from grader.engine.grade import grade_class


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.recording")
    parser.add_argument("course", type=Path)
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--timeout", type=int, default=10, help="the graded run's cell timeout (default 10)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, help="where the copies go (default: a new temporary folder)")
    args = parser.parse_args(argv)
    course = args.course.resolve()
    if not (course / "executed").is_dir() or not (course / "gradebook.db").is_file():
        parser.error(f"{course}: no executed/ or gradebook.db: give a course directory this grader graded")
    if not os.environ.get("COURSE_GRADING_SEED") and not (course / ".grading_secret").exists():
        parser.error(f"{course}: set COURSE_GRADING_SEED to the grading seed the course was graded with")
    out = args.out or Path(tempfile.mkdtemp(prefix="recording-"))
    notebooks = len(list(course.glob("autograded/*/*/*.ipynb")))  # those recorded (a missing one has none)
    for round_ in range(1, args.rounds + 1):
        copy = out / f"round{round_}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(course, copy, symlinks=True)
        cpu = CpuByProcess()
        start = time.perf_counter()
        with cpu:
            grade_class(args.submissions, copy, say=lambda *a: None, timeout=args.timeout, progress=False)
        wall = time.perf_counter() - start
        print(f"round {round_}: {notebooks} notebooks recorded again in {wall:.1f} s ({copy})")
        print(cpu.table(notebooks=notebooks, wall=wall), flush=True)


if __name__ == "__main__":
    sys.exit(main())
