"""Notebook 06, contextual embeddings (row convention).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, reference.py, views.py);
its source is source/06_contextual_embeddings/ and its sample students tests/students/nb06.py. It may import
../shared and grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
