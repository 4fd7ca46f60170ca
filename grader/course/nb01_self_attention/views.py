"""Views of notebook 01's results that make a mistake easier to see (Probe.views; shared/views.py says how).
"""
import numpy as np

from ..shared.views import _weights_behind


def weights_loop(inputs, value):
    """Notebook 01's loop, x'_n = sum_m a[m, n] v_m: the weights it implies, (N, N) as in the matrix form."""
    V = np.hstack([np.reshape(v, (-1, 1)) for v in inputs["all_values"]])  # (D, N)
    outputs = np.asarray(value, dtype=float)
    if outputs.ndim < 2 or outputs.shape[0] != V.shape[1] or outputs[0].size != V.shape[0]:
        return None
    return _weights_behind(V, outputs.reshape(V.shape[1], V.shape[0]).T)  # outputs as columns, (D, N)
WEIGHTS_LOOP = ("its outputs mix the values with other weights; in those", weights_loop, ("keys", "queries"))
