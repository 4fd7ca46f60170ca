"""The reference values printed in notebooks, computed here and written into cells by the build.

A notebook cell whose metadata says {"course": {"generated": KEY}} is rewritten by
`python -m grader build`: KEY "checks" gets grader/notebook_checks.py verbatim, any
other KEY the names that VALUES[KEY]() of grader/assignments returns: true values
on the book's case, and the values of the catalogued mistakes on the same case, so
a visible check can name a mistake with nothing but the notebook. KEY "module:NAME" (one of
MODULES) gets grader/NAME.py verbatim: code the notebook gives, kept in one place.

Every float is written to DIGITS significant digits of the largest entry of its result (`rounded`):
the last bits of a result depend on the CPU, the BLAS kernel and the thread count, so a digit below
that would make the same course build differently on another machine, and an entry that is zero
in exact arithmetic (07's d_beta_k, 1e-17 here and -7e-17 there) is written 0.
"""
from pathlib import Path

import numpy as np

from . import notebook_checks
from .assignments import VALUES

MODULES = ("module:tiny_transformer",)  # grader modules a notebook holds verbatim (they import numpy only)
DIGITS = 10  # significant digits of an array's largest entry that a generated value keeps
HEADER = "# Written by `python -m grader build` from the course's reference code: do not edit.\n"


def _number(x):
    """A float as Python source: DIGITS significant digits; nan and inf spelled as numpy's."""
    if np.isnan(x):
        return "np.nan"
    if np.isinf(x):
        return "np.inf" if x > 0 else "-np.inf"
    return f"{x:.{DIGITS}g}"


def _largest(value):
    """The largest finite magnitude in a value: an array, or a dict or list of them."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list) and _ragged(value):
        return max((_largest(v) for v in value), default=0.0)
    if isinstance(value, str):
        return 0.0
    a = np.asarray(value)
    if a.dtype.kind not in "fiu" or a.size == 0:
        return 0.0
    finite = np.abs(a[np.isfinite(a)])
    return float(finite.max()) if finite.size else 0.0


def rounded(value, largest=None):
    """A float array on the grid of DIGITS significant digits of `largest` (by default its own largest
    finite entry); zeros are written 0, never -0.

    Rounding each entry to its own 10 digits would keep 1e-17 beside 1.3; rounding to the largest entry's
    turns what is rounding noise at the result's scale into 0, as it is in exact arithmetic."""
    a = np.asarray(value)
    if a.dtype.kind != "f" or a.size == 0:
        return a
    largest = _largest(a) if largest is None else largest
    if largest == 0.0:
        return a + 0.0
    quantum = 10.0 ** (int(np.floor(np.log10(largest))) - DIGITS + 1)
    with np.errstate(invalid="ignore"):
        grid = np.where(np.isfinite(a), np.round(a / quantum) * quantum, a)
    return grid + 0.0  # -0.0 + 0.0 is 0.0


def _ragged(values):
    """Whether a list's items differ in shape, so that it is no array."""
    try:
        np.asarray(values, dtype=float)
        return False
    except ValueError:
        return True


def _literal(value, prefix="", largest=None):
    """Python source for a value, aligned after `prefix`, its floats on the grid of DIGITS significant
    digits of the largest entry of its result: one array, or the arrays of one result together (a dict of
    gradients, [loss, dlogits]), so 07's d_beta_k, zero in exact arithmetic, is 0 beside dX. A dict of
    results (a mistake's name -> its gradients) rounds each result on its own scale."""
    if isinstance(value, str):
        return repr(value)
    if largest is None and not (isinstance(value, dict) and any(isinstance(v, dict) for v in value.values())):
        largest = _largest(value)
    if isinstance(value, dict):
        body = "".join(f"    {_literal(k)}:\n        "
                       f"{_literal(v, largest=largest).replace(chr(10), chr(10) + '        ')},\n"
                       for k, v in value.items())
        return "{\n" + body + "}"
    if isinstance(value, list) and _ragged(value):  # several results of one call, as [loss, dlogits]
        return "[\n" + "".join(f"    {_literal(v, '    ', largest)},\n" for v in value) + "]"
    text = np.array2string(rounded(value, largest), separator=", ", max_line_width=88, threshold=10**6,
                           prefix=prefix + "np.array(",
                           formatter={"float_kind": _number})
    return f"np.array({text})"


def render(key):
    """The whole source of a generated cell."""
    if key == "checks":
        return HEADER + Path(notebook_checks.__file__).read_text()
    if key in MODULES:  # the course's own code that a notebook gives, from the one file the grader imports
        return HEADER + (Path(__file__).parent / f"{key.split(':', 1)[1]}.py").read_text()
    if key not in VALUES:
        raise KeyError(f"no generated cell called '{key}' in grader/notebook_values.py")
    return HEADER + "".join(f"{name} = {_literal(v, f'{name} = ')}\n" for name, v in VALUES[key]().items())
