"""Views of notebook 04's results that make a mistake easier to see (Probe.views; shared/views.py says how).
"""
import numpy as np

from . import mistakes


def heads_column_convention(inputs, value):
    """Multi-head attention of notebook 04, X' = omega_c @ (heads stacked): the heads, (H, D/H, N)."""
    lists = inputs if "omegas_v" in inputs else mistakes.two_heads(inputs)
    omega_c = np.asarray(lists["omega_c"], dtype=float)
    value = np.asarray(value, dtype=float)
    H = len(lists["omegas_v"])
    if value.shape != (omega_c.shape[0], np.shape(lists["X"])[1]) or np.linalg.cond(omega_c) > 1e8:
        return None
    stacked = np.linalg.solve(omega_c, value)  # (D, N)
    return stacked.reshape(H, stacked.shape[0] // H, stacked.shape[1])  # (H, D/H, N)


# (words that introduce the finding, the view, the names of its axes)
HEADS_04 = ("undoing the output projection omega_c", heads_column_convention, ("heads", "features", "tokens"))
