"""Notebook 03's readings of a wrong result (Probe.readings): what the student's answer is, said as a fact.

`permutation_orders` reads generate_permutation_matrices(n) as the orders of the n columns its matrices put
them in, and says which of the n! orders are missing, which are there more than once and how many matrices
are no permutation matrix at all; a set of orders is named by a property that picks out exactly those
among the n! (the identity, the cyclic shifts, the swaps of two columns, the last k in
itertools.permutations' order...) when one does, else counted, with the orders themselves when few.

`encoding_rows` reads each wrong row of position_encoding(D, N) as a sine: a row that is 0 at every
position, or the frequency it turns at against the one due (in the notebook's terms, 1/10000**(2i/D)), or
the same frequency with another phase (a cosine where the sine is due, the values of the next position...).
"""
import itertools
import math

import numpy as np

from ...engine.protocol import listing as _listing

# ---------------------------------------------------------------- generate_permutation_matrices


def _order(P):
    """The order of the columns a permutation matrix puts X's columns in (P = np.eye(n)[:, order]), or None."""
    P = np.asarray(P, dtype=float)
    n = P.shape[0]
    if P.shape != (n, n) or not np.all((P == 0) | (P == 1)):
        return None
    if not (np.all(P.sum(axis=0) == 1) and np.all(P.sum(axis=1) == 1)):
        return None
    return tuple(int(np.argmax(P[:, j])) for j in range(n))


def _moved(order):
    return sum(j != o for j, o in enumerate(order))


def _cycles(order):
    """The lengths of the order's cycles of moved columns, longest first: (2, 2) for two swaps."""
    seen, lengths = set(), []
    for start in range(len(order)):
        length, j = 0, start
        while j not in seen:
            seen.add(j)
            j = order[j]
            length += 1
        if length > 1:
            lengths.append(length)
    return tuple(sorted(lengths, reverse=True))


def _odd(order):
    """Whether the order is made by an odd number of swaps."""
    seen, swaps = set(), 0
    for start in range(len(order)):
        length = 0
        j = start
        while j not in seen:
            seen.add(j)
            j = order[j]
            length += 1
        swaps += max(length - 1, 0)
    return swaps % 2 == 1


def _properties(n):
    """(words for the orders that have it, the property), simplest first. Words take a count."""
    everything = list(itertools.permutations(range(n)))
    rank = {o: k for k, o in enumerate(everything)}
    shifts = {tuple((j - s) % n for j in range(n)) for s in range(n)}  # np.roll(np.eye(n), s, axis=1)
    out = [("the identity", lambda o: _moved(o) == 0),
           ("every order but the identity", lambda o: _moved(o) > 0),
           ("the {k} cyclic shifts of the columns (np.roll), the identity among them", lambda o: o in shifts),
           ("the {k} cyclic shifts of the columns (np.roll) other than the identity",
            lambda o: o in shifts and _moved(o) > 0),
           ("the {k} orders that are not cyclic shifts of the columns", lambda o: o not in shifts)]
    for moved in range(2, n + 1):
        words = "the {k} swaps of two columns" if moved == 2 else f"the {{k}} orders that move exactly {moved} columns"
        out.append((words, lambda o, m=moved: _moved(o) == m))
    for cycles in sorted({_cycles(o) for o in everything if _cycles(o)}):  # cycle types
        words = (f"the {{k}} orders that move {cycles[0]} columns round one cycle" if len(cycles) == 1 else
                 f"the {{k}} orders whose cycles (columns that move round in turn) have lengths "
                 f"{_listing([str(c) for c in cycles])}")
        out.append((words, lambda o, c=cycles: _cycles(o) == c))
    out += [("the {k} orders made by an odd number of swaps", _odd),
            ("the {k} orders made by an even number of swaps (the identity among them)", lambda o: not _odd(o)),
            ("the {k} orders that leave the first column in place", lambda o: o[0] == 0),
            ("the {k} orders that move the first column", lambda o: o[0] != 0),
            ("the {k} orders that leave the last column in place", lambda o: o[-1] == n - 1),
            ("the {k} orders that move the last column", lambda o: o[-1] != n - 1)]
    last = len(everything) - 1
    out += [("the last order in itertools.permutations' order", lambda o: rank[o] == last),
            ("every order but the last in itertools.permutations' order", lambda o: rank[o] != last)]
    for k in range(2, len(everything) - 1):
        out.append((f"the first {k} orders in itertools.permutations' order", lambda o, k=k: rank[o] < k))
        out.append((f"the last {k} orders in itertools.permutations' order", lambda o, k=k: rank[o] > last - k))
    return everything, out


def _named(orders, n):
    """The orders, said by the first property that picks out exactly them among the n!, with the orders
    themselves when there are three or fewer: "the 2 orders that ...: (1, 2, 0) and (2, 0, 1)"."""
    orders = sorted(orders)
    everything, properties = _properties(n)
    listed = _listing([str(o) for o in orders]) if len(orders) <= 3 else ""
    for words, has in properties:
        if {o for o in everything if has(o)} == set(orders):
            said = words.format(k=len(orders))
            if said == "the identity" or not listed:
                return said
            return f"{said} {listed}" if len(orders) == 1 else f"{said}, {listed}"
    return listed or f"{len(orders)} of the {len(everything)}"


def _copied(matrices):
    """ ": each holds a column of the identity twice, ... a swap through views?" when every one of them is made of
    the identity's columns (or rows), exactly one of them twice: a swap written P[:, i], P[:, j] = P[:, j], P[:, i]
    copies one column over the other, NumPy's slices being views of P. Asked only of a generator that returns n!
    matrices (the caller's test): one that returns every sequence of columns (itertools.product) has such matrices
    too, and others, and it is not asked of it; else ""."""
    for axis, word, fix in ((1, "column", "P[:, [i, j]] = P[:, [j, i]]"), (0, "row", "P[[i, j]] = P[[j, i]]")):
        lines = [np.moveaxis(P, axis, 0) for P in matrices]  # each matrix's columns (or rows), as rows
        if lines and all(np.isin(L, (0, 1)).all() and (L.sum(axis=1) == 1).all() and
                         len({tuple(x) for x in L}) == len(L) - 1 for L in lines):
            sliced = "P[:, i], P[:, j] = P[:, j], P[:, i]" if axis == 1 else "P[i], P[j] = P[j], P[i]"
            return (f": each of them holds a {word} of the identity twice and misses another. Is a swap written "
                    f"{sliced}? NumPy's slices are views of P, so that copies one {word} over the other: swap with "
                    f"{fix}")
    return ""


def permutation_orders(inputs, value):
    """What generate_permutation_matrices(n) returned, read back as [its distinct matrices, how many it returned,
    how often each distinct one appears]: which orders are missing, repeated, or no permutation at all."""
    n = int(inputs["n"])
    distinct, counts = np.asarray(value[0], dtype=float), np.asarray(value[2], dtype=float).ravel()
    if distinct.ndim != 3 or distinct.shape[1:] != (n, n) or len(counts) != len(distinct):
        return None
    orders = [_order(P) for P in distinct]
    returned = int(np.asarray(value[1], dtype=float).ravel()[0]) if np.size(value[1]) == 1 else -1
    present = {o: int(c) for o, c in zip(orders, counts) if o is not None}
    everything = list(itertools.permutations(range(n)))
    missing = [o for o in everything if o not in present]
    repeated = [o for o, c in present.items() if c > 1]
    others = sum(o is None for o in orders)
    said = []
    if missing:
        said.append(f"{len(missing)} of the {len(everything)} orders of {n} columns {'is' if len(missing) == 1 else 'are'} missing: "
                    f"{_named(missing, n)}")
    if repeated:
        times = sorted({present[o] for o in repeated})
        how = ("twice" if times[0] == 2 else f"{times[0]} times") if len(times) == 1 else "more than once"
        named = _named(repeated, n)
        said.append(f"{named} {'is' if len(repeated) == 1 else 'are'} there {how}" if named.startswith("the ") else
                    f"{len(repeated)} {'is' if len(repeated) == 1 else 'are'} there {how}: {named}")
    if others:
        said.append(f"{others} of the distinct matrices {'is' if others == 1 else 'are'} no permutation matrix "
                    "(not exactly one 1 in every row and column, 0 elsewhere)" + (_copied(
                        [P for P, o in zip(distinct, orders) if o is None]) if returned == len(everything) else ""))
    if not said:
        return None
    todo = ("one matrix for each of the n! orders, each once" if missing or repeated else
            "every matrix the identity with its columns reordered")
    return "; ".join(said) + f" ({todo})"


# ---------------------------------------------------------------- position_encoding

def _due(d, D):
    """Row d's frequency (radians per position) and phase (0 for a sine, pi/2 for a cosine)."""
    return 1 / 10000.0 ** (2 * (d // 2) / D), 0.0 if d % 2 == 0 else math.pi / 2


def _frequency_words(w, D):
    """A frequency in the notebook's terms: 1/10000**(k/D) when k is a whole number (or a half), else its value."""
    if w <= 1e-12:
        return "0"
    k = -math.log(w) / math.log(10000.0) * D
    for denominator in (1, 2):
        if abs(k * denominator - round(k * denominator)) < 1e-6:
            whole = round(k * denominator) / denominator
            if whole == 0:
                return "1"
            number = f"{whole:g}" if denominator == 1 else f"{whole:.1f}"
            return f"1/10000**({number}/{D})"
    return f"{w:.4g}"


def _as_sine(row, tolerance):
    """(frequency in [0, pi], amplitude, phase) with row[n] = amplitude * sin(frequency * n + phase) at every
    position n within `tolerance`, or None. The frequency is read from the row itself: any sinusoid has
    r[n-1] + r[n+1] = 2 cos(w) r[n]."""
    N = len(row)
    n = np.arange(N)
    inner = np.sum(row[1:-1] ** 2)
    if N < 5 or inner < 1e-12:
        return None
    cos_w = np.sum(row[1:-1] * (row[:-2] + row[2:])) / (2 * inner)
    if abs(cos_w) > 1 + 1e-9:
        return None
    w = float(np.arccos(np.clip(cos_w, -1, 1)))
    basis = np.stack([np.sin(w * n), np.cos(w * n)], axis=1)  # (N, 2)
    (a, b), *_ = np.linalg.lstsq(basis, row, rcond=None)
    if np.max(np.abs(basis @ np.array([a, b]) - row)) > tolerance:
        return None
    return w, float(np.hypot(a, b)), float(np.arctan2(b, a))


def _row_words(row, d, D, tolerance):
    """What row d is, against the one due: (kind, words), or None when it cannot be read or is the due row."""
    w_due, phase_due = _due(d, D)
    due = "sin" if d % 2 == 0 else "cos"
    formula = f"{due}(n)" if d < 2 else f"{due}(n / 10000**({2 * (d // 2)}/{D}))"
    if np.all(np.abs(row) <= tolerance):
        return "zero", f"0 at every position, where {formula} is due"
    read = _as_sine(row, tolerance)
    if read is None:
        return None
    w, amplitude, phase = read
    if w < 1e-9:
        return "constant", f"{row[0]:.4g} at every position, where {formula} is due"
    if abs(w - w_due) > 1e-6 * max(w_due, 1e-3):
        ratio = w / w_due
        times = next((("twice" if k == 2 else f"{k} times") for k in range(2, 11) if abs(ratio - k) < 1e-6), None) or \
            next((("half" if k == 2 else f"1/{k} of") for k in range(2, 11) if abs(ratio - 1 / k) < 1e-6), None)
        said = f"{times} the frequency due, " if times else ""
        # (one row cannot tell a wrong base from a wrong exponent: a base of 10000 with a zero too few or too many,
        # or 10 or 100, is said beside it)
        base = math.exp(-math.log(w) * D / (2 * (d // 2))) if d >= 2 and 1e-12 < w < 1 else 0  # w = 1/B**(2i/D)
        also = next((f" = 1/{b}**({2 * (d // 2)}/{D})" for b in (10, 100, 1000, 100000)
                     if not times and abs(base - b) <= 1e-6 * b), "")
        return "frequency", (f"turning at {said}{_frequency_words(w, D)}{also} radians per position where "
                             f"{_frequency_words(w_due, D)} is due")
    if abs(amplitude - 1) > 1e-6:
        return "amplitude", f"a sinusoid of the right frequency, with amplitude {amplitude:.4g} where 1 is due"
    shift = (phase - phase_due + math.pi) % (2 * math.pi) - math.pi  # (-pi, pi]
    if abs(shift) < 1e-6:
        return None  # the due row: not wrong
    if d % 2 == 0 and abs(shift - math.pi / 2) < 1e-6:
        return "swap", "the cosine of the right angle, where its sine is due"
    if d % 2 == 1 and abs(shift + math.pi / 2) < 1e-6:
        return "swap", "the sine of the right angle, where its cosine is due"
    if abs(abs(shift) - math.pi) < 1e-6:
        return "sign", f"minus {formula}"
    for k in (1, -1, 2, -2):
        if abs((shift - k * w_due + math.pi) % (2 * math.pi) - math.pi) < 1e-6:
            return "phase", f"the values due at position {f'n + {k}' if k > 0 else f'n - {-k}'}, in place n"
    return "phase", f"the right frequency, with its angles starting at {shift:.4g} radians where 0 is due"


# 1/10000**(2i/x) with x a multiple of D, as the exponent reads then: x = 2D is 1/10000**(i/D)
_EXPONENTS = {2.0: "i/{D}", 0.5: "4i/{D}"}


def _other_denominator(got, wrong, D, sizes):
    """ "rows 2 to 8 turn at 1/10000**(2i/12), 12 being N, where 1/10000**(2i/9) is due", when every wrong row is
    a sine or cosine of the right phase whose frequency is 1/10000**(2i/x) for one x: another size of the inputs,
    or twice or half of D (said as the exponent then reads, 1/10000**(i/D)). A size that is also twice or half
    of D is not named: on D = 5, N = 10, rows turning at 1/10000**(i/5) show nothing of N."""
    found = set()
    for d in wrong:
        read = _as_sine(got[d], 1e-6)
        if d < 2 or read is None or read[0] <= 1e-12 or abs(read[1] - 1) > 1e-6:
            return None
        x = 2 * (d // 2) * math.log(10000.0) / -math.log(read[0])  # 1/10000**(2i/x) = w
        k = next((k for k in _EXPONENTS if abs(x - k * D) < 1e-6), None)
        name = next((n for n, size in sizes.items() if size != D and abs(x - size) < 1e-6), None)
        if k is None and name is None:
            return None
        found.add(k if k is not None else name)
    if len(found) != 1:
        return None
    rows = f"rows {_listing([str(d) for d in wrong])} of {D} (numbered from 0)"
    due = f"where 1/10000**(2i/{D}) is due, D = {D} being the number of rows"
    what = found.pop()
    if what in _EXPONENTS:
        return f"{rows} turn at 1/10000**({_EXPONENTS[what].format(D=D)}), {due}"
    return f"{rows} turn at 1/10000**(2i/{sizes[what]}), {sizes[what]} being {what}, {due}"


def _other_base(got, wrong, D):
    """The base B of every wrong row's frequency 1/B**(2i/D), when it is one whole number other than 10000 for two
    pairs of rows or more (one pair cannot tell a base from an exponent) and every wrong row is the right sinusoid
    (phase, amplitude) but for it; else None. Rows 0 and 1 turn at 1 whatever the base."""
    bases = set()
    for d in wrong:
        read = _as_sine(got[d], 1e-6)
        if d < 2 or read is None or not 1e-12 < read[0] < 1 or abs(read[1] - 1) > 1e-6:
            return None
        w, phase_due = read[0], _due(d, D)[1]
        if np.max(np.abs(got[d] - np.sin(w * np.arange(len(got[d])) + phase_due))) > 1e-6:
            return None  # another phase too: the rows say more than a base
        bases.add(math.exp(-math.log(w) * D / (2 * (d // 2))))  # w = 1/B**(2i/D)
    B = min(bases)
    if len({d // 2 for d in wrong}) < 2 or max(bases) - B > 1e-6 * B or abs(B - round(B)) > 1e-6 * B \
            or round(B) in (1, 10000):
        return None
    return round(B)


def encoding_rows(inputs, value):
    """What the wrong rows of position_encoding(D, N) are, as sines: one sentence, or None."""
    D, N = int(inputs["D"]), int(inputs["N"])
    got = np.squeeze(np.asarray(value, dtype=float))
    if got.shape != (D, N):
        return None
    from .reference import position_encoding
    want = position_encoding(D, N)
    tolerance = 1e-6
    wrong = [d for d in range(D) if np.max(np.abs(got[d] - want[d])) > 1e-4 * max(1.0, np.max(np.abs(want[d])))]
    if not wrong:
        return None
    other, base = _other_denominator(got, wrong, D, {"N": N}), _other_base(got, wrong, D)
    if base:
        said = (f"the same as a base of {base} in 1/base**(2i/D), where 10000 is due" if other else
                f"rows {_listing([str(d) for d in wrong])} of {D} (numbered from 0) turn at 1/{base}**(2i/{D}): "
                f"a base of {base}, where 1/10000**(2i/{D}) is due")
        return f"{other} ({said})" if other else said
    if other:
        return other
    read = [(d, _row_words(got[d], d, D, tolerance)) for d in wrong]
    if any(words is None for _, words in read):
        return None  # a row it cannot read: the generic findings say where the rows are wrong
    turning = [d for d, (kind, _) in read if kind == "frequency"]
    base = _other_base(got, turning, D) if turning else None
    if base:  # the rows of other frequencies share one base (an odd D's last row left out, say)
        said = ("base", f"turning at 1/{base}**(2i/{D}): a base of {base}, where 1/10000**(2i/{D}) is due")
        read = [(d, said if d in turning else words) for d, words in read]
    groups = {}  # the same words for several rows are said once
    for d, (kind, words) in read:
        groups.setdefault((kind, words), []).append(d)
    said = [f"row{'s' if len(rows) > 1 else ''} {_listing([str(d) for d in rows])}: {words}"
            for (_, words), rows in list(groups.items())[:2]]
    rest = {}
    for (kind, _), rows in list(groups.items())[2:]:
        rest.setdefault(kind, []).extend(rows)
    said += [f"row{'s' if len(rows) > 1 else ''} {_listing([str(d) for d in sorted(rows)])}: "
             f"{_KINDS[kind][len(rows) > 1]}" for kind, rows in rest.items()]
    head = f"row{'s' if len(wrong) > 1 else ''} {_listing([str(d) for d in wrong])} of {D} (numbered from 0) " \
           f"{'are' if len(wrong) > 1 else 'is'} wrong"
    note = " (rows 2i and 2i+1 both turn at 1/10000**(2i/D))" if any(k == "frequency" for _, (k, _) in read) else ""
    if len(groups) == 1:  # one thing said of every wrong row
        return f"{head}: {read[0][1][1]}{note}"
    return f"{head}; " + "; ".join(said) + note


_KINDS = {"zero": ("0 at every position",) * 2, "constant": ("the same at every position",) * 2, "frequency": ("another frequency than due", "other frequencies than due"),
          "amplitude": ("another amplitude", "other amplitudes"), "swap": ("sine and cosine swapped",) * 2,
          "sign": ("negated",) * 2,
          "phase": ("the right frequency, its angles shifted", "the right frequency, their angles shifted")}
