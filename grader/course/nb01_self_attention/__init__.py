"""Notebook 01, self-attention (book 12.1, first half).

This folder is all of the notebook's course code (mistakes.py, probes.py, reference.py, views.py); its source
is source/01_self_attention/ and its sample students tests/students/nb01.py. It may import ../shared and
grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
