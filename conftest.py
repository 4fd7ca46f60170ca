"""Every kernel the tests start (nbval's included) reads matplotlib's font cache from a directory of its own.

The executed notebooks were built with a private cache (grader/engine/build.py); nbval compares their
outputs, stderr included. A machine's cache written by another matplotlib, without the fonts this one ships,
makes the mathtext figures warn on stderr, and nbval would fail on a warning the notebooks do not have.
Set before pytest-xdist starts its workers, so they and their kernels inherit it.
"""
import os
import shutil
import tempfile

_made = None


def pytest_configure(config):
    global _made
    if "MPLCONFIGDIR" not in os.environ:
        _made = os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(prefix="course-mpl-")


def pytest_unconfigure(config):
    if _made:
        shutil.rmtree(_made, ignore_errors=True)
