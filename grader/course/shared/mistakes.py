"""Named mistakes that two or more notebooks recognise (a softmax along rows, attention left unscaled).

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
from . import reference as ref
from ...engine.protocol import Mistake


def _softmax_rows(a):
    return ref.softmax_cols(a.T).T


def _parameters(i):
    return (i["omega_v"], i["omega_q"], i["omega_k"], i["beta_v"], i["beta_q"], i["beta_k"])


def _attention_variant(i, scores=lambda K, Q: K.T @ Q, normalise=ref.softmax_cols, bias=True):
    ov, oq, ok, bv, bq, bk = _parameters(i)
    if not bias:
        bv, bq, bk = 0 * bv, 0 * bq, 0 * bk
    V, Q, K = ref.queries_keys_values(i["X"], ov, oq, ok, bv, bq, bk)
    return V @ normalise(scores(K, Q))  # (D, N)


SOFTMAX_ROWS = Mistake(
    "softmax over rows",
    "the softmax ran along each row, so the columns do not sum to one: use axis=0, one column per query",
    lambda i: _attention_variant(i, normalise=_softmax_rows))


def _scaled(i, scale, normalise=ref.softmax_cols, bias=True):
    """The book's attention with its dot products multiplied by `scale(queries)`."""
    ov, oq, ok, bv, bq, bk = _parameters(i)
    if not bias:
        bv, bq, bk = 0 * bv, 0 * bq, 0 * bk
    V, Q, K = ref.queries_keys_values(i["X"], ov, oq, ok, bv, bq, bk)
    return V @ normalise((K.T @ Q) * scale(Q))  # (D_v, N)

NO_SCALING = Mistake(
    "no scaling",
    "the dot products are not scaled: divide them by sqrt(D_q), the square root of the queries' size (eq. 12.9)",
    lambda i: _scaled(i, lambda Q: 1.0))
