"""Notebook 07, backpropagation through attention (book 12.1's scaled attention, eq. 12.9, run backwards).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, reference.py); its source
is source/07_attention_backprop/ and its sample students tests/students/nb07.py. It may import ../shared and
grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
