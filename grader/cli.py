"""The command line: `python -m grader <command>` (or `course <command>`). Thin by design."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="rebuild release/ and solutions/ from source/")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 naming every stale file")
    p.add_argument("assignments", nargs="*", help="only these assignments (default: all)")

    p = sub.add_parser("grade", help="autograde a class of submissions and print the grade table")
    p.add_argument("submissions", help="a folder of submissions (<student>/<assignment>/<notebook>.ipynb) "
                                       "or an LMS's zip of them")
    p.add_argument("--course", default=".course", help="the course directory to grade in (default: .course)")
    p.add_argument("--assignment", action="append", help="only this assignment (repeatable)")
    p.add_argument("--csv", help="also write the grade table here")
    p.add_argument("--workers", type=int, help="notebooks run at once (default: cores + 1; per machine with Dask)")
    p.add_argument("--scheduler", help="run notebooks on Dask: 'local' (a cluster on this machine) or a "
                                       "scheduler's address, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--serial", action="store_true", help="stock `nbgrader autograde`, one notebook at a time")
    p.add_argument("--timeout", type=int, help="seconds per cell (default 60)")
    p.add_argument("--unsandboxed", action="store_true",
                   help="run student kernels without the sandbox (trusted code only; refused otherwise)")

    p = sub.add_parser("report", help="write the class report (CSV and HTML) of a graded course directory")
    p.add_argument("course", nargs="?", default=".course", help="the course directory (default: .course)")
    p.add_argument("--out", help="where to write it (default: COURSE/report)")

    p = sub.add_parser("diagnose-report", help="how many parts that lost marks got a diagnosis (named mistake, "
                                               "structural finding, a helper's mistake) in a graded course directory")
    p.add_argument("course", nargs="?", default=".course", help="the course directory (default: .course)")

    args = parser.parse_args(argv)
    if args.command == "build":
        from . import build
        return build.main(check=args.check, only=args.assignments or None)
    if args.command == "grade":
        from . import grade
        return grade.main(args.submissions, args.course, args.assignment, args.csv, args.unsandboxed,
                          workers=args.workers, scheduler=args.scheduler, serial=args.serial, timeout=args.timeout)
    if args.command == "report":
        from . import report
        return report.main(args.course, args.out)
    if args.command == "diagnose-report":
        from . import report
        report.print_diagnosis_report(args.course)
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
