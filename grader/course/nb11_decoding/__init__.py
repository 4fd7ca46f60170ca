"""Notebook 11, generating text: decoding strategies and the KV cache (the book's notebook 12.4, in NumPy).

This folder is all of the notebook's course code (cases.py, mistakes.py, probes.py, reference.py); its source is
source/11_decoding/ and its sample students tests/students/nb11.py. It may import ../shared and
grader.engine.protocol, never another notebook's folder.
"""
from .probes import PROBES, VALUES  # noqa: F401
