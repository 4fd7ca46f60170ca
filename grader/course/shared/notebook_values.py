"""The reference values printed in notebooks, computed here and written into cells by the build.

A notebook cell whose metadata says {"course": {"generated": KEY}} is rewritten by
`python -m grader build`: KEY "checks" gets notebook_checks.py verbatim, any
other KEY the names that VALUES[KEY]() returns (a notebook folder's probes.py gives it): true values
on the book's case, and the values of the catalogued mistakes on the same case, so
a visible check can name a mistake with nothing but the notebook. KEY "module:NAME" (one of
MODULES) gets grader/course/shared/NAME.py verbatim: code the notebook gives, kept in one place.

Every float is written to DIGITS significant digits of the largest entry of its result
(rounding.py), so the same course builds the same on every machine.
"""
from pathlib import Path

import numpy as np

from . import notebook_checks
from .rounding import DIGITS, is_ragged, largest_entry, rounded

MODULES = ("module:tiny_transformer",)  # course modules a notebook holds verbatim (they import numpy only)
HEADER = "# Written by `python -m grader build` from the course's reference code: do not edit.\n"


def _number(x):
    """A float as Python source: DIGITS significant digits; nan and inf spelled as numpy's."""
    if np.isnan(x):
        return "np.nan"
    if np.isinf(x):
        return "np.inf" if x > 0 else "-np.inf"
    return f"{x:.{DIGITS}g}"


def _literal(value, prefix="", largest=None):
    """Python source for a value, aligned after `prefix`, its floats on the grid of DIGITS significant
    digits of the largest entry of its result: one array, or the arrays of one result together (a dict of
    gradients, [loss, dlogits]), so 07's d_beta_k, zero in exact arithmetic, is 0 beside dX. A dict of
    results (a mistake's name -> its gradients) rounds each result on its own scale."""
    if isinstance(value, str):
        return repr(value)
    if largest is None and not (isinstance(value, dict) and any(isinstance(v, dict) for v in value.values())):
        largest = largest_entry(value)
    if isinstance(value, dict):
        body = "".join(f"    {_literal(k)}:\n        "
                       f"{_literal(v, largest=largest).replace(chr(10), chr(10) + '        ')},\n"
                       for k, v in value.items())
        return "{\n" + body + "}"
    if isinstance(value, list) and is_ragged(value):  # several results of one call, as [loss, dlogits]
        return "[\n" + "".join(f"    {_literal(v, '    ', largest)},\n" for v in value) + "]"
    text = np.array2string(rounded(value, largest), separator=", ", max_line_width=88, threshold=10**6,
                           prefix=prefix + "np.array(",
                           formatter={"float_kind": _number})
    return f"np.array({text})"


def render(key, values):
    """The whole source of the generated cell `key`; `values` is {key: function returning {name: value}},
    every notebook folder's VALUES (grader/course/__init__.py gathers them)."""
    if key == "checks":
        return HEADER + Path(notebook_checks.__file__).read_text()
    if key in MODULES:  # the course's own code that a notebook gives, from the one file the grader imports
        return HEADER + (Path(__file__).parent / f"{key.split(':', 1)[1]}.py").read_text()
    if key not in values:
        raise KeyError(f"no generated cell called '{key}' in any notebook folder's VALUES (grader/course/nb*/probes.py)")
    return HEADER + "".join(f"{name} = {_literal(v, f'{name} = ')}\n" for name, v in values[key]().items())
