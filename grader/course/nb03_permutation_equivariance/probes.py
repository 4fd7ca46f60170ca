"""Notebook 03, permutation equivariance (book 12.1's closing TODO; problem 12.3): probes and check values.

Three parts are graded. `position_encoding(D, N)` is compared with the sinusoidal encoding
(Vaswani et al., 2017, in the book's column convention) on the book's size and on fresh
sizes, odd D among them. `generate_permutation_matrices(n)` is read back as a set (its
distinct matrices, sorted), a count and how often each appears, so any order is right. The checker
`is_permutation_equivariant(f, X)` is tried on test functions of fresh X that the
student has not all seen (cases.PERMUTATION_TEST_FUNCTIONS): it must accept the
equivariant ones and reject the others, so a checker that always says True (or
always False) earns nothing, and seed 003's "same set of columns" check, which
rejects functions that change the columns but accepts those that only reorder
them (or give the same output for every order), earns half; so does a checker wrong
only on those and on the functions one permutation alone breaks (it tries some
permutations only). Each checker case carries what the grader knows of its function
on its X (cases.permutation_traits), so a checker wrong on exactly the inputs with one
trait is told which; the generator's and the encoding's wrong results are read by
readings.py (which orders are missing; what the wrong rows are as sines).
"""
import math

import numpy as np

from . import cases, mistakes, readings, reference as ref
from ..shared import cases as shared_cases, reference as shared_ref, steps as shared_steps
from ...engine.protocol import Case, Probe, Trait, kernel_source

N_FRESH_SIZES = 3
BOOK_FUNCTION = 6   # the book's case: scaled self-attention of X + Pi (not equivariant)
KINDS = [kind for _, kind, _ in cases.PERMUTATION_TEST_FUNCTIONS]
NAMES = [name for name, _, _ in cases.PERMUTATION_TEST_FUNCTIONS]
VISIBLE = ["scaled self-attention", "W @ X", "X + Pi", "X with its columns sorted", "X with its columns reversed",
           "X with its columns rolled by one"]  # the notebook's test_functions, in its order


# ---------------------------------------------------------------- generate_permutation_matrices

# The call reads the list back as a set: its distinct matrices (np.unique sorts them), how many it held, and
# how often each distinct one appears (for the words only: with the first two right, each appears once).
PERMUTATIONS_CALL = ("(lambda np: (lambda S: [np.unique(S, axis=0), len(S), np.unique(S, axis=0, return_counts=True)[1]])"
                     "(np.array([np.asarray(P, dtype=float) for P in generate_permutation_matrices(n)])))"
                     "(__import__('numpy'))")
PERMUTATIONS_READ = ("the distinct matrices", "the number of matrices", "how often each distinct matrix appears")


def _permutation_cases(rng):
    sizes = rng.choice((4, 5), size=N_FRESH_SIZES)  # from 4 on, n! is far from n rotations or n(n-1)/2 swaps
    return [Case("book", {"n": 3})] + [Case("fresh", {"n": int(n)}, about=f"n={int(n)}") for n in sizes]


def _permutations_reference(i):
    n = int(i["n"])
    return [ref.distinct_matrices(ref.permutation_matrices(n)), np.array(float(math.factorial(n))),
            np.ones(math.factorial(n))]


def _permutation_marks(cases_, reasons):
    """The book's case is a third, the fresh ones share the rest. All n! there but some twice is half
    right: a checker built on it still tries every permutation, only more slowly."""
    n_fresh = sum(c.label == "fresh" for c in cases_)
    share = 0.0
    for case, why in zip(cases_, reasons):
        weight = 1 / 3 if case.label == "book" else 2 / 3 / n_fresh
        if why is None:
            share += weight
        elif why.startswith(PERMUTATIONS_READ[1]):
            share += weight / 2
    return share


# ---------------------------------------------------------------- position_encoding

def _encoding_cases(rng):
    """The book's size, then fresh ones: an odd D (the last row is a sine without its cosine), an even D,
    and N large enough that the fastest rows wrap round several times."""
    sizes = [(int(rng.choice((5, 7, 9))), int(rng.integers(6, 13))),
             (int(rng.choice((6, 8, 10, 12))), int(rng.integers(14, 33)))]
    return [Case("book", {"D": 4, "N": 3}, traits={ODD_D: False})] + \
        [Case("fresh", {"D": D, "N": N}, about=f"D={D}, N={N}", traits={ODD_D: D % 2 == 1}) for D, N in sizes]


ODD_D = Trait("D is odd (the last row is a sine with no cosine below it)", "D is even")


# ---------------------------------------------------------------- is_permutation_equivariant

# Every test function's lambda, one of which the case picks; softmax_down and np are the probe's own,
# so the student's notebook globals (a redefined np or softmax) cannot change the functions.
CHECKER_CALL = (
    "(lambda np: (lambda softmax_down: is_permutation_equivariant(["
    + ", ".join(source for _, _, source in cases.PERMUTATION_TEST_FUNCTIONS)
    + "][int(which)], X))"
      "(lambda S: np.exp(S - S.max(axis=0)) / np.exp(S - S.max(axis=0)).sum(axis=0)))(__import__('numpy'))")


def _clear(i):
    """Whether a case decides cleanly: an equivariant function is so up to rounding, any other breaks
    equivariance by far more than any sensible tolerance for every permutation that breaks it, seed 003's
    check says what its kind implies (it rejects a function that changes the columns, it accepts one that
    only reorders them or gives the same output for every order), and self-attention's f(X P) and f(X) P
    differ in their last bits (so that an exact comparison is seen to fail)."""
    f, kind = cases.permutation_test_function(i), KINDS[int(i["which"])]
    traits, moved = cases.permutation_traits(i, f)
    if np.any((moved > cases.ROUNDING) & (moved <= 0.05)):
        return False
    if kind == cases.EQUIVARIANT:
        return traits[cases.EQUIVARIANT_T] and (NAMES[int(i["which"])] != "scaled self-attention"
                                                or traits[cases.ROUNDED_T])
    if kind == cases.ONE_PERMUTATION and not traits[cases.ONE_T]:
        return False
    same_set = ref.same_columns_for_every_permutation(f, i["X"])
    return moved.max() > 0.05 and same_set == (kind in SAME_SET_KINDS)


SAME_SET_KINDS = (cases.REORDERS_COLUMNS, cases.SAME_FOR_EVERY_ORDER)  # f(X P) holds the same columns for every P
ORDER = [cases.EQUIVARIANT, cases.CHANGES_COLUMNS, cases.REORDERS_COLUMNS, cases.SAME_FOR_EVERY_ORDER, cases.ONE_PERMUTATION]


def _checker_cases(rng):
    """The book's X with scaled self-attention of X + Pi, then every test function on a fresh X, in the
    order equivariant, changes the columns, reorders them, the same for every order, broken by one
    permutation: the verdict names the first one it got wrong. Each case carries what the grader knows of
    its function on its X (cases.permutation_traits), for the verdict's words."""
    book = cases.book_03(BOOK_FUNCTION)
    out = [Case("book", book, about=NAMES[BOOK_FUNCTION] + ", the book's X", traits=cases.permutation_traits(book)[0])]
    for which in sorted(range(len(NAMES)), key=lambda w: ORDER.index(KINDS[w])):
        for _ in range(100):
            i = cases.fresh_03(rng, which)
            if _clear(i):
                break
        out.append(Case("fresh", i, about=f"{NAMES[which]}, D={i['X'].shape[0]}, N={i['X'].shape[1]}",
                        traits=cases.permutation_traits(i)[0]))
    return out


def _checker_verdict(i):
    return np.array(float(ref.is_permutation_equivariant(cases.permutation_test_function(i), i["X"])))


def _checker_marks(cases_, reasons):
    """Full marks for every verdict right. Half when the only functions it gets wrong merely reorder the
    columns (seed 003's same-set-of-columns check). Nothing when it rejects an equivariant function or
    accepts one that changes the columns: always True, or always False, is no check at all."""
    wrong = {KINDS[int(c.inputs["which"])] for c, why in zip(cases_, reasons) if why is not None}
    if not wrong:
        return 1.0
    # The functions seen by the grader only count as the reordering ones do: a checker wrong on them alone
    # (it tries some permutations only, or compares sets of columns) still rejects every function that changes
    # the columns for every P.
    return 0.5 if wrong <= {cases.REORDERS_COLUMNS, cases.SAME_FOR_EVERY_ORDER, cases.ONE_PERMUTATION} else 0.0


PROBES = {
    "test_position_encoding": Probe(
        what="position_encoding",
        operations=("loop",),
        axes=("features", "positions"),
        call="position_encoding(D, N)",
        cases=_encoding_cases,
        reference=lambda i: ref.position_encoding(int(i["D"]), int(i["N"])),
        steps=lambda i: shared_steps.position_encoding(int(i["D"]), int(i["N"])),
        readings=(readings.encoding_rows,),  # what its wrong rows are, as sines: scalar loops leave no array to trace
        mistakes=mistakes.POSITION_ENCODING,
    ),
    "test_permutation_matrices": Probe(
        what="generate_permutation_matrices",
        operations=(),
        axes=("matrices", "rows", "columns"),  # of the distinct matrices read back
        call=PERMUTATIONS_CALL,
        outputs=PERMUTATIONS_READ,  # names the two things read back, in the verdict
        cases=_permutation_cases,
        reference=_permutations_reference,
        kernel_reference=kernel_source("generate_permutation_matrices", ref.permutation_matrices),
        mistakes=mistakes.PERMUTATION_MATRICES,
        marks=_permutation_marks,
        readings=(readings.permutation_orders,),  # which orders are missing, repeated, or no permutation
    ),
    "test_is_permutation_equivariant": Probe(
        what="is_permutation_equivariant",
        call=CHECKER_CALL,
        cases=_checker_cases,
        reference=_checker_verdict,
        # The checker calls the student's generator: a wrong generator costs marks in its own part only.
        uses={"generate_permutation_matrices": "test_permutation_matrices"},
        mistakes=mistakes.PERMUTATION_CHECKER,
        marks=_checker_marks,
        answers_repeat=True,  # True/False: the same answer on another input is no sign of hard-coding
    ),
}


# ---------------------------------------------------------------- generated cells

def _permutation_book():
    i = shared_cases.book_12_1()
    return {"X_prime_scaled_true": shared_ref.scaled_dot_product_self_attention(*(i[n] for n in ("X",) + shared_cases.PARAMETERS))}


def _have(matrices, true):
    """1 for each true permutation matrix that `matrices` holds, else 0 (the notebook's check computes the same)."""
    return np.array([float(any(np.array_equal(P, Q) for Q in matrices)) for P in true])


def _permutations_3():
    true = ref.distinct_matrices(ref.permutation_matrices(3))  # (6, 3, 3)
    i = {"n": 3}
    shown = (mistakes.PERMUTATIONS_ROTATIONS_ONLY, mistakes.PERMUTATIONS_IDENTITY_LEFT_OUT)
    return {"permutations_3_true": true,
            "have_all": _have(true, true),
            "permutation_mistakes": {m.said: _have(m.compute(i)[0], true) for m in shown},
            "PERMUTATIONS_TWICE": mistakes.PERMUTATIONS_TWICE.said}


def _checker_book():
    """The true verdicts on the notebook's test functions of the book's X, in its order, and each mistake's."""
    def verdicts(decide):
        return np.array([float(decide(cases.book_03(NAMES.index(name)))) for name in VISIBLE])
    return {"equivariant_true": verdicts(_checker_verdict),
            "checker_mistakes": {m.said: verdicts(m.compute) for m in mistakes.PERMUTATION_CHECKER}}


def _encoding_book():
    """The encoding at the book's size and at an odd D, and each mistake's, for the notebook's two checks."""
    out = {}
    for D, N, name in ((4, 3, "Pi_true"), (5, 12, "Pi_5_12_true")):
        i = {"D": D, "N": N}
        out[name] = ref.position_encoding(D, N)
        out[name.replace("true", "mistakes").replace("Pi", "encoding")] = {m.said: m.compute(i) for m in mistakes.POSITION_ENCODING}
    return out


VALUES = {
    "position_encoding_book": _encoding_book,
    "permutation_book": _permutation_book,
    "permutations_3": _permutations_3,
    "permutation_checker_book": _checker_book,
}
