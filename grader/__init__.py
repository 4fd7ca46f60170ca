"""The course's grader, in two parts.

engine/  how any notebook course is built and graded safely and fast; it imports nothing of the course.
course/  this course: one folder per notebook (reference implementations, cases, named mistakes, probes)
         and shared/ for what several use; it may import the engine's interfaces (protocol.Case, Probe,
         Mistake). grader/course/__init__.py is all the engine reads of it.
"""
import os
import sys

# nbgrader runs its own console scripts by name (alembic, for the gradebook): make
# this environment's scripts findable even when the environment is not activated.
_scripts = os.path.dirname(sys.executable)
if _scripts not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _scripts + os.pathsep + os.environ.get("PATH", "")

# jsonschema (under nbformat) compiles the grammars of its optional IRI format checker,
# rfc3987_syntax, at import: about 2.9 s of every grading process's start-up (nbgrader's
# and each worker's). nbformat's notebook schema checks no IRI, so that checker is
# left out; jsonschema treats the module as not installed.
sys.modules.setdefault("rfc3987_syntax", None)
