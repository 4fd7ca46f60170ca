"""Notebook 04, multi-head self-attention (book notebook 12.2; figure 12.6).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, reference.py, views.py);
its source is source/04_multihead_attention/ and its sample students tests/students/nb04.py. It may import
../shared and grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
