"""Grade a class: take in a folder of submissions, run `nbgrader autograde`, print the grade table, write the report.

    python -m grader grade SUBMISSIONS [--course DIR] [--assignment A] [--csv FILE]

SUBMISSIONS holds <student>/<assignment>/<notebook>.ipynb, the layout of
nbgrader's submitted/ folder. Grading happens in a course directory (default
.course/) whose nbgrader_config.py loads this repository's, so the gradebook,
`nbgrader export`, formgrader and `nbgrader generate_feedback` all work there.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from . import report
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


def print_table(rows, missing=(), out=sys.stdout):
    """Per assignment: a line per student, a column per graded part, the total; then the named mistakes."""
    for assignment in sorted({r["assignment"] for r in rows}):
        mine = [r for r in rows if r["assignment"] == assignment]
        parts = list(dict.fromkeys(r["part"] for r in mine))
        names = [p.removeprefix("test_") for p in parts]
        students = list(dict.fromkeys(r["student_id"] for r in mine))
        maxima = {r["part"]: r["part_max_score"] for r in mine}
        row = {(r["student_id"], r["part"]): r for r in mine}
        width = max(len(s) for s in students + ["(out of)"])
        cols = [max(len(n), 6) for n in names]
        print(f"\n{assignment}", file=out)
        print("student".ljust(width) + "".join(f"  {n:>{w}}" for n, w in zip(names, cols)) + "  total", file=out)
        print("(out of)".ljust(width) + "".join(f"  {maxima[p]:>{w}g}" for p, w in zip(parts, cols))
              + f"  {sum(maxima.values()):>5g}", file=out)
        for s in students:
            cells = [row.get((s, p)) for p in parts]
            shown = ["-" if r is None else "manual" if r["needs_manual_grade"] else format(r["part_score"], "g")
                     for r in cells]
            total = sum((r["part_score"] or 0) for r in cells if r)
            print(s.ljust(width) + "".join(f"  {c:>{w}}" for c, w in zip(shown, cols)) + f"  {total:>5g}", file=out)
        named = [r for r in mine if r["mistake"]]
        if named:
            print("named mistakes:", file=out)
            for r in named:
                print(f"  {r['student_id']:<{width}}  {r['part'].removeprefix('test_')}: {r['mistake']}", file=out)
    for student, assignment, why in missing:
        print(f"not graded: {student} / {assignment}: {why}", file=out)


def check_sandbox(unsandboxed=False):
    """Refuse to grade strangers' code without a sandbox, unless told to in so many words."""
    if unsandboxed:
        os.environ["COURSE_UNSANDBOXED"] = "1"  # read by nbgrader_config.py in the nbgrader processes
        return "unsandboxed (--unsandboxed): student code runs as this user, with this user's access"
    from .sandbox import sandbox_available
    ok, why = sandbox_available()
    if not ok:
        raise SystemExit(f"grade: cannot sandbox student code: {why}.\n"
                         "Install bubblewrap (apt-get install bubblewrap), or pass --unsandboxed to grade "
                         "trusted code without a sandbox.")
    return f"sandboxed ({why})"


def grade_class(submissions, course, only=None, say=print, unsandboxed=False):
    """Take in, release into the gradebook, autograde; return the grade table's rows."""
    submissions, course = Path(submissions).resolve(), Path(course).resolve()
    if not submissions.is_dir():
        raise SystemExit(f"grade: {submissions} is not a folder of submissions")
    say(f"grade: kernels {check_sandbox(unsandboxed)}")
    prepare(course)
    assignments = take_in(submissions, course, only, say)
    for assignment in assignments:
        ensure_released(course, assignment)
        say(f"grade: autograding {assignment} ...")
        if nbgrader(course, "autograde", assignment, "--force") != 0:
            say(f"grade: nbgrader reported errors for {assignment}: see {course / 'logs'}")
    return [r for r in report.collect(course) if r["assignment"] in assignments]


def main(submissions, course, only=None, csv_path=None, unsandboxed=False):
    rows = grade_class(submissions, course, only, unsandboxed=unsandboxed)
    _, missing = report.write_report(course)
    print_table(rows, [m for m in missing if m[1] in {r["assignment"] for r in rows}])
    print(f"\nclass report: {Path(course) / 'report' / 'index.html'}")
    if csv_path:
        report.write_csv(rows, Path(csv_path))
    return 0
