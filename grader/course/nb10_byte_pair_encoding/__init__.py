"""Notebook 10, byte-pair encoding (book section 12.5.1, figure 12.8, notebook 12.3; Sennrich, Haddow and Birch, 2016).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, reference.py); its source is
source/10_byte_pair_encoding/ and its sample students tests/students/nb10.py. It may import ../shared and
grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
