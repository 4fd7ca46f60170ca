"""Structural findings: what is wrong with a result when no catalogued mistake explains it.

The verdict compares the student's result with the reference and with simple
transformations of it (transposed, scaled, reordered, sign-flipped, normalised
along another axis, right on some slices only) and says the first that fits, in
one sentence a student can act on. Every finding is a fact about the numbers
("every entry is 2 times the right one"); a likely cause follows as a question,
never as an accusation. Nothing here prints a matrix or an input.
"""
import itertools
import math
from typing import NamedTuple

import numpy as np

from .courseware import course

POSITIONAL = ("tokens", "positions", "queries", "keys", "words", "columns", "entries")
GENERIC_AXES = {1: ("entries",), 2: ("rows", "columns"), 3: ("items along axis 0", "rows", "columns")}


def allclose(a, b, rtol, atol, equal_nan=False):
    """np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan) for two arrays of one shape, by its own rule
    (|a - b| <= atol + rtol |b| entry by entry), in a few numpy calls where np.allclose makes a dozen: the
    first-wrong-step search (steps.py) asks it tens of thousands of times on one wrong answer. Arrays that are
    not float, or hold nan or inf, are left to np.allclose itself (tests/test_protocol.py compares the two)."""
    if a.dtype.kind == "f" and b.dtype.kind == "f" and np.isfinite(a).all() and np.isfinite(b).all():
        return bool((abs(a - b) <= atol + rtol * abs(b)).all())
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _close(a, b):
    c = course()
    return a.shape == b.shape and allclose(np.asarray(a), np.asarray(b), c.RTOL, c.ATOL)


def axis_names(ndim, names=()):
    """Plural names of a result's axes: the probe's own (e.g. ("features", "tokens")), else generic ones."""
    if len(names) == ndim:
        return tuple(names)
    return GENERIC_AXES.get(ndim, tuple(f"slices along axis {a}" for a in range(ndim)))


def _singular(plural):
    return {"entries": "entry", "items along axis 0": "item along axis 0", "batch items": "batch item",
            "heads": "head", "queries": "query", "keys": "key"}.get(plural, plural[:-1] if plural.endswith("s") else plural)


def _numbers(indices):
    """1-based positions as a student counts them: "1, 2 and 4"; a run of three or more as a range, so a long
    list stays a line: "1 to 77, 79 to 99 and 101"."""
    runs = []
    for i in indices:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    words = []
    for first, last in runs:
        words += [f"{first + 1} to {last + 1}"] if last - first >= 2 else [str(k + 1) for k in range(first, last + 1)]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _named(plural, indices):
    """ "row 3" or "rows 3 and 4"."""
    return f"{_singular(plural) if len(indices) == 1 else plural} {_numbers(indices)}"


def listing(words):
    """ "a", "a and b", "a, b and c": the one way the verdicts list things (steps, protocol and the course's readings
    import it)."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _places(origins):
    """ "Q.shape[0] and K.shape[0]"; the same axis of several arrays as ".shape[0] of omega_q, omega_k and beta_q"."""
    import re
    axes = {re.sub(r"^\w+\.shape", "", o) for o in origins}
    if len(origins) > 1 and len(axes) == 1 and all(re.fullmatch(r"\w+\.shape\[\d+\]", o) for o in origins):
        return f".shape{axes.pop()} of {listing([o.split('.')[0] for o in origins])}"
    return listing(origins)


def _size_origins(inputs):
    """{size: where the inputs have it}: each axis length of an array input ("X.shape[1]"), each list's
    length ("len(params)") and each whole number given, for naming a factor."""
    origins = {}
    for name, value in (inputs or {}).items():
        if isinstance(value, (list, tuple)):
            origins.setdefault(len(value), []).append(f"len({name})")
            value = value[0] if value and not isinstance(value[0], str) else None
            name = ""  # an item's axes: a size, but no name the student's code has
        if value is None or isinstance(value, (str, dict)):
            continue
        shape = np.shape(value)
        for axis, n in enumerate(shape):
            if n > 1:
                origins.setdefault(int(n), []).append(f"{name}.shape[{axis}]" if name else "a size of its items")
        if shape == () and "seed" not in name and float(value) == int(float(value)) and 1 < float(value) < 100000:
            origins.setdefault(int(float(value)), []).append(f"the input {name}")
    return origins


def _sizes(inputs):
    """The sizes an input of this case has (each axis length), for naming a factor."""
    return set(_size_origins(inputs))


def size_words(size, inputs):
    """ "22 is len(params)" when the inputs have that size in one named place only; when several have it, saying
    one would be a guess: "4 is a size of this input"."""
    where = _size_origins(inputs).get(size, [])
    named = len(where) == 1 and where[0] != "a size of its items"
    return f"{size} is {where[0]}" if named else f"{size} is a size of this input"


def factor(g, w):
    """c when every entry of g is c times w's (c neither 1 nor 0), else None. ("1 times the right one" says
    nothing: a factor that shows as 1 is no finding.)"""
    norm = float(np.vdot(w, w))
    if norm > 0:
        c = float(np.vdot(g, w)) / norm
        if abs(c - 1) > 1e-6 and abs(c) > 1e-9 and f"{c:.4g}" != "1" and _close(g, c * w):
            return c
    return None


def size_ties(words):
    """The places a factor's words tie it to ("the input H", "X.shape[1]", "len(params)")."""
    import re
    return set(re.findall(r"\b\d+ is (the input \w+|\w+\.shape\[\d+\]|len\(\w+\)|the sum of \w+)", words))


def _count_origins(inputs):
    """{count: ["the sum of weights"]}: the number of ones in each input of zeros and ones (weights, a mask), more
    than one of them: a count a mean may be due over."""
    origins = {}
    for name, value in (inputs or {}).items():
        if isinstance(value, np.ndarray) and value.ndim >= 1 and value.dtype.kind in "biuf" and value.size > 1:
            if np.isin(value, (0, 1)).all() and value.sum() > 1:
                origins.setdefault(int(value.sum()), []).append(f"the sum of {name}")
    return origins


def _count_ratio_words(c, inputs):
    """ "(2 = 4/2, where 2 is X.shape[0] and 4 is the sum of weights: divided by 2 where 4 is due?)" when c is one
    count of ones over a size, or a size over one, and no other pair of them: a mean over the wrong number of
    items (the sequences, where the positions counted by the weights are due). Else ""."""
    counts, sizes = _count_origins(inputs), _sizes(inputs)
    fits = {(used, due) for used in sizes | set(counts) for due in sizes | set(counts)
            if used != due and (used in counts) != (due in counts) and abs(c - due / used) <= 1e-6 * max(1.0, c)}
    if len(fits) != 1:
        return ""
    used, due = fits.pop()

    def words(n):
        return f"{n} is {listing(counts[n])}" if n in counts else size_words(n, inputs)
    return f" ({c:.4g} = {due}/{used}, where {words(used)} and {words(due)}: divided by {used} where {due} is due?)"


def _factor_words(c, inputs):
    """Why a result may be c times the right one: a size or its square root, or a count of ones over a size. A size
    said by a place it has (X.shape[0]) comes first; one only "a size of this input" gives way to a count."""
    said = _size_factor_words(c, inputs)
    if not said or "a size of this input" in said:
        return _count_ratio_words(c, inputs) or said
    return said


def _size_factor_words(c, inputs):
    """Why a result may be c times the right one, when c is a size or its square root."""
    for size in sorted(_sizes(inputs)):
        for value, words in ((math.sqrt(size), f"sqrt({size})"), (float(size), f"{size}"),
                             (1 / math.sqrt(size), f"1/sqrt({size})"), (1 / size, f"1/{size}")):
            if abs(c - value) <= 1e-6 * max(1.0, abs(value)):
                said = size_words(size, inputs)
                if words != f"{size}":
                    said = f"{c:.4g} = {words}, and {said}"
                if words == f"{size}" and said.startswith(f"{size} is len("):
                    return f" ({said}: something done once per item, where it is due once?)"
                if words == f"1/{size}":  # divided by a size (a mean where the sum is due, a wrong scale): said as that
                    return f" ({said}: divided by {size} where it should not be?)"
                return f" ({said}: a scale applied twice, or by the wrong size?)"
    # Two sizes' ratio, or its square root: divided by sqrt(N), the tokens, where sqrt(D_q) is due. Said only when
    # one pair of sizes fits: 2/3 is also 4/6 when the input has all four
    sizes = sorted(_sizes(inputs))
    fits = [(a, b, root) for a in sizes for b in sizes for root in (True, False)
            if a != b and abs(c - (math.sqrt(a / b) if root else a / b)) <= 1e-6 * max(1.0, c)]
    if len(fits) == 1:
        a, b, root = fits[0]
        a_, b_ = (f"sqrt({a})", f"sqrt({b})") if root else (f"{a}", f"{b}")
        k = max(a, b) // min(a, b)
        if root and k * min(a, b) == max(a, b):
            # sqrt(2)/sqrt(6) is also 1/sqrt(3), 3 = 6/2 a size the code works out (the head size D / H, divided by
            # where its square root is due): either reading, neither picked
            again = "applied twice" if c < 1 else "left out"
            return (f" ({c:.4g} = {a_}/{b_} = {'1/' if c < 1 else ''}sqrt({k}), where {size_words(b, inputs)} and "
                    f"{size_words(a, inputs)}: a scale by the wrong size, {b_} where {a_} is due, or a scale by "
                    f"sqrt({k}) {again}?)")
        return (f" ({c:.4g} = {a_}/{b_}, where {size_words(b, inputs)} and {size_words(a, inputs)}: a scale by the "
                f"wrong size, {b_} where {a_} is due?)")
    for k in range(2, 65):
        if math.isqrt(k) ** 2 == k:
            continue  # (2 is sqrt(4), as every whole number is a square root: that says nothing more than "2 times")
        if abs(c - math.sqrt(k)) < 1e-9 * k or abs(1 / c - math.sqrt(k)) < 1e-9 * k:
            return f" ({c:.4g} = {'sqrt' if c > 1 else '1/sqrt'}({k}): a scale applied twice, or a missing one?)"
    return ""


def _as_permutation(got, want, axis):
    """The order p with got.take(i) == want.take(p[i]) along `axis`, if the slices are a reordering of the right ones."""
    n = want.shape[axis]
    g, w = np.moveaxis(got, axis, 0), np.moveaxis(want, axis, 0)
    order = []
    for i in range(n):
        matches = [j for j in range(n) if _close(g[i], w[j])]
        if not matches:
            return None
        order.append(matches[0])
    if sorted(order) != list(range(n)) or order == list(range(n)):
        return None
    return order


def _describe_order(order, axis_name):
    n = len(order)
    if n == 2:
        return Weak.of(f"the {axis_name} are in reverse order", "order")
    if order == list(range(n))[::-1]:
        return f"the {axis_name} are in reverse order"
    moved = [i for i in range(n) if order[i] != i]
    if len(moved) == 2:
        return f"{axis_name} {_numbers(moved)} are swapped, the others are right"
    for k in range(1, n):
        if order == [(i - k) % n for i in range(n)] or order == [(i + k) % n for i in range(n)]:
            return f"the {axis_name} are all there but rolled round by {min(k, n - k)} place(s)"
    return f"the {axis_name} are all there but in another order"


# What a likely cause may name; a part declares those it has. "loop": a loop over positions, or a length
# (a sampler's tokens after the prompt are all wrong once one is, and no loop bound is the cause there).
OPERATIONS = ("dot products", "mask", "bias", "loop")
# Not an operation: what a finding that asks after the placeholder needs, a part wrong on every case (code right
# on one case is no placeholder)
UNFILLED = "wrong on every case"


class Finding(str):
    """A finding that guesses a cause: what the result shows, then the likely cause, which is only possible
    in a part that has the operation `needs` (one of OPERATIONS, or a tuple of them: any one will do). `shown` is what the result shows alone,
    said instead where the part has no such operation (Probe.operations): a true symptom, never a guess
    about code the part does not contain."""

    def __new__(cls, shown, cause, needs):
        finding = super().__new__(cls, f"{shown}: {cause}")
        finding.shown, finding.needs = shown, needs
        return finding


class Slices(str):
    """Some slices of an array wrong along one axis, the others right: a fact of one input that can hold there by
    chance (a softmax's weights all but one-hot on one query make that query's output one value's token): after a
    step not shown right, the verdict ties an array to a step by it only when every other wrong case ties an array
    too (steps.Sliced, protocol._step_finding)."""


class Weak(str):
    """A fact that says less than it seems: a Finding's fact without its cause, the part having no such operation
    (weights on entries that should get none, in a part with no mask), or an order of two entries (any change that
    swaps them: a softmax of the negated scores). The verdict says it only when no other wrong case says more.
    `about`: what the fact would suggest (a Finding's needs, "order" for two entries); a fact about masks or about the
    order of two entries says the least of them."""
    about = ()

    @staticmethod
    def of(text, about):
        weak = Weak(text)
        weak.about = about if isinstance(about, tuple) else (about,)
        return weak


def said_for(text, operations, unfilled=True):
    """`text` as a part with these operations may say it (None: the part declares none, so all may be said);
    `unfilled`: whether the part is wrong on every case (a finding that asks after the placeholder needs it)."""
    needs = (text.needs,) if isinstance(text, Finding) and isinstance(text.needs, str) else getattr(text, "needs", ())
    if UNFILLED in needs:
        return text if unfilled else text.shown
    if isinstance(text, Finding) and operations is not None and not any(n in operations for n in needs):
        # (a mask's fact in a part with no mask says less than it seems: weight where the right softmax, saturated,
        # gives none. Other facts, such as scores scaled by a factor, say as much without their cause.)
        return Weak.of(text.shown, needs) if "mask" in needs else text.shown
    return text


def _sums_to_one(a, axis):
    return a.shape[axis] > 1 and bool(np.allclose(a.sum(axis=axis), 1.0, rtol=course().RTOL, atol=1e-6))


def _weights(g, w, axes, axis):
    """Findings on attention weights (both sum to one along `axis`): masked entries, too peaked, too flat."""
    masked, shown = w <= 1e-12, w > 1e-9
    leaked, hidden = masked & (g > 1e-6), shown & (g <= 1e-12)
    if leaked.any() and not hidden.any():
        return Finding(f"it gives weight to {_where_in(leaked)}, which should get none",
                       "is the mask applied, and to the right entries (the keys at or past each valid length)?", "mask")
    if hidden.any() and not leaked.any():
        if not masked.any():
            return f"it gives no weight to {_where_in(hidden)}, which should get some: is a mask hiding them where none is due?"
        return Finding(f"it gives no weight to {_where_in(hidden)}, which should get some",
                       "does the mask cover too much (one key too many, or the wrong axis)?", "mask")
    if leaked.any():
        return Finding(f"it gives weight to {_where_in(leaked)}, which should get none, and "
                       f"none to {_where_in(hidden)}, which should get some",
                       "a mask over the wrong entries?", "mask")
    return _scores(g, w, axes, axis)


def _scores(g, w, axes, axis):
    """Softmax weights read back as scores: log-weights, up to a constant per distribution, where both are
    far from 0 (a saturated weight says nothing). Scores scaled by a factor, or off by a constant for each
    key whatever the query, show there exactly; nothing is said unless one of them fits every entry."""
    M = g.shape[axis]
    G, Wt = np.moveaxis(g, axis, 0).reshape(M, -1), np.moveaxis(w, axis, 0).reshape(M, -1)  # (M entries, J distributions)
    valid = (G > 1e-9) & (Wt > 1e-9)
    valid[:, valid.sum(axis=0) < 2] = False
    if valid.sum() < 4:
        return None
    with np.errstate(divide="ignore"):
        Lg, Lw = np.log(np.where(valid, G, 1.0)), np.log(np.where(valid, Wt, 1.0))
    def centred(L):
        mean = (L * valid).sum(axis=0) / np.maximum(valid.sum(axis=0), 1)
        return (L - mean)[valid]
    Sg, Sw = centred(Lg), centred(Lw)
    spread = float(np.max(np.abs(Sw)))
    if spread < 1e-6:
        return None
    if float(np.max(np.abs(Sg))) < 1e-9 * spread:  # every distribution uniform where the right ones are not
        return "its weights are equal within each distribution, as if every score were the same"
    c = float(np.vdot(Sg, Sw) / np.vdot(Sw, Sw))
    if abs(c - 1) > 1e-3 and np.allclose(Sg, c * Sw, rtol=1e-4, atol=1e-6 * spread):
        return Finding(f"its weights are the softmax of scores {c:.4g} times the right ones",
                       "are the dot products scaled by the right amount, the square root of the queries' size?",
                       "dot products")
    # Off by o[m] for entry m in every distribution: (log g - log w)[m, j] = o[m] + c[j]. One distribution (a
    # single vector of weights) fits that whatever its scores are: it shows nothing there.
    J = G.shape[1]
    if J < 2:
        return None
    rows, cols = np.nonzero(valid)
    design = np.zeros((len(rows), M + J))
    design[np.arange(len(rows)), rows] = 1
    design[np.arange(len(rows)), M + cols] = 1
    d = (Lg - Lw)[valid]
    solution, *_ = np.linalg.lstsq(design, d, rcond=None)
    o = solution[:M][np.unique(rows)]
    if np.allclose(design @ solution, d, rtol=0, atol=1e-6 * max(spread, 1.0)) and np.ptp(o) > 1e-4:
        one, other = _singular(axes[axis]), _singular(axes[axis - 1] if axis > 0 else axes[1])
        return Finding(f"each {one}'s score is off by the same amount for every {other}",
                       f"a term that depends on the {one} alone, such as a bias left out of the queries "
                       "(K.T @ beta_q)?", "bias")
    return None


def _rearranged(g, w):
    """ "it holds exactly the right numbers, but 24 of its 48 entries are in other places", when the two arrays
    hold the same numbers (as many of each) in different places (a reshape or a transpose that reads the axes
    in another order); else None. Arrays of few distinct numbers (zeros, ones) are left alone: there the same
    numbers prove little."""
    if g.size < 4 or len(np.unique(np.round(w, 12))) < max(4, g.size // 4):
        return None
    if not _close(np.sort(g, axis=None), np.sort(w, axis=None)):
        return None
    moved = int(np.sum(~np.isclose(g, w, rtol=course().RTOL, atol=course().ATOL)))
    return f"it holds exactly the right numbers, but {moved} of its {g.size} entries are in other places"


def _softmax_over_one(g, w, axes):
    """Weights that are 1 everywhere, where due weights sum to one along an axis and the array has an axis of
    length 1 (a single query): what any softmax over that axis gives, each entry divided by itself."""
    single = [b for b in range(g.ndim) if g.shape[b] == 1]
    due = [a for a in range(g.ndim) if _sums_to_one(w, a)]
    if single and due and g.size > 1 and np.allclose(g, 1.0, rtol=0, atol=1e-12):
        over = f"the {axes[single[0]]}" if axes[single[0]] else f"axis {single[0]}"
        return (f"every entry is 1, which is what a softmax over {over}, an axis of length 1, gives, instead of one "
                f"along {'the ' + axes[due[0]] if axes[due[0]] else f'axis {due[0]}'}: a softmax over the wrong axis?")
    return None


MASKED = -1e4  # a score at or below this is one a mask hid (np.where(mask, -1e9, s), masked_fill(-inf)): no
# dot product of this course's sizes comes near it


def _where_in(hidden):
    """ "the entries above the diagonal (15 of 36)", when the boolean array picks the same triangle of every
    square (last two axes) slice; else "15 of the 48 entries"."""
    n = int(hidden.sum())
    if hidden.ndim >= 2 and hidden.shape[-1] == hidden.shape[-2] > 1:
        first = hidden.reshape(-1, *hidden.shape[-2:])
        if (first == first[:1]).all():
            for k, words in ((1, "above"), (-1, "below")):
                tri = np.triu(np.ones(hidden.shape[-2:], bool), k) if k > 0 else np.tril(np.ones(hidden.shape[-2:], bool), k)
                if np.array_equal(first[0], tri):
                    return f"the entries {words} the diagonal ({n} of {hidden.size})"
    return f"{n} of the {hidden.size} entries"


class UnduedMask(str):
    """ "a mask where none is due": true of a result, but of a step on the way only where the part masks nothing
    later (scores masked in place before a masked softmax are the next step done, not this one wrong)."""


def _masked(g, w):
    """Scores masked where the right ones are not, or kept where they are masked: a sentence when `got` is
    `want` everywhere else; else None. Only large negative fill values count (MASKED): a mask that writes 0
    leaves numbers that could be scores."""
    hidden_g, hidden_w = g <= MASKED, w <= MASKED
    if g.size < 4 or np.array_equal(hidden_g, hidden_w) or not hidden_g.any() and not hidden_w.any():
        return None
    both = ~hidden_g & ~hidden_w
    if not both.any() or not _close(g[both], w[both]):
        return None
    extra, kept = hidden_g & ~hidden_w, hidden_w & ~hidden_g
    fill = np.unique(g[hidden_g])
    set_to = f" (set to {fill[0]:.4g})" if fill.size == 1 else ""
    if extra.any() and not hidden_w.any():
        return UnduedMask(f"it is the right answer with {_where_in(extra)} masked{set_to}: a mask where none is due")
    if extra.any() and not kept.any():
        return f"it is the right answer with {_where_in(extra)} masked{set_to} as well as those due: a mask over too much"
    if kept.any() and not extra.any():
        held = np.unique(g[kept])
        holds = f" (yours all hold {held[0]:.4g})" if held.size == 1 else ""
        return (f"it is the right answer except {_where_in(kept)}, which are due to be masked (set to a large negative "
                f"number) and are not{holds}")
    return (f"it masks {_where_in(extra)}, which are due to be kept, and keeps {_where_in(kept)}, which are due "
            "to be masked: a mask over the wrong entries")


def _rounded_to(g, w):
    """The number of decimals (1 to 8) when every entry of `g` has that many at most and is within half a unit of
    the last one from `w`: the right answer rounded (np.round(x, 3)); else None. Whole numbers are said elsewhere."""
    if g.size < 2 or not (np.all(np.isfinite(g)) and np.all(np.isfinite(w))) or np.array_equal(g, np.round(g)):
        return None
    for places in range(1, 9):
        unit = 10.0 ** -places
        if np.allclose(g, np.round(g, places), rtol=0, atol=1e-9 * unit):
            if np.unique(np.round(g, places)).size < 2:
                return None  # (an array of zeros, or of one value, is any small enough answer rounded: no evidence)
            scale = max(float(np.max(np.abs(w))), 1.0)
            return places if np.all(np.abs(g - w) <= unit / 2 + 1e-12 * scale) and not np.allclose(
                w, np.round(w, places), rtol=0, atol=1e-9 * unit) else None
    return None


def _last_term_only(g, w, axes):
    """ "every key but the last is 0, ..." when along one axis the result is 0 wherever the right one is not, but
    its last slice is the right one: a running sum overwritten on each pass (x = a * v) where it should grow
    (x += a * v), so that only the last pass's term is left; else None."""
    if not np.all(np.isfinite(g)):
        return None
    for axis in range(g.ndim):
        if g.shape[axis] < 3:
            continue  # (two entries: the last alone kept is as likely a slice taken wrong)
        gm, wm = np.moveaxis(g, axis, 0), np.moveaxis(w, axis, 0)
        tiny = 1e-9 * max(float(np.max(np.abs(w))), 1.0)  # (a view's weights are solved for: zeros to rounding)
        if np.all(np.abs(gm[:-1]) <= tiny) and np.any(np.abs(wm[:-1]) > 1e3 * tiny) and \
                np.any(np.abs(wm[-1]) > 1e3 * tiny) and _close(gm[-1], wm[-1]):
            one = _singular(axes[axis])
            return (f"every {one} but the last is 0, where it should not be, and the last {one} is right: a sum over "
                    f"the {axes[axis]} overwritten on each pass of a loop (x = ...) where it should add to itself "
                    "(x += ...)?")
    return None


def same_shape(got, want, inputs=None, names=()):
    """A sentence on how `got` differs from `want` (same shape, not equal), or None when nothing simple fits."""
    g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    axes = axis_names(g.ndim, names)
    places = _rounded_to(g, w)
    if places:
        return (f"it is the right answer rounded to {places} decimal{'s' if places > 1 else ''}: return the values "
                "unrounded (round only what you print)")
    single = _softmax_over_one(g, w, axes) or _last_term_only(g, w, axes)
    if single:
        return single
    integers = [n for n, v in (inputs or {}).items() if isinstance(v, np.ndarray) and v.dtype.kind in "iu"]
    if integers and g.size > 1 and np.all(np.isfinite(g)) and np.array_equal(g, np.round(g)) \
            and not np.allclose(w, np.round(w)):
        # (the grader sees numbers, not the student's dtype: whole numbers where fractions are due, on an
        # input of integers, is what an array made like that input shows)
        return (f"it holds whole numbers only, where the right answer has fractions, on an input of integers "
                f"({integers[0]}): an array made with that input's dtype (np.zeros_like, np.empty_like) cuts "
                "every value stored in it to a whole number; make it a float array")
    # (a score at or below MASKED is a mask's only where no input holds one: 02's stability cases are +-20000)
    masked = None if any(isinstance(v, np.ndarray) and v.dtype.kind in "biuf" and np.any(v <= MASKED)
                         for v in (inputs or {}).values()) else _masked(g, w)
    if masked:
        return masked
    if not np.all(np.isfinite(g)):
        bad = ~np.isfinite(g)
        kind = "nan" if np.isnan(g).any() else "inf"
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f" (first at index {first})" if g.ndim else ""
        # Where to look, not a cause: the grader cannot see which step made it
        return (f"it holds {kind} in {int(bad.sum())} of {g.size} entries{where}: look for the first step that "
                f"gives {kind} on this input (np.exp of a large number, np.log of 0, a division by zero, a softmax "
                "of a row that is all -inf)")
    if g.size > 1 and np.all(g == 0):
        return Finding("it is all zeros", "is the placeholder line still there, or is the result never filled in?",
                       UNFILLED)
    if np.unique(g).size >= 3 and np.array_equal(g, np.round(g)) and not np.allclose(w, np.round(w)):
        # Whole numbers where fractions are due: the right answer with its fractions cut off, when it is that
        # (three values at least: 0s and 1s where weights are due is a hard choice, not a rounding)
        for rounding, words in ((np.floor, "rounded down"), (np.trunc, "with its fractions cut off (toward 0)"),
                                (np.rint, "rounded to the nearest whole number"), (np.ceil, "rounded up")):
            if np.array_equal(g, rounding(w)):
                return (f"it is the right answer {words}: whole numbers where fractions are due (a // or an int() "
                        "drops the fractions; / keeps them)")
    for name, value in (inputs or {}).items():
        # (an input that is a list of arrays, 09's parameters: each of them, as it was given)
        given = [value] if isinstance(value, np.ndarray) else [v for v in value if isinstance(v, np.ndarray)] \
            if isinstance(value, (list, tuple)) else []
        for v in given:
            if v.shape == g.shape and _close(g, np.asarray(v, dtype=float)):
                # The placeholder returns it; so does an update far too small to see (an Adam step over a huge
                # bias correction), or one made on a copy: the placeholder is asked after only where the part is
                # wrong on every case (said_for).
                which = f"the input {name}" if v is value else f"one of the arrays of the input {name}"
                return Finding(f"it equals {which}, unchanged within the tolerance",
                               "the change it should make is missing (a placeholder line still returning it?) or far "
                               "too small", UNFILLED)
    if np.isin(w, (0, 1)).all() and 0 < np.count_nonzero(w) < w.size and np.array_equal(g, 1 - w):
        return "it is the right answer with 0 and 1 swapped (True and False): 0 wherever 1 is due, and 1 wherever 0 is"
    if g.ndim >= 2 and g.shape[-1] == g.shape[-2] and _close(np.swapaxes(g, -1, -2), w):
        return f"it is the transpose of the right answer ({axes[-2]} and {axes[-1]} swapped)"
    # The log of the right answer, or its exponential: an exp left out (a log-softmax returned for the softmax),
    # or one too many. Only where the right values differ, and, for the log, are all positive.
    if g.size > 1 and np.ptp(w) > 0:
        with np.errstate(all="ignore"):
            if np.all(w > 0) and np.all(np.isfinite(g)) and _close(g, np.log(w)):
                return "it is the log of the right answer, entry by entry: is an np.exp left out at the end?"
            if np.all(np.abs(w) < 700) and _close(g, np.exp(w)):
                return "it is the exponential of the right answer: an np.exp too many, or an np.log left out?"
    c = factor(g, w)
    if c is not None:
        if abs(c + 1) < 1e-6:
            return "every entry has the wrong sign: it is minus the right answer"
        if any(_sums_to_one(w, axis) for axis in range(w.ndim)):
            shift = _shift_in_one_place(c, inputs)
            if shift:
                return (f"every entry is {c:.4g} times the right one, so the weights sum to {c:.4g}, not one: "
                        f"{shift}")
            return (f"every entry is {c:.4g} times the right one, so the weights sum to {c:.4g}, not one: "
                    "is each divided by the right sum (the sum of the exponentials)?")
        words = _factor_words(c, inputs)
        if g.size > 1 or words:  # (one number is some multiple of any other: a factor alone says nothing)
            return f"every entry is {c:.4g} times the right one{words}"
    for axis in range(g.ndim):
        if g.shape[axis] > 1:
            order = _as_permutation(g, w, axis)
            if order is not None:
                return _describe_order(order, axes[axis])
    for axis in range(g.ndim):
        if g.shape[axis] > 1:
            flipped = [i for i in range(g.shape[axis]) if not _close(g.take(i, axis), w.take(i, axis))]
            if flipped and all(_close(g.take(i, axis), -w.take(i, axis)) for i in flipped):
                return (f"{_named(axes[axis], flipped)} {'has' if len(flipped) == 1 else 'have'} "
                        "the wrong sign, the rest are right")
    for axis in range(g.ndim):
        if _sums_to_one(w, axis) and not _sums_to_one(g, axis):
            if np.allclose(g, g.take([0], axis)) and not np.allclose(w, w.take([0], axis)):
                # weights the same for every key do not sum to one either: that is the consequence, the sameness
                # the fact (01's loop weighing every value with one query's weight)
                one = _singular(axes[axis])
                return (f"it is the same for every {one}, which the right answer is not: something that should "
                        f"change from one {one} to the next stays the same")
            others = [b for b in range(g.ndim) if b != axis and _sums_to_one(g, b)]
            if others:
                return (f"it sums to one along the {axes[others[0]]} instead of along the {axes[axis]}: "
                        "a softmax (or normalisation) over the wrong axis?")

            if np.all(g >= 0):
                sums = g.sum(axis=axis)
                low, high = f"{sums.min():.4g}", f"{sums.max():.4g}"
                return (f"its weights do not sum to one along the {axes[axis]} "
                        f"({'they sum to ' + low if low == high else f'sums from {low} to {high}'}): a normalisation "
                        "missing, or over the wrong entries?")
    for axis in range(g.ndim):
        if _sums_to_one(w, axis) and _sums_to_one(g, axis) and np.all(g >= -course().ATOL):
            text = _weights(g, w, axes, axis)
            if text:
                return text
    for axis in range(g.ndim):
        if g.shape[axis] > 1 and np.allclose(g, g.take([0], axis)) and not np.allclose(w, w.take([0], axis)):
            one = _singular(axes[axis])
            return (f"it is the same for every {one}, which the right answer is not: something that should "
                    f"change from one {one} to the next stays the same")
    moved = _rearranged(g, w)
    if moved:
        return moved
    found = []  # (share of the slices wrong, axis, wrong, telling) on each axis where some are wrong and some right
    for axis in range(g.ndim):
        n = g.shape[axis]
        if n < 2:
            continue
        wrong = [i for i in range(n) if not _close(g.take(i, axis), w.take(i, axis))]
        # A slice that is zero in the right answer (a causal first query's gradient) is right in any array
        # that is zero there too: it shows nothing, so it is no evidence that the others are the ones wrong.
        telling = [i for i in range(n) if i not in wrong and np.max(np.abs(w.take(i, axis)), initial=0) > course().ATOL]
        if wrong and telling:
            found.append((len(wrong) / n, axis, wrong, telling))
    # The axis on which the fewest slices are wrong says where most narrowly: a position of every feature (column 0
    # left unwritten) before the features it is wrong in (the cosine rows, which are 1 there)
    if found:
        _, axis, wrong, telling = min(found, key=lambda f: f[:2])
        n = g.shape[axis]
        right = [i for i in range(n) if i not in wrong]
        if all(not np.any(g.take(i, axis)) for i in wrong):
            # Zero where the right answer is not: a slice never written (a loop that skips it, an array
            # left as np.zeros made it). The zeros are the fact; the question is the one cause that gives them.
            return (f"{_named(axes[axis], wrong)} of {n} {'is' if len(wrong) == 1 else 'are'} 0 everywhere, "
                    f"where the right values are not, and {_numbers(right)} {'is' if len(right) == 1 else 'are'} "
                    f"right: {'is it' if len(wrong) == 1 else 'are they'} ever written?")
        if wrong == list(range(wrong[0], n)) and wrong[0] > 0 and axes[axis] in POSITIONAL:
            return Finding(f"{_named(axes[axis], right)} {'is' if len(right) == 1 else 'are'} right, "
                           f"{_singular(axes[axis])} {wrong[0] + 1} and every one after it "
                           f"{'is' if len(wrong) == 1 else 'are'} wrong",
                           "a length, a mask or a loop bound that stops early?", ("loop", "mask"))
        return Slices(f"{_named(axes[axis], wrong)} of {n} {'is' if len(wrong) == 1 else 'are'} wrong, "
                      f"{_numbers(right)} {'is' if len(right) == 1 else 'are'} right")
    counted = _off_by_a_count(g, w, inputs)  # (whole numbers due: a count, where "a bias" is no cause)
    if counted:
        return counted
    offset = g - w
    for axis in range(g.ndim):
        if g.shape[axis] > 1 and np.allclose(offset, offset.take([0], axis), rtol=0, atol=course().ATOL):
            # What it shows, alone: "a constant added" is the likely cause only where the part adds one (a bias);
            # a permutation of evenly spaced numbers (d2l's np.arange example) is off by constants too.
            return Finding(f"every one of its {axes[axis]} is off by the same amount",
                           "a bias left out, or added twice?", "bias")
    scaled = _factor_per_slice(g, w, axes)
    if scaled:
        return scaled
    scale = np.max(np.abs(w)) + course().ATOL
    if np.max(np.abs(g - w)) / scale < 1e-2:
        # Only what the numbers show: "low precision" would be a guess (an Adam correction one step off,
        # a slightly wrong constant, give results as close).
        return (f"close, but not within the tolerance (largest difference {np.max(np.abs(g - w)):.2g}, "
                f"{np.max(np.abs(g - w)) / scale:.1g} of its largest entry)")
    return None


def _off_by_a_count(g, w, inputs):
    """ "it is 640 below the right value (640 = 2 x 320, and 320 is the input D)" when whole numbers are due and
    every entry is off by the same whole number: a term of a count left out or counted twice. "Close, but not
    within the tolerance" would send a student after rounding. The multiple of a size is said when a size named in one
    place fits with a multiple up to 16 smaller than any other's; else the difference alone."""
    yes_no = np.isin(g, (0, 1)).all() and np.isin(w, (0, 1)).all()  # (their own findings say these)
    d = offset(g, w)
    if yes_no or d is None or not (np.array_equal(w, np.round(w)) and np.array_equal(g, np.round(g))):
        return None
    words = count_tie(d, inputs)[0]
    where = "every entry is" if g.size > 1 else "it is"
    return f"{where} {abs(d)} {'above' if d > 0 else 'below'} the right value{words}"


def offset(g, w):
    """The whole number d when every entry of g is w's plus d (d not 0, g finite, as many entries: a count may come
    back as an array of one number), else None."""
    g, w = np.asarray(g, dtype=float).ravel(), np.asarray(w, dtype=float).ravel()
    if g.size != w.size or not g.size or not np.all(np.isfinite(g)):
        return None
    d = g - w
    if not np.all(d == d[0]) or d[0] == 0 or d[0] != round(float(d[0])):
        return None
    return int(d[0])


def count_tie(d, inputs):
    """(" (640 = 2 x 320, and 320 is the input D)", (2, "the input D"), every fit) for a count off by d, when a
    size named in one place fits with a multiple up to 16 smaller than any other's (16 = 2 x 8 = 8 x 2 where D is 8
    and H is 2: the smallest, a fact either way); failing any multiple, the one difference of two named sizes that
    d is (24 = 32 - 8: D where D_ff is due, in one term); else ("", None, every fit). Every fit: {tie: its words},
    each (multiple, place) and ("-", place due, place used). The protocol keeps the words only when every other
    wrong case has that tie too, else another tie this case has that every other has (`_without_chance_ties`)."""
    named = [n for n in _sizes(inputs) if n > 1 and size_words(n, inputs) != f"{n} is a size of this input"]
    fits = sorted((abs(d) // n, n) for n in named if abs(d) % n == 0 and abs(d) // n <= 16)
    every = {}  # {tie: its words}
    for k, n in fits:
        said = size_words(n, inputs)
        every[(k, said.split(" is ", 1)[1])] = f" ({abs(d)} = {k} x {n}, and {said})" if k > 1 else f" ({said})"
    # One size used where another is due, in one term: off by their difference (a bias of D counted for one of D_ff)
    for big in named:
        for small in named:
            if big - small == abs(d):
                due, used = (big, small) if d < 0 else (small, big)
                place = {n: size_words(n, inputs).split(" is ", 1)[1] for n in (big, small)}
                every[("-", place[due], place[used])] = (
                    f" ({abs(d)} = {big} - {small}, and {due} is {place[due]}, {used} {place[used]}: one term "
                    f"counted with {place[used]} where {place[due]} is due?)")
    if fits and (len(fits) == 1 or fits[0][0] != fits[1][0]):
        k, n = fits[0]
        tie = (k, size_words(n, inputs).split(" is ", 1)[1])
        return every[tie], tie, every
    differences = [t for t in every if t[0] == "-"]
    if not fits and len(differences) == 1:
        return every[differences[0]], differences[0], every
    return "", None, every


def _factor_per_slice(g, w, axes):
    """ "the entries of each token are all off by one factor, a different one from token to token (0.4 to 3.2)" when g
    is w times a factor that is one number along an axis and changes along the others (a divisor worked out per token,
    a norm or a standard deviation, that is wrong); else None. A single factor for all is factor()'s finding."""
    for a in range(g.ndim - 1, g.ndim - 3, -1):  # one factor along the last axis (each row's), or along the one before
        if g.ndim < 2 or g.shape[a] < 2 or np.any(np.count_nonzero(w, axis=a) < 2):
            continue  # (a slice of one nonzero entry is a multiple of any other: no evidence)
        c = np.sum(g * w, axis=a, keepdims=True) / np.sum(w * w, axis=a, keepdims=True)
        if np.ptp(c) <= 1e-6 * max(1.0, float(np.max(np.abs(c)))) or not _close(g, c * w):
            continue
        owner = _singular(axes[-2] if a == g.ndim - 1 else axes[-1])
        low, high = float(np.min(c)), float(np.max(c))
        return (f"the entries of each {owner} are all off by one factor, a different one from {owner} to {owner} "
                f"({low:.3g} to {high:.3g}): what each {owner} is scaled or divided by is wrong")
    return None


def other_shape(got, want, inputs=None, names=()):
    """A sentence on a result of the wrong shape: transposed, an axis missing or extra, or which axis is off."""
    g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    axes = axis_names(w.ndim, names)
    if g.ndim == w.ndim == 2 and g.shape == w.shape[::-1]:
        if _close(g.T, w):
            return (f"it is the transpose of the right answer: shape {g.shape}, expected {w.shape} "
                    f"({axes[0]} first)")
        return f"shape {g.shape}, expected {w.shape}: its axes are the other way round ({axes[0]} first)"
    if g.size == w.size:
        if _close(g.reshape(w.shape), w):
            if np.squeeze(g).shape == np.squeeze(w).shape:
                missing = "an axis of length 1 is missing or extra" + (
                    " (the batch axis in front: x[np.newaxis])" if w.ndim == g.ndim + 1 and w.shape[0] == 1 else "")
                return f"the right numbers, but shape {g.shape}, expected {w.shape}: {missing}"
            return f"the right numbers in shape {g.shape}, expected {w.shape}: reshape it"
        return f"shape {g.shape}, expected {w.shape}: the right number of entries, arranged differently"
    product = _entrywise_product(g, w, inputs)
    if product:
        return product
    broadcast = broadcast_pairs(g, w)
    if broadcast:
        return f"shape {g.shape}, expected {w.shape}: it is {broadcast}"
    if g.ndim == w.ndim:
        off = [a for a in range(w.ndim) if g.shape[a] != w.shape[a]]
        said = "; ".join(f"{g.shape[a]} {axes[a]} where {w.shape[a]} are expected" for a in off)
        # Where a wrong length is in the inputs: 4 keys where 6 are due, 4 being Q.shape[0] (features, not tokens)
        origins = _size_origins(inputs)
        places = [f"{n} is {_places(origins[n])}" for n in sorted({g.shape[a] for a in off})
                  if 0 < len(origins.get(n, [])) <= 4 and "a size of its items" not in origins[n]]
        return f"shape {g.shape}, expected {w.shape}: {said}" + (f" ({'; '.join(places)})" if places else "")
    return f"shape {g.shape}, expected {w.shape}"


def broadcast_pairs(g, w):
    """ "a 4 x 4 matrix whose diagonal holds the right values, ..." when a result due as columns (..., n, 1) (or
    rows, or vectors (..., n)) is (..., n, n), each matrix a vector's entries combined with a column's, every pair
    (entry i with entry j, added or multiplied: NumPy broadcasts (n,) with (n, 1) to (n, n)), whose diagonal, the
    pairs i with i, is the right answer; else None."""
    n = g.shape[-1] if g.ndim >= 2 else 0
    if n < 2 or g.shape[-2] != n or not np.all(np.isfinite(g)):
        return None
    if w.shape in (g.shape[:-1] + (1,), g.shape[:-2] + (1, n)):
        want = w.reshape(g.shape[:-1])
    elif w.shape == g.shape[:-1]:
        want = w
    else:
        return None
    if not _close(np.diagonal(g, axis1=-2, axis2=-1), want):
        return None
    added = g - g[..., :, :1] - g[..., :1, :] + g[..., :1, :1]  # zero when g[i, j] = a[i] + b[j]
    scale = max(float(np.max(np.abs(g))), 1.0)
    multiplied = [np.linalg.svd(m, compute_uv=False) for m in g.reshape(-1, n, n)]  # one singular value: a[i] b[j]
    if not (np.max(np.abs(added)) <= 1e-9 * scale or all(s[1] <= 1e-9 * s[0] for s in multiplied)):
        return None
    one = g.ndim == 2
    return (f"{'a' if one else 'made of'} {n} x {n} matri{'x' if one else 'ces'} whose diagonal{'' if one else 's'} "
            f"hold{'s' if one else ''} the right values, every other entry a pair of entries combined (NumPy "
            f"broadcasts a flat vector, shape ({n},), with a column, shape ({n}, 1), to {n} x {n}): keep each vector a "
            f"column, shape ({n}, 1)")


def _shift_in_one_place(c, inputs):
    """ "2.667 = exp(0.981), and -0.981 is the largest entry of `items_in`: ..." when weights c times the right ones
    are exponentials shifted by an input's largest entry above the fraction or below it only (exp(x - m) / sum
    exp(x), or the other way round); else None."""
    for name, value in (inputs or {}).items():
        try:  # an array, or a list of them (01's dot products, each a 1 x 1 array)
            x = np.concatenate([np.ravel(v) for v in value]) if isinstance(value, list) else np.ravel(value)
            m = float(np.max(x.astype(float)))
        except (TypeError, ValueError):
            continue
        words = f"`{name}`"
        if m == 0 or not np.isfinite(m):
            continue
        for k, where in ((-1, "above the fraction only (in the exponentials, not in their sum)"),
                         (1, "in the sum below only")):
            if abs(c - math.exp(k * m)) <= 1e-6 * max(1.0, c):
                return (f"{c:.4g} = exp({k * m:.4g}), and {m:.4g} is the largest entry of {words}: the "
                        f"maximum is subtracted {where}; subtract it in both places, or in neither")
    return None


def _input_arrays(inputs):
    """[(words, array)]: each array input by its name, and each list of arrays of one shape stacked ("each item
    of `all_x`"), as the student's code may combine them."""
    out = []
    for name, value in (inputs or {}).items():
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.size >= 2:
            out.append((f"`{name}`", np.asarray(value, dtype=float)))
        elif isinstance(value, list) and value and all(isinstance(v, np.ndarray) and v.dtype.kind in "biuf" for v in value) \
                and len({v.shape for v in value}) == 1 and value[0].size >= 2:
            out.append((f"each item of `{name}`", np.stack(value).astype(float)))
    return out


def _entrywise_product(g, w, inputs):
    """ "it is `omega_q` times each item of `all_x` entry by entry (`*`, ...), plus `beta_q`, where their matrix
    product (`@`) is due", when a result of the wrong shape
    is two inputs multiplied with `*` (and maybe an input added) where their matrix product has the right
    shape: NumPy's `*` multiplies matching entries and broadcasts a column across a matrix. Else None."""
    arrays = _input_arrays(inputs)
    for (na, a), (nb, b) in itertools.permutations(arrays, 2):
        try:
            if np.broadcast_shapes(a.shape, b.shape) != g.shape or a.ndim < 2 or b.ndim < 2 \
                    or np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]) != w.shape \
                    or a.shape[-1] != b.shape[-2]:
                continue
        except ValueError:
            continue
        made = a * b
        for nc, c in [("", 0.0)] + arrays:
            try:
                if np.broadcast_shapes(made.shape, np.shape(c)) != g.shape:
                    continue
            except ValueError:
                continue
            if _close(g, np.broadcast_to(made + c, g.shape)):
                plus = f", plus {nc}" if nc else ""
                return (f"shape {g.shape}, expected {w.shape}: it is {na} times {nb} entry by entry (`*`, which "
                        f"stretches one across the other){plus}, where their matrix product (`@`) is due")
    return None


# ---------------------------------------------------------------- errors

NOT_BROADCAST = r"could not be broadcast together with shapes \(([\d,]*)\) \(([\d,]*)\)"  # numpy's words, two shapes
# numpy's words for A @ B whose sizes do not meet: B's rows, then A's columns
MATMUL_MISMATCH = (r"mismatch in its core dimension \d+, with gufunc signature [^(]*\(.*\)\s*"
                   r"\(size (\d+) is different from (\d+)\)")


_ERRORS = [  # (pattern in "raised Type: message", sentence built from the match)
    (MATMUL_MISMATCH,
     lambda m: f"a matrix product A @ B met an A with {m[2]} columns and a B with {m[1]} rows (they must be "
               "equal): check which side each matrix multiplies from, and whether one needs a .T"),
    (r"shapes \(([\d, ]*)\) and \(([\d, ]*)\) not aligned",
     lambda m: f"np.dot met shapes ({m[1]}) and ({m[2]}), which do not multiply: check which side each matrix "
               "multiplies from, and whether one needs a .T"),
    (NOT_BROADCAST,
     lambda m: f"two arrays of shapes ({m[1]}) and ({m[2]}) were combined entry by entry (+, -, *, /, np.where), "
               f"but those shapes do not fit together{_misfit(broadcast_clash(m[0]))}"),
    (r"cannot reshape array of size (\d+) into shape (\([\d, ]*\))",
     lambda m: f"a reshape asked for shape {m[2]}, which does not hold the array's {m[1]} entries: are the "
               "sizes taken from the arguments' shapes (D // H, not a fixed number)?"),
    (r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)",
     lambda m: f"an index ran past the end of an axis (index {m[1]}, on an axis of {m[3]}): is a loop bound or "
               "a size fixed, or off by one?"),
    (r"too many indices for array: array is (\d+)-dimensional, but (\d+) were indexed",
     lambda m: f"an array with {m[1]} axes was indexed as if it had {m[2]}: does the code expect an axis "
               "(a batch axis?) that the input does not have?"),
    (r"axis (-?\d+) is out of bounds for array of dimension (\d+)",
     lambda m: f"axis {m[1]} was asked of an array with {m[2]} axes: is the axis right for this array's shape?"),
    (r"does not have enough dimensions",
     lambda m: "a matrix product (@) met a number or a 1-D array where a matrix is needed: is every operand a "
               "matrix, and does every function it calls return one?"),
    (r"NameError: name '(\w+)' is not defined",
     lambda m: f"it uses the name {m[1]}, which is not defined when it runs: take sizes from the arguments' "
               "shapes, and make sure every function it calls is defined in the notebook"),
    (r"output array is read-only|assignment destination is read-only",
     lambda m: "it writes into an array that may not be changed (in place: /=, -=, x[...] = on it), such as the logits "
               "a model hands out, which are the model's own numbers (a write into them changes the model for every "
               "later call): make a new array instead (x / t, not x /= t)"),
    (r"NoneType",
     lambda m: "something it used (or returned) is None: does a function end without its return line?"),
    (r"KeyError",
     lambda m: "a dictionary was asked for a key it does not hold: look keys that may be missing up with "
               "dict.get(key, default)"),
    (r"zero-size array to reduction operation (\w+)",
     lambda m: f"a {m[1]} was taken over an array with no entries: is an array (a slice, a cache) read while it is "
               "still empty, before what it should hold is put in it?"),
    (r"(max|min)\(\) (arg is an empty sequence|iterable argument is empty)",
     lambda m: f"Python's {m[1]}() was given nothing to choose from (an empty dict or list): can what it reads be "
               "empty? Check for that first, and stop there"),
    (r"ZeroDivisionError|division by zero",
     lambda m: "it divides by zero: an empty sequence (a length of 0), or a sum that is 0?"),
    (r"RecursionError",
     lambda m: "a function calls itself without end: does it call itself by mistake, under its own name?"),
    (r"setting an array element with a sequence|inhomogeneous",
     lambda m: "an array was built from pieces of different lengths: are all the rows (or tokens) the same size?"),
    (r"unsupported operand type\(s\) for [@*+/-]+: 'list'|'list' and",
     lambda m: "a Python list was used where an array is needed: make it an array first, np.array(...)"),
    # numpy's choice (Generator.choice, np.random.choice) checks the p it is given
    (r"[Pp]robabilities do not sum to 1",
     lambda m: "the probabilities given to a random choice do not sum to one: divide them by their own sum, after "
               "every change made to them"),
    (r"[Pp]robabilities (contain NaN|are not non-negative)",
     lambda m: f"the probabilities given to a random choice {'contain nan' if 'NaN' in m[1] else 'include negative numbers'}: "
               "they must be numbers from 0 to 1 that sum to one"),
]


class Clash(NamedTuple):
    """Two shapes numpy could not broadcast together (broadcast_clash): as tuples, and as numpy wrote them."""
    first: tuple
    second: tuple
    shown: tuple  # ("2,3", "3,2")

    @property
    def sizes(self):
        """The pairs of sizes that clash, axes aligned from the last as broadcasting aligns them."""
        return sorted({(x, y) for x, y in zip(self.first[::-1], self.second[::-1]) if x != y and 1 not in (x, y)})

    @property
    def transposed(self):
        """Whether one of them, its last two axes swapped, broadcasts with the other (a row made where a column is
        due): numpy's own words then say more than the sizes' places."""
        def fit(x, y):
            return all(p == q or 1 in (p, q) for p, q in zip(x[::-1], y[::-1]))
        a, b = self.first, self.second
        return (len(a) >= 2 and fit(a[:-2] + a[:-3:-1], b)) or (len(b) >= 2 and fit(a, b[:-2] + b[:-3:-1]))


def broadcast_clash(why):
    """The Clash in numpy's "operands could not be broadcast together with shapes (2,3) (3,2)", or None."""
    import re
    found = re.search(NOT_BROADCAST, why or "")
    if not found:
        return None
    first, second = (tuple(int(n) for n in shape.split(",") if n) for shape in found.groups())
    return Clash(first, second, found.groups())


def _misfit(clash):
    """What two shapes that do not broadcast suggest. The same number of axes, differing on one axis only, where
    one size is a whole multiple of the other (2 and 10) and no transpose makes them fit: something folded into that
    axis on one side only (heads into the batch), not an axis missing. Else the usual two causes."""
    a, b = clash.first, clash.second
    misfits = [i for i, (x, y) in enumerate(zip(a, b)) if x != y and 1 not in (x, y)]
    if len(a) == len(b) and len(misfits) == 1 and not clash.transposed:
        i = misfits[0]
        small, large = sorted((a[i], b[i]))
        if large % small == 0:
            k = large // small
            return (f" on axis {i}, {a[i]} against {b[i]} ({large} = {k} x {small}): is a size of {k} folded into "
                    f"that axis in one of them (a reshape) and not in the other, or entries repeated on one side only "
                    f"(np.repeat)?")
    return ": is an axis missing (keepdims=True, [:, None]), or one of them transposed?"


class Empty(str):
    """An error's meaning that already says what the input it fails on has: something empty (no pair left, an empty
    sequence). The verdict asks no question about sizes after it."""


_EMPTY = ("max", "min", "zero-size", "ZeroDivision", "division by zero")


def error(why):
    """A sentence on what an error (or a result that is not an array) means (an Empty when it is about something
    empty), or None."""
    import re
    for pattern, sentence in _ERRORS:
        match = re.search(pattern, why)
        if match:
            said = sentence(match)
            return Empty(said) if any(pattern.startswith(e) or pattern.startswith("(" + e) for e in _EMPTY) else said
    return None
