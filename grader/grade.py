"""Grade a class: take in a folder of submissions, run `nbgrader autograde`, print the grade table.

    python -m grader grade SUBMISSIONS [--course DIR] [--assignment A] [--csv FILE]

SUBMISSIONS holds <student>/<assignment>/<notebook>.ipynb, the layout of
nbgrader's submitted/ folder. Grading happens in a course directory (default
.course/) whose nbgrader_config.py loads this repository's, so the gradebook,
`nbgrader export`, formgrader and `nbgrader generate_feedback` all work there.
"""
import csv
import shutil
import subprocess
import sys
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from .build import ROOT, SOURCE, assignments as known_assignments

COURSE_CONFIG = '''\
# Written by `python -m grader grade`: this course directory uses the course's configuration.
c = get_config()  # noqa: F821
load_subconfig({config!r})  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.source_directory = {source!r}
'''


def prepare(course):
    """A course directory that grades with this repository's source/ and configuration."""
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(COURSE_CONFIG.format(
        config=str(ROOT / "nbgrader_config.py"), root=str(course), source=str(SOURCE)))


def take_in(submissions, course, only=None, say=print):
    """Copy submissions into course/submitted; name every folder that is not an assignment."""
    known = set(known_assignments())
    found = set()
    for student in sorted(p for p in submissions.iterdir() if p.is_dir()):
        for folder in sorted(student.iterdir()):
            if not folder.is_dir() or folder.name not in known:
                say(f"skipped: {folder}: not an assignment of this course ({', '.join(sorted(known))})")
                continue
            if only and folder.name not in only:
                continue
            target = course / "submitted" / student.name / folder.name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(folder, target)
            found.add(folder.name)
    return sorted(found)


def nbgrader(course, *args):
    """Run one nbgrader command in the course directory; its log goes to course/logs/."""
    logs = course / "logs"
    logs.mkdir(exist_ok=True)
    exe = Path(sys.executable).with_name("nbgrader")
    with open(logs / f"{'_'.join(args[:2])}.log", "w") as log:
        return subprocess.run([str(exe), *args], cwd=course, stdout=log, stderr=subprocess.STDOUT).returncode


def ensure_released(course, assignment):
    """Put the assignment's cells in the gradebook once (autograde restores hidden tests from there)."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        try:
            gb.find_assignment(assignment)
            return
        except MissingEntry:
            pass
    if nbgrader(course, "generate_assignment", assignment, "--force") != 0:
        raise RuntimeError(f"nbgrader could not generate {assignment}: see {course / 'logs'}")


def grade_table(course, assignments):
    """One row per student, assignment and graded part, read back from the gradebook."""
    rows = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment in assignments:
            for student in sorted(s.id for s in gb.students):
                try:
                    submission = gb.find_submission(assignment, student)
                except MissingEntry:
                    continue
                for nb in submission.notebooks:
                    for grade in nb.grades:
                        rows.append({
                            "student": student, "assignment": assignment, "notebook": nb.name,
                            "part": grade.name, "score": grade.score, "max_score": grade.max_score,
                            "needs_manual_grade": grade.needs_manual_grade,
                        })
    return rows


def print_table(rows, out=sys.stdout):
    """Per assignment: a line per student, a column per graded part, then the total."""
    for assignment in sorted({r["assignment"] for r in rows}):
        mine = [r for r in rows if r["assignment"] == assignment]
        parts = list(dict.fromkeys(r["part"] for r in mine))
        names = [p.removeprefix("test_") for p in parts]
        students = list(dict.fromkeys(r["student"] for r in mine))
        maxima = {r["part"]: r["max_score"] for r in mine}
        score = {(r["student"], r["part"]): r for r in mine}
        width = max(len(s) for s in students + ["student"])
        cols = [max(len(n), 6) for n in names]
        print(f"\n{assignment}", file=out)
        print("student".ljust(width) + "".join(f"  {n:>{w}}" for n, w in zip(names, cols)) + "  total", file=out)
        print("(out of)".ljust(width) + "".join(f"  {maxima[p]:>{w}g}" for p, w in zip(parts, cols))
              + f"  {sum(maxima.values()):>5g}", file=out)
        for s in students:
            cells = [score[s, p] for p in parts]
            shown = ["manual" if r["needs_manual_grade"] else format(r["score"], "g") for r in cells]
            total = sum(r["score"] or 0 for r in cells)
            print(s.ljust(width) + "".join(f"  {c:>{w}}" for c, w in zip(shown, cols)) + f"  {total:>5g}", file=out)


def grade_class(submissions, course, only=None, say=print):
    """Take in, release into the gradebook, autograde; return the grade table's rows."""
    submissions, course = Path(submissions).resolve(), Path(course).resolve()
    if not submissions.is_dir():
        raise SystemExit(f"grade: {submissions} is not a folder of submissions")
    prepare(course)
    assignments = take_in(submissions, course, only, say)
    for assignment in assignments:
        ensure_released(course, assignment)
        say(f"grade: autograding {assignment} ...")
        if nbgrader(course, "autograde", assignment, "--force") != 0:
            say(f"grade: nbgrader reported errors for {assignment}: see {course / 'logs'}")
    return grade_table(course, assignments)


def main(submissions, course, only=None, csv_path=None):
    rows = grade_class(submissions, course, only)
    print_table(rows)
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["student"])
            writer.writeheader()
            writer.writerows(rows)
    return 0
