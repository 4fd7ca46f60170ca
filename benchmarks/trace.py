"""What the first-wrong-step trace costs (issue 26): each part that declares its steps is probed on the answer
key in-process (no kernel, no sandbox), with and without the trace, and the seconds and the trace's size are
printed.

    python -m benchmarks.trace [--rounds 3] [--names nb02 nb08 ...]

With --names, it also grades those notebooks' sample students (tests/students, the ones written as edits of the
answer key) in-process and times the check that a named mistake's own path agrees with the student's
(protocol._walks: the mistake's code traced, both paths compared), the grading side's share of the trace.

The trace is the arrays the student's code makes, sent back with the probe's report (protocol.py's
TRACE_COUNT, TRACE_SIZE, TRACE_BYTES); only parts with Probe.steps are traced.
"""
import argparse
import contextlib
import io
import json
import time

import numpy as np


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trace")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--names", nargs="*", default=(), metavar="nbNN")
    args = parser.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import IPython.display
    from IPython.core.interactiveshell import InteractiveShell
    from nbgrader import utils

    from grader.course import PROBES
    from grader.engine import protocol
    from tests.test_diagnosis import _notebook

    shell = InteractiveShell.instance()
    shown = []
    IPython.display.display = lambda obj, raw=False: shown.append(obj)
    seconds, sizes, parts = {False: 0.0, True: 0.0}, [], 0
    for assignment, probes in PROBES.items():
        if not any(p.steps for p in probes.values()):
            continue
        shell.reset(new_session=False)
        nb = _notebook(assignment, {})
        solutions = {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells if utils.is_solution(c)}
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            probe = probes.get(grade_id)
            if probe and utils.is_grade(cell) and not utils.is_solution(cell):
                if probe.steps:
                    parts += 1
                    cases = probe.cases(np.random.default_rng(0))
                    for traced in (False, True):
                        steps, probe.steps = probe.steps, (probe.steps if traced else None)
                        source = protocol.probe_source(probe, cases, solutions.get(probe.cell, ""))
                        probe.steps = steps
                        start = time.perf_counter()
                        for _ in range(args.rounds):
                            shown.clear()
                            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                                shell.run_cell(source, store_history=False)
                        seconds[traced] += (time.perf_counter() - start) / args.rounds
                    report = [o for o in shown if protocol.MIME in o][0][protocol.MIME]
                    sizes.append(sum(len(json.dumps(r.get("trace", []))) for r in report["results"]))
                continue
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                shell.run_cell(cell.source, store_history=False)
    print(f"{parts} parts that declare their steps, the answer keys' probes, mean of {args.rounds} rounds:")
    print(f"  without the trace {seconds[False]:.2f} s, with it {seconds[True]:.2f} s "
          f"(+{seconds[True] - seconds[False]:.2f} s, {1000 * (seconds[True] - seconds[False]) / parts:.0f} ms a part)")
    print(f"  trace sent back: {sum(sizes) / 1e6:.2f} MB in all, {max(sizes) / 1e3:.0f} kB at most for one part")
    if args.names:
        _names(args.names)


def _names(notebooks):
    """Time protocol._walks over the sample students of `notebooks` (["nb02", ...])."""
    from grader.engine import protocol
    from tests.students import modules
    from tests.test_diagnosis import grade_in_process
    walks, spent = protocol._walks, []

    def timed(*args):
        start = time.perf_counter()
        try:
            return walks(*args)
        finally:
            spent.append(time.perf_counter() - start)
    protocol._walks = timed
    students = 0
    try:
        for module in modules():
            if module.__name__.rsplit(".", 1)[-1] not in notebooks:
                continue
            for student in module.STUDENTS.values():
                if student.edits and not student.cells and not student.untouched:
                    students += 1
                    grade_in_process(student.assignment, student.edits, 0)
    finally:
        protocol._walks = walks
    if spent:
        print(f"{students} sample students of {', '.join(notebooks)}: {len(spent)} named mistakes checked against "
              f"the student's path, {1000 * sum(spent) / len(spent):.0f} ms each on average, "
              f"{1000 * max(spent):.0f} ms at most")


if __name__ == "__main__":
    main()
