"""Notebook 02's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np

from ..shared import reference as shared_ref
from ..shared.mistakes import NO_SCALING, SOFTMAX_ROWS, _scaled
from ...engine.protocol import Mistake


def _naive_softmax_cols(a):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(a, dtype=float))
        return e / np.sum(e, axis=0)


SOFTMAX_OVERFLOWS = Mistake(
    "softmax overflows",
    "np.exp of a large number is inf, and inf / inf is nan: subtract each column's maximum before "
    "exponentiating (it changes nothing else)",
    lambda i: _naive_softmax_cols(i["data_in"]))

def _numerator_shift_only(a):
    a = np.asarray(a, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return np.exp(a - np.max(a, axis=0, keepdims=True)) / np.sum(np.exp(a), axis=0, keepdims=True)


def _global_max_softmax_cols(a):
    a = np.asarray(a, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(a - np.max(a))
        return e / np.sum(e, axis=0, keepdims=True)


SOFTMAX_SHIFT_NUMERATOR_ONLY = Mistake(
    "maximum subtracted in the numerator only",
    "the column's maximum comes off the exponents on top but not in the sum below, where np.exp still "
    "overflows: compute e = np.exp(data_in - max) once, then divide e by its own column sums",
    lambda i: _numerator_shift_only(i["data_in"]))

SOFTMAX_GLOBAL_MAX = Mistake(
    "one maximum for the whole matrix",
    "np.max(data_in) without an axis takes the largest score of the whole matrix, so a column whose scores "
    "are far below it underflows to 0 / 0: subtract each column's own maximum, np.max(data_in, axis=0, "
    "keepdims=True)",
    lambda i: _global_max_softmax_cols(i["data_in"]))

SOFTMAX_COLS_ROWS = Mistake(
    SOFTMAX_ROWS.name, SOFTMAX_ROWS.message, lambda i: shared_ref.softmax_cols(np.asarray(i["data_in"]).T).T)

DIVIDED_BY_D = Mistake(
    "divided by D, not sqrt(D)",
    "the dot products are divided by the queries' size itself: divide by its square root, np.sqrt(D_q)",
    lambda i: _scaled(i, lambda Q: 1.0 / Q.shape[0]))

GLOBAL_D = Mistake(
    "the notebook's global D",
    "your function divides the dot products by sqrt(4), the book's query size, whatever the size of its "
    "arguments (the notebook's global D, or a fixed number): use np.sqrt(omega_q.shape[0]) (or Q.shape[0]) "
    "inside the function",
    lambda i: _scaled(i, lambda Q: 1.0 / np.sqrt(4)))

SCALED_AFTER_SOFTMAX = Mistake(
    "scaled after the softmax",
    "the attention weights were divided by sqrt(D_q) after the softmax, so their columns no longer sum to "
    "one: divide the dot products K.T @ Q before the softmax (eq. 12.9)",
    lambda i: _scaled(i, lambda Q: 1.0) / np.sqrt(np.shape(i["omega_q"])[0]))

SCALED_BY_TOKENS = Mistake(
    "divided by sqrt(N), the number of tokens",
    "the dot products were divided by the square root of the number of tokens (X.shape[1]): eq. 12.9 "
    "divides by the square root of the queries' size, D_q = Q.shape[0]",
    lambda i: _scaled(i, lambda Q: 1.0 / np.sqrt(Q.shape[1])))

SCALED_ATTENTION = [NO_SCALING, DIVIDED_BY_D, GLOBAL_D, SOFTMAX_ROWS, SCALED_AFTER_SOFTMAX, SCALED_BY_TOKENS]
