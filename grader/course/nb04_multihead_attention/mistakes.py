"""Notebook 04's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np

from ..shared import reference as shared_ref
from ..shared.mistakes import NO_SCALING, SOFTMAX_ROWS
from ...engine.protocol import Mistake


COLUMN_SHAPES = Mistake(
    "shapes that do not multiply",
    "a matrix product got shapes that do not fit. In the book's convention a token is a column: weights "
    "are (D_out, D_in) and act from the left, omega @ X; the row convention X @ omega is for weights "
    "stored transposed. Heads are stacked one on top of the other (np.vstack), then omega_c @ ...",
    raises="matmul")


def _head_scores(i, scale):
    """One head's dot products K^T Q (N, N), multiplied by `scale(Q, X)`."""
    Q = i["omega_q"] @ i["X"] + i["beta_q"]  # (D/H, N)
    K = i["omega_k"] @ i["X"] + i["beta_k"]  # (D/H, N)
    return (K.T @ Q) * scale(Q, i["X"])  # (N, N)


def _head_weights(i, scale):
    return shared_ref.softmax_cols(_head_scores(i, scale))  # (N, N): columns sum to 1


def _multihead(i, scale=lambda Q, X: 1 / np.sqrt(Q.shape[0]), project=True, order=lambda heads: heads,
               weights_of=lambda h: h, n_heads=None):
    """Multi-head attention from lists of per-head parameters, with a chosen scale, with or without omega_c,
    the heads stacked in `order(heads)`, head h weighted by head `weights_of(h)`'s attention, and only the
    first `n_heads` heads (all when None)."""
    X = i["X"]
    weights = [_head_weights({"X": X, "omega_q": oq, "omega_k": ok, "beta_q": bq, "beta_k": bk}, scale)
               for oq, ok, bq, bk in zip(i["omegas_q"], i["omegas_k"], i["betas_q"], i["betas_k"])]  # H x (N, N)
    heads = [(ov @ X + bv) @ weights[weights_of(h)]
             for h, (ov, bv) in enumerate(zip(i["omegas_v"], i["betas_v"]))][:n_heads]  # H x (D/H, N)
    stacked = np.vstack(order(heads))  # (D, N)
    return i["omega_c"] @ stacked if project else stacked


def plural(name):
    """The general version's name for a list of per-head parameters: omega_v -> omegas_v."""
    return name.replace("omega_", "omegas_").replace("beta_", "betas_")


def two_heads(i):
    """The book's 14 arguments as the lists of the general version."""
    names = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    out = {plural(n): [i[f"{n}1"], i[f"{n}2"]] for n in names}
    out.update(X=i["X"], omega_c=i["omega_c"])
    return out


def _on_lists(compute):
    """A mistake computed from per-head lists, for inputs given either way."""
    return lambda i: compute(i if "omegas_v" in i else two_heads(i))


HEAD_NO_SCALING = Mistake(NO_SCALING.name, NO_SCALING.message, lambda i: _head_weights(i, lambda Q, X: 1.0))

SQRT_D_NOT_HEAD = Mistake(
    "sqrt(D) instead of sqrt(D/H)",
    "each head's dot products are between queries of size D/H, so scale by np.sqrt(D/H), the head's own "
    "size (omega_q.shape[0]), not by np.sqrt(D)",
    lambda i: _head_weights(i, lambda Q, X: 1 / np.sqrt(X.shape[0])))

HEAD_DIVIDED_BY_SIZE = Mistake(
    "divided by D/H, not sqrt(D/H)",
    "each head's dot products were divided by the head's size itself: divide by its square root, "
    "np.sqrt(omega_q.shape[0])",
    lambda i: _head_weights(i, lambda Q, X: 1 / Q.shape[0]))

HEAD_SOFTMAX_ROWS = Mistake(
    SOFTMAX_ROWS.name, SOFTMAX_ROWS.message,
    lambda i: shared_ref.softmax_cols(_head_scores(i, lambda Q, X: 1 / np.sqrt(Q.shape[0])).T).T)

HEAD_WEIGHTS = [HEAD_NO_SCALING, SQRT_D_NOT_HEAD, HEAD_DIVIDED_BY_SIZE, HEAD_SOFTMAX_ROWS]

OMEGA_C_LEFT_OUT = Mistake(
    "output projection left out",
    "the stacked heads must be mixed by omega_c: X' = omega_c @ (heads stacked), as in figure 12.6",
    _on_lists(lambda i: _multihead(i, project=False)))

HEADS_IN_REVERSE = Mistake(
    "heads stacked in reverse order",
    "the heads are stacked last one first: put head 1 on top, then head 2 and so on (np.vstack([head1, "
    "head2])), because omega_c's columns are matched to the stacked rows in that order",
    _on_lists(lambda i: _multihead(i, order=lambda heads: heads[::-1])))

ONE_HEADS_WEIGHTS = Mistake(
    "head 1's attention weights used for every head",
    "every head is weighted by the first head's attention: each head has its own queries and keys, so "
    "compute each head's weights from its own omega_q, omega_k, beta_q and beta_k",
    _on_lists(lambda i: _multihead(i, weights_of=lambda h: 0)))

TWO_HEADS_HARD_CODED = Mistake(
    "two heads hard-coded",
    "the function uses two heads whatever it is given (range(2), or head 1 and head 2 by name), so with "
    "three or four heads the stacked outputs no longer fit omega_c: loop over every head, "
    "for h in range(len(omegas_v)) or zip(omegas_v, omegas_q, ...)",
    lambda i: _multihead(i, n_heads=2))  # on more heads omega_c @ (2 heads stacked) raises, as the student's code does

MULTIHEAD = [
    OMEGA_C_LEFT_OUT,
    Mistake(NO_SCALING.name, NO_SCALING.message, _on_lists(lambda i: _multihead(i, scale=lambda Q, X: 1.0))),
    Mistake(SQRT_D_NOT_HEAD.name, SQRT_D_NOT_HEAD.message,
            _on_lists(lambda i: _multihead(i, scale=lambda Q, X: 1 / np.sqrt(X.shape[0])))),
    Mistake(HEAD_DIVIDED_BY_SIZE.name, HEAD_DIVIDED_BY_SIZE.message,
            _on_lists(lambda i: _multihead(i, scale=lambda Q, X: 1 / Q.shape[0]))),
    HEADS_IN_REVERSE,
    ONE_HEADS_WEIGHTS,
    COLUMN_SHAPES,
]

MULTIHEAD_GENERAL = MULTIHEAD + [TWO_HEADS_HARD_CODED]  # the general version can be written for two heads only
