"""The course's grader: reference implementations, sealed verdicts, build and grading."""
import os
import sys

# nbgrader runs its own console scripts by name (alembic, for the gradebook): make
# this environment's scripts findable even when the environment is not activated.
_scripts = os.path.dirname(sys.executable)
if _scripts not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _scripts + os.pathsep + os.environ.get("PATH", "")
