"""Notebook 02, scaled dot-product attention (book 12.1, second half; eq. 12.9).

This folder is all of the notebook's course code (mistakes.py, probes.py); its source is
source/02_scaled_attention/ and its sample students tests/students/nb02.py. It may import ../shared and
grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
