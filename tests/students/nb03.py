"""Sample students of notebook 03 (permutation equivariance): the answer key, seed 003's own answer, and one mistake each."""
from tests.students import MANUAL, Student

A03 = "03_permutation_equivariance"
FULL_03 = {"test_permutation_matrices": 2, "test_position_encoding": 2, "test_is_permutation_equivariant": 4,
           "why_positions": MANUAL}


def _03(**changed):
    return dict(FULL_03, **changed)


# Seed 003 (book notebook 12.1, its closing TODO filled in by a student): the generator exactly as written.
SEED_003_GENERATOR = """\
# let p1 be the identity, p2, p3, etc be all the other 3x3 permutation matrices
import itertools

def generate_permutation_matrices(n):
  \"\"\"Generates all n x n permutation matrices.

  Args:
    n: The dimension of the square matrix.

  Returns:
    A list of n x n NumPy arrays, where each array is a permutation matrix.
  \"\"\"
  permutation_matrices = []
  # Get all permutations of the indices [0, 1, ..., n-1]
  for permutation in itertools.permutations(range(n)):
    # Create an identity matrix of size n x n
    matrix = np.eye(n)
    # Permute the columns of the identity matrix according to the permutation
    permuted_matrix = matrix[:, permutation]
    permutation_matrices.append(permuted_matrix)
  return permutation_matrices"""

# Seed 003's "same set of columns" check, pasted as it is; its loop over the permuted inputs and the
# pairs of outputs (the seed's cells 24, 27 and 32) wrapped in the function the notebook asks for.
SEED_003_CHECKER = """\
# prompt: Determine if all of the elements of permuted_outputs have the same columns but possibly in different orders within a numerical tolerance of 0.0001

import numpy as np
def matrices_are_column_permutation_within_tolerance(matrix1, matrix2, tolerance=1e-4):
  \"\"\"
  Checks if two matrices have the same columns within a tolerance,
  allowing for different column orders.

  Args:
    matrix1: The first NumPy array.
    matrix2: The second NumPy array.
    tolerance: The numerical tolerance for comparison.

  Returns:
    True if the matrices have the same columns within the tolerance, False otherwise.
  \"\"\"
  if matrix1.shape != matrix2.shape:
    return False

  # Create lists of columns for easier comparison
  cols1 = [matrix1[:, i] for i in range(matrix1.shape[1])]
  cols2 = [matrix2[:, i] for i in range(matrix2.shape[1])]

  # Check if every column in cols1 is close to a column in cols2
  for col1 in cols1:
    found_match = False
    for col2 in cols2:
      if np.allclose(col1, col2, atol=tolerance):
        found_match = True
        break
    if not found_match:
      return False

  # Check if every column in cols2 is close to a column in cols1 (redundant but robust)
  for col2 in cols2:
    found_match = False
    for col1 in cols1:
      if np.allclose(col2, col1, atol=tolerance):
        found_match = True
        break
    if not found_match:
      return False

  return True

def is_permutation_equivariant(f, X, tolerance=1e-6):
  permutation_matrices = generate_permutation_matrices(X.shape[1])
  permuted_Xs = [np.matmul(X,permutation_matrices[i]) for i in range(len(permutation_matrices))]
  permuted_outputs = [f(Y) for Y in permuted_Xs]

  # Check if all pairs of matrices in permuted_outputs have the same columns
  all_same_columns = True
  for i in range(len(permuted_outputs)):
    for j in range(i + 1, len(permuted_outputs)):
      if not matrices_are_column_permutation_within_tolerance(permuted_outputs[i], permuted_outputs[j], tolerance=0.0001):
        all_same_columns = False
        break
    if not all_same_columns:
      break

  return all_same_columns"""

# The visible check fails at once, but it "works": it says True for everything.
ALWAYS_TRUE = """\
def is_permutation_equivariant(f, X, tolerance=1e-6):
  # self-attention is equivariant (problem 12.3), so:
  return True"""

# Only the n cyclic shifts of the columns: n of the n! permutations.
ROTATIONS_ONLY = """\
def generate_permutation_matrices(n):
  permutation_matrices = []
  for shift in range(n):
    permutation_matrices.append(np.roll(np.eye(n), shift, axis=1))
  return permutation_matrices"""

GENERATOR = "    permutation_matrices.append(np.eye(n)[:, list(order)])  # (n, n)"

# The encoding as PyTorch tutorials write it: a (N, D) table filled with sines and cosines by slices,
# its frequencies from np.exp, then transposed into the book's convention. Right for odd D too.
ENCODING_BY_SLICES = """\
def position_encoding(D, N):
  position = np.arange(N)[:, None]  # (N, 1)
  div_term = np.exp(np.arange(0, D, 2) * (-np.log(10000.0) / D))  # (ceil(D/2),)
  pe = np.zeros((N, D))
  pe[:, 0::2] = np.sin(position * div_term)
  pe[:, 1::2] = np.cos(position * div_term[:D // 2])
  return pe.T"""

# The same without the [:D // 2]: right for even D, a broadcasting error for odd D.
ENCODING_EVEN_ONLY = ENCODING_BY_SLICES.replace("div_term[:D // 2]", "div_term")

ENCODING = "  angles = positions / 10000.0 ** (2 * (rows // 2) / D)  # (D, N): rows 2i and 2i+1 share a frequency"
SINES = "  encoding = np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))  # (D, N): sines in the even rows"


def _encoding(old, new):
    """The answer key's position encoding with one line changed."""
    return {"position_encoding_def": [(old, new)]}


STUDENTS = {
    "correct": Student(A03, FULL_03),
    "untouched": Student(A03, {"test_permutation_matrices": 0, "test_position_encoding": 0,
                               "test_is_permutation_equivariant": 0, "why_positions": 0}, untouched=True),
    # Seed 003's generator is right; its checker rejects functions that change the columns but accepts
    # those that only reorder them: half the checker's marks, and the verdict names the same-set check.
    "seed003": Student(
        A03, _03(test_is_permutation_equivariant=2),
        cells={"permutation_matrices_def": SEED_003_GENERATOR, "checker_def": SEED_003_CHECKER},
        diagnoses={"test_is_permutation_equivariant": "accepts a function that reorders the columns"}),
    # Says True whatever f is: right on every equivariant function, and nothing earned.
    "always_true": Student(
        A03, _03(test_is_permutation_equivariant=0), cells={"checker_def": ALWAYS_TRUE},
        diagnoses={"test_is_permutation_equivariant": "accepts every function"}),
    # Misses permutations: zero for the generator. The (right) checker built on it tries only the
    # rotations, which commute with rolling the columns, so as the notebook runs it, it accepts the roll;
    # it is marked with the course's generator in place of this one, and keeps its marks: one mistake
    # costs marks once, in its own part (issue 26, point 3).
    "rotations_only": Student(
        A03, _03(test_permutation_matrices=0),
        cells={"permutation_matrices_def": ROTATIONS_ONLY},
        diagnoses={"test_permutation_matrices": "only the n rotations",
                   "test_is_permutation_equivariant": "right once your generate_permutation_matrices is fixed"}),
    # Every permutation twice (the columns and the rows of the identity reordered): all n! are there, so
    # a checker built on it is still right, only slower: half the generator's marks.
    "each_twice": Student(
        A03, _03(test_permutation_matrices=1),
        edits={"permutation_matrices_def": [(GENERATOR, GENERATOR + "\n    permutation_matrices.append(np.eye(n)[list(order), :])")]},
        diagnoses={"test_permutation_matrices": "every permutation twice"}),
    # A checker that makes its own list of permutations, the n rotations only (np.roll of the identity),
    # instead of calling generate_permutation_matrices: it accepts the roll, half the checker's marks.
    "checker_rotations_only": Student(
        A03, _03(test_is_permutation_equivariant=2), cells={"checker_def": """\
def is_permutation_equivariant(f, X, tolerance=1e-6):
  f_X = f(X)
  N = X.shape[1]
  for k in range(N):
    P = np.roll(np.eye(N), k, axis=1)  # (N, N): the tokens rolled by k places
    if np.max(np.abs(f(X @ P) - f_X @ P)) > tolerance:
      return False
  return True"""},
        diagnoses={"test_is_permutation_equivariant": "tries only the rotations"}),
    # Says False whatever f is: right on every non-equivariant function, and nothing earned.
    "always_false": Student(
        A03, _03(test_is_permutation_equivariant=0),
        edits={"checker_def": [("equivariant = bool(max(differences) <= tolerance)", "equivariant = False")]},
        diagnoses={"test_is_permutation_equivariant": "rejects an equivariant function"}),
    # Drops the identity: a permutation is missing (zero for the generator), but the identity never
    # shows a violation, so the (right) checker built on it is still right.
    # The position encoding written the PyTorch way, by slices: full marks.
    "encoding_by_slices": Student(A03, FULL_03, cells={"position_encoding_def": ENCODING_BY_SLICES}),
    # Right on the book's D=4 and on the fresh even D, an error on the fresh odd D: the visible check's
    # D=5 shows it, and the verdict says which input.
    "encoding_even_only": Student(
        A03, _03(test_position_encoding=1.33), cells={"position_encoding_def": ENCODING_EVEN_ONLY},
        # the odd D of the fresh case is drawn (5, 7 or 9, from the submitted code's digest): any names it
        diagnoses={"test_position_encoding": ("(D=5,", "(D=7,", "(D=9,")}),
    "encoding_sin_cos_swapped": Student(
        A03, _03(test_position_encoding=0), edits=_encoding(SINES, SINES.replace("rows % 2 == 0", "rows % 2 == 1")),
        diagnoses={"test_position_encoding": "sine and cosine swapped"}),
    "encoding_frequency_per_row": Student(
        A03, _03(test_position_encoding=0), edits=_encoding(ENCODING, ENCODING.replace("2 * (rows // 2) / D", "rows / D")),
        diagnoses={"test_position_encoding": "a frequency per row, not per pair of rows"}),
    "encoding_exponent_doubled": Student(
        A03, _03(test_position_encoding=0), edits=_encoding(ENCODING, ENCODING.replace("2 * (rows // 2) / D", "2 * rows / D")),
        diagnoses={"test_position_encoding": "exponent 2d/D instead of 2i/D"}),
    "encoding_multiplied": Student(
        A03, _03(test_position_encoding=0), edits=_encoding(ENCODING, ENCODING.replace("positions / 10000.0", "positions * 10000.0")),
        diagnoses={"test_position_encoding": "positions multiplied by 10000**(2i/D)"}),
    "encoding_from_one": Student(
        A03, _03(test_position_encoding=0),
        edits=_encoding("  positions = np.arange(N)[np.newaxis, :]  # (1, N)", "  positions = np.arange(1, N + 1)[np.newaxis, :]  # (1, N)"),
        diagnoses={"test_position_encoding": "positions counted from 1"}),
    # Sines in rows 0..ceil(D/2)-1, then the cosines of the same frequencies (a layout some libraries use).
    "encoding_halves": Student(
        A03, _03(test_position_encoding=0), cells={"position_encoding_def": """\
def position_encoding(D, N):
  half = (D + 1) // 2
  frequencies = 1 / 10000.0 ** (2 * np.arange(half) / D)  # (half,)
  angles = frequencies[:, None] * np.arange(N)[None, :]  # (half, N)
  return np.vstack([np.sin(angles), np.cos(angles[:D - half])])  # (D, N)"""},
        diagnoses={"test_position_encoding": "sines in the top half, cosines in the bottom"}),
    "identity_left_out": Student(
        A03, _03(test_permutation_matrices=0),
        edits={"permutation_matrices_def": [("  return permutation_matrices", "  return permutation_matrices[1:]")]},
        diagnoses={"test_permutation_matrices": "the identity left out"}),
}
