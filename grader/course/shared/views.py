"""Views of a result that make a mistake easier to see, for structural findings (Probe.views).

An attention layer's output mixes everything before the verdict sees it: the output
projection mixes the heads' features, and the values mix the attention weights. A view
undoes what the grader knows exactly (it has the inputs), so `diagnose.same_shape` can say
"head 2 of 3 is wrong" or "the weights sum to one along the queries" of a result where
every entry is wrong. Each view takes (inputs, result) and returns an array, or None when
the result cannot be undone (wrong shape, a matrix that cannot be inverted), or a
sentence when undoing it shows the finding at once.

This module holds the views two or more notebooks use; a notebook's own are in its folder.
"""
import numpy as np


def _solve_right(A, W):
    """A @ inv(W), when W is square and well conditioned."""
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or np.linalg.cond(W) > 1e8:
        return None
    return np.linalg.solve(W.T, np.swapaxes(A, -1, -2)).swapaxes(-1, -2) if A.ndim == 2 else A @ np.linalg.inv(W)


def heads_row_convention(inputs, value):
    """Multi-head attention in rows, out = concat(heads) @ W_o + b_o: the heads, (B, H, T, d)."""
    value = np.asarray(value, dtype=float)
    H = int(inputs.get("num_heads", inputs.get("H", 0)))
    W_o = inputs["W_o"]
    if value.ndim != 3 or H < 1 or value.shape[-1] % H:
        return None
    concat = _solve_right(value - np.asarray(inputs.get("b_o", 0.0), dtype=float), W_o)  # (B, T, D)
    if concat is None:
        return None
    B, T, D = concat.shape
    return concat.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)  # (B, H, T, d)


def weights_row_convention(inputs, value):
    """Multi-head attention in rows: the attention weights (B, H, Tq, Tk) its heads imply, when each head's
    values (Tk, d) have independent rows (Tk <= d) and each head's output is a mix of them."""
    heads = heads_row_convention(inputs, value)  # (B, H, Tq, d)
    if heads is None:
        return None
    values = inputs["values"] if "values" in inputs else inputs["X"]
    V = np.asarray(values, dtype=float) @ inputs["W_v"] + np.asarray(inputs.get("b_v", 0.0), dtype=float)  # (B, Tk, D)
    B, H, _, d = heads.shape
    Tk = V.shape[1]
    if V.shape[0] != B or V.shape[2] != H * d or Tk > d:
        return None
    V = V.reshape(B, Tk, H, d).transpose(0, 2, 1, 3)  # (B, H, Tk, d)
    if any(np.linalg.matrix_rank(V[b, h]) < Tk for b in range(B) for h in range(H)):
        return None
    A = heads @ np.linalg.pinv(V)  # (B, H, Tq, Tk): heads = A @ V
    if not np.allclose(A @ V, heads, rtol=1e-6, atol=1e-8):
        return None  # a head's output is not a mix of its values
    return A


def weights_column_convention(inputs, value):
    """Self-attention of notebooks 01-02, X' = V @ A: the weights A (N, N) the result implies, when the
    values V (D, N) have independent columns (D >= N) and X' is a mix of them."""
    V = np.asarray(inputs["omega_v"], dtype=float) @ inputs["X"] + inputs["beta_v"]  # (D, N)
    return _weights_behind(V, np.asarray(value, dtype=float), np.asarray(inputs["X"], dtype=float))


def _weights_behind(V, value, X=None):
    """A with value = V @ A, when V's columns are independent; a sentence when value mixes X instead."""
    if value.shape != V.shape or V.shape[0] < V.shape[1] or np.linalg.matrix_rank(V) < V.shape[1]:
        return None
    A, *_ = np.linalg.lstsq(V, value, rcond=None)  # (N, N)
    if np.allclose(V @ A, value, rtol=1e-6, atol=1e-8):
        return A
    if X is not None and np.linalg.matrix_rank(X) == X.shape[1]:
        B, *_ = np.linalg.lstsq(X, value, rcond=None)
        if np.allclose(X @ B, value, rtol=1e-6, atol=1e-8):
            return ("it is a mix of the inputs X, not of the values V = omega_v @ X + beta_v: are the "
                    "attention weights applied to the values?")
    return None  # not a mix of the values at all
HEADS_ROWS = ("undoing the output projection W_o", heads_row_convention,
              ("sequences", "heads", "positions", "features"))
WEIGHTS_ROWS = ("behind the output projection and the values, in its attention weights", weights_row_convention,
                ("sequences", "heads", "queries", "keys"))
WEIGHTS_01 = ("it mixes the right values with other attention weights; in those", weights_column_convention,
              ("keys", "queries"))
