"""Notebook 01's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np

from . import reference as ref
from ..shared import reference as shared_ref
from ..shared.mistakes import SOFTMAX_ROWS, _attention_variant, _parameters
from ...engine.protocol import Mistake


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

QK_WEIGHTS_SWAPPED = Mistake(
    "query and key weights swapped",
    "the queries were made with omega_k and beta_k, and the keys with omega_q and beta_q: a query is "
    "omega_q @ x + beta_q and a key is omega_k @ x + beta_k (eq. 12.4)",
    lambda i: [[w @ x + b for x in i["all_x"]] for w, b in
               ((i["omega_k"], i["beta_k"]), (i["omega_q"], i["beta_q"]), (i["omega_v"], i["beta_v"]))])

KEYS_WEIGHTED = Mistake(
    "weighted sum of the keys",
    "each output is a weighted sum of the values, not of the keys: add up attention[m] * all_values[m] "
    "over m (eq. 12.3)",
    lambda i: [ref.attention_loop(i["all_queries"], i["all_keys"], i["all_keys"])])


def _attention_parts(i):
    """V, Q, K (each (D, N)) and the attention weights A (N, N) of the book's self-attention."""
    V, Q, K = shared_ref.queries_keys_values(i["X"], *_parameters(i))
    return V, Q, K, shared_ref.softmax_cols(K.T @ Q)


KEYS_VALUES_SWAPPED = Mistake(
    "keys and values swapped",
    "the keys were made with omega_v and the values with omega_k: the queries are compared with "
    "K = omega_k @ X + beta_k, and the weights average the values V = omega_v @ X + beta_v",
    lambda i: (lambda V, Q, K, A: K @ shared_ref.softmax_cols(V.T @ Q))(*_attention_parts(i)))

OUTPUT_TRANSPOSED = Mistake(
    "output transposed",
    "the result is X' transposed, one row per token: in the book's convention a token is a column, so "
    "return V @ A, a D x N matrix like X, without the final .T",
    lambda i: (lambda V, Q, K, A: (V @ A).T)(*_attention_parts(i)))

WEIGHTS_RETURNED = Mistake(
    "attention weights returned instead of the outputs",
    "the function returns the N x N attention weights: the outputs are the values weighted by them, "
    "X' = V @ A, one column per token (eq. 12.8)",
    lambda i: _attention_parts(i)[3])

WEIGHTS_ON_THE_WRONG_SIDE = Mistake(
    "attention weights on the wrong side",
    "the weights multiply the values from the left (A @ V.T, the row convention's order): in the book's "
    "convention column n of X' is the values' columns weighted by column n of A, so X' = V @ A",
    lambda i: (lambda V, Q, K, A: A @ V.T)(*_attention_parts(i)))

SOFTMAX_NOT_NORMALISED = Mistake(
    "softmax not normalised",
    "the outputs do not sum to one: divide each exponential by the sum of all of them",
    lambda i: np.exp(np.asarray(i["items_in"], dtype=float)))

SELF_ATTENTION = [SOFTMAX_ROWS, BIAS_LEFT_OUT, QT_K, KEYS_VALUES_SWAPPED, OUTPUT_TRANSPOSED, WEIGHTS_RETURNED,
                  WEIGHTS_ON_THE_WRONG_SIDE]
