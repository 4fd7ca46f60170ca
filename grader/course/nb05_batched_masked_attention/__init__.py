"""Notebook 05, batched masked multi-head attention (row convention, d2l 11.3-11.5).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, readings.py, reference.py); its source
is source/05_batched_masked_attention/ and its sample students tests/students/nb05.py. It may import ../shared
and grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
