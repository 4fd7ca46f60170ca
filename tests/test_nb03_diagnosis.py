"""Notebook 03's wrong answers that no catalogued mistake names get told what they do (issue 26).

Three mechanisms: the checker's cases declare traits of their inputs (protocol.Case.traits), and a checker
wrong on exactly the inputs with one (or whose yes/no answers are exactly one) is told so; the generator's
matrices are read as orders (which are missing, repeated, or no permutation); the encoding's wrong rows are
read as sines (a row 0 at every position, its frequency against the one due, a phase). Each wrong answer
below is hand-written for this file; right answers written other ways must get full marks and no finding.

    python -m tests.test_nb03_diagnosis      prints every verdict
"""
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grader.course.nb03_permutation_equivariance import readings
from grader.course.nb03_permutation_equivariance.reference import position_encoding
from grader.engine import protocol
from grader.engine.protocol import Case, Trait

A03 = "03_permutation_equivariance"
SEEDS = (0, 1)

GEN = "    permutation_matrices.append(np.eye(n)[:, list(order)])  # (n, n)"
LOOP = "  for order in itertools.permutations(range(n)):"
CHECK = ("  differences = [np.max(np.abs(f(X @ P) - f_X @ P)) for P in generate_permutation_matrices(X.shape[1])]\n"
         "  equivariant = bool(max(differences) <= tolerance)")
KEY_ENCODING = """\
  positions = np.arange(N)[np.newaxis, :]  # (1, N)
  rows = np.arange(D)[:, np.newaxis]  # (D, 1)
  angles = positions / 10000.0 ** (2 * (rows // 2) / D)  # (D, N): rows 2i and 2i+1 share a frequency
  encoding = np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))  # (D, N): sines in the even rows"""
SINES = "  encoding = np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))  # (D, N): sines in the even rows"
# Scalar loops, as many students write it: no array but the result, so no step can be traced
LOOPS = """\
  encoding = np.zeros((D, N))
  for pos in range(N):
    for i in range(D // 2):
      encoding[2 * i, pos] = np.sin(pos / 10000 ** (2 * i / D))
      encoding[2 * i + 1, pos] = np.cos(pos / 10000 ** (2 * i / D))"""
LOOPS_RIGHT = LOOPS.replace("range(D // 2)", "range((D + 1) // 2)").replace(
    "      encoding[2 * i + 1, pos]", "      if 2 * i + 1 < D: encoding[2 * i + 1, pos]")


def _gen(old, new):
    return "test_permutation_matrices", {"permutation_matrices_def": [(old, new)]}


def _checker(new):
    return "test_is_permutation_equivariant", {"checker_def": [(CHECK, new)]}


def _encoding(old, new):
    return "test_position_encoding", {"position_encoding_def": [(old, new)]}


# name: (part, edits, words the verdict must say on every seed)
WRONG = {
    "generator: the last two orders dropped": (*_gen(LOOP, "  for order in list(itertools.permutations(range(n)))[:-2]:"),
                                               "2 of the 6 orders of 3 columns are missing: the last 2 orders in "
                                               "itertools.permutations' order, (2, 0, 1) and (2, 1, 0)"),
    "generator: the identity added twice more": (*_gen(GEN, GEN + "\n    if order == tuple(range(n)):\n"
                                                             "      permutation_matrices += [np.eye(n), np.eye(n)]"),
                                                 "the identity is there 3 times"),
    "generator: the swaps of two columns left out": (
        *_gen(GEN, "    if sum(j != o for j, o in enumerate(order)) != 2:\n  " + GEN),
        "3 of the 6 orders of 3 columns are missing: the 3 orders that are not cyclic shifts of the columns, "
        "(0, 2, 1), (1, 0, 2) and (2, 1, 0)"),
    "generator: a matrix of ones appended": (*_gen(GEN, GEN + "\n  permutation_matrices.append(np.ones((n, n)))"),
                                             "1 of the distinct matrices is no permutation matrix"),
    "checker: f(X @ P) compared with f(X)": (*_checker(CHECK.replace("f_X @ P", "f_X")),
                                             "those where the function's output does not move when the tokens do "
                                             "(f(X P) = f(X) for every P), and False on those where it does"),
    "checker: the result overwritten in the loop (the last P decides)": (
        *_checker("  for P in generate_permutation_matrices(X.shape[1]):\n"
                  "    equivariant = bool(np.max(np.abs(f(X @ P) - f_X @ P)) <= tolerance)"),
        "those where f(X P) = f(X) P holds for the last permutation in itertools.permutations' order"),
    "checker: the last permutation skipped": (
        *_checker(CHECK.replace("generate_permutation_matrices(X.shape[1])", "generate_permutation_matrices(X.shape[1])[:-1]")),
        "those where every permutation before the last in itertools.permutations' order keeps f(X P) = f(X) P"),
    "checker: returns at the first permutation after the identity": (
        *_checker("  for P in generate_permutation_matrices(X.shape[1])[1:]:\n"
                  "    return bool(np.max(np.abs(f(X @ P) - f_X @ P)) <= tolerance)"),
        "those where f(X P) = f(X) P holds for the first permutation after the identity"),
    "checker: exact equality": (
        *_checker("  equivariant = all(np.array_equal(f(X @ P), f_X @ P) for P in generate_permutation_matrices(X.shape[1]))"),
        "those where the function is equivariant but f(X P) and f(X) P differ in their last bits"),
    "checker: N from the notebook, not from X": (*_checker(CHECK.replace("X.shape[1]", "N")),
                                                 "those where X has another number of tokens"),
    "checker: any permutation but the identity will do": (
        *_checker("  equivariant = any(np.max(np.abs(f(X @ P) - f_X @ P)) <= tolerance\n"
                  "                    for P in generate_permutation_matrices(X.shape[1])[1:])"),
        "those where some permutation other than the identity keeps f(X P) = f(X) P"),
    "encoding: cosine rows left at zero": (*_encoding(SINES, SINES.replace("np.cos(angles)", "0.0")),
                                           "rows 1 and 3 of 4 (numbered from 0) are wrong; row 1: 0 at every position, "
                                           "where cos(n) is due; row 3: 0 at every position"),
    "encoding: loops that leave an odd D's last row at zero": (
        *_encoding(KEY_ENCODING, LOOPS), "0 at every position, where sin(n / 10000**("),
    "encoding: loops that fill an array of integers": (
        *_encoding(KEY_ENCODING, LOOPS_RIGHT.replace("np.zeros((D, N))", "np.zeros((D, N), dtype=int)")),
        "where fractions are due: a value written into such an array is cut to a whole number."),
    "encoding: loops with base 1000": (*_encoding(KEY_ENCODING, LOOPS.replace("10000", "1000")),
                                       ": a base of 1000, where 1/10000**(2i/"),
    "encoding: loops whose cosines start one position on": (
        *_encoding(KEY_ENCODING, LOOPS_RIGHT.replace("np.cos(pos /", "np.cos((pos + 1) /")),
        "are wrong: the values due at position n + 1, in place n"),
    "encoding: cosines of twice the angle": (*_encoding(SINES, SINES.replace("np.cos(angles)", "np.cos(2 * angles)")),
                                             "row 1: turning at twice the frequency due, 2 radians per position where 1 is due"),
    "encoding: sines negated": (*_encoding(SINES, SINES.replace("np.sin(angles)", "-np.sin(angles)")),
                                "row 0: minus sin(n)"),
    "encoding: by slices, right for even D only": (
        *_encoding(SINES, "  encoding = np.zeros((D, N))\n  encoding[0::2] = np.sin(angles[0::2])\n"
                          "  encoding[1::2] = np.cos(angles[0::2])"), "those where D is odd"),
}

RIGHT = {
    "generator: the rows of the identity reordered": _gen(GEN, GEN.replace("np.eye(n)[:, list(order)]", "np.eye(n)[list(order), :]")),
    "generator: as integers, from np.zeros": _gen(GEN, "    P = np.zeros((n, n), dtype=int)\n    P[list(order), range(n)] = 1\n"
                                                       "    permutation_matrices.append(P)"),
    "checker: np.allclose with atol, early return": _checker(
        "  for P in generate_permutation_matrices(X.shape[1]):\n"
        "    if not np.allclose(f(X @ P), f_X @ P, rtol=0, atol=tolerance):\n      return False\n  equivariant = True"),
    "encoding: scalar loops": _encoding(KEY_ENCODING, LOOPS_RIGHT),
}


@pytest.fixture(scope="module")
def graded():
    """{name: [[score, points, finding, mistake, message] per seed]}, graded in a child process (an IPython shell
    in this one would take over the pytest worker's hooks), as tests/test_diagnosis.py does."""
    out = subprocess.run([sys.executable, "-m", "tests.test_nb03_diagnosis", "--json"], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).parent.parent)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", sorted(WRONG))
def test_an_uncatalogued_mistake_is_told_what_it_does(graded, name):
    words = WRONG[name][2]
    for score, points, finding, mistake, message in graded[name]:
        assert score < points, f"{name}: full marks: {message}"
        assert mistake is None, f"{name}: named {mistake}: {message}"
        assert words in message, f"{name}: {message}"


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_answer_written_another_way_gets_full_marks_and_no_finding(graded, name):
    for score, points, finding, mistake, message in graded[name]:
        assert score == points and finding is None and mistake is None, f"{name}: {message}"


# ---------------------------------------------------------------- the mechanisms alone, without a kernel

HAS = Trait("it has the trait", "it lacks it", "a note")
OTHER = Trait("another", "not that one")


def _cases(*flags):
    return [Case("book" if k == 0 else "fresh", {}, traits={HAS: f, OTHER: k == 1}) for k, f in enumerate(flags)]


def test_a_trait_is_said_only_when_it_picks_out_exactly_the_wrong_cases():
    cases = _cases(False, True, True, False)
    got = [np.zeros((2, 2))] * 4
    said = protocol._trait_finding(cases, got, [None, "wrong", "wrong", None])
    assert said.startswith("it is wrong on exactly 2 of the 4 inputs, those where it has the trait") and said.endswith(": a note")
    said = protocol._trait_finding(cases, got, ["wrong", None, None, "wrong"])
    assert "those where it lacks it, and right on those where it has the trait" in said
    assert protocol._trait_finding(cases, got, [None, "wrong", None, None]) is not None  # OTHER: case 1 alone
    assert protocol._trait_finding(cases, got, [None, None, "wrong", None]) is None  # no trait picks out case 2 alone
    assert protocol._trait_finding(cases, got, ["w"] * 4) is None  # wrong everywhere: nothing to tell apart
    assert protocol._trait_finding(cases, got, [None] * 4) is None


def test_yes_no_answers_that_are_exactly_a_trait_are_said_as_such():
    cases = _cases(False, True, True, False)
    answers = [np.array(0.0), np.array(1.0), np.array(1.0), np.array(0.0)]
    said = protocol._trait_finding(cases, answers, [None, "wrong", None, None])
    assert said.startswith("it answers True on exactly 2 of the 4 inputs, those where it has the trait")


def test_a_trait_not_declared_on_every_case_is_not_used():
    cases = _cases(False, True, True, False)
    del cases[3].traits[HAS]
    assert "it has the trait" not in (protocol._trait_finding(cases, [np.zeros(2)] * 4, [None, "w", "w", None]) or "")


def _read_back(matrices):
    distinct, counts = np.unique(np.array(matrices, dtype=float), axis=0, return_counts=True)
    return [distinct, np.array(float(len(matrices))), counts.astype(float)]


def test_the_orders_are_named_by_a_property_that_picks_out_exactly_them():
    n = 4
    every = [np.eye(n)[:, list(o)] for o in itertools.permutations(range(n))]
    shifts = [np.roll(np.eye(n), s, axis=1) for s in range(n)]
    said = readings.permutation_orders({"n": n}, _read_back(shifts))
    assert said.startswith("20 of the 24 orders of 4 columns are missing: the 20 orders that are not cyclic shifts")
    said = readings.permutation_orders({"n": n}, _read_back(every[1:]))
    assert said.startswith("1 of the 24 orders of 4 columns is missing: the identity")
    said = readings.permutation_orders({"n": n}, _read_back(every + every[-1:]))
    assert said.startswith("the last order in itertools.permutations' order (3, 2, 1, 0) is there twice")
    odd = [P for P, o in zip(every, itertools.permutations(range(n))) if readings._odd(o)]
    assert "12 of the 24 orders of 4 columns are missing: the 12 orders made by an even number of swaps" in readings.permutation_orders({"n": n}, _read_back(odd))
    two_swaps = [P for P, o in zip(every, itertools.permutations(range(n))) if readings._cycles(o) != (2, 2)]
    assert "3 are missing" not in readings.permutation_orders({"n": n}, _read_back(two_swaps))
    assert "the 3 orders whose cycles (columns that move round in turn) have lengths 2 and 2, (1, 0, 3, 2), " \
           "(2, 3, 0, 1) and (3, 2, 1, 0)" in readings.permutation_orders({"n": n}, _read_back(two_swaps))
    assert readings.permutation_orders({"n": n}, _read_back(every)) is None


def test_the_encoding_rows_are_read_as_sines_and_a_right_encoding_gets_nothing():
    D, N = 6, 12
    right = position_encoding(D, N)
    assert readings.encoding_rows({"D": D, "N": N}, right) is None
    wrong = right.copy()
    wrong[5] = 0
    assert readings.encoding_rows({"D": D, "N": N}, wrong) == (
        "row 5 of 6 (numbered from 0) is wrong: 0 at every position, where cos(n / 10000**(4/6)) is due")
    wrong = right.copy()
    wrong[2] = np.sin(np.arange(N) / 10000 ** (3 / D))  # the frequency of a row of its own, d / D
    assert "is wrong: turning at 1/10000**(3/6) radians per position where 1/10000**(2/6) is due" in \
        readings.encoding_rows({"D": D, "N": N}, wrong)
    wrong = right.copy()
    wrong[0] = np.cos(np.arange(N))
    assert "is wrong: the cosine of the right angle, where its sine is due" in readings.encoding_rows({"D": D, "N": N}, wrong)
    wrong = right.copy()
    wrong[3] = np.random.default_rng(0).normal(size=N)  # no sinusoid: nothing is said of the rows at all
    assert readings.encoding_rows({"D": D, "N": N}, wrong) is None


if __name__ == "__main__":
    from tests.test_diagnosis import grade_in_process
    results = {}
    for name, (part, edits, *_) in {**WRONG, **RIGHT}.items():
        results[name] = []
        for seed in SEEDS:
            v = grade_in_process(A03, edits, seed, parts={part})[part]
            results[name].append([v.score, v.points, v.finding, v.mistake, v.message])
    if "--json" in sys.argv:
        print(json.dumps(results))
    else:
        for name, runs in results.items():
            print(f"{name}\n    {runs[0][0]:g}/{runs[0][1]:g} [{runs[0][2]}] {runs[0][4]}")


def test_frequencies_made_with_another_size_of_the_inputs_are_said_with_it():
    """Every wrong pair of rows turning at 1/10000**(2i/N): one sentence naming N, not a row at a time."""
    from grader.course.nb03_permutation_equivariance import readings
    D, N = 7, 11
    n = np.arange(N)
    wrong = np.zeros((D, N))
    for d in range(D):
        w = 1 / 10000 ** (2 * (d // 2) / N)
        wrong[d] = np.sin(n * w) if d % 2 == 0 else np.cos(n * w)
    said = readings.encoding_rows({"D": D, "N": N}, wrong)
    assert said.startswith("rows 2, 3, 4, 5 and 6 of 7 (numbered from 0) turn at 1/10000**(2i/11), 11 being N"), said
    wrong[6] = 0.0  # not every row so: read a row at a time
    assert "11 being N" not in readings.encoding_rows({"D": D, "N": N}, wrong)


def test_a_size_that_is_also_twice_D_is_not_named_and_the_exponent_is_said_as_it_reads():
    """Rows turning at 1/10000**(i/D), the 2 of 2i left out. On D = 5, N = 10 that is also 1/10000**(2i/N):
    naming N would blame a size the student never used. Said as the exponent reads, on any N."""
    from grader.course.nb03_permutation_equivariance import readings
    for D, N in ((5, 10), (6, 9)):
        n = np.arange(N)
        wrong = np.zeros((D, N))
        for d in range(D):
            w = 1 / 10000 ** ((d // 2) / D)
            wrong[d] = np.sin(n * w) if d % 2 == 0 else np.cos(n * w)
        said = readings.encoding_rows({"D": D, "N": N}, wrong)
        assert f"turn at 1/10000**(i/{D}), where 1/10000**(2i/{D}) is due" in said and "being N" not in said, said


def test_another_base_is_said_as_the_base_not_as_an_exponent():
    """1/1000**(2i/D) is also 1/10000**(1.5i/D): true, but it points at the exponent, where the base is what is
    wrong. Said as the base when two pairs of rows or more share it; a row read alone gets both readings, as does
    1/100**(2i/D) = 1/10000**(i/D). A base that is no whole number is not said."""
    from grader.course.nb03_permutation_equivariance import readings
    for D, N in ((5, 9), (6, 7)):
        n = np.arange(N)
        for base in (1000, 100, 1234.5):
            wrong = np.zeros((D, N))
            for d in range(D):
                w = 1 / base ** (2 * (d // 2) / D)
                wrong[d] = np.sin(n * w) if d % 2 == 0 else np.cos(n * w)
            said = readings.encoding_rows({"D": D, "N": N}, wrong)
            if base == 1000:
                rows = "2, 3 and 4 of 5" if D == 5 else "2, 3, 4 and 5 of 6"
                assert said == (f"rows {rows} (numbered from 0) turn at 1/1000**(2i/{D}): a base of 1000, where "
                                f"1/10000**(2i/{D}) is due"), said
                wrong[D - 1] = 0.0  # a row that says something else: the others still share their base
                said = readings.encoding_rows({"D": D, "N": N}, wrong)
                if D == 6:
                    assert "rows 2, 3 and 4: turning at 1/1000**(2i/6): a base of 1000" in said, said
                wrong[4:] = 0.0  # one pair left: both readings
                said = readings.encoding_rows({"D": D, "N": N}, wrong)
                assert f"rows 2 and 3: turning at 1/10000**(1.5/{D}) = 1/1000**(2/{D}) radians" in said, said
            elif base == 100:
                assert f"turn at 1/10000**(i/{D})" in said and "the same as a base of 100 in" in said, said
            else:
                assert "base" not in said, said


def test_matrices_with_a_column_of_the_identity_twice_are_asked_about_a_swap_through_views():
    """A swap of two columns written a, b = b, a on NumPy slices copies one over the other: each matrix then holds
    a column of the identity twice. Said as a question, and only when every matrix that is no permutation is so;
    rows likewise; not of other wrong matrices."""
    n = 3
    every = [np.eye(n)[:, list(o)] for o in itertools.permutations(range(n))]
    copied = []
    for i, j in ((0, 1), (1, 2), (0, 2)):
        P = np.eye(n)
        P[:, i], P[:, j] = P[:, j], P[:, i]  # the second assignment reads the column the first overwrote
        copied.append(P)
    said = readings.permutation_orders({"n": n}, _read_back(every[:3] + copied))  # n! matrices, as a swap makes
    assert "each of them holds a column of the identity twice and misses another. Is a swap written " \
           "P[:, i], P[:, j] = P[:, j], P[:, i]?" in said and "swap with P[:, [i, j]] = P[:, [j, i]]" in said, said
    said = readings.permutation_orders({"n": n}, _read_back(every[:3] + [P.T for P in copied]))
    assert "holds a row of the identity twice" in said and "P[[i, j]] = P[[j, i]]" in said, said
    said = readings.permutation_orders({"n": n}, _read_back(every[:5] + [2 * np.eye(n)]))
    assert "no permutation matrix" in said and "twice" not in said, said


def test_a_generator_of_every_sequence_of_columns_is_not_asked_about_a_swap():
    """itertools.product(range(n), repeat=n): n**n matrices, some with a column of the identity twice (and some
    three times). Its matrices are no permutation, and that is all that is said: no swap was written."""
    n = 3
    product = [np.eye(n)[:, list(o)] for o in itertools.product(range(n), repeat=n)]
    said = readings.permutation_orders({"n": n}, _read_back(product))
    assert "21 of the distinct matrices are no permutation matrix" in said and "swap" not in said, said
    two = [np.eye(2)[:, list(o)] for o in itertools.product(range(2), repeat=2)]  # each wrong one a column twice
    assert "swap" not in readings.permutation_orders({"n": 2}, _read_back(two))


def test_being_right_only_on_a_case_drawn_to_show_one_rule_is_no_evidence_of_a_trait():
    """Round 14's i11 kept the right tokens with the first probabilities by id: right only on 11's case of equal
    probabilities (Case.shows), it was told the rule that case shows. Wrong only there still says so."""
    cases = _cases(True, False, False, False)
    cases[0].shows = "the rule that has the trait"
    got = [np.zeros((2, 2))] * 4
    assert protocol._trait_finding(cases, got, [None, "w", "w", "w"]) is None
    said = protocol._trait_finding(cases, got, ["w", None, None, None])
    assert said.startswith("it is wrong on exactly 1 of the 4 inputs, those where it has the trait")
    cases[0].shows = ""
    assert protocol._trait_finding(cases, got, [None, "w", "w", "w"]).startswith("it is wrong on exactly 3 of the 4")
