"""Record an assignment's grades with nbgrader's autograde, in a few processes that last the whole run.

`nbgrader autograde ASSIGNMENT` as a command costs an interpreter and nbgrader's imports (about 5 CPU-s
here) before its first notebook, every assignment. A Recorders pool runs the same app, nbgrader's
AutogradeApp with the course directory's nbgrader_config.py, in `processes` long-lived processes, one
assignment after another: the gradebook, autograded/, feedback and the log it writes are what the command
writes (the log still goes to <course>/logs/autograde_<assignment>.log). A forked kernel's zygote, which a
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


def _start(course, env):
    """In each recording process, once: the course directory and the run's environment, as the command had."""
    os.environ.update(env)
    os.chdir(course)
    try:  # the name `ps` and top show (and benchmarks/cpu_by_process.py counts by); Linux only
        with open("/proc/self/comm", "w") as f:
            f.write(PROCESS_NAME)
    except OSError:
        pass
    # SQLAlchemy's autoflush notes on nbgrader's own gradebook code (three a student, in every log)
    warnings.filterwarnings("ignore", message=r"Object of type <\w+> not in session")


def autograde_here(assignment, student, log):
    """nbgrader's AutogradeApp on one assignment (one student of it, or all: None), in this process, its
    log appended to `log`; 0 if it recorded everything, else 1 (as the command's exit code)."""
    from nbgrader.apps.autogradeapp import AutogradeApp
    sys.stdout.flush(), sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1), os.dup2(fd, 2)  # what nbgrader (and anything it starts) prints goes to the log
    os.close(fd)
    app = AutogradeApp()
    try:
        app.initialize([assignment, "--force"] + ([f"--student={student}"] if student else []))
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


def autograde(assignment, students, log):
    """An assignment, for every student in submitted/ (students None) or for these only; 0 or 1."""
    open(log, "w").close()  # this run's log, as the command's redirect began one
    return max(autograde_here(assignment, s, log) for s in (students or [None]))


class Recorders:
    """`processes` recording processes for one grading run; submit(assignment, students) -> Future of 0 or 1."""

    def __init__(self, course, env, processes):
        self.course = course
        (course / "logs").mkdir(exist_ok=True)
        self.executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=_start, initargs=(str(course), env))

    def submit(self, assignment, students=None):
        log = str(self.course / "logs" / f"autograde_{assignment}.log")
        return self.executor.submit(autograde, assignment, sorted(students) if students else None, log)

    def shutdown(self):
        self.executor.shutdown(wait=True)
