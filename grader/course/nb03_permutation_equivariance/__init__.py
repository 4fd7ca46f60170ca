"""Notebook 03, permutation equivariance (book 12.1's closing TODO; problem 12.3).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, readings.py, reference.py); its source
is source/03_permutation_equivariance/ and its sample students tests/students/nb03.py. It may import ../shared
and grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
