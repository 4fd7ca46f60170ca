"""Benchmarks: `python -m benchmarks.grade_class` times class grading against plain `nbgrader autograde`."""
