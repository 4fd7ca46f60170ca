"""Grades out of the gradebook, in a file an LMS takes as it is.

    python -m grader export [COURSE_DIR] --format canvas|csv [--out FILE]

csv     one row per student and assignment:
            student_id, assignment, score, max_score, pending_manual
        score is nbgrader's (autograded and hand-graded parts, less any late penalty);
        pending_manual counts the written answers not graded by hand yet (score leaves them out).
canvas  Canvas's gradebook import: the columns Student, ID, SIS User ID, SIS Login ID, Section,
        then one column per assignment (named by its id; Canvas makes a new assignment of a
        column it does not know), and a "Points Possible" row under the header. The student id
        goes in SIS User ID, the column Canvas matches students on when ID is empty.

Neither file is `nbgrader export`'s COURSE_DIR/grades.csv; a score is written as nbgrader
stores it, and every cell that a spreadsheet would run as a formula is written as text.
"""
import csv
import sys
from pathlib import Path

from . import report

FORMATS = {"csv": "scores.csv", "canvas": "canvas_gradebook.csv"}  # the default file name of each
CSV_COLUMNS = ["student_id", "assignment", "score", "max_score", "pending_manual"]
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def scores(rows):
    """{(student, assignment): {score, max_score, pending_manual, name}} from the report's part rows."""
    out = {}
    for r in rows:
        key = (r["student_id"], r["assignment"])
        if key not in out:
            name = ", ".join(n for n in (r.get("last_name"), r.get("first_name")) if n) or r["student_id"]
            out[key] = {"score": r["score"], "max_score": r["max_score"], "pending_manual": 0, "name": name}
        out[key]["pending_manual"] += bool(r["needs_manual_grade"])
    return out


def _number(x):
    return f"{x:g}" if isinstance(x, (int, float)) else x


def write(rows, path, form):
    table = scores(rows)
    assignments = sorted({a for _, a in table})
    students = sorted({s for s, _ in table})
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        if form == "csv":
            writer.writerow(CSV_COLUMNS)
            for (student, assignment), v in sorted(table.items()):
                writer.writerow([report.inert(student), assignment, _number(v["score"]), _number(v["max_score"]),
                                 v["pending_manual"]])
        else:
            writer.writerow(CANVAS_COLUMNS + assignments)
            maxima = {a: next(v["max_score"] for (_, b), v in table.items() if b == a) for a in assignments}
            writer.writerow(["Points Possible", "", "", "", ""] + [_number(maxima[a]) for a in assignments])
            for student in students:
                name = next(v["name"] for (s, _), v in table.items() if s == student)
                writer.writerow([report.inert(name), "", report.inert(student), "", ""]
                                + [_number(table[student, a]["score"]) if (student, a) in table else ""
                                   for a in assignments])
    return table


def main(course, form, out=None):
    course = Path(course)
    if not (course / "gradebook.db").exists():
        print(f"export: {course}: no gradebook.db there; grade a class into it first "
              "(python -m grader grade SUBMISSIONS --course COURSE_DIR)", file=sys.stderr)
        return 2
    path = Path(out) if out else course / FORMATS[form]
    table = write(report.collect(course), path, form)
    pending = sum(v["pending_manual"] for v in table.values())
    print(f"export: {len({s for s, _ in table})} students, {len({a for _, a in table})} assignments -> {path}")
    if pending:
        print(f"export: {pending} written answers are not graded by hand yet: their scores count as 0 in the "
              "file until they are (grade them in formgrader, then export again)", file=sys.stderr)
    return 0
