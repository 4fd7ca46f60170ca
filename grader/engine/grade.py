"""Grade a class: take in the submissions, run their notebooks in parallel, record grades with nbgrader.

    python -m grader grade SUBMISSIONS [--course DIR] [--assignment A] [--csv FILE]
                                       [--workers N] [--scheduler ADDRESS|local] [--serial]

SUBMISSIONS holds <student>/<assignment>/<notebook>.ipynb, the layout of
nbgrader's submitted/ folder, or is the zip an LMS gives (grader/engine/intake.py names
every file it cannot place). Grading happens in a course directory (default
.course/) whose nbgrader_config.py loads this repository's, so the gradebook,
`nbgrader export`, formgrader and `nbgrader generate_feedback` all work there.

How a class is graded (nbgrader's autograde runs notebooks one after another):

1. plan     for every submitted notebook, what autograde will run: nbgrader's own
            sanitizing preprocessors, then the sealed probes (grader/engine/nbgrader_plugin.py);
2. execute  those notebooks side by side in sandboxed kernels (grader/engine/parallel.py:
            local worker processes, or a Dask cluster), the assignments whose notebooks
            take longest first (LongestFirst: timed on the run's own first notebooks);
            each result is kept in <course>/executed/ as soon as it is done;
3. record   nbgrader's autograde per assignment, as soon as its notebooks are done, in
            recording processes that last the run (grader/engine/record.py: the app the
            command runs, without an interpreter and nbgrader's imports per assignment). Its
            Execute finds each notebook already run with exactly these cells and takes
            the outputs, so nbgrader itself seals the verdicts and writes the gradebook,
            autograded/ and everything its other commands read.

A run that is killed loses nothing that finished: executed notebooks are kept,
and the next run takes them up. The same submissions graded again give the same
gradebook (inputs are drawn from the course's secret, the student and the notebook).
--serial skips steps 1 and 2: stock `nbgrader autograde`, one notebook at a time.
"""
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
import warnings
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import OverwriteCells
from tqdm import tqdm

from . import deadlines, parallel, record, report
from .build import ROOT, SOURCE, assignments as course_assignments
from .intake import IntakeError, take_in
from .sandbox_policy import RUNTIME_FOLDER, RUNTIME_VARIABLE
from .protocol import NOT_ATTEMPTED
from .nbgrader_plugin import RUN_VARIABLE, SANITIZE, InjectProbes, cache_path, execution_key, load, store

COURSE_ID = "attention-from-scratch"  # as in nbgrader_config.py

COURSE_CONFIG = '''\
# Written by `python -m grader grade`: this course directory uses the course's configuration.
c = get_config()  # noqa: F821
load_subconfig({config!r})  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.source_directory = {source!r}
# From deadlines.toml (grader/engine/deadlines.py): what a late submission loses
c.LateSubmissionPlugin.penalty_method = {penalty!r}
'''


def prepare(course, penalty="none"):
    """A course directory that grades with this repository's source/ and configuration.

    Its source/ is a link to the repository's, so that formgrader (which links to the source inside
    the server's root, the course directory) opens it; a course directory that holds a source/ folder
    of its own keeps it and is pointed at the repository's directly."""
    course.mkdir(parents=True, exist_ok=True)
    link = course / "source"
    if link.is_symlink() and link.resolve() != SOURCE:
        link.unlink()  # a link to another checkout's source: follow this one
    if not link.exists() and not link.is_symlink():
        link.symlink_to(SOURCE, target_is_directory=True)
    linked = link.is_symlink() and link.resolve() == SOURCE
    (course / "nbgrader_config.py").write_text(COURSE_CONFIG.format(
        config=str(ROOT / "nbgrader_config.py"), root=str(course), source="source" if linked else str(SOURCE),
        penalty=penalty))
    create_gradebook(course / "gradebook.db")


def create_gradebook(path):
    """nbgrader's gradebook at path, if there is none: its tables, stamped with the schema version nbgrader
    stamps a new one with. nbgrader's Gradebook asks a subprocess (`alembic heads`, 5 CPU-s here) for that
    version; alembic's own API gives the same answer in this process (0.2 s). Nothing else differs."""
    if path.exists():
        return
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR
    from sqlalchemy import create_engine, text
    config = Config()
    config.set_main_option("script_location", ALEMBIC_DIR)
    head = ScriptDirectory.from_config(config).get_current_head()
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as db:  # as nbgrader.api.Gradebook writes it for a new database
        db.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL);"))
        db.execute(text("INSERT INTO alembic_version (version_num) VALUES (:head);"), {"head": head})
    engine.dispose()
    Gradebook(f"sqlite:///{path}").close()  # the tables, which nbgrader makes when the database has some


# `nbgrader`, minus 2.9 s of start-up: jsonschema compiles the grammars of its optional IRI
# format checker (rfc3987_syntax, with lark) at import; nbformat's schema checks no IRI. And without
# SQLAlchemy's autoflush notes on nbgrader's own gradebook code (record.AUTOFLUSH_NOTE).
NBGRADER = ("import sys, warnings; sys.modules['rfc3987_syntax'] = None; sys.argv[0] = 'nbgrader'; "
            f"warnings.filterwarnings('ignore', message={record.AUTOFLUSH_NOTE!r}); "
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


def register_students(course, students):
    """Every student in the gradebook, from this one process, before any nbgrader process starts: the
    assignments' autogrades run side by side, and two that add the same new student at once collide in
    sqlite (UNIQUE constraint failed: student.id), and that student's notebook is then not graded."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in sorted(students):
            gb.update_or_create_student(student)


def source_digest(assignment):
    """A digest of everything in the assignment's source folder: what its release in a gradebook was made from."""
    import hashlib
    digest = hashlib.sha256()
    for path in sorted((SOURCE / assignment).rglob("*")):
        if path.is_file() and ".ipynb_checkpoints" not in path.parts:
            digest.update(str(path.relative_to(SOURCE / assignment)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


RELEASED = "released.json"  # in the course directory: {assignment: source_digest it was released from}


def ensure_released(course, assignment, duedate=None, release=None):
    """Put the assignment's cells in the gradebook (autograde restores hidden tests and points from there)
    once per version of its source: again whenever source/<assignment>/ changed since the course directory
    last released it, so that a fixed test or a changed score is what grading uses. Its due date (from
    deadlines.toml; None: no due date) every time. release(assignment) -> exit code runs nbgrader's
    generate_assignment (default: the command; grading's recording processes run it in-process)."""
    digests_file = course / RELEASED
    try:
        digests = json.loads(digests_file.read_text()) if digests_file.exists() else {}
    except (OSError, ValueError):
        digests = {}  # unreadable: every assignment is released again, which is always right
    digest = source_digest(assignment)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        try:
            gb.find_assignment(assignment)
            released = digests.get(assignment) == digest
        except MissingEntry:
            released = False
    if not released:
        release = release or (lambda a: nbgrader(course, "generate_assignment", a, "--force"))
        if release(assignment) != 0:
            raise RuntimeError(f"nbgrader could not release {assignment} from source/{assignment} into the gradebook "
                               f"(a notebook added or removed after students were graded?): see "
                               f"{course / 'logs' / ('generate_assignment_' + assignment + '.log')}")
        try:  # read again: assignments are released one after another, and each adds its own
            digests = json.loads(digests_file.read_text()) if digests_file.exists() else {}
        except (OSError, ValueError):
            digests = {}
        digests_file.write_text(json.dumps({**digests, assignment: digest}, indent=1, sort_keys=True) + "\n")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.update_or_create_assignment(assignment, duedate=duedate)


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
        written = {p for p in parts if not p.startswith("test_")}
        left_blank = {p for (s, p), r in row.items() if p in written and r.get("finding") == NOT_ATTEMPTED}
        cols = [max(len(n), 6, len("not attempted") if p in left_blank else 0) for p, n in zip(parts, names)]
        hand_width = len("not attempted") if left_blank else 7
        print(f"\n{assignment}", file=out)
        # Written answers are graded by hand: their column says "pending" until they are ("not attempted" for
        # one left as handed out, which nbgrader scores 0 itself), and they are totalled apart, so the
        # autograded total is never read as the grade.
        print("student".ljust(width) + "".join(f"  {n:>{w}}" for n, w in zip(names, cols))
              + f"   auto  {'by hand':>{hand_width}}", file=out)
        print("(out of)".ljust(width) + "".join(f"  {maxima[p]:>{w}g}" for p, w in zip(parts, cols))
              + f"  {sum(maxima[p] for p in parts if p not in written):>5g}"
              + f"  {sum(maxima[p] for p in written):>{hand_width}g}", file=out)
        lateness = []
        for s in students:
            cells = [row.get((s, p)) for p in parts]
            shown = ["-" if r is None else "pending" if r["needs_manual_grade"]
                     else "not attempted" if p in written and r.get("finding") == NOT_ATTEMPTED
                     else format(r["part_score"], "g") for p, r in zip(parts, cells)]
            auto = sum((r["part_score"] or 0) for p, r in zip(parts, cells) if r and p not in written)
            late = max([report.late_penalty(r) for r in cells if r] or [0.0])
            if late:  # nbgrader's penalty: the total shown is the one grades.csv and the export give
                auto = max(0.0, auto - late)
                lateness.append(f"{s} (-{late:g})")
            by_hand = [r for p, r in zip(parts, cells) if r and p in written]
            hand = ("pending" if any(r["needs_manual_grade"] for r in by_hand)
                    else "not attempted" if by_hand and all(r.get("finding") == NOT_ATTEMPTED for r in by_hand)
                    else format(sum(r["part_score"] or 0 for r in by_hand), "g") if by_hand else "-")
            print(s.ljust(width) + "".join(f"  {c:>{w}}" for c, w in zip(shown, cols))
                  + f"  {auto:>5g}  {hand:>{hand_width}}", file=out)
        if lateness:
            print("late, nbgrader's penalty taken from the auto total: " + ", ".join(lateness), file=out)
        named = [r for r in mine if r["mistake"]]
        if named:
            print("named mistakes:", file=out)
            for r in named:
                print(f"  {r['student_id']:<{width}}  {r['part'].removeprefix('test_')}: {r['mistake']}", file=out)
        untouched = [r for r in mine if r.get("finding") == NOT_ATTEMPTED]
        if untouched:
            print("not attempted (answer cells as handed out): " + ", ".join(
                f"{s} {', '.join(r['part'].removeprefix('test_') for r in untouched if r['student_id'] == s)}"
                for s in dict.fromkeys(r["student_id"] for r in untouched)), file=out)
    for student, assignment, why in missing:
        print(f"not graded: {student} / {assignment}: {why}", file=out)
    for student, notebook, said in report.put_back(rows):
        print(f"graded with cells as handed out: {student} / {notebook}: {said}", file=out)
    for student, assignment, flag in report.flagged(rows):
        print(f"lateness flagged: {student} / {assignment}: {flag}", file=out)


# Exit codes of `python -m grader grade` (README, "Grading a class").
NOTHING_TO_GRADE = 2   # bad options, or no submission found where it was pointed (nothing is graded)
NOT_ALL_GRADED = 3     # the class is graded, but some notebooks could not be (named on stderr and in the report)


def fail(message, code):
    """Stop with one line on stderr and a documented exit code."""
    print(f"grade: {message}", file=sys.stderr)
    raise SystemExit(code)


def _taken_in(submissions, course, only, say, students):
    """take_in, or an IntakeError saying what was expected and what was found when nothing can be graded."""
    intake = take_in(submissions, course, only, say, students)
    if not intake.assignments and students:
        import difflib
        there = sorted(p.name for p in Path(submissions).iterdir() if p.is_dir()) if Path(submissions).is_dir() else []
        close = sorted({m for s in students for m in difflib.get_close_matches(s, there, n=3, cutoff=0.6)})
        raise IntakeError(f"{submissions}: no submission of {', '.join(students)} there"
                          + (f" (close names: {', '.join(close)})" if close else ""))
    if not intake.assignments:
        raise IntakeError(f"{submissions}: no submission to grade. Expected <student>/<assignment>/<notebook>.ipynb "
                          f"(or a zip of that), the assignments being {', '.join(course_assignments())}; "
                          f"found {_found(submissions)}")
    return intake


def _found(folder):
    """What a folder holds at its top, in a few words, for a message about the wrong layout."""
    if folder.is_file():
        return "a zip archive with no notebook in that layout"
    entries = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir() if not p.name.startswith("."))
    if not entries:
        return "an empty folder"
    shown = ", ".join(entries[:5]) + (f" and {len(entries) - 5} more" if len(entries) > 5 else "")
    return f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'} at its top ({shown}); the lines above say why each was skipped"


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
                timeout=None, scheduler=None, notebook_timeout=None, progress=True, students=None):
    """Take in, release into the gradebook, grade; return the grade table's rows.

    workers: notebooks run at once (default: cores + 1); scheduler: None (local processes),
    "local" (a Dask LocalCluster) or a Dask scheduler's address; serial: stock nbgrader
    autograde instead; timeout: seconds per cell (default 60); notebook_timeout: seconds
    per notebook (default 10 x timeout); students: take in and grade (or regrade) only these,
    leaving every other student's grades as they are.
    """
    submissions, course = Path(submissions).resolve(), Path(course).resolve()
    say(f"grade: kernels {check_sandbox(unsandboxed)}")
    existed = course.exists()
    try:
        penalty, due, unproven = deadlines.read(course, course_assignments())
    except deadlines.DeadlineError as e:
        fail(str(e), NOTHING_TO_GRADE)
    prepare(course, penalty)
    try:
        intake = _taken_in(submissions, course, only, say, students)
        assignments = intake.assignments
        if students:
            # As placed (a student id may have been made safe); who was asked for and not found is said.
            asked = set(students)
            students = sorted({s for s, _, _ in intake.placed} | {s for s, _ in intake.empty})
            for s in sorted(asked - set(students) - {intake.renamed.get(x, x) for x in students}):
                say(f"grade: --student {s}: no submission of theirs in {submissions}")
    except IntakeError as e:
        if not existed:  # leave nothing half-made behind
            shutil.rmtree(course, ignore_errors=True)
        fail(str(e), NOTHING_TO_GRADE)
    deadlines.apply(course, intake.timing, due, unproven)  # the time each submission counts as, and its flag
    register_students(course, {s for s, _, _ in intake.placed} | {s for s, _ in intake.empty})
    timeout = timeout or 60
    # For the nbgrader processes (nbgrader_config.py reads them); this process's own stays as it is.
    env = {"COURSE_CELL_TIMEOUT": str(timeout), RUN_VARIABLE: uuid.uuid4().hex,
           RUNTIME_VARIABLE: str(course / RUNTIME_FOLDER),  # kernels' host-side files: in the course directory
           "COURSE_UNSANDBOXED": "1" if unsandboxed else "0"}
    if serial:
        for assignment in assignments:
            ensure_released(course, assignment, due.get(assignment))
        for assignment in assignments:
            say(f"grade: nbgrader autograde {assignment} ...")
            if autograde(course, assignment, env, students) != 0:
                say(f"grade: nbgrader reported errors for {assignment}: see {course / 'logs'}")
    else:
        execute_class(course, assignments, say, env, unsandboxed, workers or parallel.default_workers(),
                      scheduler, timeout, notebook_timeout or 10 * timeout, progress, students, due)
    zero_ungraded(course, assignments, students)
    return [r for r in report.collect(course) if r["assignment"] in assignments
            and (not students or r["student_id"] in students)]


def autograde(course, assignment, env, students=None):
    """`nbgrader autograde` of an assignment, for every student in submitted/ or for these only (one run
    each: nbgrader's --student takes one id); the largest exit code."""
    runs = [("--force",)] if not students else [("--force", f"--student={s}") for s in students]
    return max(nbgrader(course, "autograde", assignment, *run, env=env) for run in runs)


def dry_run(submissions, only=None, students=None, say=print):
    """Take the submissions in, in a throw-away course directory, and say how each file would be placed
    and graded; nothing is run and nothing is kept. Returns the rows it would grade: (student, assignment, file)."""
    import tempfile
    submissions = Path(submissions).resolve()
    with tempfile.TemporaryDirectory(prefix="grade-dry-run-") as tmp:
        try:
            intake = _taken_in(submissions, Path(tmp) / "course", only, say, students)
        except IntakeError as e:
            fail(str(e), NOTHING_TO_GRADE)
        from .courseware import course
        planned = []
        for student, assignment, path in sorted(intake.placed):
            if path.suffix == ".ipynb":
                parts = len(course().PROBES.get(path.stem, {}))
                say(f"would grade: {student} / {assignment} / {path.name}: {parts} autograded parts, run in a "
                    "sandboxed kernel")
                planned.append((student, assignment, path.name))
        for student, assignment in sorted(intake.empty):
            say(f"would score 0: {student} / {assignment}: nothing gradable handed in (the lines above say why)")
        say(f"dry run: {len(planned)} notebooks of {len({s for s, _, _ in planned})} students would be graded; "
            "nothing was run or written")
        return planned


def zero_ungraded(course, assignments, students=None):
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
                if students and student not in students:
                    continue  # not asked for: left exactly as it was
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


def handed_in(course, assignment):
    """The students whose folder of the assignment in course/submitted holds a notebook: those `nbgrader autograde`
    grades (it passes over a folder with none)."""
    return [p.parent.name for p in sorted((course / "submitted").glob(f"*/{assignment}"))
            if p.is_dir() and any(p.glob("*.ipynb"))]


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


class Progress:
    """What grading is doing, from its first second to its last: a tqdm bar on a terminal; elsewhere (a
    log, CI) a plain line when the stage changes and every `every` seconds, never a carriage return."""

    def __init__(self, enabled=True, stream=None, every=5.0):
        self.stream = stream or sys.stderr
        self.enabled, self.every = enabled, every
        self.stage, self.done, self.total = "", 0, 0
        self.start = self.last = time.monotonic()
        terminal = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = tqdm(total=0, unit="notebook", file=self.stream, smoothing=0.1) if terminal else None

    def update(self, stage=None, done=None, total=None):
        changed = stage is not None and stage != self.stage
        self.stage = stage if stage is not None else self.stage
        self.done = done if done is not None else self.done
        self.total = total if total is not None else self.total
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_description(self.stage, refresh=False)
            self.bar.total, self.bar.n = self.total, self.done
            self.bar.refresh()
        elif changed or time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            self._say()

    def _say(self):
        """One plain line: the stage, the notebooks run once any are planned, the time so far."""
        counted = f": {self.done} of {self.total} notebooks run" if self.total else ""
        self.said = f"grade: {self.stage}{counted}"
        print(f"{self.said} ({time.monotonic() - self.start:.0f} s)", file=self.stream, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and getattr(self, "said", None) != f"grade: {self.stage}" + (
                f": {self.done} of {self.total} notebooks run" if self.total else ""):
            self._say()  # the last stage, unless its line was the last one printed


class LongestFirst:
    """Which planned notebook runs next: one of the assignment whose notebooks have taken longest so far.

    Nothing is declared: the first notebook of each assignment runs as soon as it is planned, and the CPU
    its kernel used (the worker's wall time where that is unknown) is the assignment's estimate (the median,
    as more finish); then the assignment with the longest goes first. CPU, not wall: on a loaded machine a
    notebook's wall time says more about when it ran than about what it costs. The long ones (09's training) so start early instead of last, and the end of a run
    is short notebooks on every core, not one long one on one core while the others wait.
    """

    def __init__(self):
        self.queued = {}     # assignment -> planned notebooks not yet submitted, in the order planned
        self.taken = {}      # assignment -> seconds its finished notebooks took in their workers
        self.running = {}    # assignment -> its notebooks submitted and not finished

    def add(self, assignment, item):
        self.queued.setdefault(assignment, collections.deque()).append(item)

    def __len__(self):
        return sum(len(q) for q in self.queued.values())

    def estimate(self, assignment):
        taken = sorted(self.taken.get(assignment, ()))
        return taken[len(taken) // 2] if taken else None

    def next(self):
        """(assignment, item) to submit now, or None when nothing is queued."""
        waiting = [a for a, q in self.queued.items() if q]
        if not waiting:
            return None
        unknown = [a for a in waiting if self.estimate(a) is None and not self.running.get(a)]
        known = [a for a in waiting if self.estimate(a) is not None]
        # An assignment not yet timed sends one notebook to learn its time; the others go longest first.
        assignment = unknown[0] if unknown else max(known, key=self.estimate) if known else waiting[0]
        self.running[assignment] = self.running.get(assignment, 0) + 1
        return assignment, self.queued[assignment].popleft()

    def finished(self, assignment, seconds=None):
        self.running[assignment] -= 1
        if seconds is not None:
            self.taken.setdefault(assignment, []).append(seconds)


def execute_class(course, assignments, say, env, unsandboxed, workers, scheduler, timeout,
                  notebook_timeout, progress, students=None, due=None):
    """Plan, execute in parallel (longest assignments first), record each student's notebooks of an assignment
    with nbgrader as soon as they have run."""
    mode = parallel.kernel_mode(unsandboxed)
    sandboxed = mode != parallel.UNSANDBOXED
    pool = None
    order = LongestFirst()
    running = {}  # future -> (assignment, student, path in executed/, key)
    waiting = {}  # assignment -> {student: their notebooks of it not yet run}, until they are sent to be recorded
    planned = set()  # assignments whose notebooks are all planned
    count = {"run": 0, "done": 0}
    reused = unreadable = 0
    recording = {}  # assignment -> the futures of its recordings (0 or 1 each), in the order they began

    # nbgrader's autograde records a student's notebooks of an assignment as soon as they have run, beside the
    # running ones, in recording processes that last the run (a second starts only while the first is busy);
    # they release the assignments into the gradebook first. Student by student, so that the run does not end
    # with one process recording a whole assignment (and running its judgement kernels) while the other cores wait.
    recorder = record.Recorders(course, env, processes=os.cpu_count() or 1)

    def start_recording(assignment, ready):
        """Record these students' notebooks of the assignment (None: every student nbgrader finds)."""
        for student in ready or ():
            waiting[assignment].pop(student, None)
        recording.setdefault(assignment, []).append(recorder.submit(assignment, ready))

    def dispatch():
        """Keep the pool one notebook ahead of its slots, choosing each next notebook as a slot frees."""
        nonlocal pool
        while len(order) and (pool is None or len(running) < pool.slots + 1):
            if pool is None:
                pool = parallel.Pool(workers, mode, scheduler, runtime=env[RUNTIME_VARIABLE])
            assignment, (student, where, key, task) = order.next()
            running[pool.submit(task)] = (assignment, student, where, key)

    def collect(wait):
        """Keep what finished (waiting up to `wait` seconds for something to), record the students it completes."""
        if running:
            finished, _ = concurrent.futures.wait(running, timeout=wait, return_when=concurrent.futures.FIRST_COMPLETED)
            ready = {}  # assignment -> students whose notebooks of it have all run now
            for future in finished:
                assignment, student, where, key = running.pop(future)
                seconds = None
                try:
                    result = future.result()
                except Exception as e:  # the worker itself failed: nbgrader will run this one alone
                    say(f"grade: worker failed on {where}: {type(e).__name__}: {e}")
                else:
                    seconds = result.get("kernel_cpu", result.get("seconds"))
                    if "error" in result:
                        store(where, key, error=result["error"], run=env[RUN_VARIABLE])
                    else:
                        store(where, key, json.loads(result["notebook"]))
                order.finished(assignment, seconds)
                count["done"] += 1
                waiting[assignment][student] -= 1
                if waiting[assignment][student] == 0 and assignment in planned:
                    ready.setdefault(assignment, []).append(student)
            for assignment, students_ in ready.items():
                start_recording(assignment, sorted(students_))
        dispatch()
        shown.update(done=count["done"], total=count["run"])

    # nbgrader's generate_assignment takes seconds an assignment: they run one after another in the
    # background (in a recording process), and each assignment is planned as soon as it is in the gradebook.
    releasing = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    released = {a: releasing.submit(ensure_released, course, a, (due or {}).get(a),
                                    lambda a: recorder.release(a).result()) for a in assignments}
    shown = Progress(progress)
    try:
        # Plan and submit as we go: the first notebooks run while the rest are planned.
        for assignment in assignments:
            shown.update(stage=f"releasing {assignment} (assignment {assignments.index(assignment) + 1} of "
                               f"{len(assignments)}, nbgrader's generate_assignment)")
            while not released[assignment].done():  # nbgrader's generate_assignment: seconds each
                collect(0.2)
                if not running:
                    time.sleep(0.2)
            released[assignment].result()
            shown.update(stage=f"planning {assignment} (assignment {assignments.index(assignment) + 1} of "
                               f"{len(assignments)}: its notebooks, probes in)")
            cells = AssignmentCells(f"sqlite:///{course / 'gradebook.db'}", assignment)
            waiting[assignment] = {s: 0 for s in handed_in(course, assignment) if not students or s in students}
            for student, notebook, path in submitted_notebooks(course, assignment):
                if students and student not in students:
                    continue
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
                task = {"notebook": json.dumps(nb, ensure_ascii=False), "timeout": timeout,
                        "notebook_timeout": notebook_timeout, "mode": mode}
                order.add(assignment, (student, where, key, task))
                waiting[assignment][student] = waiting[assignment].get(student, 0) + 1
                count["run"] += 1
                collect(0)  # a slot freed while planning gets its next notebook now
            planned.add(assignment)
            if not waiting[assignment]:  # no notebook handed in: nbgrader says so in its log, as before
                start_recording(assignment, students)
            elif any(n == 0 for n in waiting[assignment].values()):  # nothing of theirs to run, or all run already
                start_recording(assignment, sorted(s for s, n in waiting[assignment].items() if n == 0))
        say(f"grade: {count['run']} notebooks to run, {reused} already run with the same cells, "
            f"{unreadable} unreadable (graded by nbgrader alone)")
        if count["run"]:
            say(f"grade: running them on {pool.where} ({mode} kernels), the longest assignments first")
        shown.update(stage="running", done=count["done"], total=count["run"])
        while running:  # woken each second, so that progress shows even while one notebook runs long
            collect(1.0)
    except BaseException:
        shown.close()
        raise
    finally:
        releasing.shutdown(cancel_futures=True)
        if pool is not None:
            pool.close()
    try:
        # nbgrader autograde records each student as soon as their notebooks have run; the last ones finish here.
        for n, (assignment, futures) in enumerate(recording.items()):
            shown.update(stage=f"recording grades with nbgrader ({n} of {len(assignments)} assignments done)")
            while not all(f.done() for f in futures):
                time.sleep(0.2)
                shown.update()
            if max(f.result() for f in futures) != 0:
                say(f"grade: nbgrader reported errors for {assignment}: see {course / 'logs'}")
        shown.update(stage=f"recorded ({len(recording)} of {len(assignments)} assignments)")
    finally:
        shown.close()
        recorder.shutdown()


def _class_rows(course, rows, csv_path):
    """After a regrade of some students: every student's rows, from the gradebook, for the assignments of
    this run and those the grade table at csv_path already held, so the others' rows stay as they were."""
    import csv
    assignments = {r["assignment"] for r in rows}
    if csv_path.exists():
        try:
            with open(csv_path, newline="") as f:
                assignments |= {r.get("assignment") for r in csv.DictReader(f)}
        except (OSError, UnicodeDecodeError, csv.Error):
            pass  # not a table this command wrote: it is replaced, as without --student
    return [r for r in report.collect(course) if r["assignment"] in assignments]


def main(submissions, course, only=None, csv_path=None, unsandboxed=False, workers=None, scheduler=None,
         serial=False, timeout=None, students=None, dry=False):
    if dry:
        dry_run(submissions, only, students)
        return 0
    if csv_path and Path(csv_path).resolve() == (Path(course) / "grades.csv").resolve():
        fail(f"--csv {csv_path}: that is the file `nbgrader export` writes in the course directory; "
             "give the grade table another name (for example grade_table.csv)", NOTHING_TO_GRADE)
    rows = grade_class(submissions, course, only, unsandboxed=unsandboxed, workers=workers, scheduler=scheduler,
                       serial=serial, timeout=timeout, students=students)
    _, missing = report.write_report(course)
    missing = [m for m in missing if m[1] in {r["assignment"] for r in rows}]
    print_table(rows, missing)
    print(f"\nclass report: {Path(course) / 'report' / 'index.html'}")
    if csv_path:
        report.write_csv(_class_rows(course, rows, Path(csv_path)) if students else rows, Path(csv_path))
    if missing:
        print(f"grade: {len(missing)} notebook(s) could not be graded (scored 0): "
              + "; ".join(f"{s} / {a}" for s, a, _ in missing), file=sys.stderr)
        return NOT_ALL_GRADED
    return 0
