"""Release and record assignments with nbgrader's own apps, in a few processes that last the whole run.

`nbgrader autograde ASSIGNMENT` (and `nbgrader generate_assignment`) as a command costs an interpreter and
nbgrader's imports (about 5 CPU-s here) before its first notebook, every assignment. A Recorders pool runs
the same apps (AutogradeApp, GenerateAssignmentApp) with the course directory's nbgrader_config.py, in
`processes` long-lived processes, a few students of an assignment at a time as their notebooks finish running
(an app run more costs about 3 ms): the gradebook, release/, autograded/, feedback and the logs they write are
what the commands write (the logs still go to
<course>/logs/autograde_<assignment>.log and generate_assignment_<assignment>.log). A forked kernel's zygote, which a
verdict that needs the course's helpers starts (nbgrader_plugin.SealVerdicts), is kept for the next
assignment too.

Each process works in the course directory with the run's environment (the cell timeout, the run's id:
what nbgrader_config.py reads), as the command did.
"""
import concurrent.futures
import multiprocessing
import os
import sys
import traceback
import warnings

PROCESS_NAME = "course-record"
# SQLAlchemy's autoflush notes on nbgrader's own gradebook code (three a student, in every log); the
# nbgrader command (grade.NBGRADER) leaves them out too
AUTOFLUSH_NOTE = r"Object of type <\w+> not in session"


def _start(course, env):
    """In each recording process, once: the course directory and the run's environment, as the command had."""
    os.environ.update(env)
    os.chdir(course)
    try:  # the name `ps` and top show (and benchmarks/cpu_by_process.py counts by); Linux only
        with open("/proc/self/comm", "w") as f:
            f.write(PROCESS_NAME)
    except OSError:
        pass
    warnings.filterwarnings("ignore", message=AUTOFLUSH_NOTE)
    keep_gradebook_engines()


def keep_gradebook_engines():
    """In this process, each gradebook's SQLAlchemy engine is made once, and nbgrader's Gradebook reuses it.

    nbgrader opens the gradebook (nbgrader.api.Gradebook) about eight times a notebook it records, and each
    opening makes a new engine: a new connection, the tables listed and made if missing, the course looked up,
    and an empty cache of compiled statements, so that every query is compiled anew (about 3 ms an opening, and
    most of each query's cost). Here the first opening of a database does all that; the later ones open a
    session on its engine, and closing one ends that session only (its connection goes back to the engine's
    pool, its transaction rolled back, as Gradebook.close does). Every read and write is the same; a recording
    process records one course."""
    from nbgrader.api import Gradebook
    from sqlalchemy.orm import scoped_session, sessionmaker
    if getattr(Gradebook, "_engines", None) is not None:
        return
    first_open, engines = Gradebook.__init__, {}

    def __init__(self, db_url, course_id="default_course", authenticator=None):
        if db_url not in engines:
            first_open(self, db_url, course_id, authenticator)
            engines[db_url] = self.engine
            return
        self.engine = engines[db_url]
        self.db = scoped_session(sessionmaker(autoflush=True, bind=self.engine, future=True))  # as nbgrader's
        self.check_course(course_id=course_id)
        self.course_id, self.authenticator = course_id, authenticator

    def close(self):
        self.db.remove()

    Gradebook.__init__, Gradebook.close, Gradebook._engines = __init__, close, engines


def run_app(app_class, argv, log):
    """One of nbgrader's command-line apps (its class, from nbgrader.apps) on `argv`, in this process, its log
    appended to `log`; 0 if it did all it was asked, else 1 (as the command's exit code)."""
    sys.stdout.flush(), sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1), os.dup2(fd, 2)  # what nbgrader (and anything it starts) prints goes to the log
    os.close(fd)
    app = app_class()
    try:
        app.initialize(argv)
        app.start()
        return 0
    except SystemExit as e:  # nbgrader's way to say it failed
        return 0 if e.code in (None, 0) else 1
    except Exception:
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush(), sys.stderr.flush()
        app.reset()  # nbgrader's own: its log handlers and the app's instance, for the next one
        os.dup2(saved[0], 1), os.dup2(saved[1], 2)
        os.close(saved[0]), os.close(saved[1])


def record_grades(assignment, students, log):
    """`nbgrader autograde ASSIGNMENT --force` for every student in submitted/ (students None) or for these only
    (one run each: nbgrader's --student takes one id), its log appended to `log`; 0 or 1."""
    from nbgrader.apps.autogradeapp import AutogradeApp
    return max(run_app(AutogradeApp, [assignment, "--force"] + ([f"--student={s}"] if s else []), log)
               for s in (students or [None]))


def release(assignment, log):
    """`nbgrader generate_assignment ASSIGNMENT --force`: its cells into the gradebook, its release/; 0 or 1."""
    from nbgrader.apps.generateassignmentapp import GenerateAssignmentApp
    open(log, "w").close()
    return run_app(GenerateAssignmentApp, [assignment, "--force"], log)


class Recorders:
    """`processes` recording processes for one grading run; submit(assignment, students) -> Future of 0 or 1.

    An assignment may be recorded a few students at a time, in either process: its log is begun anew by the run's
    first submit of it (as the command's redirect began one), and the rest append to it."""

    def __init__(self, course, env, processes):
        self.course = course
        self.begun = set()  # assignments whose log this run has begun
        (course / "logs").mkdir(exist_ok=True)
        self.executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=_start, initargs=(str(course), env))

    def submit(self, assignment, students=None):
        log = str(self.course / "logs" / f"autograde_{assignment}.log")
        if assignment not in self.begun:  # here, before any process appends to it
            self.begun.add(assignment)
            open(log, "w").close()
        return self.executor.submit(record_grades, assignment, sorted(students) if students else None, log)

    def release(self, assignment):
        """Future of `nbgrader generate_assignment`'s exit code, run the same way."""
        return self.executor.submit(release, assignment, str(self.course / "logs" / f"generate_assignment_{assignment}.log"))

    def shutdown(self):
        self.executor.shutdown(wait=True)
