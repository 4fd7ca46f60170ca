"""The course: one folder per notebook, and what two or more notebooks share.

nbNN_<name>/  notebook NN_<name>: reference.py (expected values), cases.py (the book's and fresh inputs),
              mistakes.py (named mistakes), views.py and readings.py (where it has its own), probes.py (PROBES: how each
              graded cell is judged; VALUES: what the build writes into its generated cells). A folder may
              import shared/ and the engine's interfaces (grader.engine.protocol), never another notebook.
shared/       what several notebooks use, each thing once, and the course-wide pieces: the visible checks
              (notebook_checks.py), the values the build writes (notebook_values.py), how numbers are
              rounded (rounding.py), the book's numbering (book.py), notebook 09's model (tiny_transformer.py).

This module is all the engine reads of the course (grader/engine/courseware.py). A new notebook is a new
folder here; nothing is registered by hand.
"""
import importlib
import pkgutil

import numpy as np

NOTEBOOKS = {
    info.name[2:]: importlib.import_module(f"{__name__}.{info.name}")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)
    if info.ispkg and info.name.startswith("nb")
}

PROBES = {name: folder.PROBES for name, folder in NOTEBOOKS.items()}

VALUES = {}
for _folder in NOTEBOOKS.values():
    for _key, _make in _folder.VALUES.items():
        if _key in VALUES:
            raise KeyError(f"generated cell key '{_key}' is defined twice in grader/course ({_folder.__name__})")
        VALUES[_key] = _make

from .shared import notebook_values  # noqa: E402
from .shared.notebook_checks import ATOL, RTOL  # noqa: E402
from .shared.steps import replaced  # noqa: E402,F401  (engine/steps.py remakes steps with one in place of another)
from ..engine.diagnose import allclose  # noqa: E402


def same(yours, true):
    """The notebooks' own "matches" (notebook_checks._same: equal within RTOL and ATOL once singleton axes are
    dropped, nan and inf in the same places), by diagnose.allclose: verdicts ask it tens of thousands of times
    on one wrong answer (tests/test_protocol.py checks that the two agree)."""
    yours, true = np.squeeze(yours), np.squeeze(true)
    return yours.shape == true.shape and allclose(yours, true, RTOL, ATOL, equal_nan=True)


def render(key):
    """The source of the generated notebook cell `key`: the visible checks, a module the notebook holds,
    or the true values of a notebook's VALUES."""
    return notebook_values.render(key, VALUES)
