"""The command line: `python -m grader <command>` (or `course <command>`). Thin by design."""
import argparse
import sys
from importlib.metadata import PackageNotFoundError, version

DESCRIPTION = """\
The course's own tools, beside nbgrader's.

  build            rebuild release/ (the student notebooks) and solutions/ (the executed answer keys)
                   from source/, with nbgrader
  grade            take in a class's submissions (a folder or an LMS zip), autograde them in parallel in
                   sandboxed kernels, record the grades in an nbgrader gradebook, print the grade table
                   and write the class report
  report           write the class report (CSV and HTML) of a graded course directory again
  export           the grades in a file an LMS imports as it is (Canvas's gradebook CSV, or a generic CSV)
  diagnose-report  how many parts that lost marks got a diagnosis, per notebook"""

EXAMPLES = """\
examples:
  python -m grader build --check
  python -m grader grade submissions/ --course course/ --csv grade_table.csv
  python -m grader grade canvas_export.zip --course course/ --assignment 02_scaled_attention
  python -m grader grade submissions/ --course course/ --student ada --student bo   (regrade two students)
  python -m grader grade submissions/ --dry-run       (how each file would be placed and graded)
  python -m grader report course/
  python -m grader export course/ --format canvas

grade's exit codes: 0 every notebook graded; 2 bad options or nothing to grade; 3 some notebooks
could not be graded (named on stderr and in the report)."""


def _version():
    try:
        return version("attention-course-grader")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def positive_int(text):
    """An option that counts something: a whole number from 1 up (argparse names the option when it is not)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: it must be 1 or more")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m grader", description=DESCRIPTION, epilog=EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="rebuild release/ and solutions/ from source/")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 naming every stale file")
    p.add_argument("--force", action="store_true", help="execute every answer key again, even when nothing it "
                                                        "depends on changed since the last build here")
    p.add_argument("assignments", nargs="*", help="only these assignments (default: all)")

    p = sub.add_parser("grade", help="autograde a class of submissions and print the grade table")
    p.add_argument("submissions", help="a folder of submissions (<student>/<assignment>/<notebook>.ipynb) "
                                       "or an LMS's zip of them")
    p.add_argument("--course", default=".course", help="the course directory to grade in (default: .course)")
    p.add_argument("--assignment", action="append", help="only this assignment (repeatable)")
    p.add_argument("--student", action="append", help="grade (or regrade) only this student, leaving the others' "
                                                       "grades as they are (repeatable)")
    p.add_argument("--dry-run", action="store_true", help="say how every file would be placed and graded; run "
                                                          "nothing, write nothing")
    p.add_argument("--csv", help="also write the grade table here")
    p.add_argument("--workers", type=positive_int, help="notebooks run at once (default: cores + 1; per machine with Dask)")
    p.add_argument("--scheduler", help="run notebooks on Dask: 'local' (a cluster on this machine) or a "
                                       "scheduler's address, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--serial", action="store_true", help="stock `nbgrader autograde`, one notebook at a time")
    p.add_argument("--timeout", type=positive_int, help="seconds per cell (default 60)")
    p.add_argument("--unsandboxed", action="store_true",
                   help="run student kernels without the sandbox (trusted code only; refused otherwise)")

    p = sub.add_parser("report", help="write the class report (CSV and HTML) of a graded course directory")
    p.add_argument("course", nargs="?", default=".course", help="the course directory (default: .course)")
    p.add_argument("--out", help="where to write it (default: COURSE/report)")

    p = sub.add_parser("export", help="the grades in a file an LMS imports: Canvas's gradebook CSV, or a generic CSV")
    p.add_argument("course", nargs="?", default=".course", help="the course directory (default: .course)")
    p.add_argument("--format", choices=("canvas", "csv"), default="csv",
                   help="canvas: Canvas's gradebook import; csv: student_id, assignment, score, max_score, "
                        "pending_manual (default)")
    p.add_argument("--out", help="the file to write (default: COURSE/canvas_gradebook.csv or COURSE/scores.csv)")

    p = sub.add_parser("diagnose-report", help="how many parts that lost marks got a diagnosis (named mistake, "
                                               "structural finding, a helper's mistake) in a graded course directory")
    p.add_argument("course", nargs="?", default=".course", help="the course directory (default: .course)")

    args = parser.parse_args(argv)
    if args.command == "build":
        from .engine import build
        return build.main(check=args.check, only=args.assignments or None, force=args.force)
    if args.command == "grade":
        from .engine import grade
        return grade.main(args.submissions, args.course, args.assignment, args.csv, args.unsandboxed,
                          workers=args.workers, scheduler=args.scheduler, serial=args.serial, timeout=args.timeout,
                          students=args.student, dry=args.dry_run)
    if args.command == "report":
        from .engine import report
        return report.main(args.course, args.out)
    if args.command == "export":
        from .engine import export
        return export.main(args.course, args.format, args.out)
    if args.command == "diagnose-report":
        from .engine import report
        report.print_diagnosis_report(args.course)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
