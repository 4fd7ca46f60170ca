"""Grade a class: take in the submissions, run their notebooks in parallel, record grades with nbgrader.

    python -m grader grade SUBMISSIONS [--course DIR] [--assignment A] [--csv FILE]
                                       [--workers N] [--scheduler ADDRESS|local] [--serial]

SUBMISSIONS holds <student>/<assignment>/<notebook>.ipynb, the layout of
nbgrader's submitted/ folder, or is the zip an LMS gives (grader/intake.py names
every file it cannot place). Grading happens in a course directory (default
.course/) whose nbgrader_config.py loads this repository's, so the gradebook,
`nbgrader export`, formgrader and `nbgrader generate_feedback` all work there.

How a class is graded (nbgrader's autograde runs notebooks one after another):

1. plan     for every submitted notebook, what autograde will run: nbgrader's own
            sanitizing preprocessors, then the sealed probes (grader/nbgrader_plugin.py);
2. execute  those notebooks side by side in sandboxed kernels (grader/parallel.py:
            local worker processes, or a Dask cluster); each result is kept in
            <course>/executed/ as soon as it is done;
3. record   `nbgrader autograde` per assignment, as soon as its notebooks are done. Its
            Execute finds each notebook already run with exactly these cells and takes
            the outputs, so nbgrader itself seals the verdicts and writes the gradebook,
            autograded/ and everything its other commands read.

A run that is killed loses nothing that finished: executed notebooks are kept,
and the next run takes them up. The same submissions graded again give the same
gradebook (inputs are drawn from the course's secret, the student and the notebook).
--serial skips steps 1 and 2: stock `nbgrader autograde`, one notebook at a time.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import uuid
import warnings
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import OverwriteCells
from tqdm import tqdm

from . import report
from . import parallel
from .build import ROOT, SOURCE
from .intake import IntakeError, take_in
from .sandbox import RUNTIME_FOLDER, RUNTIME_VARIABLE
from .nbgrader_plugin import RUN_VARIABLE, SANITIZE, InjectProbes, cache_path, execution_key, load, store

COURSE_ID = "attention-from-scratch"  # as in nbgrader_config.py

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


# `nbgrader`, minus 2.9 s of start-up: jsonschema compiles the grammars of its optional IRI
# format checker (rfc3987_syntax, with lark) at import; nbformat's schema checks no IRI.
NBGRADER = ("import sys; sys.modules['rfc3987_syntax'] = None; sys.argv[0] = 'nbgrader'; "
            "from nbgrader.apps.nbgraderapp import main; sys.exit(main())")


def nbgrader(course, *args, wait=True, env=None):
    """Run one nbgrader command in the course directory; its log goes to course/logs/."""
    logs = course / "logs"
    logs.mkdir(exist_ok=True)
    log = open(logs / f"{'_'.join(args[:2])}.log", "w")
    process = subprocess.Popen([sys.executable, "-c", NBGRADER, *args], cwd=course, stdout=log,
                               stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    log.close()
    return process.wait() if wait else process


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
        return "unsandboxed (--unsandboxed): student code runs as this user, with this user's access"
    from .sandbox import sandbox_available
    ok, why = sandbox_available()
    if not ok:
        raise SystemExit(f"grade: cannot sandbox student code: {why}.\n"
                         "Install bubblewrap (apt-get install bubblewrap), or pass --unsandboxed to grade "
                         "trusted code without a sandbox.")
    return f"sandboxed ({why})"


def grade_class(submissions, course, only=None, say=print, unsandboxed=False, workers=None, serial=False,
                timeout=None, scheduler=None, notebook_timeout=None, progress=True):
    """Take in, release into the gradebook, grade; return the grade table's rows.

    workers: notebooks run at once (default: cores + 1); scheduler: None (local processes),
    "local" (a Dask LocalCluster) or a Dask scheduler's address; serial: stock nbgrader
    autograde instead; timeout: seconds per cell (default 60); notebook_timeout: seconds
    per notebook (default 10 x timeout).
    """
    submissions, course = Path(submissions).resolve(), Path(course).resolve()
    say(f"grade: kernels {check_sandbox(unsandboxed)}")
    prepare(course)
    try:
        assignments = take_in(submissions, course, only, say).assignments
    except IntakeError as e:
        raise SystemExit(f"grade: {e}")
    timeout = timeout or 60
    # For the nbgrader processes (nbgrader_config.py reads them); this process's own stays as it is.
    env = {"COURSE_CELL_TIMEOUT": str(timeout), RUN_VARIABLE: uuid.uuid4().hex,
           RUNTIME_VARIABLE: str(course / RUNTIME_FOLDER),  # kernels' host-side files: in the course directory
           "COURSE_UNSANDBOXED": "1" if unsandboxed else "0"}
    if serial:
        for assignment in assignments:
            ensure_released(course, assignment)
        for assignment in assignments:
            say(f"grade: nbgrader autograde {assignment} ...")
            if nbgrader(course, "autograde", assignment, "--force", env=env) != 0:
                say(f"grade: nbgrader reported errors for {assignment}: see {course / 'logs'}")
    else:
        execute_class(course, assignments, say, env, unsandboxed, workers or parallel.default_workers(),
                      scheduler, timeout, notebook_timeout or 10 * timeout, progress)
    zero_ungraded(course, assignments)
    return [r for r in report.collect(course) if r["assignment"] in assignments]


def zero_ungraded(course, assignments):
    """Zero, with no manual grading due, for what nbgrader could not grade.

    nbgrader leaves the grades of a notebook it failed on empty (shown as waiting for
    manual grading), and so the test cells a student deleted; it skips a student whose
    folder holds none of the assignment's notebooks (a renamed one, say), who would
    then have no row at all. This does what nbgrader does for a notebook missing from a
    submission it grades. Written answers of graded notebooks stay with the instructor,
    and a grade given by hand is left alone. The report says why.
    """
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment in assignments:
            names = [nb.name for nb in gb.find_assignment(assignment).notebooks]
            for folder in sorted((course / "submitted").glob(f"*/{assignment}")):
                student = folder.parent.name
                graded = {n for n in names if (course / "autograded" / student / assignment / f"{n}.ipynb").exists()}
                gb.update_or_create_student(student)
                try:
                    submission = gb.find_submission(assignment, student)
                except MissingEntry:
                    with warnings.catch_warnings():  # SQLAlchemy's autoflush notes on nbgrader's own API
                        warnings.simplefilter("ignore")
                        submission = gb.update_or_create_submission(assignment, student)
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        if grade.manual_score is not None or grade.auto_score is not None:
                            continue
                        if notebook.name not in graded or _is_test_cell(gb, grade.cell, assignment):
                            grade.auto_score = 0
                            grade.needs_manual_grade = False
                gb.db.commit()


def _is_test_cell(gb, cell, assignment):
    """A graded code cell that is not an answer: autograded, never graded by hand."""
    if cell.cell_type != "code":
        return False
    try:
        gb.find_solution_cell(cell.name, cell.notebook.name, assignment)
        return False
    except MissingEntry:
        return True


def submitted_notebooks(course, assignment):
    """(student, notebook name, path) of every notebook of the assignment in course/submitted."""
    names = [p.stem for p in sorted((SOURCE / assignment).glob("*.ipynb"))]
    for student in sorted(p for p in (course / "submitted").iterdir() if p.is_dir()):
        for name in names:
            path = student / assignment / f"{name}.ipynb"
            if path.exists():
                yield student.name, name, path


def plan(course, assignment, student, notebook, path, cells=None):
    """The notebook exactly as `nbgrader autograde` will run it: sanitized by nbgrader, probes in.

    cells: the assignment's AssignmentCells, read once for all its notebooks (else read here).
    """
    db_url = f"sqlite:///{course / 'gradebook.db'}"
    resources = {"nbgrader": {"notebook": notebook, "assignment": assignment, "student": student,
                              "db_url": db_url, "course_id": COURSE_ID}}
    nb = nbformat.read(path, as_version=4)  # as nbconvert reads it for nbgrader
    for preprocessor in SANITIZE:
        if preprocessor is OverwriteCells:
            preprocessor = partial(OverwriteCellsOnce, cells=cells or AssignmentCells(db_url, assignment))
        nb, resources = preprocessor()(nb, resources)
    nb, resources = InjectProbes()(nb, resources)
    return nb


class AssignmentCells:
    """An assignment's source and graded cells, read from the gradebook once.

    nbgrader's OverwriteCells opens the gradebook for every notebook and queries it
    for every graded cell (0.08 s a notebook), though the answers are the same for
    every student. This answers the same two questions from memory.
    """

    FIELDS = ("name", "cell_type", "locked", "checksum", "source", "max_score")

    def __init__(self, db_url, assignment):
        self.assignment = assignment
        self.source, self.graded = {}, {}
        with Gradebook(db_url) as gb:
            for notebook in gb.find_assignment(assignment).notebooks:
                for table, cells in ((self.source, notebook.source_cells),
                                     (self.graded, notebook.grade_cells + notebook.task_cells)):
                    for cell in cells:
                        table[cell.name, notebook.name] = SimpleNamespace(
                            **{f: getattr(cell, f, None) for f in self.FIELDS})

    def _find(self, table, name, notebook, assignment):
        if assignment != self.assignment or (name, notebook) not in table:
            raise MissingEntry()
        return table[name, notebook]

    def find_source_cell(self, name, notebook, assignment):
        return self._find(self.source, name, notebook, assignment)

    def find_graded_cell(self, name, notebook, assignment):
        return self._find(self.graded, name, notebook, assignment)


class OverwriteCellsOnce(OverwriteCells):
    """nbgrader's OverwriteCells, asking AssignmentCells instead of the gradebook."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        self.cells = cells

    def preprocess(self, nb, resources):
        if self.add_missing_cells:
            raise ValueError("the plan does not put back missing cells (see SANITIZE)")
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.gradebook = self.cells
        return super(OverwriteCells, self).preprocess(nb, resources)  # nbgrader's, cell by cell


def execute_class(course, assignments, say, env, unsandboxed, workers, scheduler, timeout,
                  notebook_timeout, progress):
    """Plan, execute in parallel, record each assignment with nbgrader as soon as it is complete."""
    mode = parallel.kernel_mode(unsandboxed)
    sandboxed = mode != parallel.UNSANDBOXED
    pool = None
    futures = {}  # future -> (assignment, path in executed/, key)
    remaining = {a: 0 for a in assignments}
    reused = unreadable = 0
    recording = []

    def record(assignment):
        recording.append((assignment, nbgrader(course, "autograde", assignment, "--force", wait=False, env=env)))

    # nbgrader's generate_assignment takes seconds an assignment: they run one after another
    # in the background, and each assignment is planned as soon as it is in the gradebook.
    releasing = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    released = {a: releasing.submit(ensure_released, course, a) for a in assignments}
    try:
        # Plan and submit as we go: the first notebooks run while the rest are planned.
        for assignment in assignments:
            released[assignment].result()
            cells = AssignmentCells(f"sqlite:///{course / 'gradebook.db'}", assignment)
            for student, notebook, path in submitted_notebooks(course, assignment):
                try:
                    nb = plan(course, assignment, student, notebook, path, cells)
                except Exception:
                    unreadable += 1  # nbgrader autograde says why, for this student, in the report
                    continue
                key = execution_key(nb, timeout, sandboxed)
                where = cache_path(str(course), student, assignment, notebook)
                if load(where, key) is not None:
                    reused += 1
                    continue
                if pool is None:
                    pool = parallel.Pool(workers, mode, scheduler, runtime=env[RUNTIME_VARIABLE])
                task = {"notebook": json.dumps(nb, ensure_ascii=False), "timeout": timeout,
                        "notebook_timeout": notebook_timeout, "mode": mode}
                futures[pool.submit(task)] = (assignment, where, key)
                remaining[assignment] += 1
            if not remaining[assignment]:
                record(assignment)
        say(f"grade: {len(futures)} notebooks to run, {reused} already run with the same cells, "
            f"{unreadable} unreadable (graded by nbgrader alone)")
        if futures:
            say(f"grade: running them on {pool.where} ({mode} kernels)")
        # Notebooks that finished while the class was being planned start the bar (initial=), so
        # its rate and ETA count only what runs from here on, not a burst at the start.
        done_early = {f for f in futures if f.done()}
        bar = tqdm(total=len(futures), initial=len(done_early), unit="notebook", desc="grading",
                   disable=not progress or not futures, smoothing=0.1)
        for future in concurrent.futures.as_completed(futures):
            assignment, where, key = futures[future]
            try:
                result = future.result()
            except Exception as e:  # the worker itself failed: nbgrader will run this one alone
                say(f"grade: worker failed on {where}: {type(e).__name__}: {e}")
            else:
                if "error" in result:
                    store(where, key, error=result["error"], run=env[RUN_VARIABLE])
                else:
                    store(where, key, json.loads(result["notebook"]))
            if future not in done_early:
                bar.update()
            remaining[assignment] -= 1
            if remaining[assignment] == 0:
                record(assignment)
        bar.close()
    finally:
        releasing.shutdown(cancel_futures=True)
        if pool is not None:
            pool.close()
    for assignment, process in recording:
        if process.wait() != 0:
            say(f"grade: nbgrader reported errors for {assignment}: see {course / 'logs'}")


def main(submissions, course, only=None, csv_path=None, unsandboxed=False, workers=None, scheduler=None,
         serial=False, timeout=None):
    rows = grade_class(submissions, course, only, unsandboxed=unsandboxed, workers=workers, scheduler=scheduler,
                       serial=serial, timeout=timeout)
    _, missing = report.write_report(course)
    print_table(rows, [m for m in missing if m[1] in {r["assignment"] for r in rows}])
    print(f"\nclass report: {Path(course) / 'report' / 'index.html'}")
    if csv_path:
        report.write_csv(rows, Path(csv_path))
    return 0
