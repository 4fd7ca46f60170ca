"""The course, as the grading engine sees it (grader/engine/courseware.py says what the engine reads).

Everything else of grader/ outside engine/ is the course: the reference implementations, the book's and
fresh cases, the named mistakes, each notebook's probes (assignments/), the visible checks and the values
the build writes into the notebooks.
"""
from .assignments import PROBES  # noqa: F401
from .notebook_checks import ATOL, RTOL, _same as same  # noqa: F401
from .notebook_values import render  # noqa: F401
