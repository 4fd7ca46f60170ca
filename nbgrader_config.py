"""nbgrader's configuration for this course; nbgrader reads it from the working directory.

Run nbgrader from the repository root (or from a course directory whose own
nbgrader_config.py loads this one, as `python -m grader grade` writes).
"""
import os
import tempfile

from grader.engine.nbgrader_plugin import (SANITIZE, CheckCellMetadataQuickly, FeedbackStyle, InjectProbes, SealVerdicts,
                                    cached)
from grader.engine.sandbox import SandboxedExecute
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbgrader.preprocessors import (AssignLatePenalties, Execute, GetGrades, IgnorePattern, LimitOutput,
                                    SaveAutoGrades)

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = "attention-from-scratch"
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"

# A filled-in solution region keeps the placeholder line above it, so every
# student notebook runs from top to bottom before anything is written.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Student code runs in a sandboxed kernel (grader/engine/sandbox.py: bubblewrap, no network,
# nothing of the course visible, resource limits). Where no sandbox can be made,
# grading stops and says why; COURSE_UNSANDBOXED=1 (`python -m grader grade
# --unsandboxed`) runs plain kernels instead, for trusted code only.
UNSANDBOXED = os.environ.get("COURSE_UNSANDBOXED") == "1"

# nbgrader's own sanitizing, except that one notebook with a pasted cell cannot stop the class.
c.Autograde.sanitize_preprocessors = SANITIZE

# Sealed verdicts: probes go in before Execute, verdicts are made right after it
# and before anything reads a score (SaveAutoGrades). Execute reuses a notebook
# already run with exactly these cells (grader/engine/nbgrader_plugin.py: a parallel run
# of `python -m grader grade`, or a run that was killed part way).
c.Autograde.autograde_preprocessors = [
    InjectProbes,
    cached(Execute, sandboxed=False) if UNSANDBOXED else cached(SandboxedExecute, sandboxed=True),
    SealVerdicts,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadataQuickly,  # nbgrader's CheckCellMetadata, its schema compiled once
]
# nbconvert checks a notebook against nbformat's schema after each preprocessor: ten checks a notebook in
# autograde's last pass alone. One check after a pass's last preprocessor still refuses a notebook that leaves
# it invalid (its log then names that last preprocessor, not the one that broke it).
c.Exporter.optimistic_validation = True

# A kernel nbgrader starts without the sandbox (`nbgrader validate`, --unsandboxed) talks over local
# sockets (ipc), as the sandboxed ones do, not TCP on localhost, where ipykernel warns that the
# connection is unencrypted. jupyter_client removes the socket files when the kernel shuts down.
c.KernelManager.transport = "ipc"
c.KernelManager.ip = os.path.join(tempfile.gettempdir(), f"course-kernel-{os.getpid()}")

# Seconds per cell; `python -m grader grade --timeout` sets COURSE_CELL_TIMEOUT.
c.Execute.timeout = int(os.environ.get("COURSE_CELL_TIMEOUT") or 60)

# Feedback is opened by students and by instructors, maybe where formgrader runs: nothing a submission
# wrote may run there. nbconvert's SanitizeHTML escapes scripts and event handlers in markdown and HTML
# outputs and drops Javascript outputs. FeedbackStyle is nbconvert's CSSHTMLHeaderPreprocessor with
# verdicts wrapped inside the page.
c.GenerateFeedback.preprocessors = [GetGrades, FeedbackStyle, SanitizeHTML]
c.SanitizeHTML.enabled = True  # nbconvert registers it switched off
c.FeedbackStyle.enabled = True  # so too this one (nbgrader's own CSSHTMLHeaderPreprocessor never ran)
