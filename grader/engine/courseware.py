"""The course the engine grades, found by name: the one door between the engine and a course.

A course is a module (by default grader.course; $COURSE_MODULE names another) that holds
    PROBES          {assignment: {grade_id of a test cell: protocol.Probe}}: how each graded cell is judged
    render(key)     the source of a generated notebook cell (true values, the visible checks)
    RTOL, ATOL      the tolerances of "matches", and same(yours, true), the comparison made with them,
                    so a visible check in the notebook and a sealed verdict mean the same thing
    replaced(values)  optional: a context in which the probes' step builders use {step name: value} for
                    those steps, so the engine can remake a part's steps with a known value in place of one
The engine imports it here, on first use, and nowhere else.
"""
import importlib
import os

COURSE_VARIABLE = "COURSE_MODULE"


def course():
    """The course module (imported once; Python keeps it)."""
    return importlib.import_module(os.environ.get(COURSE_VARIABLE) or "grader.course")
