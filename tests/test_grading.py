"""End to end: the sample class, graded by `nbgrader autograde` with this course's configuration."""
import os
import subprocess
import sys
import zlib
from pathlib import Path

import nbformat
import numpy as np
import pytest

from grader.grade import grade_class
from grader.nbgrader_plugin import SEED_VARIABLE
from grader.assignments import PROBES
from grader.protocol import MIME
from tests.sample_class import MANUAL, STUDENTS, write_class

SEED = 20261122


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("sample_class")
    write_class(root / "submissions")
    os.environ[SEED_VARIABLE] = str(SEED)  # fixed here only so the leak test knows the fresh inputs
    try:
        rows = grade_class(root / "submissions", root / "course", say=lambda *a: None)
    finally:
        del os.environ[SEED_VARIABLE]
    return root / "course", rows


@pytest.mark.parametrize("student, assignment", sorted(STUDENTS))
def test_every_part_gets_its_expected_score(graded, student, assignment):
    _, rows = graded
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
    course, _ = graded
    verdicts = _verdicts(course, student, assignment)
    for part, words in STUDENTS[student, assignment].diagnoses.items():
        assert words in verdicts[part], f"{student} {part}: {verdicts[part]!r}"


def test_feedback_holds_verdicts_not_hidden_tests_inputs_or_references(graded):
    course, _ = graded
    nbgrader = Path(sys.executable).with_name("nbgrader")
    for assignment in sorted({s.assignment for s in STUDENTS.values()}):
        subprocess.run([str(nbgrader), "generate_feedback", assignment, "--force"], cwd=course, check=True,
                       capture_output=True)
    returned = list((course / "feedback").rglob("*.html")) + list((course / "autograded").rglob("*.ipynb"))
    assert len(returned) == 2 * len(STUDENTS)
    forbidden = ["HIDDEN TESTS", "__course_probe", MIME, "sealed probe: only the course grader", '"npy"']
    # The fresh inputs and their reference results, as this run drew them.
    for notebook, probes in PROBES.items():
        for grade_id, probe in probes.items():
            cases = probe.cases(np.random.default_rng([SEED, zlib.crc32(grade_id.encode())]))
            for case in cases[1:]:
                for value in list(case.inputs.values()) + [probe.reference(case.inputs)]:
                    flat = np.concatenate([np.ravel(v) for v in value]) if isinstance(value, list) \
                        else np.ravel(value)
                    forbidden += [f"{x:.6f}" for x in np.asarray(flat, dtype=float)[:4] if abs(x) > 1e-3]
    for path in returned:
        text = path.read_text()
        leaks = [f for f in forbidden if f in text]
        assert not leaks, f"{path.relative_to(course)} shows {leaks[:5]}"
    verdicts = _verdicts(course, "correct", "01_self_attention")
    assert "right on the book's case and on 3 fresh inputs" in verdicts["test_self_attention"]
