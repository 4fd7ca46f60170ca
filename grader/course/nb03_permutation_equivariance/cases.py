"""Notebook 03's inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time.
"""
import numpy as np

from . import reference as ref
from ..shared import reference as shared_ref
from ..shared.cases import PARAMETERS, book_12_1, fresh_12_1, only
from ...engine.protocol import Trait


# The functions of X (D x N) that the students' equivariance checkers are tried on. Each is the source
# of a lambda, so the same text runs in the student's kernel (inside the probe's call) and in the grader.
# A source may use np, softmax_down (a softmax down each column), the book's parameter names, and the
# case's W (D, D), b (D, 1), M (N, N) and Pi (D, N).
EQUIVARIANT, CHANGES_COLUMNS, REORDERS_COLUMNS = "equivariant", "changes the columns", "reorders the columns"
# Seen by the grader only (the notebook shows none of them): a function invariant but not equivariant, whose
# output is the same for every order of the tokens, and functions that one permutation alone breaks.
SAME_FOR_EVERY_ORDER, ONE_PERMUTATION = "the same for every order", "broken by one permutation"
_ONE_ORDER = "lambda X: X + Pi * float(tuple(np.argsort(X[0])) == tuple(order))"
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
    ("X squared, entry by entry", EQUIVARIANT, "lambda X: X ** 2"),  # equal bit for bit: no sum in it
    # kept by the (N-1)! permutations that leave token 0 first, the first ones in itertools' order
    ("X with its first token set to zero", CHANGES_COLUMNS, "lambda X: X * (np.arange(X.shape[1]) > 0)"),
    ("the sum of the tokens, plus Pi", SAME_FOR_EVERY_ORDER, "lambda X: X.sum(axis=1, keepdims=True) + Pi"),
    # Pi added only when the tokens come in one order, the one the 2nd (then the last) permutation in
    # itertools.permutations' order puts them in (`order`, drawn with X: see fresh_03)
    ("X, plus Pi in one order of its tokens (the 2nd permutation's)", ONE_PERMUTATION, _ONE_ORDER),
    ("X, plus Pi in one order of its tokens (the last permutation's)", ONE_PERMUTATION, _ONE_ORDER),
]
PERMUTATION_INPUTS_03 = ("X", "W", "b", "M", "Pi", "order") + PARAMETERS
# For the functions of one order: which permutation, in itertools.permutations' order, Pi is added after
ONE_ORDER_AT = {len(PERMUTATION_TEST_FUNCTIONS) - 2: 1, len(PERMUTATION_TEST_FUNCTIONS) - 1: -1}


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
    if which in ONE_ORDER_AT:  # the order of X's first entries once that permutation has moved its tokens
        order = list(__import__("itertools").permutations(range(N)))[ONE_ORDER_AT[which]]
        i["order"] = np.argsort(i["X"][0][list(order)])  # (N,)
    return dict(only(i, _needs_03(which)), which=which)


def permutation_test_function(inputs):
    """Test function inputs["which"], made from its source on these inputs (as the probe makes it in the kernel)."""
    space = dict(inputs, np=np, softmax_down=shared_ref.softmax_cols)
    return eval(PERMUTATION_TEST_FUNCTIONS[int(inputs["which"])][2], space)


def permutation_traits(i, f=None):
    """What the grader knows of test function inputs["which"] on this X, from f(X P) and f(X) P for every P in
    itertools.permutations' order: {Trait: bool} (Case.traits), and the violations, for `clear_03`."""
    f = f or permutation_test_function(i)
    X = i["X"]
    f_X = f(X)
    Ps = ref.permutation_matrices(X.shape[1])
    moved = np.array([np.max(np.abs(f(X @ P) - f_X @ P)) for P in Ps])  # (N!,): 0 up to rounding where it holds
    still = np.array([np.max(np.abs(f(X @ P) - f_X)) for P in Ps])  # (N!,): f(X P) against f(X)
    keeps = moved <= ROUNDING
    equivariant, invariant = bool(keeps.all()), bool((still <= ROUNDING).all())
    return {
        EQUIVARIANT_T: equivariant,
        INVARIANT_T: invariant,
        NEITHER_T: not equivariant and not invariant,
        ONE_T: int((~keeps).sum()) == 1,
        SOME_T: bool(keeps[1:].any()),
        SECOND_T: bool(keeps[1]),
        LAST_T: bool(keeps[-1]),
        BEFORE_LAST_T: bool(keeps[:-1].all()),
        ROUNDED_T: equivariant and bool(moved.max() > 0),
        BOOK_N_T: X.shape[1] == 3,
    }, moved


ROUNDING = 1e-9  # f(X P) - f(X) P of an equivariant function: rounding, about 1e-15; every other function's: > 0.05
EVERY_P = "equivariance needs f(X P) = f(X) P for every permutation P"
EQUIVARIANT_T = Trait("the function is equivariant (f(X P) = f(X) P for every P)", "it is not")
INVARIANT_T = Trait("the function's output does not move when the tokens do (f(X P) = f(X) for every P)",
                    "it does", "equivariance compares f(X P) with f(X) P, the output moved as the tokens were")
NEITHER_T = Trait("the function is neither equivariant nor invariant", "it is one or the other")
ONE_T = Trait("just one permutation P breaks f(X P) = f(X) P", "none does, or several do", EVERY_P)
SOME_T = Trait("some permutation other than the identity keeps f(X P) = f(X) P", "every one but the identity breaks it",
               EVERY_P)
SECOND_T = Trait("f(X P) = f(X) P holds for the first permutation after the identity in itertools.permutations' order "
                 "(the one that swaps the last two tokens)", "it fails for that one", EVERY_P)
LAST_T = Trait("f(X P) = f(X) P holds for the last permutation in itertools.permutations' order (the one that "
               "reverses the tokens)", "it fails for that one", EVERY_P)
BEFORE_LAST_T = Trait("every permutation before the last in itertools.permutations' order keeps f(X P) = f(X) P",
                      "an earlier one breaks it", EVERY_P)
ROUNDED_T = Trait("the function is equivariant but f(X P) and f(X) P differ in their last bits (rounding, below 1e-9)",
                  "they are equal bit for bit, or the function is not equivariant",
                  "floating point rounds sums taken in another order differently, so compare within the tolerance")
BOOK_N_T = Trait("X has 3 tokens, as the notebook's X", "X has another number of tokens",
                 "take N from X itself, X.shape[1]")
