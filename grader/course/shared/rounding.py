"""How a computed value is written so that it is the same on every machine.

The last bits of a floating-point result depend on the CPU, the BLAS kernel and the thread count. A
value the course writes down (a notebook's generated true values) keeps DIGITS significant digits of
the largest entry of its result, so a digit below that never decides what is written, and an entry that
is zero in exact arithmetic (07's d_beta_k: 1e-17 on one machine, -7e-17 on another) is written 0.
"""
import numpy as np

DIGITS = 10  # significant digits of a result's largest entry that a written value keeps


def largest_entry(value):
    """The largest finite magnitude in a value: an array, or a dict or list of them."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list) and is_ragged(value):
        return max((largest_entry(v) for v in value), default=0.0)
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
    largest = largest_entry(a) if largest is None else largest
    if largest == 0.0:
        return a + 0.0
    quantum = 10.0 ** (int(np.floor(np.log10(largest))) - DIGITS + 1)
    with np.errstate(invalid="ignore"):
        grid = np.where(np.isfinite(a), np.round(a / quantum) * quantum, a)
    return grid + 0.0  # -0.0 + 0.0 is 0.0


def is_ragged(values):
    """Whether a list's items differ in shape, so that it is no array."""
    try:
        np.asarray(values, dtype=float)
        return False
    except ValueError:
        return True
