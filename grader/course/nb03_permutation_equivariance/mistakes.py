"""Notebook 03's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np

from . import cases, reference as ref
from ...engine.protocol import Mistake


def _listed_03(matrices):
    """What the probe reads back from a list of matrices: the distinct ones, sorted, how many there were, and
    how often each distinct one appears."""
    distinct, counts = np.unique(np.array(matrices, dtype=np.float64), axis=0, return_counts=True)
    return [distinct, np.array(float(len(matrices))), counts.astype(float)]


PERMUTATIONS_ROTATIONS_ONLY = Mistake(
    "only the n rotations",
    "the list holds the n cyclic shifts of the identity's columns (np.roll), but n columns can be put in n! "
    "orders: itertools.permutations(range(n)) lists every one",
    lambda i: _listed_03([np.roll(np.eye(int(i["n"])), s, axis=1) for s in range(int(i["n"]))]))

PERMUTATIONS_IDENTITY_LEFT_OUT = Mistake(
    "the identity left out",
    "the identity is a permutation too (it leaves every column where it is): there are n! matrices, "
    "the identity among them",
    lambda i: _listed_03(ref.permutation_matrices(int(i["n"]))[1:]))

PERMUTATIONS_TWICE = Mistake(
    "every permutation twice",
    "every permutation matrix is there, but twice (reordering the rows of the identity gives the same "
    "matrices as reordering its columns): return each one once, n! in all",
    lambda i: _listed_03(ref.permutation_matrices(int(i["n"])) * 2))

PERMUTATION_MATRICES = [PERMUTATIONS_ROTATIONS_ONLY, PERMUTATIONS_IDENTITY_LEFT_OUT, PERMUTATIONS_TWICE]

# Four ways a checker goes wrong, each a checker the grader runs on every test function: its verdict
# (1 = equivariant) is the student's on every case when the student's checker works that way.
def _checker_like(decide):
    """The verdicts of a checker that decides as `decide(f, X)`."""
    return lambda i: np.array(float(decide(cases.permutation_test_function(i), i["X"])))


def _rotations_only(f, X, tolerance=1e-6):
    """The right comparison, tried only on the N cyclic shifts of the columns (a generator that misses the rest)."""
    N = X.shape[1]
    return all(np.max(np.abs(f(X @ P) - f(X) @ P)) <= tolerance for P in (np.roll(np.eye(N), s, axis=1) for s in range(N)))


CHECKER_ACCEPTS_ALL = Mistake(
    "accepts every function",
    "your checker said True for every function, also for those that are not equivariant (X + Pi, X with "
    "its columns sorted): return False as soon as one P makes f(X @ P) and f(X) @ P differ by more than "
    "the tolerance",
    _checker_like(lambda f, X: True))

CHECKER_REJECTS_ALL = Mistake(
    "rejects an equivariant function",
    "your checker said False for every function, also for equivariant ones such as W @ X: compare f(X @ P) "
    "with f(X) @ P (not P @ f(X)), with P of size N x N taken from X itself, and allow for rounding "
    "(a tolerance, not ==)",
    _checker_like(lambda f, X: False))

CHECKER_SAME_SET = Mistake(
    "accepts a function that reorders the columns",
    "your checker said True for X with its columns sorted, which is not equivariant: f(X @ P) holds the "
    "same columns as f(X) @ P, but in another order. Compare the two column by column, not as sets of "
    "columns, and for all N! permutations P",
    _checker_like(ref.same_columns_for_every_permutation))

CHECKER_ROTATIONS_ONLY = Mistake(
    "tries only the rotations",
    "your checker said True for f(X) = X with its columns rolled by one, which is not equivariant: it "
    "tried only the N cyclic shifts of the columns, and those commute with the roll. Try all N! "
    "permutations: does generate_permutation_matrices list them all?",
    _checker_like(_rotations_only))

PERMUTATION_CHECKER = [CHECKER_ACCEPTS_ALL, CHECKER_REJECTS_ALL, CHECKER_SAME_SET, CHECKER_ROTATIONS_ONLY]


# Ways the sinusoidal position encoding goes wrong. Each is the encoding computed that way, (D, N).
def _encoding_like(i, positions_from=0, exponent=lambda rows, D: 2 * (rows // 2) / D, divide=True,
                   sin_rows=lambda rows: rows % 2 == 0, frequency_rows=lambda rows, D: rows):
    """A sinusoidal encoding: the angle of row d, position n is n / 10000**exponent(row), sin or cos by row."""
    D, N = int(i["D"]), int(i["N"])
    positions = np.arange(positions_from, positions_from + N)[np.newaxis, :]  # (1, N)
    rows = np.arange(D)[:, np.newaxis]  # (D, 1)
    scale = 10000.0 ** exponent(frequency_rows(rows, D), D)  # (D, 1)
    angles = positions / scale if divide else positions * scale  # (D, N)
    return np.where(sin_rows(rows), np.sin(angles), np.cos(angles))  # (D, N)


def _halves(rows, D):
    """Row d of a half-and-half layout as the row of the interleaved one with the same frequency."""
    top = (D + 1) // 2  # the sines fill rows 0..top-1, the cosines the rest
    return np.where(rows < top, 2 * rows, 2 * (rows - top) + 1)


ENCODING_SIN_COS_SWAPPED = Mistake(
    "sine and cosine swapped",
    "the even rows hold cosines and the odd rows sines: row 2i is sin(n / 10000**(2i/D)) and row 2i+1 is "
    "the cosine of the same angle",
    lambda i: _encoding_like(i, sin_rows=lambda rows: rows % 2 == 1))

ENCODING_FREQUENCY_PER_ROW = Mistake(
    "a frequency per row, not per pair of rows",
    "the exponent uses the row index d itself, so no two rows share a frequency: rows 2i and 2i+1 share "
    "one, 10000**(2i/D), so use 2 * (d // 2) / D",
    lambda i: _encoding_like(i, exponent=lambda rows, D: rows / D))

ENCODING_EXPONENT_DOUBLED = Mistake(
    "exponent 2d/D instead of 2i/D",
    "the exponent is twice the row index over D, so the frequencies fall twice as fast as they should: "
    "i counts pairs of rows, so rows 2i and 2i+1 both use 10000**(2i/D), that is 2 * (d // 2) / D",
    lambda i: _encoding_like(i, exponent=lambda rows, D: 2 * rows / D))

ENCODING_HALVES = Mistake(
    "sines in the top half, cosines in the bottom",
    "that layout is a position encoding too, but the one asked for here interleaves them: row 2i holds "
    "the sine and row 2i+1 the cosine of the same angle",
    lambda i: _encoding_like(i, sin_rows=lambda rows: rows < (int(i["D"]) + 1) // 2,
                             frequency_rows=_halves))

ENCODING_MULTIPLIED = Mistake(
    "positions multiplied by 10000**(2i/D)",
    "the angle is the position divided by 10000**(2i/D), so that the lower rows turn ever more slowly: "
    "n / 10000**(2i/D), not n * 10000**(2i/D)",
    lambda i: _encoding_like(i, divide=False))

ENCODING_FROM_ONE = Mistake(
    "positions counted from 1",
    "the first token is in position 0, so column 0 is sin(0), cos(0), ...: take the positions from "
    "np.arange(N)",
    lambda i: _encoding_like(i, positions_from=1))

POSITION_ENCODING = [ENCODING_SIN_COS_SWAPPED, ENCODING_FREQUENCY_PER_ROW, ENCODING_EXPONENT_DOUBLED,
                     ENCODING_HALVES, ENCODING_MULTIPLIED, ENCODING_FROM_ONE]
