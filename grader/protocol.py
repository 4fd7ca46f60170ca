"""Sealed verdicts: the probe that runs in the student's kernel, and the verdict made outside it.

A graded test cell never decides its own score. At grading time its source is
replaced by a probe (`probe_source`) that calls the student's code on inputs
the grader drew a moment ago and reports the raw results (dtype, shape, bytes)
as one display output. After execution, in the grading process, `verdict`
decodes those results, compares them with `grader.reference` on the grader's
own copy of the inputs, names the mistake when it recognises one, and
`verdict_outputs` turns that into the outputs nbgrader scores: an error for
zero, a number for partial credit, a plain message for full marks.

Nothing the kernel does can change the inputs the grader compares against, so
patching numpy, `assert` helpers or `__eq__` in the kernel cannot earn a mark:
the only way to get the grader's numbers is to compute them.
"""
import base64
import io
import json
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

MIME = "application/vnd.attention-course.probe+json"
from .notebook_checks import _same  # one meaning of "matches", in notebooks and in verdicts
MAX_ELEMENTS = 1_000_000           # a result larger than this is not an answer to any part of this course
NUMERIC_KINDS = "biuf"


@dataclass
class Case:
    """One set of inputs: the book's ("book") or drawn at grading time ("fresh")."""
    label: str
    inputs: dict
    about: str = ""                # what a student may be told about it, e.g. "D=6, N=5"


@dataclass
class Mistake:
    """A named wrong answer: the result it gives (or the error it raises), and what to tell the student."""
    name: str
    message: str
    compute: Callable[[dict], Any] = None   # the mistaken result on these inputs
    raises: str = ""                        # or: words of the error the mistake raises

    @property
    def said(self):
        """How a check shows it: the name, then what to do."""
        return f"{self.name}: {self.message}"


@dataclass
class Probe:
    """How one graded test cell is probed and marked.

    Exactly one of `call` (an expression evaluated in the kernel's globals plus
    the case inputs) and `cell` (the grade_id of a solution cell whose source is
    run in a fresh namespace holding the case inputs) is given.
    """
    what: str                               # how the student knows the part: "self_attention", "the loop over tokens"
    cases: Callable[[np.random.Generator], list]
    reference: Callable[[dict], Any]
    call: str = ""
    cell: str = ""
    outputs: tuple = ()                     # for `cell`: the variables read back after it ran
    from_kernel: tuple = ()                 # for `cell`: names taken from the kernel (e.g. the student's softmax)
    mistakes: list = field(default_factory=list)
    # The share of the marks earned, from the cases and each case's reason (None = right).
    # Default: the book's case is a third, the fresh cases share the rest (see `_weights`).
    marks: Callable[[list, list], float] = None
    # Answers that repeat from input to input by nature (a checker's True/False): an answer equal to
    # the book case's is then no sign of a hard-coded result, and that rule is not applied.
    answers_repeat: bool = False


# --------------------------------------------------------------------------
# Encoding shared by both sides. The kernel side is written out as source in
# `probe_source`, so it stays independent of this package.

def encode(value):
    """An input for the kernel: arrays as .npy bytes, lists recursively, numbers and strings as they are."""
    if isinstance(value, (list, tuple)):
        return {"list": [encode(v) for v in value]}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {"number": value}
    if isinstance(value, str):
        return {"text": value}
    buf = io.BytesIO()
    np.save(buf, np.asarray(value), allow_pickle=False)
    return {"npy": base64.b64encode(buf.getvalue()).decode("ascii")}


HARD_CODED = "hard-coded result"   # recognised by the protocol itself, in every part
BOOK_ONLY = "right on the book's case only"  # likewise: the book's answer is printed in the notebook


class BadResult(Exception):
    """The kernel reported something that is not a result (or not one we accept)."""


def decode_result(obj):
    """A result reported by the kernel: float64 arrays, lists of them, or a BadResult."""
    if not isinstance(obj, dict):
        raise BadResult("the probe's report is malformed")
    if "list" in obj:
        if not isinstance(obj["list"], list):
            raise BadResult("the probe's report is malformed")
        return [decode_result(v) for v in obj["list"]]
    if "type" in obj:
        raise BadResult(f"it is a {str(obj['type'])[:60]}, not an array of numbers")
    try:
        dtype = np.dtype(str(obj["dtype"]))
        shape = tuple(int(n) for n in obj["shape"])
        data = base64.b64decode(obj["data"], validate=True)
    except (KeyError, TypeError, ValueError) as e:
        raise BadResult("the probe's report is malformed") from e
    if dtype.kind not in NUMERIC_KINDS or dtype.hasobject:
        raise BadResult(f"it has dtype {dtype}, not numbers")
    if any(n < 0 for n in shape) or int(np.prod(shape)) > MAX_ELEMENTS:
        raise BadResult(f"it has shape {shape}, far too large")
    if int(np.prod(shape)) * dtype.itemsize != len(data):
        raise BadResult("the probe's report is malformed")
    return np.frombuffer(data, dtype=dtype).reshape(shape).astype(np.float64)


# --------------------------------------------------------------------------
# The kernel side.

_KERNEL_SIDE = r'''
def __course_probe(request):
    import base64, builtins, contextlib, io, json, warnings
    import numpy
    from IPython.display import display

    def decode(obj):
        if "list" in obj:
            return [decode(v) for v in obj["list"]]
        if "number" in obj:
            return obj["number"]
        if "text" in obj:
            return obj["text"]
        return numpy.load(io.BytesIO(base64.b64decode(obj["npy"])), allow_pickle=False)

    def encode(value):
        if isinstance(value, (list, tuple)):
            return {"list": [encode(v) for v in value]}
        try:
            a = numpy.asarray(value)
        except Exception:
            return {"type": type(value).__name__}
        if a.dtype.kind not in "biuf":
            return {"type": type(value).__name__ + " of " + str(a.dtype)}
        a = numpy.ascontiguousarray(a)
        return {"dtype": a.dtype.str, "shape": list(a.shape),
                "data": base64.b64encode(a.tobytes()).decode("ascii")}

    kernel = globals()
    results = []
    for case in request["cases"]:
        inputs = {name: decode(v) for name, v in case.items()}
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if request["call"]:
                    value = eval(request["call"], dict(kernel, **inputs))
                else:
                    space = {"np": numpy, "__builtins__": builtins}
                    space.update({n: kernel[n] for n in request["from_kernel"] if n in kernel})
                    space.update(inputs)
                    exec(request["cell"], space)
                    missing = [n for n in request["outputs"] if n not in space]
                    if missing:
                        raise NameError("your cell did not set " + ", ".join(missing))
                    value = [space[n] for n in request["outputs"]]
            results.append({"ok": True, "value": encode(value)})
        except (Exception, SystemExit) as e:
            results.append({"ok": False, "error": (type(e).__name__ + ": " + str(e))[:300]})
    display({"%(mime)s": {"results": results}}, raw=True)
'''


def probe_source(probe: Probe, cases: list, cell_source: str = "") -> str:
    """The source of a graded cell at grading time: the probe, its inputs, and a closing error.

    The error is there so that a cell whose outputs were not replaced by
    `verdict_outputs` (a grader that is not wired in) scores zero, never full marks.
    """
    if probe.cell:
        from IPython.core.inputtransformer2 import TransformerManager
        cell_source = TransformerManager().transform_cell(cell_source)
    request = {
        "call": probe.call,
        "cell": cell_source,
        "outputs": list(probe.outputs),
        "from_kernel": list(probe.from_kernel),
        "cases": [{name: encode(v) for name, v in c.inputs.items()} for c in cases],
    }
    return (
        "# Sealed probe, written by the course grader: your code runs on inputs drawn now;\n"
        "# the grader marks the results outside this kernel.\n"
        + _KERNEL_SIDE.replace("%(mime)s", MIME)
        + f"__course_probe(__import__('json').loads({json.dumps(json.dumps(request))}))\n"
        + "raise RuntimeError('sealed probe: awaiting the grader\\'s verdict')\n"
    )


# --------------------------------------------------------------------------
# The grader side.

def compare(got, want, names=None):
    """None when `got` matches `want`, else a short reason. Singleton axes are ignored.

    `names` labels the items of a top-level list (the variables a cell sets).
    """
    if isinstance(want, list):
        if isinstance(got, np.ndarray) and got.ndim >= 1 and len(got) == len(want):
            got = list(got)
        if not isinstance(got, list):
            return f"expected a list of {len(want)}, got an array"
        if len(got) != len(want):
            return f"expected a list of {len(want)} items, got {len(got)}"
        for i, (g, w) in enumerate(zip(got, want)):
            why = compare(g, w)
            if why:
                label = names[i] if names else f"[{i}]"
                return label + (why if why.startswith("[") else ": " + why)
        return None
    if isinstance(got, list):
        try:
            got = np.array(got, dtype=np.float64)
        except ValueError:
            return "expected an array, got a ragged list"
    want = np.asarray(want, dtype=np.float64)
    g, w = np.squeeze(got), np.squeeze(want)
    if g.shape != w.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if not np.all(np.isfinite(g)):
        return "it contains nan or inf"
    if not _same(g, w):
        if g.size == 1:
            return f"got {g.item():.6g}, expected {w.item():.6g}"
        return f"wrong values (largest difference {np.max(np.abs(g - w)):.3g})"
    return None


@dataclass
class Verdict:
    score: float          # points earned
    points: float         # points available
    message: str          # one line a student can act on
    mistake: str = None   # the catalogued mistake's name, when one was recognised


def verdict(probe: Probe, cases: list, outputs: list, points: float) -> Verdict:
    """Mark what the kernel reported for `cases` against the reference."""
    what = probe.what
    reported = [o for o in outputs if o.get("output_type") == "display_data" and MIME in o.get("data", {})]
    if len(reported) != 1:
        errors = [o for o in outputs if o.get("output_type") == "error"]
        timed_out = any("Timeout" in str(o.get("ename", "")) for o in errors)
        why = ("it did not finish within the time limit" if timed_out else
               "the probe could not report: did your code redefine display, print or the kernel's hooks?")
        return Verdict(0.0, points, f"{what}: not graded, {why}")
    try:
        results = reported[0]["data"][MIME]["results"]
        assert isinstance(results, list) and len(results) == len(cases)
    except (KeyError, TypeError, AssertionError):
        return Verdict(0.0, points, f"{what}: not graded, the probe's report is malformed")

    got, reasons = [], []
    for case, result in zip(cases, results):
        want = probe.reference(case.inputs)
        if not isinstance(result, dict) or not result.get("ok"):
            error = str(result.get("error", "no result")) if isinstance(result, dict) else "no result"
            got.append(None)
            reasons.append(f"raised {error}")
            continue
        try:
            value = decode_result(result.get("value"))
        except BadResult as e:
            got.append(None)
            reasons.append(str(e))
            continue
        got.append(value)
        reasons.append(compare(value, want, probe.outputs or None))

    # A result that does not change when the input does is hard-coded: no marks at all.
    book = [g for c, g in zip(cases, got) if c.label == "book"]
    if not probe.answers_repeat and book and book[0] is not None and any(
        c.label == "fresh" and g is not None and compare(g, book[0]) is None
        and compare(probe.reference(c.inputs), book[0]) is not None
        for c, g in zip(cases, got)
    ):
        return Verdict(0.0, points, f"{what}: on fresh inputs it returns the book's answer unchanged "
                                    "(a hard-coded result?): it must compute from its arguments", HARD_CODED)

    # Right on the book's case and wrong on every fresh input, for no reason the grader knows:
    # the notebook prints the book's answer, so being right there alone earns nothing. (A
    # catalogued mistake that only shows on other sizes, like the notebook's global D, keeps
    # the book's third.)
    book_ok = [why is None for c, why in zip(cases, reasons) if c.label == "book"]
    fresh_ok = [why is None for c, why in zip(cases, reasons) if c.label == "fresh"]
    if not probe.marks and not probe.answers_repeat and book_ok and all(book_ok) and fresh_ok and not any(fresh_ok):
        mistake = _recognised(probe, cases, got, reasons)
        if not _right_on_the_book_case(probe, mistake, cases):
            return Verdict(0.0, points, f"{what}: " + _explain(cases, reasons) + ". It is right on the book's "
                           "case only, whose answer the notebook prints: that alone earns nothing", BOOK_ONLY)

    if probe.marks:
        share = probe.marks(cases, reasons)
    else:
        share = sum(w for w, why in zip(_weights(cases), reasons) if why is None)
    score = round(points * min(max(share, 0.0), 1.0), 2)
    if all(why is None for why in reasons):
        return Verdict(points, points, f"{what}: right on the book's case and on "
                                       f"{sum(c.label == 'fresh' for c in cases)} fresh inputs")
    mistake = _recognised(probe, cases, got, reasons)
    if mistake:
        return Verdict(score, points, f"{what}: {mistake.said}", mistake.name)
    return Verdict(score, points, f"{what}: " + _explain(cases, reasons))


def _right_on_the_book_case(probe, mistake, cases):
    """Whether this mistake, made honestly, gives the right answer on the book's case (the global D does)."""
    if mistake is None or mistake.compute is None:
        return False
    for case in cases:
        if case.label == "book":
            try:
                if compare(np.asarray(mistake.compute(case.inputs)), probe.reference(case.inputs)) is not None:
                    return False
            except Exception:
                return False
    return True


def _weights(cases):
    """The book's case is a third of the marks, the fresh inputs share the rest."""
    n_book = sum(c.label == "book" for c in cases)
    n_fresh = len(cases) - n_book
    share = {"book": (1 / 3 if n_fresh else 1.0) / max(n_book, 1),
             "fresh": (2 / 3 if n_book else 1.0) / max(n_fresh, 1)}
    return [share[c.label] for c in cases]


def recognise(mistake, inputs, value, why):
    """Whether a wrong result (or the error it raised) is this mistake's."""
    if value is None:
        return bool(mistake.raises) and why.startswith("raised") and mistake.raises in why
    if mistake.compute is None:
        return False
    try:
        mistaken = mistake.compute(inputs)
    except Exception:  # a mistake that cannot be made on these inputs is not this one
        return False
    return _same_with_nan(value, mistaken)


def _same_with_nan(got, want):
    """Equal, where nan and inf must stand in the same places (a mistaken result may hold them)."""
    if isinstance(want, list) or isinstance(got, list):
        if not (isinstance(want, list) and isinstance(got, list)) or len(got) != len(want):
            return False
        return all(_same_with_nan(g, w) for g, w in zip(got, want))
    return bool(_same(np.asarray(got, dtype=float), np.asarray(want, dtype=float)))


def _recognised(probe, cases, got, reasons):
    """The first catalogued mistake that explains a wrong case, if any."""
    for case, value, why in zip(cases, got, reasons):
        if why is None:
            continue
        for mistake in probe.mistakes:
            if recognise(mistake, case.inputs, value, why):
                return mistake
    return None


def _explain(cases, reasons):
    """One line: what was wrong where, when no catalogued mistake explains it."""
    book_ok = [why is None for c, why in zip(cases, reasons) if c.label == "book"]
    fresh = [(c, why) for c, why in zip(cases, reasons) if c.label == "fresh"]
    bad = [(c, why) for c, why in zip(cases, reasons) if why is not None]
    parts = []
    if book_ok:
        parts.append("right on the book's case" if all(book_ok) else "wrong on the book's case")
    if fresh:
        parts.append(f"right on {sum(why is None for _, why in fresh)} of {len(fresh)} fresh inputs")
    c, why = bad[0]
    where = "the book's case" if c.label == "book" else f"fresh input ({c.about})" if c.about else "a fresh input"
    return "; ".join(parts) + f". On {where}: {why}"


def verdict_outputs(v: Verdict) -> list:
    """The outputs nbgrader scores: error = zero, a number = partial credit, a message alone = full marks."""
    message = {"output_type": "stream", "name": "stdout", "text": v.message + "\n"}
    if v.score >= v.points:
        return [message]
    if v.score <= 0:
        return [{"output_type": "error", "ename": "NoMarks", "evalue": v.message,
                 "traceback": [f"No marks: {v.message}"]}]
    return [message, {"output_type": "execute_result", "execution_count": None, "metadata": {},
                      "data": {"text/plain": f"{v.score:g}"}}]
