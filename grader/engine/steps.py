"""The first wrong step: where a wrong answer's own computation leaves the reference's path.

A part declares the reference's named intermediate values (Probe.steps: the queries, the scores, the
weights, ...; each with the steps it is computed from). The probe sends back the arrays the student's code
made on the same inputs (its functions' local variables and return values, a cell's names). Each step is
looked for among them, allowing what a student may rightly do differently: a transpose, a reshape of the
same numbers, float32. A step is right when an array equals it, or when a step computed from it is right
(a student may write `softmax_cols(K.T @ Q)` in one line, and the scores are then never a variable).

The first wrong step is the first that is not right although every step it is computed from is. The
verdict says which steps are right and which is not, and, when one of the student's arrays has that step's
shape, what a structural finding (diagnose.same_shape) says of it against the right one. Every part of it
is a fact about the student's arrays; nothing here scores.
"""
import contextlib
import contextvars
import fractions
import functools
import itertools
import re

import numpy as np

from . import diagnose
from .courseware import course


def _forms(a, want, reshape=True):
    """The ways `a` may hold the numbers of `want`: as it is, broadcast (a (B, 1, T) mask), transposed when
    the shape says so (a (N, D) matrix for a (D, N) one; a square matrix's transpose is another matrix), or
    reshaped (the same numbers, e.g. heads as (B, H, T, d) for (B*H, T, d))."""
    if np.squeeze(a).shape == np.squeeze(want).shape:
        yield np.squeeze(a).reshape(want.shape)
    elif a.ndim == want.ndim and all(n in (1, m) for n, m in zip(a.shape, want.shape)):
        yield np.broadcast_to(a, want.shape)
    sq = np.squeeze(a)  # a list of (D, 1) columns stacked is (N, D, 1): the (D, N) matrix transposed
    if sq.ndim >= 2 and sq.shape[-1] != sq.shape[-2] and np.swapaxes(sq, -1, -2).shape == np.squeeze(want).shape:
        yield np.swapaxes(sq, -1, -2).reshape(want.shape)
    if reshape and a.size == want.size and a.ndim != want.ndim and _regroups(a.shape, want.shape):
        yield a.reshape(want.shape)


def _regroups(shape, other):
    """Whether a reshape from `shape` to `other` only splits axes or merges neighbouring ones ((B*H, T, d) and
    (B, H, T, d); (B, T, H, d) and (B, T, D)). Where a run of two or more axes becomes a run of two or more others
    ((B, H, T, d) read as (B, T, D): heads and tokens interleaved), the numbers land in places of other meaning:
    a plain reshape where a transpose was due, no form of the same array."""
    s, t = [n for n in shape if n != 1], [n for n in other if n != 1]
    i = j = 0
    while i < len(s) and j < len(t):
        p, q, runs = s[i], t[j], [1, 1]
        while p != q:
            if p < q and i + 1 < len(s):
                i, p, runs[0] = i + 1, p * s[i + 1], runs[0] + 1
            elif q < p and j + 1 < len(t):
                j, q, runs[1] = j + 1, q * t[j + 1], runs[1] + 1
            else:
                return False
        if min(runs) > 1:
            return False
        i, j = i + 1, j + 1
    return True


def holds(a, want, reshape=True):
    """Whether the student's array `a` holds the step's value `want` in a form a student may use. A list the
    trace stacked into one array (its name ends "[:]") is not reshaped: the student never made that array,
    and a list of heads stacked and reshaped is the heads stacked right whatever the student's stacking did."""
    want = np.asarray(want, dtype=np.float64)
    if (want.size < 2 and np.size(a) != 1) or not np.isfinite(want).all() or not np.isfinite(a).all():
        return False  # a single number (a count's part) is held only by a single number
    return any(bool(course().same(f, want)) for f in _forms(a, want, reshape))


def _found(values, trace, inputs):
    """For each step's value, the first (where, name) of the student's arrays that holds it, in order (`_in_order`).
    An argument as it came in holds no step it is only close to: the analytic gradient a gradient check is given is
    within the tolerance of the central differences, and is no sign that the student's differences are right."""
    given = _given(inputs)

    def passed_in(a, v):
        return any(g.shape == np.shape(a) and np.array_equal(g, a) and not np.array_equal(g, v) for g in given)
    return _in_order([next(((w, n) for w, n, a in trace if holds(a, v, not _stacked(n)) and not passed_in(a, v)),
                           None) for v in values])


def _given(inputs):
    """The array inputs, as the part was given them."""
    return [v for v in (inputs or {}).values() if isinstance(v, np.ndarray)]


def _as_given(a, given):
    """Whether `a` is one of the inputs as it came in (or a name for it): no attempt at any step."""
    return any(g.shape == np.shape(a) and np.array_equal(g, a) for g in given)


def _step_value(steps, values, name):
    """The right value of the step called `name`, or None."""
    return next((v for s, v in zip(steps, values) if s.name == name), None)


def _stacked(name):
    """Whether a traced array is a list the trace stacked (the student never made it as one array)."""
    return name.endswith("[:]")


def _deps(steps, i):
    """The indices of the steps step i is computed from: its `uses` by name, else the step before it."""
    uses = getattr(steps[i], "uses", None)
    if uses is None:
        return [i - 1] if i else []
    names = [s.name for s in steps]
    return [names.index(u) for u in uses if u in names[:i]]


def _in_order(found):
    """`found` without the matches that put a list's items out of order: when item k of a list (a head) equals
    one step and item k + 2 the next one of the list's steps, item k + 1 is not that step's "right" version,
    and saying "your head 2 is right" of the student's third head would be false of their code."""
    out, groups = list(found), {}
    for j, f in enumerate(found):
        m = re.fullmatch(r"(.*)\[(\d+)\]", f[1]) if f else None
        if m:
            groups.setdefault((f[0], m.group(1)), []).append((j, int(m.group(2))))
    for pairs in groups.values():
        first = pairs[0][1]
        for rank, (j, k) in enumerate(pairs):
            if k != first + rank:
                out[j] = None
    return out


def _right(steps, found):
    """Which steps are right: found among the student's arrays, or computed from by a step that is."""
    right = [f is not None for f in found]
    for i in reversed(range(len(steps))):
        if right[i] and getattr(steps[i], "shows_uses", True):
            for d in _deps(steps, i):
                right[d] = True
    return right


def missing(steps, trace, inputs=None):
    """The names of the steps a right answer's trace does not show (tests: every declared step must be one
    that right answers compute, or the first wrong step would be a false lead)."""
    steps = _telling(steps, inputs)
    found = [next(((w, n) for w, n, a in trace if holds(a, np.asarray(s.value, dtype=np.float64), not _stacked(n))), None)
             for s in steps]
    return [s.name for s, r in zip(steps, _right(steps, found)) if not r]


# The functions the probe calls: those given one of the case's input arrays itself, and the one whose locals the trace
# keeps last (as it returns). An array seen in another function (a helper the part calls, layer_norm(x, ...)) is
# named with that function, where its name is that function's own (its `x`), not a variable of the student's part.
_CALLED = contextvars.ContextVar("called", default=())


def _yours(where, name):
    """How the verdict calls one of the student's arrays."""
    name = name.removesuffix("[:]")
    called = _CALLED.get()
    if name and called and where not in called and where not in ("<module>", "your code"):
        return f"the `{name}` in `{where}`"
    if name:
        return f"your `{name}`"
    return f"what your `{where}` returns" if where != "<module>" else "your cell's result"


def first_wrong(steps, trace, inputs=None, single=True, result=None, expected=None, remake=None):
    """(sentence, certain) on where the student's computation leaves the reference's path, or None.

    `steps` are the reference's (protocol.Step) on this case, the last being the result when `single`;
    `trace` is [(where, name, array)], the student's arrays on the same case; the result is known wrong
    (`result`, what came back; `expected`, the reference's result, for a part with several).
    Certain: the first wrong step, shown by one of the student's arrays that a structural finding ties to
    it (an array that merely has its shape proves nothing: the step may have been computed inline, right);
    when the tie is a sum of known values, `certain` is that tie (a Known) rather than True.
    Not certain: which steps are right, and nothing more.
    `remake(inputs)` computes the steps again on other inputs: an array that is a step made with one input in
    place of another (the keys projected from the queries) is said to be that.
    """
    steps = _telling(steps, inputs)
    if not steps or not trace:
        return None
    given = [v for v in (inputs or {}).values() if isinstance(v, np.ndarray) and v.size >= 2]
    token = _CALLED.set({trace[-1][0]} | {w for w, _, a in trace
                                         if any(a.shape == v.shape and np.array_equal(a, v) for v in given)})
    try:
        return _first_wrong(steps, trace, inputs, single, result, expected, remake)
    finally:
        _CALLED.reset(token)


def _first_wrong(steps, trace, inputs, single, result, expected, remake):
    values = [np.asarray(s.value, dtype=np.float64) for s in steps]
    found = _found(values, trace, inputs)
    returned_as_is = single and isinstance(result, np.ndarray) and found[-1] and any(
        (w, n) == found[-1] and a.shape == np.shape(result) and np.array_equal(a, np.asarray(result, dtype=np.float64))
        for w, n, a in trace)
    if single and found[-1] and not returned_as_is:
        # (an array that is what comes back holds the right numbers in another shape, a (N, D) for a (D, N): the
        # shape is the mistake, and the verdict's own shape finding says so)
        where, name = found[-1]
        if where != "<module>" or name:
            yours = _yours(where, name)
            return (f"{yours[0].upper()}{yours[1:]} holds the right result, but it is not what comes back: check "
                    "the line that returns (or sets) the result.", True)
    returned = np.asarray(result, dtype=np.float64) if single and isinstance(result, np.ndarray) else None
    if returned is not None:
        early = [j for j in range(len(steps) - 1) if holds(returned, values[j])]
        if early:  # what comes back is a step on the way: the steps after it were left out
            j = early[-1]
            after = [k for k in range(j + 1, len(steps)) if j in _deps(steps, k)]
            # (missing, or made so that it keeps everything: a cut-off that keeps every token returns them all)
            then = (f"the step after it, {_the(steps[after[0]].name)} ({steps[after[0]].formula}), is missing or "
                    "changes nothing" if len(after) == 1 else "the steps after it are missing or change nothing")
            return f"What comes back is {_the(steps[j].name)} ({steps[j].formula}), a step on the way: {then}.", True
    right, tied = _evidence(steps, values, found, trace, inputs, single, result, returned, remake)
    i = _wrong_at(steps, right, tied, returned, _named_as(steps, trace, values, single, expected))
    if i is not None:
        step, deps, finding = steps[i], _deps(steps, i), tied.get(i)
        if deps:
            before = [steps[d].name for d in deps if right[d]]
        else:  # a first step (the queries, the mean): the right ones of its kind just before it
            kind = step.name.split("'s ")[0] if "'s " in step.name else ""
            before = [s.name for j, s in enumerate(steps[:i]) if right[j] and not _deps(steps, j)
                      and (s.name.split("'s ")[0] if "'s " in s.name else "") == kind][-2:]
        listed = "" if not before else diagnose.listing(before) if len(before) <= 3 else \
            f"{before[0]} to {before[-1]} (all {len(before)})"
        said = (f"Your {listed} {_are(before)} right, but not {_the(step.name)} ({step.formula})" if before
                else f"Your {step.name} ({step.formula}) {_are([step.name])} not right")
        if isinstance(finding, UsedInstead):
            said = (f"Your {listed} and {step.name} ({step.formula}) are right" if before else
                    f"Your {step.name} ({step.formula}) {_are([step.name])} right") + f", in {finding.right}"
            finding = Tie(f"but {finding}")
            text = f"{said}, {finding}"
        else:
            text = f"{said}: {finding}" if finding else said
        text = text if text.endswith((".", "?", "!")) else text + "."
        if i == len(steps) - 1 and single and not isinstance(finding, Related):
            # BARE: the last step, the result itself. What the result itself shows (a structural finding on it, which also looks
            # behind the values at the weights they imply) is said after it when there is one; else `text`.
            return said + ".", BARE, text
        # (slices of an array right, after a step not shown right: said only when every wrong case bears them out)
        return text, finding if isinstance(finding, Known) or isinstance(finding, Sliced) and not all(right[:i]) \
            else True
    if not single:
        shared = _returned_another(steps, values, result, expected) or _source_of_wrong_results(steps, right)
        if shared:
            return shared, True
    # Nothing certain past them: the right steps that no right step was computed from (the last right ones).
    last = [s.name for j, s in enumerate(steps) if right[j] and not any(
        right[k] and j in _deps(steps, k) for k in range(len(steps)))]
    if not last or not any(found):
        return None
    return f"Your {diagnose.listing(last[-3:])} {_are(last[-3:])} right.", False


def _evidence(steps, values, found, trace, inputs, single, result, returned, remake):
    """(which steps are right, {step index: what ties one of the student's arrays to it})."""
    several = [np.asarray(r, dtype=np.float64) for r in result if isinstance(r, np.ndarray)] \
        if not single and isinstance(result, list) else []
    tied = _attempts(steps, values, trace, inputs, returned, several)
    kept, used = _used_instead(steps, values, _kept(steps, values, found, trace, tied), trace, inputs, remake)
    for i, tie in used.items():
        if isinstance(tie, UsedInstead):
            tied[i] = tie  # the step is right in one array of theirs: what another is does not make it wrong
        else:
            tied.setdefault(i, tie)
    right = _right(steps, kept)
    if remake is not None:
        # Where a step is not right and nothing known explains it yet (a step skipped leaves the one after it
        # made from the wrong value: an MLP given the residual sum where its LayerNorm is due)
        open_ = [i for i in range(len(steps)) if not right[i] and not isinstance(tied.get(i), Related)]
        tied.update(_swapped(steps, values, trace, inputs, remake, open_, returned))
    return right, tied


def _kept(steps, values, found, trace, tied):
    """`found` less the steps that only a function's return holds right while one of the student's own named
    arrays is tied to the step by a finding: what the student kept is that array. With `mask =
    causal_mask(T, T).T` the notebook's helper returned the right mask and `mask` is its transpose; the mask
    is then not right. (A name that holds the step right keeps it right: the student has the right one.)"""
    out = list(found)
    for i, f in enumerate(found):
        tie = tied.get(i)
        if f is None or tie is None or f[1]:
            continue
        holders = [(w, n) for w, n, a in trace if holds(a, values[i], not _stacked(n))]
        if any(n for _, n in holders):
            continue  # a name holds it right: the student has the right one
        kept = [w for w, n, a in trace if a is tie.array and n]
        # Not what the function that returned it right made on the way (softmax's exponentials before the sum)
        if kept and not set(kept) & {w for w, _ in holders}:
            out[i] = None
    return out


def _used_instead(steps, values, found, trace, inputs, remake, limit=6):
    """(`found` less the steps that one of the student's arrays holds right while the steps after them are made
    from another of their arrays, {step index: what ties that array to the step}): what they used is that one (the
    attention weights recomputed without the mask in a backward pass, where the forward pass's cache holds the
    masked ones). Seen by making the steps again with that array in place of the step: one of the student's arrays
    is then a step after it, not right. Only steps with a step after them that no array of theirs holds right."""
    replaced = getattr(course(), "replaced", None)
    out, ties = list(found), {}
    if remake is None or replaced is None:
        return out, ties
    below = _below(steps)
    given = _given(inputs)

    open_after = [i for i, f in enumerate(found)
                  if f is not None and np.size(values[i]) >= 2 and any(found[j] is None for j in below[i])]
    if not open_after:
        return out, ties
    # the student's own arrays: no step, and no input as given (found once: holds() over every step is the cost)
    mine = [(w, n, a) for w, n, a in trace
            if np.size(a) >= 2 and not _as_given(a, given) and not any(holds(a, v) for v in values)]
    tried = 0
    for i in open_after:
        for where, name, a in mine:
            if tried >= limit:
                return out, ties
            theirs = next(_forms(a, values[i], not _stacked(name)), None) if name and a.size == values[i].size else None
            if theirs is None:
                continue
            tried += 1
            try:
                with np.errstate(all="ignore"), replaced({steps[i].name: theirs}):
                    other = {s.name: np.asarray(s.value, dtype=np.float64) for s in remake(inputs)}
            except (ArithmeticError, LookupError, TypeError, ValueError):
                continue  # the steps cannot be made so
            made = [other[steps[j].name] for j in sorted(below[i]) if found[j] is None and steps[j].name in other
                    and not (other[steps[j].name].shape == values[j].shape and course().same(other[steps[j].name],
                                                                                            values[j]))]
            # (another array of theirs, not this one: a result that, put in place of the probabilities, is kept and
            # renormalised to itself shows nothing)
            if not any(v.size >= 2 and np.max(np.abs(v)) > 100 * course().ATOL and any(
                    np.size(b) == v.size and b is not a and not np.array_equal(b, a)
                    and holds(b, v, not _stacked(m)) for _, m, b in mine) for v in made):
                continue
            kept_right = found[i][1] if found[i][1] and not _stacked(found[i][1]) else ""
            out[i] = None
            text = diagnose.same_shape(theirs, values[i], inputs, steps[i].axes)
            text = str(text.shown if isinstance(text, diagnose.Finding) else text or "")
            which = f", which {text[3:]}" if text.startswith("it ") else f", where {text}" if text else ""
            them = 'them' if steps[i].name.endswith('s') else 'it'
            if kept_right:  # the student made the step right, then went on from another array
                ties[i] = _tie(UsedInstead(f"the steps after {them} are made from {_yours(where, name)} in "
                                           f"{'their' if them == 'them' else 'its'} place{which}"), a)
                ties[i].right = _yours(found[i][0], kept_right)
            else:
                ties[i] = _tie(f"the steps after {them} are made from {_yours(where, name)}" +
                               (which or ", which is not right"), a)
            break
    return out, ties


def _wrong_at(steps, right, tied, returned, named=()):
    """The index of the first wrong step, said only with evidence: one of the student's arrays that a
    structural finding ties to it (the steps before it may be right or unseen, never shown wrong: that would
    have been said first), the result itself, computed from steps that are right, or (`named`: _named_as) an
    array of the student's that has the step's own name, the steps it is made from right; else None."""
    for i in range(len(steps)):
        if right[i]:
            continue
        deps = _deps(steps, i)
        if tied.get(i) or (returned is not None and i == len(steps) - 1 and deps and all(right[d] for d in deps)):
            return i
        if i in named and deps and all(right[d] for d in deps):
            return i  # the student's array of the step's own name is not it, and what it is made from is right
    return None


def _named_as(steps, trace, values, single, expected):
    """The indices of the steps on the way that one of the student's arrays is named as exactly (09's `dlogits`,
    the step "dlogits"; quotes aside), in the function the probe calls: an attempt at the step by its name. (A
    result is left out: what the results show says more, "and so are all the results but the r2".)"""
    called = _CALLED.get() or ()
    names = {name.replace("'", '"') for where, name, _ in trace if name and (not called or where in called)}
    results = {len(steps) - 1} if single else {
        i for i, v in enumerate(values) for e in (expected if isinstance(expected, list) else [])
        if np.shape(e) == v.shape and np.array_equal(np.asarray(e, dtype=np.float64), v, equal_nan=True)}
    return {i for i, s in enumerate(steps) if s.name in names and i not in results}


SAME_PATH_PAIRS = 1500  # arrays times steps that same_path looks at, at most (benchmarks/trace.py --names)


def same_path(steps, trace, other, inputs=None, single=True, result=None, other_result=None):
    """Whether two computations with the same result can be one mistake: False when one of them shows, with
    evidence, a step wrong that the other holds right (the student's `trace` against `other`, a catalogued
    mistake's as `traced` records it). Values divided by sqrt(D_q) with unscaled scores give the results of
    weights divided after the softmax; the values are wrong in one and right in the other, so one name cannot
    be said of both. True when nothing shows them apart (a trace that holds nothing proves nothing). Steps
    are not remade here (first_wrong's `remake`): that would cost a grading run seconds a verdict."""
    steps = _telling(steps, inputs)
    if not steps or not trace or not other:
        return True
    values = [np.asarray(s.value, dtype=np.float64) for s in steps]
    if max(len(trace), len(other)) * len(steps) > SAME_PATH_PAIRS:
        return True  # too many arrays to hold against too many steps (09's train_step with a model's insides):
        # the results alone decide, as before, rather than a grading run that costs seconds a verdict
    paths = []
    for t, r in ((trace, result), (other, other_result)):
        found = _found(values, t, inputs)
        returned = np.asarray(r, dtype=np.float64) if single and isinstance(r, np.ndarray) else None
        right, tied = _evidence(steps, values, found, t, inputs, single, r, returned, None)
        # The arrays tied to steps this path does not get right. (Not those tied to a step it also gets right: a
        # right softmax's exponentials look like weights that do not sum to one, and are on its way.)
        wrong = {i: tie.array for i, tie in tied.items() if not right[i] and getattr(tie, "array", None) is not None}
        i = _wrong_at(steps, right, tied, returned)
        if i is not None and i not in wrong and returned is not None:
            wrong[i] = returned  # the result, computed from right steps
        paths.append((right, wrong))
    for (_, wrong), (right, _), t in ((paths[0], paths[1], other), (paths[1], paths[0], trace)):
        # A step one shows wrong and the other holds right, unless the other made the same wrong array too
        # (a catalogued mistake may compute a right step it then leaves unused)
        for i, made in wrong.items():
            if right[i] and not any(np.size(a) == np.size(made) and holds(a, made) for _, _, a in t):
                return False
    return True


def traced(compute, *args, numbers=False):
    """compute(*args), and the arrays the course's own functions made on the way: [(where, name, array)], the
    form the probe's trace of a student's code takes (their local variables and what they return; single
    numbers too with `numbers`), so a catalogued mistake's path can be held against a student's."""
    import sys
    prefix = course().__name__ + "."
    kept, seen = [], set()

    def keep(where, name, value, depth=0):
        if len(kept) >= 400:
            return
        if numbers and isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            value = np.array(value, dtype=float)
        if isinstance(value, (list, tuple)) and depth == 0:
            for k, item in enumerate(value[:16]):
                keep(where, f"{name}[{k}]" if name else "", item, 1)
            with contextlib.suppress(ValueError, TypeError):
                if 1 < len(value) and all(isinstance(v, (np.ndarray, float, int)) for v in value):
                    keep(where, name + "[:]" if name else "", np.array(value, dtype=float), 1)
            return
        if isinstance(value, dict) and depth <= 1:
            for k, item in list(value.items())[:32]:
                keep(where, f"{name}[{k!r}]" if name else "", item, depth + 1)
            return
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "biuf" or value.size > 20_000 \
                or (value.size < 2 and not (numbers and value.ndim == 0)):
            return
        key = (value.dtype.str, value.shape, hash(value.tobytes()))
        if key not in seen:
            seen.add(key)
            kept.append((where, name, value.astype(np.float64)))

    def profile(frame, event, arg):
        if event in ("call", "return") and str(frame.f_globals.get("__name__", "")).startswith(prefix):
            for name, value in list(frame.f_locals.items()):
                keep(frame.f_code.co_name, name, value)
            if event == "return":
                keep(frame.f_code.co_name, "", arg)

    before = sys.getprofile()
    sys.setprofile(profile)
    try:
        value = compute(*args)
    finally:
        sys.setprofile(before)
    return value, kept


def _source_of_wrong_results(steps, right):
    """For a part with several results (a backward pass's gradients): the first step whose own steps are
    right and from which exactly the results no array of the student's equals are computed, every other
    result being right; said as those facts, and where to look (07's dK without its transpose: every
    result computed from dK is missing from the student's arrays, all the others are there)."""
    n = len(steps)
    below = _below(steps)
    results = [k for k in range(n) if not below[k]]
    wrong = {k for k in results if not right[k]}
    if not wrong or len(wrong) == len(results):
        return None
    # Only one step may fit: two that lead to the same results (a first step and another) cannot be told apart
    fits = [i for i in range(n) if not right[i] and all(right[d] for d in _deps(steps, i))
            and wrong == {k for k in results if k in below[i] or k == i}]
    if len(fits) != 1:
        return None
    i = fits[0]
    deps = [steps[d].name for d in _deps(steps, i)]
    names = [_the(steps[k].name) for k in results if k in wrong]
    but = diagnose.listing(names)
    said = (f"Your {diagnose.listing(deps)} {_are(deps)} right, and so are all the results but {but}"
            if deps else f"All your results are right but {but}")
    if not below[i]:  # the one wrong result, computed from right steps
        return f"{said} ({steps[i].formula}): no array of yours equals it."
    return (f"{said}, the ones computed from {_the(steps[i].name)} ({steps[i].formula}): no array of yours "
            "equals them. Check that step.")


def _below(steps):
    """For each step, the steps computed from it, directly or not."""
    below = [set() for _ in steps]
    for j in reversed(range(len(steps))):  # a step is computed from earlier ones only: the later sets are whole
        for d in _deps(steps, j):
            below[d] |= {j} | below[j]
    return below


def _returned_another(steps, values, result, expected):
    """For a part with several results: one that comes back as another step of the reference (the
    bias-corrected m_hat returned as the new m), said as that."""
    if not isinstance(result, list) or not isinstance(expected, list) or len(result) != len(expected):
        return None
    for k, (g, w) in enumerate(zip(result, expected)):
        if not isinstance(g, np.ndarray) or np.size(w) < 2 or _few(w) or holds(g, w):
            continue
        due = next((j for j, v in enumerate(values) if holds(np.asarray(w, dtype=np.float64), v)), None)
        # the same shape exactly: one mask of 0s and 1s reshaped can equal another by chance
        got = next((j for j, v in enumerate(values) if j != due and v.shape == g.shape and course().same(g, v)), None)
        if due is not None and got is not None:
            return (f"Your result {k + 1} (of {len(result)}) is {_the(steps[got].name)} ({steps[got].formula}), where "
                    f"{_the(steps[due].name)} ({steps[due].formula}) is due: check what comes back.")
    return None


def _are(names):
    return "is" if len(names) == 1 and not names[0].endswith("s") else "are"


def _the(name):
    """A step's name with its article: "the queries", but "head 2's values", "dX"."""
    return name if name.startswith(("head ", "d_", "dX", "dx", "grads[", "the ")) else f"the {name}"


BARE = "bare"  # first_wrong's second item for a last step found wrong with nothing more to say of it


# Findings that do not tie an array to a step: true of many arrays that were never an attempt at it (a one-hot
# matrix "gives no weight" where probabilities would, any non-negative array "does not sum to one").
WEAK = ("close, but", "it holds", "it gives", "its weights do not sum", "it is the same for every")


# "token 1 is right, token 2 and every one after it are wrong": no tie either. Under a causal mask the first
# position attends to itself alone, and many a wrong array agrees with a step there (07's dx holds the first
# token's gradient through the values whether dK is right or not).
_first_only = re.compile(r"\w+ 1 is right, \w+ 2 and every one after it")


def _telling(steps, inputs=None):
    """The steps a trace can show: not zero everywhere (a gradient that is zero on every input, such as a key
    bias's, would be "right" in any array of zeros), and more than one number, or one number that is neither
    0 nor 1 nor any number the inputs hold (a count's part: "right" in the student's `D` it would say nothing)."""
    given = _numbers_of(inputs)
    out = []
    for s in steps:
        value = np.asarray(s.value, dtype=float)
        if value.size == 0 or not np.max(np.abs(value)) > 1e-9:
            continue
        if value.size >= 2 or (value.size == 1 and np.isfinite(value).all() and abs(float(value)) != 1
                                and float(value) not in given):
            out.append(s)
    return out


def coincide(steps, inputs=None):
    """Whether two of the steps a trace can show have the same value on this case (of one shape, the same
    numbers): an array holding it may be an attempt at either."""
    values = [np.asarray(s.value, dtype=np.float64) for s in _telling(steps, inputs)]
    return any(a.shape == b.shape and np.array_equal(a, b) for k, a in enumerate(values) for b in values[k + 1:])


def _numbers_of(inputs):
    """The single numbers a case's inputs hold, and their sizes: what a student's code has without computing."""
    out = {float(n) for n in diagnose._sizes(inputs)}
    for value in (inputs or {}).values():
        if not isinstance(value, (str, list, tuple, dict)) and np.ndim(value) == 0:
            try:
                out.add(float(value))
            except (TypeError, ValueError):
                pass
    return out


def _attempts(steps, values, trace, inputs, returned, results=()):
    """{step index: what a structural finding says of the student's array that attempts it}. Each array
    that equals no step is tied to the latest step a finding ties it to (an array of scaled scores is also
    a multiple of the unscaled ones: it is an attempt at the scaled ones); the returned result is an attempt
    at the result alone, and only the result. A step with several arrays gets the last one made."""
    last = len(steps) - 1
    tied = {}
    below = _below(steps)
    given = _given(inputs)
    numbers = _numbers_of(inputs)
    candidates = {}  # {step index: its _candidates}, made once for every array of the trace
    # Whether the part masks: some step's right weights (summing to one along an axis) hold exact zeros
    masks = any(v.ndim >= 2 and np.any(v == 0) and any(diagnose._sums_to_one(v, k) for k in range(v.ndim))
                for v in values)
    for where, name, a in trace:
        held = [j for j, v in enumerate(values) if holds(a, v, not _stacked(name))]
        # A loop's variable holds its last pass: a slice right for head 1 may be head 4's, taken wrong (every
        # head given the first slice); an array holding any other step is no attempt at another
        slice_only = bool(held) and all(steps[j].slices for j in held)
        if held and not slice_only:
            continue
        if _as_given(a, given):
            continue  # an argument as it came in (or a name for it): not an attempt at any step
        if a.size == 1 and float(a.ravel()[0]) in numbers:
            continue  # a size the inputs give (the student's `D`): not an attempt either
        is_result = returned is not None and a.shape == returned.shape and np.array_equal(a, returned, equal_nan=True)
        blocks = _normalised_in_blocks(a, steps, values)
        ties = {}
        for i, (step, want) in enumerate(zip(steps, values)):
            if returned is not None and (i == last) != is_result or (slice_only and i < max(held)):
                continue  # (a slice right for a later head than this one is no attempt at this one's)
            other = _reduced_over_other_axes(a, step, steps, values, inputs) or _another_slice(a, step, inputs) or \
                _another_row(a, step) or blocks.get(i) or _read_in_memory_order(a, step, want) or \
                _entrywise(a, step, steps, values) or _broadcast(a, want)
            if other:
                ties[i] = Related(f"{_yours(where, name)} is {other}")
                continue
            if slice_only:
                continue
            g = next(_forms(a, want, not _stacked(name)), None)  # as the step's shape, when it can be (a list of columns)
            if g is None:
                # An array of a function named as the step ("causal mask", causal_mask), in another shape: the shape
                # said, where no array of another shape is otherwise an attempt at a step
                if where.lower() == step.name.replace(" ", "_").lower() and np.ndim(a) == want.ndim:
                    text = diagnose.other_shape(a, want, inputs, step.axes)
                    ties[i] = f"{_yours(where, name)} {text[3:] if text.startswith('it ') else 'has ' + text}"
                continue
            if i not in candidates:
                candidates[i] = _candidates(i, want, steps, values, inputs)
            related = _related(g, want, i, steps, values, inputs, candidates[i])
            text = related or (_scaled(g, want, inputs) if want.size == 1 else
                               diagnose.same_shape(g, want, inputs, step.axes))
            known = bool(related) or isinstance(text, Known)  # said only if every wrong case says the same
            sliced = isinstance(text, diagnose.Slices)  # said only if every other wrong case ties the array too
            if not text or "placeholder" in text or masks and isinstance(text, diagnose.UnduedMask):
                continue  # (an all-zeros buffer, an input passed through, scores masked before a masked softmax:
                # no attempt at a step)
            if isinstance(text, diagnose.Finding):
                text = text.shown  # a fact about the array, no guess about its cause: the step says where
            if text.startswith(WEAK) or _first_only.match(text):
                continue
            words = step.name.removeprefix("the ")
            text = str(text).replace("the right answer", f"the right {words}")
            if text.endswith("?") and ": " in text:  # a guessed cause ("a loop bound that stops early?"): the step says where
                text = text.rsplit(": ", 1)[0]
            ties[i] = (f"{_yours(where, name)} {text.removeprefix('it ')}" if text.startswith("it ") else
                       f"in {_yours(where, name)}, {text}")
            ties[i] = Known(ties[i]) if known else Sliced(ties[i]) if sliced else ties[i]
        if ties:
            # A part with several results: an array it does not return that ties to a step on the way is no
            # attempt at a result made from it (a gradient 2 times too large, not the moment 20 times)
            inner = [j for j in ties if below[j]] if returned is None and not any(
                np.shape(r) == a.shape and np.array_equal(r, a) for r in results) else []
            i = max(inner) if inner else max(ties)
            tied[i] = _tie(ties[i], a)
    return tied


def _other_reductions(step, steps, values, inputs, due_too=False):
    """(the reduction in words, where the one due in words, its value) for each reduction of what `step`
    reduces (step.reduces: an input, or an earlier step's value) over other axes than the step's, kept as
    dimensions of length one and not: "the sum of A * dA over the rows and columns", "the sum of A * dA over the
    rows alone", and whether the dimensions were kept. A reduction that equals one of its source's own slices is
    left out: a piece of it taken, as likely as a reduction. `due_too`: the due reduction without its dimensions
    kept as well (its words then say so, and where is "")."""
    if not step.reduces:
        return
    name, words, reduce, right = step.reduces
    x = (inputs or {}).get(name)
    if x is None:
        x = _step_value(steps, values, name)
    if not isinstance(x, np.ndarray) or x.ndim < 2 or not np.all(np.isfinite(x)):
        return
    right = tuple(sorted(k % x.ndim for k in right))
    names = step.axes if len(step.axes) == x.ndim else tuple(f"axis {k}" for k in range(x.ndim))

    def over(axes):
        return diagnose.listing([names[k] for k in axes])
    due = f"the {words} over the {over(right)}{' alone' if len(right) == 1 else ''}"
    if due_too:
        yield f"{due} without `keepdims=True`", "", reduce(x, axis=right, keepdims=False), False
    for k in range(1, x.ndim + 1):
        for axes in itertools.combinations(range(x.ndim), k):
            if axes == right:
                continue
            for keepdims in (True, False):
                r = reduce(x, axis=axes, keepdims=keepdims)
                if len(axes) == 1 and any(bool(course().same(np.squeeze(r), np.squeeze(x.take(k, axes[0]))))
                                          for k in range(x.shape[axes[0]])):
                    continue
                yield f"the {words} over the {over(axes)}", due, r, keepdims


def _reduced_over_other_axes(a, step, steps, values, inputs):
    """ "the mean over the tokens and features, where the mean over the features alone is due", when the
    student's array is the step's reduction of the same input (or step) over other axes; else None."""
    if not np.all(np.isfinite(a)):
        return None
    for words, due, r, _ in _other_reductions(step, steps, values, inputs):
        if r.shape == a.shape and bool(course().same(a, r)):
            return f"{words}, where {due} is due"
    return None


def _renaming(a, b):
    """(s, t) when the names a and b differ in one place only, a's s where b has t ("W_k", "W_q": "k", "q")."""
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    q = 0
    while q < min(len(a), len(b)) - p and a[-1 - q] == b[-1 - q]:
        q += 1
    return a[p:len(a) - q], b[p:len(b) - q]


def _arrays_in(inputs):
    """{name as the student writes it: (input, key or None)} for the float array inputs and the arrays of a dict
    input (a block's params["gamma1"]) that can have been used in place of another."""
    out = {}
    for n, v in (inputs or {}).items():
        for key, a in (v.items() if isinstance(v, dict) else [(None, v)]):
            if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size >= 2 and not _few(a):
                out[n if key is None else f'{n}["{key}"]'] = (n, key)
    return out


def _value(inputs, path):
    n, key = path
    return inputs[n] if key is None else inputs[n][key]


def _with(inputs, m, paths):
    """The inputs with each array named in m replaced by the one m gives in its place."""
    new = {n: dict(v) if isinstance(v, dict) else v for n, v in inputs.items()}
    for a, b in m.items():
        n, key = paths[a]
        if key is None:
            new[n] = _value(inputs, paths[b])
        else:
            new[n][key] = _value(inputs, paths[b])
    return new


def _substitutions(inputs, limit=80):
    """[{input: the input used in its place}]: each float array input in place of another of as many axes, the
    same renaming throughout (gamma1 for gamma2 takes beta1 for beta2 too), two inputs of one shape swapped, and one
    input in place of every input of another's shape (the queries for the keys and the values), at most `limit` of
    them, renamings first."""
    paths = _arrays_in(inputs)
    arrays = {n: _value(inputs, p) for n, p in paths.items()}
    renamed, swapped, single, grouped, shifted = [], [], [], [], []  # a renaming is the likeliest slip: tried first
    letters = {}  # {(s, t): the renaming of s to t}

    def add(to, m):
        m = {a: b for a, b in m.items() if a != b and not np.array_equal(arrays[a], arrays[b])}
        if m and all(m not in seen for seen in (renamed, swapped, single, grouped, shifted)):
            to.append(m)
        return m
    for a, va in arrays.items():
        for b, vb in arrays.items():
            if a == b or va.ndim != vb.ndim:
                continue
            s, t = _renaming(a, b)
            if s and t and len(s) < len(a):
                letters[s, t] = add(renamed, {c: c.replace(s, t) for c in arrays if s in c and c.replace(s, t) in arrays
                                              and arrays[c.replace(s, t)].shape == arrays[c].shape})
            if va.shape == vb.shape:
                add(swapped, {a: b, b: a})  # two arguments of one shape given the other way round
            add(single, {a: b})
            add(grouped, {c: b for c, vc in arrays.items() if vc.shape == va.shape})
    # Two renamings in a chain, at once: arguments given in the order of another function's parameters
    # (attention_weights(X, omega_v, omega_q, ...) where (X, omega_q, omega_k, ...) is due: q read as v, k as q).
    # Few, and tried after the renamings alone: an input for another (which the renamings' changes include) is
    # as likely, but those are many, and the limit would leave these out
    for (s1, t1), m1 in letters.items():
        for (s2, t2), m2 in letters.items():
            if t2 == s1 and s2 != t1 and m1 and m2 and not set(m1) & set(m2):
                add(shifted, {**m1, **m2})
    # (a swap after one input in place of another: keys made with omega_q while the queries are right is that one
    # substitution, not omega_q and omega_k swapped)
    return (renamed + shifted + single + swapped + grouped)[:limit], paths


def _substituted(m):
    """(what was used, in place of what) for {input: the input used in its place}: "`gamma` and `beta` swapped", ""
    for two swapped; else "the inputs `omega_v1` and `beta_v1`", "`omega_q1` and `beta_q1`"."""
    if len(m) == 2 and all(m.get(b) == a for a, b in m.items()):
        return f"`{diagnose.listing(list(m))}` swapped".replace(" and ", "` and `"), ""
    used = [f"`{b}`" for b in dict.fromkeys(m.values())]
    return f"the input{'s' if len(used) > 1 else ''} {diagnose.listing(used)}", diagnose.listing([f"`{a}`" for a in m])


def _trials(steps, values, inputs, open_, limit=160):
    """What a student may have used in place of what is due, as (what was used, in place of what, the inputs,
    {step name: value} to put in place of a step's): one input for another (keys projected from the queries,
    gamma1 and beta1 for gamma2 and beta2), an input transposed, and a known value (an input, another step)
    for a step that an open step is computed from (the MLP given the block's input `x`, where the first
    LayerNorm's output is due)."""
    replaced = getattr(course(), "replaced", None)
    below = _below(steps)
    made_from = sorted({j for i in open_ for j in range(len(steps)) if i in below[j]})
    # A right step that updates an input of its name (Adam's new m, from m), with that input, the old value, in its
    # place: the likeliest slip of all, tried first. (m_hat made from m is also m_hat with m in place of grad, as
    # b1 m + (1 - b1) m = m: round 14's i09 was told that.)
    for j in [j for j in made_from if j not in open_] if replaced is not None else ():
        for n, v in (inputs or {}).items():
            if isinstance(v, np.ndarray) and v.shape == values[j].shape and v.dtype.kind == "f" \
                    and re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", steps[j].name) \
                    and not np.array_equal(v, values[j]):
                yield f"the input `{n}`", _the(steps[j].name), inputs, {steps[j].name: v}, None
    subs, paths = _substitutions(inputs)
    for m in subs:
        yield (*_substituted(m), _with(inputs, m, paths), None, (m, paths))
    for n, v in (inputs or {}).items():
        if isinstance(v, np.ndarray) and v.ndim == 2 and v.shape[0] == v.shape[1] and v.dtype.kind == "f" \
                and not np.allclose(v, v.T):
            yield f"`{n}.T`", f"`{n}`", {**inputs, n: v.T}, None, None
    # A right step's value in place of an input (keys projected from the queries, where the tokens are due)
    right = [j for j in range(max(open_, default=-1)) if j not in open_ and not _few(values[j])]
    for j in right:
        for n, v in (inputs or {}).items():
            w = _in_form_of(values[j], v)
            if w is not None:
                yield _the(steps[j].name), f"`{n}`", {**inputs, n: w}, None, None
    if replaced is None:
        return
    tried = 0
    def kind(name):  # "head 2's queries" and "head 3's queries" are of one kind: a loop's variable holds either
        return re.sub(r"\d+", "#", name)
    for j in made_from:
        # the step a reduction, made over other axes (a sum over the whole matrix where one down each column is
        # due), or without its axes kept, so that it broadcasts along others
        for words, due, r, keepdims in _other_reductions(steps[j], steps, values, inputs, due_too=True):
            tried += 1
            yield (words + ("" if keepdims or not due else " without `keepdims=True`"), due, inputs, {steps[j].name: r},
                   None)
        for label, k in _knowns(j, steps, values, inputs):
            if tried >= limit:
                break
            if k.shape != values[j].shape or _few(k) or bool(course().same(k, values[j])):
                continue
            if any(label.startswith(_the(s.name) + " (") and kind(s.name) == kind(steps[j].name) for s in steps):
                continue  # another head's queries for this head's: its own array, the loop's, is as likely
            tried += 1
            yield label, _the(steps[j].name), inputs, {steps[j].name: k}, None
    # A square step used transposed (V @ A.T where V @ A is due), last: a sum over the other axis of a square step is
    # also its transpose's sum, and is said as the sum. Only a step no finding says is wrong: scores that are the
    # transpose of the right ones are said so already ("keys and queries swapped"), and so are the steps after them
    for j in made_from:
        v = values[j]
        if j in open_:
            continue
        if v.ndim >= 2 and v.shape[-1] == v.shape[-2] > 1 and not np.allclose(v, np.swapaxes(v, -1, -2)):
            # (either way round: a .T added where the formula has none, or the formula's own .T left out, as A @ d
            # where dV = A^T @ d is due: "transposed in place of" it reads as the first only)
            yield (f"{_the(steps[j].name)} transposed the other way (a .T added, or the one its formula has left out)",
                   "", inputs, {steps[j].name: np.swapaxes(v, -1, -2)}, None)


def _in_form_of(value, given):
    """`value` in the form of the input `given`, or None when it does not fit: itself for a float array of its shape
    (and other numbers); for a list of arrays that side by side (on their last axis) have its shape, its pieces (01's
    columns of the tokens)."""
    if isinstance(given, np.ndarray):
        ok = given.dtype.kind == "f" and given.shape == value.shape and not np.array_equal(given, value)
        return value if ok else None
    if isinstance(given, list) and given and all(isinstance(g, np.ndarray) and g.ndim >= 1 for g in given):
        try:
            whole = np.concatenate(given, axis=-1)
        except ValueError:
            return None
        if whole.dtype.kind == "f" and whole.shape == value.shape and not np.array_equal(whole, value):
            return np.split(value, np.cumsum([g.shape[-1] for g in given])[:-1], axis=-1)
    return None


def _swapped(steps, values, trace, inputs, remake, open_, returned):
    """{step index: Related} for the steps in `open_` that one of the student's arrays holds as made with
    something in place of what is due (and not as it is due): "your `K` is the keys made with the input
    `queries` in place of `keys`" (see _trials)."""
    if not open_:
        return {}
    given = _given(inputs)
    arrays = [(w, n, a) for w, n, a in trace if np.size(a) >= 2 and not _as_given(a, given)
              and not any(holds(a, v, not _stacked(n)) for v in values)]  # a right step is no attempt at another
    if not arrays:
        return {}
    out = {}
    def made(new_inputs, in_place=None):
        """{step name: value} made from other inputs (or with a value in place of a step's); None if they do not fit."""
        try:
            with np.errstate(all="ignore"), \
                    (course().replaced(in_place) if in_place else contextlib.nullcontext()):
                # (a variance replaced by a mean may be negative: no step, and no warning either)
                return {s.name: np.asarray(s.value, dtype=np.float64) for s in remake(new_inputs)}
        except (ArithmeticError, LookupError, TypeError, ValueError):
            return None  # the steps cannot be made so (shapes that no longer fit)

    def fewest(sub, i, a, name):
        """(used, due) for the fewest of the substitution's inputs that still make step i the student's array: a
        renaming of every head's inputs, of which one head's step uses its own only."""
        m, paths = sub
        for k in list(m):
            if len(m) > 1 and not (len(m) == 2 and m.get(m[k]) == k):
                rest = {c: d for c, d in m.items() if c != k}
                v = (made(_with(inputs, rest, paths)) or {}).get(steps[i].name)
                if v is not None and np.size(a) == v.size and holds(a, v, not _stacked(name)):
                    m = rest
        return _substituted(m)
    for used, due, new_inputs, in_place, sub in _trials(steps, values, inputs, open_):
        other = made(new_inputs, in_place)
        if other is None:
            continue
        for i in open_:
            v = other.get(steps[i].name)
            if in_place and steps[i].name in in_place:
                continue  # the step itself replaced: no step is "made with" what is put in its place
            if i in out or v is None or (v.shape == values[i].shape and bool(course().same(v, values[i]))):
                continue
            if not np.max(np.abs(v), initial=0) > 100 * course().ATOL:
                continue  # near zero: any array near zero (a key bias's gradient) would "equal" it
            last = returned is not None and i == len(steps) - 1
            for where, name, a in arrays:
                if np.size(a) == v.size and (not last or np.array_equal(a, returned)) and holds(a, v, not _stacked(name)):
                    said, instead = fewest(sub, i, a, name) if sub and len(sub[0]) > 2 else (used, due)
                    out[i] = _tie(Related(f"{_yours(where, name)} is {_the(steps[i].name)} made with {said}"
                                          + (f" in place of {instead}" if instead else "")), a)
                    break
        if len(out) == len(open_):
            break
    return out


def _another_slice(a, step, inputs):
    """ "features 2 to 3 of the input `q`, where features 5 to 6 are due", when the student's array is another
    slice, as long, of the input the step is a slice of; else None."""
    if not step.slices:
        return None
    name, axis = step.slices
    x = (inputs or {}).get(name)
    want = np.asarray(step.value, dtype=np.float64)
    if not isinstance(x, np.ndarray) or np.shape(a) != want.shape or x.ndim != want.ndim:
        return None
    x = np.asarray(x, dtype=np.float64)
    n, size = want.shape[axis], x.shape[axis]

    def window(start):
        return x.take(range(start, start + n), axis=axis)
    starts = [s for s in range(size - n + 1) if bool(course().same(a, window(s)))]
    due = [s for s in range(size - n + 1) if bool(course().same(want, window(s)))]
    if len(starts) != 1 or len(due) != 1 or starts == due:
        return None
    what = step.axes[axis] if len(step.axes) == want.ndim else "entries"
    return (f"{what} {starts[0] + 1} to {starts[0] + n} of the input `{name}`, where {what} {due[0] + 1} to "
            f"{due[0] + n} are due")


def _normalised_in_blocks(a, steps, values):
    """{i: "normalised over all 12 of its keys at once, ..."} for the first step i whose weights (summing to one along
    an axis of n) are a block of n along that axis of the student's array, scaled by a number for each
    distribution, where the whole array sums to one along it: several distributions normalised as one (two
    heads' scores stacked, then one softmax). Else {}."""
    for i, (step, want) in enumerate(zip(steps, values)):
        if a.ndim != want.ndim or a.ndim == 0 or not np.all(np.isfinite(a)):
            continue
        for axis in range(a.ndim):
            n, m = want.shape[axis], a.shape[axis]
            if n < 2 or m % n or m == n or a.shape[:axis] + a.shape[axis + 1:] != want.shape[:axis] + want.shape[axis + 1:] \
                    or not diagnose._sums_to_one(want, axis) or not diagnose._sums_to_one(a, axis):
                continue
            for j in range(m // n):
                block = a.take(range(j * n, (j + 1) * n), axis=axis)
                factor = block.sum(axis=axis, keepdims=True)  # what the block's share of each distribution is
                if np.all(factor > 1e-9) and np.any(factor < 1 - 1e-6) and bool(course().same(block / factor, want)):
                    what = step.axes[axis] if len(step.axes) == a.ndim else f"entries along axis {axis}"
                    per = diagnose._singular(step.axes[axis - 1]) if len(step.axes) == 2 == a.ndim else "distribution"
                    return {i: (f"normalised over all {m} of its {what} at once, where {_the(step.name)} are "
                                f"normalised over their own {n}: its {what} {j * n + 1} to {(j + 1) * n} are the right "
                                f"ones times a number below one for each {per}")}
    return {}


def _another_row(a, step):
    """ "tok_emb[token] + pos_emb[3], where pos_emb[4] is due (t, the number of tokens cached)", when the student's
    array is the step's sum with another row of one of its tables (Step.rows); else None."""
    for name, table, row, why, rest in step.rows:
        table = np.asarray(table, dtype=np.float64)
        if np.shape(a) != table.shape[1:]:
            continue
        others = [j for j in range(len(table)) if bool(course().same(a, table[j] + rest))]
        if len(others) == 1 and others[0] != row and not bool(course().same(table[others[0]], table[row])):
            return f"made with {name}[{others[0]}] where {name}[{row}] is due ({why})"
    return None


def _read_in_memory_order(a, step, want):
    """ "the right gradient of the queries dQ, of shape (2, 2, 4, 3), reshaped straight to (2, 4, 6): ...", when
    the student's array is the step's numbers in their memory order under a shape that does not keep its axes
    whole (heads merged by a reshape without the transpose before it: `_regroups`); else None."""
    a = np.asarray(a)
    if a.size != want.size or a.shape == want.shape or _regroups(a.shape, want.shape) or _few(want) \
            or not np.all(np.isfinite(a)) or a.dtype.kind not in "biuf":
        return None
    if np.squeeze(a).shape == np.squeeze(want).shape[::-1] and np.squeeze(a).ndim == 2 and \
            bool(course().same(np.squeeze(a).T, np.squeeze(want))):
        return None  # the transpose, which _forms already reads as the step
    if not bool(course().same(a.reshape(want.shape), want)):
        return None
    said = f"the right {step.name.removeprefix('the ')}, of shape {want.shape}, reshaped straight to {a.shape}"
    if sorted(a.shape) != sorted(want.shape):  # no axes moved: the reshape's sizes are not the ones due
        return f"{said}: take each size the reshape asks for from the arguments' shapes"
    return (f"{said}: a reshape keeps the entries in their order, so axes that change places must be moved first "
            "(np.transpose), then reshaped")


def _broadcast(a, want):
    """ "made of 4 x 4 matrices whose diagonals hold the right values, ..." (diagnose.broadcast_pairs) for the
    step's value as it is, or as a list of its columns (01's loop appends a column a token); else None."""
    want = np.asarray(want, dtype=np.float64)
    forms = [want] + ([np.swapaxes(want, -1, -2)[..., None]] if want.ndim == 2 else [])
    return next((said for w in forms if np.ndim(a) >= 2 and (said := diagnose.broadcast_pairs(np.asarray(a), w))),
                None)


def _entrywise(a, step, steps, values):
    """ "not np.maximum(0, h) (h: the hidden pre-activations) where h is negative: at h = -0.52 it holds -0.16, where
    0 is due", when the step is a function of an earlier one entry by entry (Step.entrywise) and the student's array,
    of its shape, differs from it and is a function of h (below); else None."""
    if not step.entrywise or np.shape(a) != np.shape(step.value) or not np.all(np.isfinite(a)):
        return None
    name, function = step.entrywise
    h = _step_value(steps, values, name)
    want = np.asarray(step.value, dtype=np.float64)
    if h is None or h.shape != want.shape:
        return None
    scale = max(float(np.max(np.abs(want))), 1.0)
    off = np.abs(a - want) > course().ATOL + course().RTOL * np.abs(want) + 1e-9 * scale
    # A function of h entry by entry, as a student writes one, rises and falls with h a few times at most (a GELU
    # falls, then rises); an array made from other numbers (the pre-activations without their bias) goes up and
    # down from one entry to the next when read in the order of h
    rises = np.sign(np.diff(a.ravel()[np.argsort(h.ravel(), kind="stable")]))
    if not off.any() or np.count_nonzero(np.diff(rises[rises != 0]) != 0) > 2:
        return None
    signs = [w for w, where in (("negative", h < 0), ("positive", h > 0)) if (off & where).any()]
    k = np.unravel_index(np.argmax(np.where(off, np.abs(a - want), -1)), want.shape)
    return (f"not {function} (h: the {name}) where h is {' or '.join(signs)}: at h = {h[k]:.3g} it holds "
            f"{a[k]:.3g}, where {want[k]:.3g} is due")


def _few(value):
    """Whether an array holds two different numbers or fewer (a mask of 0s and 1s): equal to another such
    array by chance too often to say that one was taken for the other."""
    value = np.asarray(value)
    return value.size >= 2 and np.unique(value).size <= 2


class Tie(str):
    """What ties one of the student's arrays to a step, in words; `array` is that array."""
    array = None


class UsedInstead(Tie):
    """A step the student made right, in the array `right` ("your `log_p`"), while the steps after it are made from
    another array of theirs (the logits only shifted): the step is said right, and what was used in its place."""
    right = ""


class Related(Tie):
    """What an attempt at a step is, said as known values (engine/steps._related): more than any structural
    finding on the result says."""


class Known(Related):
    """A Related found by `_related`: the attempt equals a sum of values the grader knows. first_wrong gives it as
    its second item. On one case such a sum can hold by chance (08's counts: with H = 2, H T^2 D is also the
    attention's count less the projections'): the verdict says it only when every other wrong case ties the same
    words (protocol._step_finding)."""


class Sliced(Tie):
    """A tie by some slices of the array right and the others wrong (diagnose.Slices): on one case it can be
    chance, so when a step before it is not shown right, the verdict says it only when every other wrong case the
    steps describe ties an array too (protocol._step_finding). Round 15's l04: head 2's keys unseen (head 1's,
    kept once), and its output, right in one token of six where the weights were one-hot, told as its values."""


def _tie(text, a):
    """`text` as a Tie (or the Related it is) to the array `a`."""
    tie = text if isinstance(text, Tie) else Tie(text)
    tie.array = a
    return tie


def _knowns(i, steps, values, inputs):
    """What an attempt at step i may have been made from by mistake, as the verdict calls it: the case's
    arrays ("the input `x`") and the reference's steps not computed from step i ("the stacked heads
    (np.vstack ...)"): the one-hot targets are the probabilities minus (probabilities minus one-hot), and
    are no attempt at the probabilities."""
    for name, value in (inputs or {}).items():
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.size >= 2:
            yield f"the input `{name}`", np.asarray(value, dtype=np.float64)
    after = {i} | _below(steps)[i]  # step i and the steps computed from it: not what an attempt at it is made of
    for j, (step, value) in enumerate(zip(steps, values)):
        if j not in after:
            yield f"{_the(step.name)} ({step.formula})", value


def _candidates(i, want, steps, values, inputs):
    """[(label, value in the form of step i, whether it is a multiple of step i)]: the known values an attempt
    at step i may be, whatever the attempt (`_related` tries them on each of the student's arrays)."""
    same = course().same
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    out = []
    for label, value in _knowns(i, steps, values, inputs):
        if _few(value):
            continue
        k = next(_forms(value, want), None)
        if k is None or not np.isfinite(k).all() or float(np.max(np.abs(k))) <= 1e-6 * max(scale, 1.0):
            continue
        if bool(same(k, want)):  # a value equal to the right one explains nothing
            continue
        c = float(np.vdot(k, want)) / max(float(np.vdot(want, want)), 1e-300)
        multiple = want.size > 1 and np.allclose(k, c * want, rtol=1e-9, atol=1e-12 * max(scale, 1.0))
        out.append((label, k, multiple))
    return out


def _related(g, want, i, steps, values, inputs, candidates=None):
    """What the student's attempt `g` at step i is, when it is something the grader knows: another value
    itself (the values left as the input `X`, a step skipped or taken too early), or the right step plus or
    minus one (a residual added inside a function, a term added twice). A fact about the numbers; the
    step it is an attempt at says where. None when nothing known fits. `candidates`: step i's
    `_candidates`, when the caller keeps them for the next array.

    A part with many steps (09's train_step knows ~100 values) would compare each array with ~10^4 sums:
    each sum is first tested on a few entries (`_may_hold`), and only those that pass are compared whole."""
    same = course().same
    candidates = _candidates(i, want, steps, values, inputs) if candidates is None else candidates
    y, w = _entries(g, want.size), _entries(want, want.size)
    k = [_entries(c[1], want.size) for c in candidates]
    if y is None or w is None or not k or any(e is None for e in k):  # nothing to line up: compare whole
        k = None
    else:
        k = np.stack(k)  # (candidates, entries)
    test = (lambda made: np.ones(made.shape[:-1], dtype=bool)) if k is None else (lambda made: _may_hold(y, made))
    equal = test(k) if k is not None else test(np.zeros((len(candidates), 1)))
    known = []
    for n, (label, value, multiple) in enumerate(candidates):
        if equal[n] and bool(same(g, value)):
            return f"it equals {label}"
        if multiple:
            continue  # a multiple of the right one: "c times the right one" says it better (any number is one
            # of another: not a reason to leave a count's part out)
        known.append(n)
    words = steps[i].name.removeprefix("the ")
    for sign, word in ((1, "plus"), (-1, "minus")):
        held = test(w + sign * k) if k is not None else test(np.zeros((len(candidates), 1)))
        for n in known:
            label, value, _ = candidates[n]
            # Not "minus an input": the right step less an input is how a right answer may build it
            # (x @ W1 before its bias b1 is added), no attempt at it
            if held[n] and (sign > 0 or not label.startswith("the input")) and bool(same(g, want + sign * value)):
                return f"it is the right {words} {word} {label}"
    # The right step plus a known value squared: a variance taken about 0 rather than about the mean is the mean
    # of x^2 = the variance + the mean^2 (a spread measured from the wrong centre, whatever the part)
    held = test(w + k ** 2) if k is not None else test(np.zeros((len(candidates), 1)))
    for n in known:
        label, value, _ = candidates[n]
        if held[n] and not label.startswith("the input") and bool(same(g, want + value ** 2)):
            return f"it is the right {words} plus the square of {label}"
    # One term in place of another (a residual added to the normalised input instead of the input):
    # g = want - k1 + k2, both known and different
    if k is not None:
        pairs = test(w - k[known][:, None, :] + k[known][None, :, :])  # (a, b): want - known[a] + known[b]
    else:
        pairs = np.ones((len(known), len(known)), dtype=bool)
    for a, b in zip(*np.nonzero(pairs)):
        (label1, k1, _), (label2, k2, _) = candidates[known[a]], candidates[known[b]]
        if label1 != label2 and not bool(same(k1, k2)) and bool(same(g, want - k1 + k2)):
            return f"it is the right {words} with {label1} in it replaced by {label2}"
    return None


ENTRIES = 4  # how many entries the quick test of `_related` looks at


def _entries(x, size):
    """A few entries of x (the first, the last and between) as float64, or None when x does not hold `size`
    numbers (then `same` cannot line it up with the step either)."""
    flat = np.ravel(np.asarray(x, dtype=np.float64))
    if flat.size != size or size == 0:
        return None
    return flat[_positions(size)]


@functools.lru_cache(maxsize=None)
def _positions(size):
    """The positions `_entries` takes of `size` numbers (made once a size: it is asked for every array)."""
    return np.unique(np.linspace(0, size - 1, ENTRIES).astype(int))


def _may_hold(y, made):
    """Whether `same(g, m)` may hold, for each m of `made` (..., entries), from a few of g's entries `y`: the
    tolerance of `same`, entry by entry as np.allclose tests it (an entry not finite passes). A necessary
    condition only (`same` tests every entry the same way, so what fails here fails there); `same` decides."""
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(y - made) <= course().ATOL + course().RTOL * np.abs(made)
    close |= ~np.isfinite(made) | ~np.isfinite(y)
    return np.all(close, axis=-1)


def _scaled(g, want, inputs):
    """What a single number (a count's part) is against the right one, only when the factor is a size of
    the inputs (a count per head where every head is due): any two numbers are some multiple of each other,
    so another factor ties nothing."""
    c = float(g.ravel()[0]) / float(want.ravel()[0])
    for n in sorted(diagnose._sizes(inputs)):
        if abs(c - n) < 1e-9 * n:
            return f"it is {n} times the right one ({diagnose.size_words(n, inputs)})"
        if abs(c * n - 1) < 1e-9:
            return f"it is 1/{n} of the right one ({diagnose.size_words(n, inputs)})"
    # Whole counts one term of n too few or too many (3 projections counted where there are 4: 3/4): said only
    # when every wrong case has the same ratio (a Known), since one case's ratio may be chance. (Other ratios
    # are left out: a count is some fraction of every other count.)
    whole = float(g.ravel()[0]) == round(float(g.ravel()[0])) and float(want.ravel()[0]) == round(float(want.ravel()[0]))
    ratio = fractions.Fraction(c).limit_denominator(8) if whole and c > 0 else None
    if ratio is not None and ratio.denominator > 1 and abs(ratio.numerator - ratio.denominator) == 1 \
            and abs(c - float(ratio)) < 1e-9:
        return Known(f"it is {ratio} of the right one")
    return None
