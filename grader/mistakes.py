"""The catalogue of named mistakes: each a wrong answer we can compute, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference
pieces on the same inputs and finding the student's result equal to it.
"""
import numpy as np

from . import reference as ref
from .protocol import Mistake


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

BIAS_LEFT_OUT = Mistake(
    "bias left out",
    "the queries, keys or values have no bias: they are omega @ x + beta (eqs. 12.2 and 12.4)",
    lambda i: _attention_variant(i, bias=False))

QT_K = Mistake(
    "Q.T @ K instead of K.T @ Q",
    "the dot products are transposed: entry [m, n] must be key m with query n, K.T @ Q (eq. 12.8)",
    lambda i: _attention_variant(i, scores=lambda K, Q: Q.T @ K))

QKV_BIAS_LEFT_OUT = Mistake(
    BIAS_LEFT_OUT.name, BIAS_LEFT_OUT.message,
    lambda i: [[w @ x for x in i["all_x"]] for w in (i["omega_q"], i["omega_k"], i["omega_v"])])

SOFTMAX_NOT_NORMALISED = Mistake(
    "softmax not normalised",
    "the outputs do not sum to one: divide each exponential by the sum of all of them",
    lambda i: np.exp(np.asarray(i["items_in"], dtype=float)))

SELF_ATTENTION = [SOFTMAX_ROWS, BIAS_LEFT_OUT, QT_K]
