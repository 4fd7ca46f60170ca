"""Notebook 08, the transformer block (the book's section 12.4, row convention).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, reference.py); its source
is source/08_transformer_block/ and its sample students tests/students/nb08.py. It may import ../shared and
grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
