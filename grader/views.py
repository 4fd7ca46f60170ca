"""Views of a result that make a mistake easier to see, for structural findings (Probe.views).

An attention layer's output mixes everything before the verdict sees it: the output
projection mixes the heads' features, and the values mix the attention weights. A view
undoes what the grader knows exactly (it has the inputs), so `diagnose.same_shape` can say
"head 2 of 3 is wrong" or "the weights sum to one along the queries" of a result where
every entry is wrong. Each view takes (inputs, result) and returns an array, or None when
the result cannot be undone (wrong shape, a matrix that cannot be inverted), or a
sentence when undoing it shows the finding at once.
"""
import numpy as np

from . import mistakes


def _solve_right(A, W):
    """A @ inv(W), when W is square and well conditioned."""
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or np.linalg.cond(W) > 1e8:
        return None
    return np.linalg.solve(W.T, np.swapaxes(A, -1, -2)).swapaxes(-1, -2) if A.ndim == 2 else A @ np.linalg.inv(W)


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


def weights_loop(inputs, value):
    """Notebook 01's loop, x'_n = sum_m a[m, n] v_m: the weights it implies, (N, N) as in the matrix form."""
    V = np.hstack([np.reshape(v, (-1, 1)) for v in inputs["all_values"]])  # (D, N)
    outputs = np.asarray(value, dtype=float)
    if outputs.ndim < 2 or outputs.shape[0] != V.shape[1] or outputs[0].size != V.shape[0]:
        return None
    return _weights_behind(V, outputs.reshape(V.shape[1], V.shape[0]).T)  # outputs as columns, (D, N)


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


def table_rows(inputs, value):
    """Notebook 06's embeddings: each word's vector should be the table's row for its id. When every vector
    is some row of the table, but not its own, say how the rows it took differ."""
    from . import reference
    table = np.asarray(inputs["embedding_matrix"], dtype=float)  # (V, D)
    value = np.asarray(value, dtype=float)
    if value.size % table.shape[1]:
        return None
    rows = value.reshape(-1, table.shape[1])  # (T, D)
    right = reference.tokenize(inputs["text"], {w: n for n, w in enumerate(inputs["vocab_words"])})  # (T,)
    found = []
    for row in rows:
        same = [k for k in range(len(table)) if np.allclose(row, table[k])]
        if not same:
            return None
        found.append(same[0])
    if len(found) != len(right) or found == list(right):
        return None
    shift = {f - r for f, r in zip(found, right)}
    if len(shift) == 1:
        k = shift.pop()
        return (f"each word's vector is a row of embedding_matrix, but {abs(k)} row(s) {'after' if k > 0 else 'before'} "
                "the row of its id: are the ids shifted?")
    return ("each word's vector is a row of embedding_matrix, but not always the row of its id: are the ids the "
            "ones tokenize gives (vocab[word], vocab[UNK] for an unknown word)?")


# (words that introduce the finding, the view, the names of its axes)
HEADS_04 = ("undoing the output projection omega_c", heads_column_convention, ("heads", "features", "tokens"))
HEADS_ROWS = ("undoing the output projection W_o", heads_row_convention,
              ("sequences", "heads", "positions", "features"))
WEIGHTS_ROWS = ("behind the output projection and the values, in its attention weights", weights_row_convention,
                ("sequences", "heads", "queries", "keys"))
WEIGHTS_LOOP = ("its outputs mix the values with other weights; in those", weights_loop, ("keys", "queries"))
TABLE_ROWS = ("", table_rows, ())
WEIGHTS_01 = ("it mixes the right values with other attention weights; in those", weights_column_convention,
              ("keys", "queries"))
