"""Notebook 03's inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time.
"""
import numpy as np

from . import reference as ref
from ..shared import reference as shared_ref
from ..shared.cases import PARAMETERS, book_12_1, fresh_12_1, only


# The functions of X (D x N) that the students' equivariance checkers are tried on. Each is the source
# of a lambda, so the same text runs in the student's kernel (inside the probe's call) and in the grader.
# A source may use np, softmax_down (a softmax down each column), the book's parameter names, and the
# case's W (D, D), b (D, 1), M (N, N) and Pi (D, N).
EQUIVARIANT, CHANGES_COLUMNS, REORDERS_COLUMNS = "equivariant", "changes the columns", "reorders the columns"
_ATTEND_03 = ("(omega_v @ {X} + beta_v) @ softmax_down((omega_k @ {X} + beta_k).T @ (omega_q @ {X} + beta_q)"
              " / np.sqrt(omega_q.shape[0]))")
PERMUTATION_TEST_FUNCTIONS = [  # (name a student reads, kind, source)
    ("scaled self-attention", EQUIVARIANT, "lambda X: " + _ATTEND_03.format(X="X")),
    ("W @ X", EQUIVARIANT, "lambda X: W @ X"),
    ("X minus its average token", EQUIVARIANT, "lambda X: X - X.mean(axis=1, keepdims=True)"),
    ("tanh(W @ X + b)", EQUIVARIANT, "lambda X: np.tanh(W @ X + b)"),
    ("X + Pi", CHANGES_COLUMNS, "lambda X: X + Pi"),
    ("X @ M", CHANGES_COLUMNS, "lambda X: X @ M"),
    ("scaled self-attention of X + Pi", CHANGES_COLUMNS, "lambda X: " + _ATTEND_03.format(X="(X + Pi)")),
    ("X with its columns sorted", REORDERS_COLUMNS, "lambda X: X[:, np.argsort(X[0])]"),
    ("X with its columns reversed", REORDERS_COLUMNS, "lambda X: X[:, ::-1]"),
    ("X with its columns rolled by one", REORDERS_COLUMNS, "lambda X: np.roll(X, 1, axis=1)"),
]
PERMUTATION_INPUTS_03 = ("X", "W", "b", "M", "Pi") + PARAMETERS


def _needs_03(which):
    """The inputs test function `which` uses: X, and the names its source mentions."""
    import re
    source = PERMUTATION_TEST_FUNCTIONS[which][2]
    return [n for n in PERMUTATION_INPUTS_03 if n == "X" or re.search(rf"\b{n}\b", source)]


def book_03(which):
    """The book's X and parameters (notebook 12.1) for test function `which`, with the notebook's W = omega_v,
    b = beta_v, M = the running sum over tokens, and Pi = the sinusoidal position encoding."""
    i = book_12_1()
    D, N = i["D"], i["N"]
    i.update(W=i["omega_v"], b=i["beta_v"], M=np.triu(np.ones((N, N))), Pi=ref.position_encoding(D, N))
    return dict(only(i, _needs_03(which)), which=which)


def fresh_03(rng, which):
    """Fresh inputs for test function `which`: X (D x N) of another size than the book's, N of 3 or 4 (with two
    tokens, reversing or rolling them commutes with every permutation), fresh weights, and Pi drawn at
    random (as a learned position encoding starts)."""
    i = fresh_12_1(rng, N=int(rng.choice((3, 4))))
    D, N = i["D"], i["N"]
    i.update(W=rng.normal(size=(D, D)), b=rng.normal(size=(D, 1)), M=rng.normal(size=(N, N)),
             Pi=rng.normal(size=(D, N)))
    return dict(only(i, _needs_03(which)), which=which)


def permutation_test_function(inputs):
    """Test function inputs["which"], made from its source on these inputs (as the probe makes it in the kernel)."""
    space = dict(inputs, np=np, softmax_down=shared_ref.softmax_cols)
    return eval(PERMUTATION_TEST_FUNCTIONS[int(inputs["which"])][2], space)
