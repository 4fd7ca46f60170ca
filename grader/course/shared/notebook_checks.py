# The course's visible checks. The build copies this file verbatim into each
# notebook, so a student needs nothing but the notebook; the grader imports
# the same tolerances, so "matches" means one thing everywhere.
import numpy as np

RTOL, ATOL = 1e-4, 1e-6
_allclose = np.allclose  # bound now: a later `np.allclose = ...` in the notebook cannot make a check pass


class CheckFailed(AssertionError):
    """A check that found something wrong: shown as its message alone, not a traceback through this cell."""

    def _render_traceback_(self):  # IPython shows these lines instead of the traceback
        return [f"\033[0;31mCheck failed:\033[0m {line}" if i == 0 else line
                for i, line in enumerate(str(self).splitlines())]


def _same(yours, true):
    """Equal within the tolerances; nan and inf must stand in the same places."""
    yours, true = np.squeeze(yours), np.squeeze(true)
    return yours.shape == true.shape and _allclose(yours, true, rtol=RTOL, atol=ATOL, equal_nan=True)


def check(name, yours, true, mistakes=None):
    """Compare your result with the true one; name the mistake when one is recognised."""
    yours = np.asarray(yours, dtype=float)
    true = np.asarray(true, dtype=float)
    if np.squeeze(yours).shape != np.squeeze(true).shape:
        raise CheckFailed(f"{name} has shape {yours.shape}; it should have shape {true.shape}")
    if _same(yours, true):
        # No difference printed: below the tolerance it is rounding, and rounding differs from CPU to CPU.
        print(f"OK: {name} matches the true values")
        return
    for mistake, value in (mistakes or {}).items():
        if _same(yours, value):
            raise CheckFailed(f"{name} is wrong. Recognised mistake, {mistake}")
    if not np.all(np.isfinite(yours)):
        raise CheckFailed(f"{name} contains nan or inf: look for an overflow in np.exp")
    yours = np.squeeze(yours)
    true = np.squeeze(true).reshape(yours.shape)
    off = ~np.isclose(yours, true, rtol=RTOL, atol=ATOL)
    where = np.unravel_index(np.argmax(np.abs(yours - true)), yours.shape)
    at = f"at index {tuple(int(i) for i in where)} " if yours.ndim else ""
    raise CheckFailed(f"{name} is wrong: {int(off.sum())} of {off.size} entries differ from the true values; "
                      f"the largest difference is {at}(yours {yours[where]:.6g}, true {true[where]:.6g}).")


def check_columns_sum_to_one(name, A):
    """Attention weights: every column is a distribution over the keys."""
    A = np.asarray(A, dtype=float)
    if np.any(A < 0):
        raise CheckFailed(f"{name} has negative entries: a softmax output never does")
    sums = A.sum(axis=0)
    if not np.allclose(sums, 1.0, rtol=RTOL, atol=ATOL):
        rows = A.sum(axis=1)
        hint = " (its rows do: the softmax ran over rows, not columns)" if np.allclose(rows, 1.0) else ""
        worst = int(np.argmax(np.abs(sums - 1)))
        raise CheckFailed(f"{name}: its columns should each sum to 1; column {worst} sums to {sums[worst]:.6g}{hint}")
    print(f"OK: every column of {name} sums to 1")


def unchanged(name, function, *args, forwards=()):
    """function(*args), run on copies of its array arguments: raises if it changed them in place. With
    `forwards` (names of this notebook's forward functions), it also counts how often function calls them:
    a backward pass needs the forward pass once at most, finite differences twice for every entry."""
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    space, calls, kept = globals(), [], {}
    for forward in forwards:
        kept[forward] = space[forward]
        space[forward] = (lambda f: lambda *a, **k: calls.append(1) or f(*a, **k))(kept[forward])
    try:
        result = function(*copies)
    finally:
        space.update(kept)
    if len(calls) > 4:
        raise CheckFailed(f"{name} ran the forward pass ({', '.join(forwards)}) {len(calls)} times: that is finite "
                          "differences, not a backward pass. Derive the gradients with the chain rule, as the "
                          "notebook does, and compute them once from the forward pass's values.")
    for n, (given, copy) in enumerate(zip(args, copies)):
        if isinstance(given, np.ndarray) and not (given.shape == copy.shape and np.array_equal(given, copy, equal_nan=True)):
            raise CheckFailed(f"{name} changed its argument {n + 1} in place, so the caller's array is "
                                 "overwritten: work on a copy (or build a new array) and leave it as it was")
    return result
