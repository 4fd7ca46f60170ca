"""The notebook's visible check and the sealed verdict agree: for every sample student and every graded
part, the check a student runs fails exactly when grading gives less than full marks; and a failing check
shows its message in a line or two (CheckFailed), not a traceback through the check's code.

A part that calls another graded part (Probe.uses) is marked with the course's version of that helper
when the student's own is wrong, so its verdict and its check (which runs the student's helper) speak of
different code: for such a student that part is not compared. Everywhere else they must agree.

Each student's notebook (tests/sample_class.py) runs here in-process, in one IPython shell reset between
notebooks: the sample students are our own fixtures, so no kernel or sandbox is needed.

    python -m tests.test_checks_agree [ASSIGNMENT ...]   prints every disagreement
"""
import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # in this process only: the build's kernels, started from here too, keep their own

from nbgrader import utils  # noqa: E402

from tests.sample_class import MANUAL, STUDENTS, submission  # noqa: E402


def _shell():
    from IPython.core.interactiveshell import InteractiveShell
    return InteractiveShell.instance()


@contextlib.contextmanager
def _modules_restored():
    """Some sample students patch numpy (np.allclose = ...): put every module they can reach back after."""
    import builtins
    import numpy
    modules = (numpy, numpy.linalg, numpy.random, builtins)
    saved = [dict(vars(m)) for m in modules]
    try:
        yield
    finally:
        for module, names in zip(modules, saved):
            for name in set(vars(module)) - set(names):
                delattr(module, name)
            for name, value in names.items():
                if vars(module).get(name) is not value:
                    setattr(module, name, value)


MAX_CHECK_LINES = 2  # what a failing check may show: its message, in a line or two


def checks_failed(student, shown=None):
    """{grade_id of a graded test cell: whether its visible check raised}, running the notebook top to bottom.

    shown: if a dict, gets {grade_id: (exception type, lines shown)} of every check that failed by an
    AssertionError (a check's own verdict, not an error in the student's code)."""
    shell = _shell()
    shell.reset(new_session=False)
    failed = {}
    tracebacks = []
    shell._showtraceback = lambda etype, value, stb: tracebacks.append((etype, stb))  # what IPython would show
    with _modules_restored():
        for cell in submission(student).cells:
            if cell.cell_type != "code":
                continue
            tracebacks.clear()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                result = shell.run_cell(cell.source, store_history=False)
            if utils.is_grade(cell) and not utils.is_solution(cell):
                failed[cell.metadata.nbgrader["grade_id"]] = not result.success
                if shown is not None and not result.success and isinstance(result.error_in_exec, AssertionError):
                    lines = sum(len(str(s).splitlines()) for _, stb in tracebacks for s in stb)
                    shown[cell.metadata.nbgrader["grade_id"]] = (type(result.error_in_exec).__name__, lines)
    import matplotlib.pyplot as plt
    plt.close("all")
    return failed


def disagreements(key):
    from grader.course import PROBES
    student = STUDENTS[key]
    probes = PROBES[key[1]]
    points = {c.metadata.nbgrader["grade_id"]: float(c.metadata.nbgrader["points"])
              for c in submission(student).cells if utils.is_grade(c)}
    out = []
    shown = {}
    for part, failed in checks_failed(student, shown).items():
        expected = student.expected.get(part)
        if expected is None or expected == MANUAL:
            continue
        full = expected >= points[part]
        helpers = probes[part].uses.values() if part in probes else ()
        if any(student.expected.get(h) not in (None, MANUAL) and student.expected[h] < points[h] for h in helpers):
            continue  # marked with the course's helper in place of the student's wrong one
        if failed == full:
            out.append(f"{key[0]} {key[1]} {part}: the check {'fails' if failed else 'passes'} but the verdict "
                       f"gives {expected} of {points[part]:g}")
    for part, (kind, lines) in shown.items():
        if kind != "CheckFailed" or lines > MAX_CHECK_LINES:
            out.append(f"{key[0]} {key[1]} {part}: the failing check shows a {kind} in {lines} lines, not a "
                       f"message of at most {MAX_CHECK_LINES}")
    return out


@pytest.fixture(scope="module")
def found():
    """Every disagreement, found in child processes: an IPython shell in this one would take over
    sys.modules['__main__'] and the hooks of the pytest worker that runs the other tests. Two children,
    each with every other assignment, run at once: each runs its notebooks one after another on one core."""
    assignments = sorted({a for _, a in STUDENTS})
    children = [subprocess.Popen([sys.executable, "-m", "tests.test_checks_agree", "--json", *assignments[k::2]],
                                 stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent)
                for k in range(2)]
    out = []
    for child in children:
        stdout, _ = child.communicate()
        assert child.returncode == 0, f"tests.test_checks_agree exited with {child.returncode}"
        out += json.loads(stdout.splitlines()[-1])
    return out


@pytest.mark.parametrize("student, assignment", sorted(STUDENTS))
def test_the_visible_check_fails_exactly_when_the_verdict_takes_marks(found, student, assignment):
    assert [d for d in found if d.startswith(f"{student} {assignment} ")] == []


if __name__ == "__main__":
    wanted = [a for a in sys.argv[1:] if not a.startswith("--")]
    found_here = [d for key in sorted(STUDENTS) if not wanted or any(w in key[1] for w in wanted)
                  for d in disagreements(key)]
    if "--json" in sys.argv:
        print(json.dumps(found_here))
    else:
        print("\n".join(found_here) or "the checks and the verdicts agree")


def beam_check_error():
    """The message 11's beam check raises on the answer key with a beam_search where length_norm changes nothing, the
    notebook run in an IPython shell of this process (run it in a child: see `found`)."""
    import nbformat
    nb = nbformat.read(Path("solutions/11_decoding/11_decoding.ipynb"), as_version=4)
    shell = _shell()
    shell.reset(new_session=False)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = cell.source
        if utils.is_solution(cell) and "def beam_search(" in source:
            source = source.replace("  if length_norm:\n", "  if False:\n")
            assert "if False:" in source
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            result = shell.run_cell(source, store_history=False)
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "test_beam_search":
            return str(result.error_in_exec)
    return ""


def test_a_beam_search_where_length_norm_changes_nothing_is_not_told_a_catalogued_mistake():
    """On the check's example a product of probabilities divided by the length picks the beam the sum picks
    without normalisation: the same ids as a search that ignores length_norm. The check names no mistake there
    (helper-36's report); it says what came back and what dividing by the number of new tokens picks."""
    error = subprocess.run([sys.executable, "-c", "from tests.test_checks_agree import beam_check_error; "
                            "print(repr(beam_check_error()))"], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).parent.parent).stdout.splitlines()[-1]
    assert "Recognised mistake" not in error and "the best beam without length normalisation" in error, error
