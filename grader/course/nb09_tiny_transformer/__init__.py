"""Notebook 09, a tiny transformer trained on a toy task (row convention).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, reference.py); its source
is source/09_tiny_transformer/ and its sample students tests/students/nb09.py. It may import ../shared and
grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
