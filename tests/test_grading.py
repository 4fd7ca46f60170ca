"""End to end: the sample class, graded by `python -m grader grade` (parallel, recorded by nbgrader autograde).

The class is graded here, into a temporary course, unless COURSE_SAMPLE_CLASS_GRADED names a course directory
where `make demo` (the README's main command) has just graded it: then every check below is made on that
course (a copy of it). CI does so (.ci/run), so the sample class is graded once there, and the main command's
own output is what these tests check.
"""
import csv
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from grader.engine import report
from grader.engine.grade import grade_class
from grader.engine.nbgrader_plugin import SEED_VARIABLE, grading_secret, probe_rng, submitted_code
from grader.engine.sandbox_policy import RUNTIME_FOLDER
from grader.course import PROBES
from grader.engine.protocol import MIME
from tests.sample_class import MANUAL, STUDENTS, submission, write_class

SEED = 20261122
GRADED_VARIABLE = "COURSE_SAMPLE_CLASS_GRADED"  # a course directory `make demo` graded the sample class in


def _graded_by_demo(given, course):
    """The course `make demo` graded, copied to `course` (the feedback written below stays out of it), after
    checking it holds the sample class as tests/sample_class.py writes it now, every notebook graded."""
    # Not copied: the run's cache of executed notebooks, the kernels' runtime files, the submissions as handed
    # in (make demo keeps them inside the course directory) and any feedback written before.
    shutil.copytree(given, course, symlinks=True, ignore=shutil.ignore_patterns(
        "executed", RUNTIME_FOLDER, "sample_submissions", "feedback"))
    config = course / "nbgrader_config.py"  # the course's root, as `grader grade` wrote it: now the copy's
    config.write_text(re.sub(r"(?m)^c\.CourseDirectory\.root = .*$", f"c.CourseDirectory.root = {str(course)!r}",
                             config.read_text()))
    stale = [f"{s}/{a}" for (s, a), student in sorted(STUDENTS.items())
             if not (course / "autograded" / s / a / f"{a}.ipynb").exists()
             or submitted_code(nbformat.read(str(course / "submitted" / s / a / f"{a}.ipynb"), as_version=4))
             != submitted_code(submission(student))]
    assert not stale, (f"{GRADED_VARIABLE}={given}: not the sample class as tests/sample_class.py writes it now, "
                       f"graded ({len(stale)} notebooks differ or were not graded, first {stale[0]}): run `make demo`")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """(course directory, the grade table's rows, the secret its fresh inputs were drawn from)."""
    root = tmp_path_factory.mktemp("sample_class")
    course = root / "course"
    if os.environ.get(GRADED_VARIABLE):
        _graded_by_demo(Path(os.environ[GRADED_VARIABLE]), course)
        secret = grading_secret(course)
        rows = [r for r in report.collect(course) if (r["student_id"], r["assignment"]) in STUDENTS]
    else:
        write_class(root / "submissions")
        os.environ[SEED_VARIABLE] = secret = str(SEED)  # fixed here only so the leak test knows the fresh inputs
        try:
            rows = grade_class(root / "submissions", course, say=lambda *a: None)
        finally:
            del os.environ[SEED_VARIABLE]
    return course, rows, secret


@pytest.mark.parametrize("student, assignment", sorted(STUDENTS))
def test_every_part_gets_its_expected_score(graded, student, assignment):
    _, rows, _ = graded
    got = {r["part"]: (MANUAL if r["needs_manual_grade"] else r["part_score"])
           for r in rows if r["student_id"] == student and r["assignment"] == assignment}
    assert got == pytest.approx(STUDENTS[student, assignment].expected)


def _verdicts(course, student, assignment):
    path = course / "autograded" / student / assignment / f"{assignment}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    out = {}
    for c in nb.cells:
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade"):
            out[c.metadata.nbgrader["grade_id"]] = " ".join(
                str(o.get("text") or o.get("evalue") or "") for o in c.outputs)
    return out


@pytest.mark.parametrize("student, assignment", sorted(k for k, s in STUDENTS.items() if s.diagnoses))
def test_mistakes_are_named_in_the_verdict(graded, student, assignment):
    course, _, _ = graded
    verdicts = _verdicts(course, student, assignment)
    for part, words in STUDENTS[student, assignment].diagnoses.items():
        alternatives = (words,) if isinstance(words, str) else words
        assert any(w in verdicts[part] for w in alternatives), f"{student} {part}: {verdicts[part]!r}"


def test_an_untouched_part_is_not_attempted_and_no_mistake_is_named(graded):
    """A part whose answer cells are as handed out gets "not attempted", in the verdict (so the feedback),
    the report's rows and CSV, never a named mistake; a part that was filled in never does."""
    from grader.engine.protocol import NOT_ATTEMPTED
    course, rows, _ = graded
    auto = [r for r in rows if r["part"].startswith("test_") and not r["needs_manual_grade"]]
    untouched = [r for r in auto if STUDENTS[r["student_id"], r["assignment"]].untouched]
    assert len(untouched) >= 6 * 2, "the sample class has an untouched notebook per assignment"
    for r in untouched:
        assert (r["finding"], r["mistake"], r["part_score"]) == (NOT_ATTEMPTED, "", 0), r
        assert NOT_ATTEMPTED in _verdicts(course, r["student_id"], r["assignment"])[r["part"]]
    assert not [r for r in auto if r not in untouched and r["finding"] == NOT_ATTEMPTED]
    from grader.engine.report import write_report
    write_report(course, course / "report")
    with open(course / "report" / "grades.csv") as f:
        table = list(csv.DictReader(f))
    marked = {(r["student_id"], r["assignment"], r["part"]) for r in table if r["finding"] == NOT_ATTEMPTED}
    written = {(r["student_id"], r["assignment"], r["part"]) for r in rows if not r["part"].startswith("test_")
               and STUDENTS[r["student_id"], r["assignment"]].untouched}  # written answers left as handed out
    assert written and marked == {(r["student_id"], r["assignment"], r["part"]) for r in untouched} | written


def _tell_tales(value):
    """Strings that would show a hidden input or result: its first numbers to 6 places, or a whole sentence."""
    if isinstance(value, str):
        return [value] if len(value) >= 12 else []  # a fresh sentence; single words appear anywhere
    if isinstance(value, list):
        return [t for v in value[:4] for t in _tell_tales(v)]
    # 8 decimals, numpy's own printing: at 6, a student's own printed numbers (thousands of them
    # in some feedback) share the first digits of a fresh input now and then by chance.
    numbers = np.ravel(np.asarray(value, dtype=float))[:4]
    # Near 0 or 1 (a saturated attention weight) a number identifies nothing: the notebook prints
    # such weights too (the book's head weights hold 0.9999998968), and one drawn now can share its digits.
    return [f"{x:.8f}" for x in numbers if abs(x) > 1e-3 and abs(abs(x) - 1) > 1e-3]


def test_feedback_holds_verdicts_not_hidden_tests_inputs_or_references(graded):
    course, _, secret = graded
    nbgrader = Path(sys.executable).with_name("nbgrader")
    assignments = sorted({a for _, a in STUDENTS})
    # Two nbgrader processes at a time: each writes its assignment's HTML on one core.
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda a: subprocess.run([str(nbgrader), "generate_feedback", a, "--force"], cwd=course,
                                               check=True, capture_output=True), assignments))
    always = ["HIDDEN TESTS", "__course_probe", MIME, "sealed probe: only the course grader", '"npy"']
    # The code each student handed in, as grading saw it (the autograded notebook: nbgrader's own
    # sanitizing done, the test cells aside), which the fresh inputs also depend on.
    codes = {(s, a): submitted_code(nbformat.read(str(course / "autograded" / s / a / f"{a}.ipynb"), as_version=4))
             for s, a in STUDENTS}
    for assignment in assignments:
        returned = list((course / "feedback").glob(f"*/{assignment}/*.html")) + \
            list((course / "autograded").glob(f"*/{assignment}/*.ipynb"))
        assert len(returned) == 2 * sum(a == assignment for _, a in STUDENTS)
        for path in returned:
            # This student's fresh inputs and their reference results, as this run drew them.
            student = path.relative_to(course).parts[1]
            forbidden = [[words] for words in always]  # groups: a value leaks when two of its tales show
            for grade_id, probe in PROBES[assignment].items():
                rng = probe_rng(secret, student, assignment, assignment, grade_id, codes[student, assignment])
                for case in probe.cases(rng):
                    if case.label == "fresh":
                        for value in list(case.inputs.values()) + [probe.reference(case.inputs)]:
                            forbidden.append(_tell_tales(value))
            text = path.read_text()
            # What the student handed in shows already: a fresh reference can share common numbers with it
            # (softmax's 0.09003057 and 0.24472847, which the notebook's own cells print), and returning the
            # student's own outputs leaks nothing.
            handed = (course / "submitted" / student / assignment / f"{assignment}.ipynb").read_text()
            # One number to 8 decimals can match one of the thousands a notebook prints by chance (a fresh
            # bias of 0.27251178 met a printed reference 0.2725117878); a printed input shows several.
            leaks = [tales for tales in forbidden if tales and
                     sum(t in text and t not in handed for t in tales) >= min(2, len(tales))]
            assert not leaks, f"{path.relative_to(course)} shows {leaks[:5]}"
    verdicts = _verdicts(course, "correct", "01_self_attention")
    assert "right on the book's case and on 3 fresh inputs" in verdicts["test_self_attention"]
    # Scripts, event handlers and Javascript outputs a submission wrote are inert in its feedback.
    import re
    html = next((course / "feedback" / "active_content" / "01_self_attention").glob("*.html")).read_text()
    assert not re.search(r"<script>\s*alert|<[a-z]+[^>]*\son[a-z]+=|fetch\('/formgrader[^<]*</script>", html)
    assert "application/javascript" not in html
    # A verdict wraps inside the page (pre-wrap), not one <pre> line that scrolls sideways.
    html = next((course / "feedback" / "correct" / "01_self_attention").glob("*.html")).read_text()
    assert "white-space: pre-wrap" in html and "right on the book's case" in html


def test_the_answer_keys_returned_notebook_holds_no_error(graded):
    """A perfect notebook's feedback shows no error anywhere: the cells after a check use names the check
    defines, and a probe in place of the check defines them too (it runs the check after its report)."""
    course, _, _ = graded
    assignments = sorted({a for _, a in STUDENTS})
    assert len(assignments) >= 9
    for assignment in assignments:
        nb = nbformat.read(str(course / "autograded" / "correct" / assignment / f"{assignment}.ipynb"), as_version=4)
        errors = [f"cell {i}: {o.get('ename')}: {str(o.get('evalue'))[:120]}" for i, c in enumerate(nb.cells)
                  if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, f"{assignment}: {errors}"


def test_a_written_answer_left_as_handed_out_says_not_attempted_not_zero(graded):
    import io
    from grader.engine.grade import print_table
    from grader.engine.protocol import NOT_ATTEMPTED
    _, rows, _ = graded
    untouched = [r for r in rows if r["student_id"] == "untouched" and not r["part"].startswith("test_")]
    assert len(untouched) >= 9 and all(r["finding"] == NOT_ATTEMPTED and NOT_ATTEMPTED in r["verdict"] for r in untouched)
    written = [r for r in rows if r["student_id"] == "correct" and not r["part"].startswith("test_")]
    assert written and all(r["needs_manual_grade"] and r["finding"] != NOT_ATTEMPTED for r in written)
    table = io.StringIO()
    print_table(rows, out=table)
    lines = [line.rstrip() for line in table.getvalue().splitlines() if line.startswith("untouched ")]
    # its by-hand total: "not attempted", or "-" for a notebook with no written answer (09)
    assert sum(line.endswith("  not attempted") for line in lines) >= 9, lines
    assert all(line.endswith("  not attempted") or line.endswith("  -") for line in lines), lines


def test_grading_refuses_without_a_sandbox_unless_told(monkeypatch):
    import grader.engine.sandbox
    from grader.engine.grade import check_sandbox
    monkeypatch.setattr(grader.engine.sandbox, "sandbox_available", lambda: (False, "bubblewrap is not installed"))
    with pytest.raises(SystemExit, match=r"(?s)bubblewrap is not installed.*--unsandboxed"):
        check_sandbox()
    assert "unsandboxed" in check_sandbox(unsandboxed=True)


def test_nbgrader_export_reads_the_gradebook_grading_wrote(graded):
    """The parallel run records through nbgrader, so nbgrader's own export sees every submission."""
    import csv
    import io
    course, rows, _ = graded
    nbgrader = Path(sys.executable).with_name("nbgrader")
    out = course / "export.csv"
    subprocess.run([str(nbgrader), "export", "--to", str(out)], cwd=course, check=True, capture_output=True)
    exported = {(r["student_id"], r["assignment"]): float(r["raw_score"])
                for r in csv.DictReader(io.StringIO(out.read_text()))}
    assert set(STUDENTS) <= set(exported)  # (export lists every student for every assignment)
    for (student, assignment), score in exported.items():
        mine = sum(r["part_score"] or 0 for r in rows if (r["student_id"], r["assignment"]) == (student, assignment))
        assert score == pytest.approx(mine), (student, assignment)
        assert score == 0 or (student, assignment) in STUDENTS


def test_most_parts_that_lose_marks_get_a_diagnosis(graded):
    """Over the sample class (untouched notebooks aside: nothing there to diagnose), at least three parts in
    four that lose marks get a named mistake, a structural finding or a helper's mistake; every verdict
    that lost marks says something beyond the score."""
    from grader.engine.report import DIAGNOSED, diagnosis_coverage
    _, rows, _ = graded
    attempted = [r for r in rows if not STUDENTS[r["student_id"], r["assignment"]].untouched]
    counts = diagnosis_coverage(attempted)
    lost = sum(counts.values())
    diagnosed = sum(counts[k] for k in DIAGNOSED)
    assert lost > 50 and diagnosed >= 0.75 * lost, dict(counts)


@pytest.mark.parametrize("form", ["csv", "canvas"])
def test_the_lms_export_holds_every_students_score_as_the_gradebook_does(graded, tmp_path, form):
    from grader.engine.export import CANVAS_COLUMNS, CSV_COLUMNS, main
    course, rows, _ = graded
    out = tmp_path / f"{form}.csv"
    assert main(course, form, out) == 0
    with open(out, newline="") as f:
        table = list(csv.reader(f))
    expected = {}
    for r in rows:
        score, most, pending = expected.get((r["student_id"], r["assignment"]), (r["score"], r["max_score"], 0))
        expected[r["student_id"], r["assignment"]] = (score, most, pending + bool(r["needs_manual_grade"]))
    # The answer key's written answers are not graded by hand yet: its score is everything else.
    autograded = {a: sum(r["part_max_score"] for r in rows if r["student_id"] == "correct" and r["assignment"] == a
                         and not r["needs_manual_grade"]) for (s, a) in expected if s == "correct"}
    assert {a: expected["correct", a][0] for a in autograded} == pytest.approx(autograded)
    if form == "csv":
        assert table[0] == CSV_COLUMNS
        got = {(s, a): (float(score), float(most), int(pending)) for s, a, score, most, pending in table[1:]}
        assert got.keys() == expected.keys()
        assert all(got[k] == pytest.approx(expected[k]) for k in expected), \
            [(k, got[k], expected[k]) for k in expected if got[k] != pytest.approx(expected[k])][:5]
    else:
        header, possible, students = table[0], table[1], table[2:]
        assignments = header[len(CANVAS_COLUMNS):]
        assert header[:len(CANVAS_COLUMNS)] == CANVAS_COLUMNS and assignments == sorted({a for _, a in expected})
        assert possible[0] == "Points Possible"
        assert [float(x) for x in possible[len(CANVAS_COLUMNS):]] == [next(m for (_, b), (_, m, _) in expected.items()
                                                                           if b == a) for a in assignments]
        assert len(students) == len({s for s, _ in expected})
        for line in students:
            student = line[2]  # SIS User ID
            for a, cell in zip(assignments, line[len(CANVAS_COLUMNS):]):
                # (the export writes a score to two decimals; the gradebook's sum of parts is a float: 6.44 against
                # 6.4399999999999995, so compared as numbers, not bits)
                want = expected[student, a][0] if (student, a) in expected else None
                assert (float(cell) if cell else None) == (pytest.approx(want) if want is not None else None)
