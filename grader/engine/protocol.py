"""Sealed verdicts: the probe that runs in the student's kernel, and the verdict made outside it.

A graded test cell never decides its own score. At grading time its source is
replaced by a probe (`probe_source`) that calls the student's code on inputs
the grader drew a moment ago and reports the raw results (dtype, shape, bytes)
as one display output. After execution, in the grading process, `verdict`
decodes those results, compares them with the course's reference on the grader's
own copy of the inputs, names the mistake when it recognises one, and
`verdict_outputs` turns that into the outputs nbgrader scores: an error for
zero, a number for partial credit, a plain message for full marks.

Nothing the kernel does can change the inputs the grader compares against, so
patching numpy, `assert` helpers or `__eq__` in the kernel cannot earn a mark:
the only way to get the grader's numbers is to compute them.
"""
import base64
import functools
import inspect
import io
import json
import math
import re
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np

MIME = "application/vnd.attention-course.probe+json"
from .courseware import course  # course().same: one meaning of "matches", in notebooks and in verdicts
MAX_ELEMENTS = 1_000_000           # a result larger than this is not an answer to any part of this course
MAX_DEPTH = 8                      # lists nested deeper than this are no answer either
# The student's intermediate arrays a probe sends back for a part that declares its steps (Probe.steps):
# at most this many, of at most TRACE_SIZE entries each and TRACE_BYTES in all, for each case, from the
# functions the part's function calls, and TRACE_OWN more (TRACE_BYTES again) from that function itself.
TRACE_COUNT, TRACE_SIZE, TRACE_BYTES = 64, 20_000, 1_000_000
TRACE_OWN = 192  # the count for the function the probe calls: 09's train_step holds 22 parameters, their
# gradients and Adam's two moments
NUMERIC_KINDS = "biuf"


@dataclass(frozen=True)
class Trait:
    """A named property a case's inputs have or lack (Case.traits), in the words a verdict says of a set of
    cases: "wrong on exactly the inputs where {has}, right on those where {lacks}". `note`, when given, is a
    true statement about the task the fact bears on, said after it ("equivariance compares f(X P) with
    f(X) P"): never a guess at the student's code."""
    has: str
    lacks: str
    note: str = ""


@dataclass
class Case:
    """One set of inputs: the book's ("book") or drawn at grading time ("fresh")."""
    label: str
    inputs: dict
    about: str = ""                # what a student may be told about it, e.g. "D=6, N=5"
    # Inputs the grader keeps to itself: never sent to the kernel, given to `Probe.judge` with the rest
    # (notebook 09's fresh sequences on which a trained model is judged).
    kept: dict = field(default_factory=dict)
    # {Trait: whether these inputs have it}: properties of the inputs the course computed when it drew them
    # (for 03's checker: the function is equivariant, invariant, broken by one permutation only...). When a
    # part is wrong on exactly the cases that have a trait declared on every case (or exactly those that
    # lack it), or its yes/no answers are exactly a trait, the verdict says so (`_trait_finding`).
    traits: dict = field(default_factory=dict)
    # Seconds the call may run on these inputs (0: no limit but the cell's): for a case the right code does in
    # milliseconds and a method of another order cannot finish (07's backward pass on a model of realistic size,
    # where derivatives taken numerically need a forward pass for each of ~10^5 entries). Past it the call is
    # stopped in the kernel, and the part earns nothing (`_marked`).
    budget: float = 0
    # The one rule of the part this case is drawn to show, when no draw can show it and every catalogued mistake too
    # (11's p that a cumulative sum reaches exactly: only probabilities of one value, 1/m, add up exactly, and in
    # id order they reach p where sorted ones do): the mistakes need not show on it (tests/test_mistakes.py).
    shows: str = ""

    def everything(self):
        """The inputs sent to the kernel and those the grader kept."""
        return dict(self.inputs, **self.kept)


@dataclass
class Mistake:
    """A named wrong answer: the result it gives (or the error it raises), and what to tell the student."""
    name: str
    message: str
    compute: Callable[[dict], Any] = None   # the mistaken result on these inputs
    raises: str = ""                        # or: words of the error the mistake raises
    # The mistake as a wrong version of the part's own function (same arguments, same kind of result): a part
    # that calls this one (Probe.uses) draws its fresh inputs so that this helper changes its result
    # (Probe.reference_with), and a student with this helper is then told that part is right once it is fixed.
    function: Callable = None

    @property
    def said(self):
        """How a check shows it: the name, then what to do."""
        return f"{self.name}: {self.message}"


@dataclass
class Step:
    """One named intermediate value of the reference (Probe.steps): `name` in the notebook's words ("the
    scores"), `formula` as the notebook writes it ("K.T @ Q"), `value` on this case's inputs, and `axes`,
    plural names of its axes for what a finding says of a student's array that should equal it."""
    name: str
    formula: str
    value: Any
    axes: tuple = ()
    uses: tuple = None     # the names of the steps it is computed from; None: the step before it
    # Whether any change of it changes the result: a softmax's shift does not (that is why it may be made),
    # so it cannot be seen there, and the property test of tests/test_steps.py leaves it out.
    moves_result: bool = True
    # A step that reduces an input or an earlier step over some of its axes (a LayerNorm's mean, a softmax's column
    # maxima, the column sums of A * dA): (the input's or step's name, the reduction in words, the numpy function,
    # the axes it reduces). An array of the student's that is the same reduction over other axes, or a result
    # made with one (or with the due one not keeping its axes), is then said to be that.
    reduces: tuple = None
    # Whether this step being right shows that the steps it is computed from are: not when it hides a change of
    # them (a square hides a sign; Adam's step from zero moments hides a scale of the gradient).
    shows_uses: bool = True
    # A step that is a slice of an input (a head's features): (the input's name, the axis). An array of the
    # student's that is another slice of that input, as long, is then said to be that one.
    slices: tuple = None
    # A step that adds a row of a table (an embedding lookup): ((the table's name, the table, the row due, what the
    # row is, the rest of the sum), ...). An array of the student's that is another row of it plus the same rest
    # (pos_emb[3] where pos_emb[4] is due) is then said to be that row.
    rows: tuple = ()
    # A step that is a function of one earlier step entry by entry (a ReLU): (that step's name, the function in
    # words). An array of the student's of its shape that differs from it is then said to differ where that step is
    # negative, positive or both, with its largest difference: a sigmoid, a GELU or a leaky ReLU in its place.
    entrywise: tuple = None


@dataclass(frozen=True)
class Kept:
    """An array a part leaves beside its result, which must be right too (06's SelfAttention keeps its weights in
    self.attn_weights, which the notebook's heatmap reads): `name` as the student's code holds it, `what` it holds
    in the notebook's words ("the attention weights"), `reference` of a case's inputs. The probe's call reports
    the kept arrays after the result, [result, kept...]; a case whose result is right but a kept array wrong
    earns half its share of the marks (Probe.kept)."""
    name: str
    what: str
    reference: Callable[[dict], Any]


@dataclass
class Probe:
    """How one graded test cell is probed and marked.

    Exactly one of `call` (an expression evaluated in the kernel's globals plus
    the case inputs), `cell` (the grade_id of a solution cell whose source is
    run in a fresh namespace holding the case inputs) and `program` (statements
    the course writes, run as `cell` is) is given.
    """
    what: str                               # how the student knows the part: "self_attention", "the loop over tokens"
    cases: Callable[[np.random.Generator], list]
    reference: Callable[[dict], Any]
    call: str = ""
    cell: str = ""
    program: str = ""
    outputs: tuple = ()                     # for `cell`: the variables read back after it ran
    from_kernel: tuple = ()                 # for `cell`: names taken from the kernel (e.g. the student's softmax)
    mistakes: list = field(default_factory=list)
    # The share of the marks earned, from the cases and each case's reason (None = right).
    # Default: the book's case is a third, the fresh cases share the rest (see `_weights`).
    marks: Callable[[list, list], float] = None
    # Answers that repeat from input to input by nature (a checker's True/False): an answer equal to
    # the book case's is then no sign of a hard-coded result, and that rule is not applied.
    answers_repeat: bool = False
    # Whether the probe reports the answer read against the case's inputs (10's merge_pair: each input word's
    # symbols in the result), so that two answers can report the same numbers on another input: a result
    # equal to the book case's then says nothing certain, and the hard-coded rule is not applied.
    relative: bool = False
    # (a function's name, n): the trace keeps the n-th call of that function only (and what it calls), for a
    # probe that calls the part again and again (11's decode_step, once a token) whose steps describe one call.
    trace_call: tuple = ()
    # The result's shape must be exactly the reference's (a batch axis of length 1 included); by default
    # singleton axes are ignored, as the book itself mixes (D, 1) and (D,).
    exact_shape: bool = False
    # Plural names of the result's axes, for structural findings: ("features", "tokens"), ...
    axes: tuple = ()
    # Other graded parts this one calls: {kernel name: grade_id of the part that grades it}. The probe
    # also runs the cases with the course's version of each (that part's `kernel_reference`) in its
    # place, so a part whose only fault is a wrong helper loses no marks (see `verdict`).
    uses: dict = field(default_factory=dict)
    # Source defining this part's function as the course writes it, put in place of the student's
    # when another part that calls it is graded.
    kernel_reference: str = ""
    # For a part with `uses`: reference_with(inputs, {kernel name: function}) is the reference computed with
    # those functions in place of the course's helpers (reference_with(inputs, {}) == reference(inputs)).
    # Its fresh cases can then be drawn so that each helper mistake with a `Mistake.function` shows through.
    reference_with: Callable[[dict, dict], Any] = None
    # Views that undo what the grader knows (the output projection, the values), for structural
    # findings when the result itself shows nothing simple: (words, view(inputs, result), axes); grader/course/shared/views.py has examples.
    views: tuple = ()
    # For a result that is judged, not compared: (share of the marks, what to tell the student) for one
    # case's decoded result, used in place of comparing with `reference` (notebook 09 judges a trained
    # model by its accuracy on fresh sequences; `reference` is then one right answer, for the tests).
    judge: Callable[[dict, Any], tuple] = None
    # When > 0, a result right within the course's tolerance must also agree with the reference to this
    # fraction of the largest entry of its result (all its arrays together), and `precision_hint` says
    # what to do when it does not. Notebook 07's backward passes: a gradient derived with the chain rule
    # and computed in float64 agrees to about 1e-15; central differences, at any step, reach 1e-11 at best.
    precision: float = 0.0
    precision_hint: str = ""
    # What to do when a case's call is stopped at its budget (Case.budget): said after the fact.
    budget_hint: str = ""
    # The operations the part's code has, among diagnose.OPERATIONS ("dot products", "mask", "bias", "loop"): a
    # finding whose likely cause names another says what the result shows and no more. None: not declared.
    operations: tuple = None
    # The part's own readings of a wrong result, each reading(inputs, result) -> one sentence on what the
    # result is, or None: consulted on the wrong cases before the generic findings, since they know the part
    # (03's generator: which orders are missing, repeated or not permutations; 03's encoding: what its wrong
    # rows are as sines and cosines). A reading says only what is exactly true of this result; one with an
    # `every` parameter also gets every case's (inputs, result), to name a property only when it holds on all.
    readings: tuple = ()
    # The reference's named intermediate values on a case's inputs, in the order it computes them, the last
    # being the result: [diagnose.Step]. The probe then sends back the arrays the student's code makes, and
    # a wrong answer is told which steps are right and the first that is not (engine/steps.py). Words only:
    # the score never depends on them.
    steps: Callable[[dict], list] = None
    # Dictionaries a call hands the student's function (`held`, 10's corpus): {name: inputs -> the dict as sent},
    # so that one the function changes in place is seen to, as a list or an array is.
    handed: dict = field(default_factory=dict)
    # Arrays the part leaves beside its result, which must be right too: [Kept], reported by the call after its
    # result. The result alone is read for the words (what a wrong result shows comes first); a part whose
    # result is right where a kept array is wrong is told which array, and what it holds when a step shows it.
    kept: tuple = ()


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


# What the grader writes in a cell when the notebook's kernel stopped (parallel.SurviveKernelDeath): in the cell
# where it stopped (the first three), and in every code cell after it (the last three). A verdict reads these
# words and no other KernelStopped error: a student's exception of that name says nothing.
KERNEL_STOPPED = ("the kernel died while running this cell",
                  "this cell did not stop when interrupted after its time limit",
                  "the kernel went over its memory budget of {gib} GiB (its processes together) while running this "
                  "cell, and was stopped",
                  "this cell did not run: the kernel died in an earlier cell",
                  "this cell did not run: the kernel was stopped at an earlier cell, which did not stop when "
                  "interrupted after its time limit",
                  "this cell did not run: the kernel was stopped at an earlier cell, where it went over its memory "
                  "budget of {gib} GiB")


_KERNEL_STOPPED = [re.compile(re.escape(w).replace(re.escape("{gib}"), r"[0-9.e+]+")) for w in KERNEL_STOPPED]


def kernel_stopped(words):
    """Whether `words` are one of KERNEL_STOPPED (any number of GiB)."""
    return any(p.fullmatch(words) for p in _KERNEL_STOPPED)


PROBE_HEADER = "# Sealed probe, written by the course grader: your code runs on inputs drawn now;\n"
HARD_CODED = "the answer it gives on the book's case, unchanged"  # on fresh inputs: recognised by the protocol itself, in every part
BOOK_ONLY = "right on the book's case only"  # likewise: the book's answer is printed in the notebook


class BadResult(Exception):
    """The kernel reported something that is not a result (or not one we accept)."""


def decode_result(obj, depth=0):
    """A result reported by the kernel: float64 arrays, lists of them, or a BadResult."""
    if not isinstance(obj, dict) or depth > MAX_DEPTH:
        raise BadResult("the probe's report is malformed")
    if "list" in obj:
        if not isinstance(obj["list"], list) or len(obj["list"]) > MAX_ELEMENTS:
            raise BadResult("the probe's report is malformed")
        return [decode_result(v, depth + 1) for v in obj["list"]]
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
    size = math.prod(shape)  # Python integers: np.prod would wrap round on a forged shape such as [2**32, 2**32]
    if any(n < 0 for n in shape) or len(shape) > 32 or size > MAX_ELEMENTS:
        raise BadResult(f"it has shape {shape[:8]}, far too large")
    if size * dtype.itemsize != len(data):
        raise BadResult("the probe's report is malformed")
    return np.frombuffer(data, dtype=dtype).reshape(shape).astype(np.float64)


# --------------------------------------------------------------------------
# The kernel side.

_KERNEL_SIDE = r'''
def __course_probe(request):
    import base64, builtins, contextlib, io, json, signal, sys, warnings
    import numpy
    from IPython.display import display

    class OverBudget(Exception):
        """A call stopped at its case's budget (Case.budget)."""

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

    def text_of(d):
        try:  # a dictionary as sorted text, numbers as floats: what the grading side compares with what it sent
            return repr(sorted((repr(k), float(v)) for k, v in d.items()))
        except Exception:
            return "not a dictionary of numbers"

    kernel = globals()
    absent = object()
    own = __course_probe.__code__.co_filename

    def traced(space):
        """The arrays the student's own code makes (a function's local variables and what it returns, a
        cell's names), copied as each of its frames returns, at most %(count)d and %(bytes)d bytes (and as
        many single numbers when the part's steps are counts): for the words of the verdict only (the
        grader finds the first step that is not right)."""
        # The function the probe calls (or the cell) has a budget of its own, so that the notebook's given
        # functions it calls (09's model) cannot fill the trace before its own arrays are kept
        kept, seen, ours = [], {}, {}  # ours: {key: named in the called function itself}
        room = {True: %(bytes)d, False: %(bytes)d}  # {the called function's own?: bytes left}
        counts = {(n, top): 0 for n in (True, False) for top in (True, False)}  # {(a single number?, own?): kept}

        def keep(where, name, value, depth=0, top=False):
            if request["trace"] == "numbers" and isinstance(value, (int, float, numpy.integer, numpy.floating)) \
                    and not isinstance(value, bool):  # a count's parts, kept apart from the arrays
                value = numpy.array(value, dtype=float)
            elif isinstance(value, numpy.ndarray) and value.size < 2:
                return
            if isinstance(value, (list, tuple)) and depth == 0:  # a list of heads, say
                for k, item in enumerate(value[:16]):
                    keep(where, f"{name}[{k}]" if name else "", item, 1, top)
                try:  # and the list as one array (a loop's columns as a matrix), when it is one
                    if 1 < len(value) <= %(size)d and all(isinstance(v, (numpy.ndarray, float, int)) for v in value):
                        keep(where, name + "[:]" if name else "", numpy.array(value, dtype=float), 1, top)
                except (ValueError, TypeError):
                    pass
                return
            if isinstance(value, dict) and depth <= 1:  # gradients by name (a model's: 22), Adam's moments in a state
                for k, item in list(value.items())[:32]:
                    keep(where, f"{name}[{k!r}]"[:60] if name else "", item, depth + 1, top)
                return
            if not isinstance(value, numpy.ndarray) or value.dtype.kind not in "biuf" \
                    or value.size > %(size)d or counts[(value.ndim == 0, top)] >= (%(own)d if top else %(count)d) \
                    or value.nbytes > room[top]:
                return
            key = (value.dtype.str, value.shape, hash(value.tobytes()))
            if key in seen:  # the same numbers again: keep the first, by the first name the student gave them, or
                # by the part's own function's name for them (its dV, which it handed to a helper as X first)
                if name and (not seen[key]["name"] or top and not ours[key]):
                    seen[key].update(where=where, name=name)
                    ours[key] = top
                return
            room[top] -= value.nbytes
            counts[(value.ndim == 0, top)] += 1
            seen[key] = {"where": where, "name": name, "value": encode(value)}
            ours[key] = top and bool(name)
            kept.append(seen[key])

        only = request.get("trace_call")  # [name, n]: the n-th call of that function only
        state = {"calls": 0, "active": not only}

        def profile(frame, event, arg):
            if event in ("call", "return") and (frame.f_globals is kernel or frame.f_globals is space) \
                    and frame.f_code.co_filename != own:
                try:  # the trace is for the words only: nothing in it may change what the code computes
                    where = frame.f_code.co_name
                    if only and where == only[0] and event == "call":
                        state["calls"] += 1
                        state["active"] = state["calls"] == only[1]
                    if not state["active"]:
                        return
                    if only and where == only[0] and event == "return":
                        state["active"] = False  # after this frame's own arrays, below
                    back = frame.f_back  # called by the probe (or its expression): the part's own function
                    top = back is None or back.f_code.co_filename == own or \
                        (back.f_globals is not kernel and back.f_globals is not space)
                    for name, value in list(frame.f_locals.items()):  # at a call: the arguments, as they came in
                        keep(where, name, value, 0, top)
                    if event == "return":
                        keep(where, "", arg, 0, top)
                except Exception:
                    pass
        return kept, profile

    def over_budget(signum, frame):
        raise OverBudget("stopped at its time budget")

    def run(case, swap, budget=0.0):
        inputs = {name: decode(v) for name, v in case.items()}
        arrays = [n for n, v in inputs.items() if isinstance(v, numpy.ndarray)]
        held = {}  # a list or dictionary the call makes and hands to the student's function, by its name (`held`)
        saved = {}
        space = {"np": numpy, "__builtins__": builtins}
        # (a case with a budget is not traced: its arrays are larger than the trace keeps, and a trace slows the
        # call it times)
        kept, profile = traced(space) if request["trace"] and not budget else ([], None)
        before = sys.getprofile()
        try:
            if budget:  # the case's seconds (Case.budget): the call is stopped past them
                signal.signal(signal.SIGALRM, over_budget)
                signal.setitimer(signal.ITIMER_REAL, budget)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for name, function in swap.items():
                    saved[name] = kernel.get(name, absent)
                    kernel[name] = function
                if request["call"]:
                    sys.setprofile(profile)
                    value = eval(request["call"], dict(kernel, __course_held=held.setdefault, **inputs))
                    sys.setprofile(before)
                else:
                    space.update({n: kernel[n] for n in request["from_kernel"] if n in kernel})
                    space.update(swap)
                    space.update(inputs)
                    sys.setprofile(profile)
                    exec(request["cell"], space)
                    sys.setprofile(before)
                    missing = [n for n in request["outputs"] if n not in space]
                    if missing:
                        raise NameError("your cell did not set " + ", ".join(missing))
                    value = [space[n] for n in request["outputs"]]
            # The arguments as they are after the call, as bytes: the grader compares them with what it sent,
            # on its side, so a kernel whose numpy says every array equals every other hides nothing. A list or a
            # dictionary the call made (11's prompt, 10's corpus, as the notebooks pass them) is reported by its name.
            after = {n: encode(inputs[n]) for n in arrays}
            after.update({n: {"text": text_of(v)} if isinstance(v, dict) else encode(v) for n, v in held.items()})
            return {"ok": True, "value": encode(value), "after": after, "trace": kept}
        except (Exception, SystemExit) as e:
            return {"ok": False, "error": (type(e).__name__ + ": " + str(e))[:300]}
        finally:
            if budget:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, signal.SIG_DFL)
            sys.setprofile(before)
            for name, old in saved.items():
                if old is absent:
                    kernel.pop(name, None)
                else:
                    kernel[name] = old

    def replaced_numpy():
        """numpy's own functions that a cell replaced (np.linalg.svd = ..., np.argsort = ...): a callable that
        numpy, numpy.linalg, numpy.random or numpy.fft exports (__all__) and that says it comes from elsewhere."""
        import types
        out = []
        for module in (numpy, numpy.linalg, numpy.random, numpy.fft):
            for name, f in list(vars(module).items()):
                if name not in getattr(module, "__all__", ()) or isinstance(f, (type, types.ModuleType)) \
                        or not callable(f):
                    continue  # (a name numpy does not have, np.asscalar put back for old code, is no replacement)
                if not str(getattr(f, "__module__", None) or type(f).__module__).startswith("numpy"):
                    out.append((module.__name__ + "." + name).removeprefix("numpy."))
        return out

    if not request["swap"]:
        report = {"results": [run(case, {}, b) for case, b in zip(request["cases"], request["budgets"])]}
    else:  # a judgement kernel, forked for this alone and thrown away after (see `verdict`'s judge)
        try:
            swap = {}
            for name, source in request["swap"].items():
                space = {"np": numpy, "numpy": numpy}
                exec(source, space)
                swap[name] = space[name]
        except Exception:
            swap = None  # the course's helper cannot be made here: the part is marked as the notebook runs it
        report = {"with_reference": [run(case, swap, b) for case, b in zip(request["cases"], request["budgets"])]
                  if swap else None}
    try:
        report["replaced"] = replaced_numpy()
    except Exception:
        report["replaced"] = ["(numpy's namespace, which could not be read)"]
    display({"%(mime)s": report}, raw=True)
    if request["shown"]:
        # The cell's visible check, after the report, its output dropped (the verdict replaces the cell's
        # outputs): the names it defines exist for the later cells, as when the student ran the notebook.
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(request["shown"], "<the cell's check>", "exec"), kernel)
        except (Exception, SystemExit):
            pass
'''


def probe_source(probe: Probe, cases: list, cell_source: str = "", swap: dict = None, shown: str = "") -> str:
    """The source of a graded cell at grading time: the probe, its inputs, and a closing error. `shown` is the
    cell as the student sees it (its visible check), run after the report for the names it defines.

    The error is there so that a cell whose outputs were not replaced by
    `verdict_outputs` (a grader that is not wired in) scores zero, never full marks. It shows as its
    message alone (`_render_traceback_`, as CheckFailed does): IPython's traceback would quote and colour
    the cell's lines around it, the request's one long line among them: 0.02 to 0.08 CPU-s more a probe
    (benchmarks/README.md), for text no one reads.
    """
    from IPython.core.inputtransformer2 import TransformerManager
    if probe.program:
        cell_source = probe.program
    elif probe.cell:
        cell_source = TransformerManager().transform_cell(cell_source)
    request = {
        "shown": TransformerManager().transform_cell(shown) if shown and not swap else "",
        "call": probe.call,
        "cell": cell_source,
        "outputs": list(probe.outputs),
        "from_kernel": list(probe.from_kernel),
        "swap": dict(swap or {}),
        "trace": _traced(probe, cases),
        "trace_call": list(probe.trace_call) or None,
        "cases": [{name: encode(v) for name, v in c.inputs.items()} for c in cases],
        "budgets": [float(c.budget) for c in cases],
    }
    return (
        PROBE_HEADER +
        "# the grader marks the results outside this kernel.\n"
        + _KERNEL_SIDE.replace("%(mime)s", MIME).replace("%(count)d", str(TRACE_COUNT))
        .replace("%(bytes)d", str(TRACE_BYTES)).replace("%(size)d", str(TRACE_SIZE)).replace("%(own)d", str(TRACE_OWN))
        + f"__course_probe(__import__('json').loads({json.dumps(json.dumps(request))}))\n"
        + f"raise type('{SEALED}', (RuntimeError,), {{'_render_traceback_': lambda self: [str(self)]}})(\n"
        + "    'sealed probe: awaiting the grader\\'s verdict')\n"
    )


SEALED = "SealedProbe"  # the error a probe's cell ends with, once its report is displayed


def kernel_source(name, function, *needs):
    """Source that defines `name` in a kernel as the course's `function` computes it, after what it needs
    (other functions, or lines of source such as a constant): a part's `kernel_reference`."""
    import inspect
    parts = [need if isinstance(need, str) else inspect.getsource(need) for need in needs]
    parts.append(re.sub(r"^def \w+\(", f"def {name}(", inspect.getsource(function), count=1))
    return "\n".join(parts)


# --------------------------------------------------------------------------
# The grader side.

def compare(got, want, names=None, exact=False):
    """None when `got` matches `want`, else a short reason. Singleton axes are ignored unless `exact`.

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
            why = compare(g, w, exact=exact)
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
    g, w = (got, want) if exact else (np.squeeze(got), np.squeeze(want))
    if g.shape != w.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if not np.all(np.isfinite(g)):
        return "it contains nan or inf"
    if not course().same(g, w):
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
    # How a lost mark was explained: "named" (a catalogued mistake), "structural" (a finding on the
    # numbers), "helper" (another part's mistake), "reported" (an error or a shape, no cause),
    # NOT_ATTEMPTED (the answer cells as handed out), None.
    finding: str = None


CHANGED = "changed its argument"   # a result right, but an input overwritten in place
NOT_ATTEMPTED = "not attempted"     # the part's answer cells as handed out: the placeholder, no mistake


def _read(probe, cases, results):
    """The decoded results, each case's reason (None = right), the inputs each case changed in place, and
    each case's trace (the student's intermediate arrays, for the words only: [(where, name, array)])."""
    got, reasons, changed, traces = [], [], [], []
    for case, result in zip(cases, results):
        want = None if probe.judge else probe.reference(case.inputs)
        traces.append(_trace(result.get("trace")) if isinstance(result, dict) and probe.steps else [])
        if not isinstance(result, dict) or not result.get("ok"):
            error = str(result.get("error", "no result")) if isinstance(result, dict) else "no result"
            got.append(None)
            reasons.append(f"raised {_quotable(error)}")
            changed.append([])
            continue
        raw = _result_of(probe, result.get("value"))
        try:
            value = decode_result(raw)
        except BadResult as e:
            got.append(None)
            reasons.append(str(e))
            changed.append([])
            continue
        got.append(value)
        if probe.judge:
            share, said = probe.judge(case.everything(), value)
            reasons.append(None if share >= 1 else said)
        else:
            why = compare(value, want, probe.outputs or None, exact=probe.exact_shape)
            if why is None and probe.precision:
                why = _imprecise(value, want, probe.precision)
            reasons.append(why and _as_integers(raw, value, want) or why)
        changed.append(_changed_in_place(case.inputs, result.get("after"), probe.handed))
    return got, reasons, changed, traces


def _result_of(probe, raw):
    """The result as the kernel encoded it, without the arrays the part keeps (Probe.kept), which follow it."""
    if not probe.kept:
        return raw
    entries = raw.get("list") if isinstance(raw, dict) else None
    if not isinstance(entries, list) or len(entries) != 1 + len(probe.kept):
        return {"list": None}  # malformed: the call is the course's, and reports [result, kept...]
    return entries[0]


def _kept_reasons(probe, cases, results, reasons):
    """For each case whose result is right, None when every array the part keeps (Probe.kept) is right too,
    else (the first Kept that is not, one sentence on it, Verdict.finding for it); None where the result is
    wrong (said first)."""
    out = []
    for case, result, why in zip(cases, results, reasons):
        said = None
        entries = result.get("value", {}).get("list", [])[1:] if why is None and probe.kept else []
        for kept, raw in zip(probe.kept, entries):
            try:
                value = decode_result(raw)
            except BadResult as e:
                unset = isinstance(raw, dict) and raw.get("type") == "NoneType of object"  # (the call's default)
                said = (kept, f"`{kept.name}` is None after the call, where {kept.what} are due" if unset else
                        f"`{kept.name}` is not {kept.what}: {e}", "reported")
                break
            want = kept.reference(case.inputs)
            wrong = compare(value, want, exact=probe.exact_shape)
            if wrong and isinstance(value, list):  # (a list of arrays: compared as one, and said as one)
                said = (kept, f"`{kept.name}` is not {kept.what}: {wrong}", None)
                break
            if wrong:
                found = _kept_finding(probe, case, kept, value, want)
                said = (kept, found or f"`{kept.name}` is not {kept.what}: {wrong}", "step" if found else None)
                break
        out.append(said)
    return out


def _kept_finding(probe, case, kept, value, want):
    """What a wrong kept array holds, when it is one of the part's steps (in their shape, or in the kept one)."""
    try:
        steps = probe.steps(case.inputs) if probe.steps else []
    except Exception:  # steps that do not describe this case
        return None
    for step in steps:
        s = np.asarray(step.value, dtype=np.float64) if np.ndim(step.value) else None
        if s is None or s.size != value.size or (s.size == np.size(want) and course().same(s.reshape(np.shape(want)),
                                                                                            np.asarray(want))):
            continue
        if course().same(value.reshape(s.shape), s):
            return f"`{kept.name}` holds the {step.name} ({step.formula}), not {kept.what}"
    return None


def _with_kept(probe, cases, outputs, v):
    """The verdict `v` on the part's result, with what its kept arrays (Probe.kept) cost: half the share of each
    case whose result is right but a kept array wrong. Said alone when the result is right on every case."""
    results, unread = _results(cases, outputs)
    if unread:
        return v
    reasons = _read(probe, cases, results)[1]
    kept = _kept_reasons(probe, cases, results, reasons)
    if all(k is None for k in kept):
        return v
    both = [r or (k and k[1]) for r, k in zip(reasons, kept)]
    lost = (_share(probe, cases, reasons) - _share(probe, cases, both)) / 2
    score = round(max(v.score - v.points * lost, 0.0), 2)
    array, said, finding = next(k for k in kept if k)
    if all(r is None for r in reasons):
        where = "on every case it was given" if all(kept) else _summary(cases, both)
        return Verdict(score, v.points, f"{probe.what}: its result is right, but {said} ({where}). "
                                        f"Keep {array.what} in `{array.name}` too.", finding=finding)
    n = sum(k is not None for k in kept)
    return Verdict(score, v.points, f"{v.message.rstrip('.')}. On {n} of the cases where its result is right, "
                                    f"{said}.", v.mistake, v.finding)


def _share(probe, cases, reasons):
    """The share of the marks that cases with these reasons earn (Probe.marks, or _weights), from 0 to 1."""
    if probe.marks:
        share = probe.marks(cases, reasons)
    else:
        share = sum(w for w, why in zip(_weights(cases), reasons) if why is None)
    return min(max(share, 0.0), 1.0)


def _traced(probe, cases):
    """What the kernel traces: nothing (no steps), arrays, or "numbers" too (a part whose steps are counts,
    single numbers, such as 08's parameter count: its parts are numbers in the student's code too)."""
    if not probe.steps:
        return False
    try:
        return "numbers" if cases and any(np.ndim(s.value) == 0 for s in probe.steps(cases[0].inputs)) else True
    except Exception:  # steps that do not describe this case: arrays, as for any part with steps
        return True


def _trace(entries):
    """A trace as the kernel reported it, decoded: [(where, name, float64 array)]; what is malformed is
    left out (a student's kernel can send anything here, and it changes their own feedback's words only)."""
    out = []
    if not isinstance(entries, list):
        return out
    for entry in entries[:2 * (TRACE_COUNT + TRACE_OWN)]:  # arrays and numbers, as many of each (see traced)
        try:
            where, name = str(entry["where"])[:40], str(entry["name"])[:60]
            value = decode_result(entry["value"])
        except (BadResult, KeyError, TypeError):
            continue
        # Names are said in the feedback: a Python name (with an index, or a dict's key) and nothing else
        where = where if re.fullmatch(r"<module>|[A-Za-z_]\w*", where) else "your code"
        name = name if re.fullmatch(r"[A-Za-z_]\w*(\[(\d+|:|'\w+'|\"\w+\")\]){0,2}", name) else ""
        if isinstance(value, np.ndarray) and value.size <= TRACE_SIZE:
            out.append((where, name, value))
    return out


IMPRECISE = "close, but only to"
OVER_BUDGET = "raised OverBudget"  # a case's call stopped in the kernel at its budget (Case.budget)


def _imprecise(got, want, precision):
    """None when every array of `got` is within `precision` of the largest entry of `want` (all its arrays
    together), else a reason starting with IMPRECISE; float32 or float16 results say so."""
    gots = got if isinstance(got, list) else [got]
    wants = want if isinstance(want, list) else [want]
    scale = max((float(np.max(np.abs(np.asarray(w, dtype=np.float64)))) for w in wants if np.size(w)), default=0.0)
    worst, low = 0.0, False
    for g, w in zip(gots, wants):
        g = np.asarray(g)
        low = low or g.dtype in (np.float32, np.float16)
        diff = np.abs(np.asarray(g, dtype=np.float64).reshape(np.shape(w)) - np.asarray(w, dtype=np.float64))
        worst = max(worst, float(np.max(diff)) if diff.size else 0.0)
    off = worst / scale if scale else worst
    if off <= precision:
        return None
    return f"{IMPRECISE} {off:.0e} of its largest entry" + (" (it is computed in float32)" if low else "")


def held(name, expression):
    """A probe call's words for a list made from the input `name` and handed to the student's function (11's prompt,
    a list as the notebook gives it), or a dictionary (10's corpus: Probe.handed says how it was made): the kernel
    reports it after the call, so a function that changes its argument in place is seen to, as for an array."""
    return f"__course_held({name!r}, {expression})"


def text_of(d):
    """A dictionary of numbers as the kernel reports it after a call (see the kernel side's text_of)."""
    return repr(sorted((repr(k), float(v)) for k, v in d.items()))


def _changed_in_place(inputs, after, handed=None):
    """The names of the array arguments whose bytes after the call differ from what was sent (at most five), and
    of the dictionaries handed over (Probe.handed) whose items differ. Decided here, from the kernel's report of
    the bytes, never by a comparison the kernel made."""
    if not isinstance(after, dict):
        return []
    changed = [n for n, made in (handed or {}).items()
               if n in after and after[n] != {"text": text_of(made(inputs))}]
    for name, value in inputs.items():
        if name not in after or isinstance(value, (list, tuple, int, float, str)):
            continue  # what `encode` sends as numbers, text or lists arrives as no array
        sent = np.asarray(value)
        if sent.dtype.kind not in NUMERIC_KINDS:
            continue
        try:
            now = decode_result(after[name])
            if isinstance(now, list):  # the list the call made from this input, as the function left it: numbers
                now = np.array([x.item() for x in now], dtype=np.float64) if all(x.size == 1 for x in now) else None
        except BadResult:
            now = None
        if now is None:
            changed.append(name)  # what came back is not the array that went in
            continue
        if not (now.shape == sent.shape and np.array_equal(now, sent.astype(np.float64), equal_nan=True)):
            changed.append(name)
    return [str(n)[:40] for n in changed][:5]


def _quotable(error):
    """An error as a verdict may quote it: its type, and its message only when that cannot carry an input.
    A message with a decimal number in it (a student's ValueError(f"X={X}")) or a long one is cut to the
    type: whatever it held stays out of the feedback. Shapes and names (integers, words) stay."""
    kind, _, message = error.partition(": ")
    if not re.fullmatch(r"[A-Za-z_][\w.]*", kind):
        return "an error"
    if re.search(r"\d\.\d|\de[-+]?\d|\bnan\b|\binf\b", message) or len(message) > 200:
        return f"{kind} (its message is not shown: it may quote the inputs)"
    return error


def verdict(probe: Probe, cases: list, outputs: list, points: float, helpers: dict = None,
            judge: Callable[[], list] = None, broken: Callable[[], dict] = None) -> Verdict:
    """See _verdict; `broken()` is {name: Unfinished}: the names that cells above the part which did not run to
    their end (a syntax error, their time limit, an error) would have defined (asked for only when the part lost
    marks). A part that failed because one of them is not defined is told that, and nothing else; one whose own
    function is not defined when its check runs, with no such cell, is told to define it."""
    v = _verdict(probe, cases, outputs, points, helpers, judge)
    if probe.kept:
        v = _with_kept(probe, cases, outputs, v)
    names = broken() if broken and v.score < points else {}
    if names:
        found = re.findall(r"name '(\w+)' is not defined|it uses the name (\w+), which is not defined", v.message)
        missing = [a or b for a, b in found if (a or b) in names]
        if missing:
            cell = names[missing[0]]
            return Verdict(v.score, points, f"{probe.what}: not run, because {missing[0]} is not defined: the cell "
                                            f"that defines it {cell.why}. {cell.advice}", finding=cell.finding)
    if v.score < points:
        results, unread = _results(cases, outputs)
        name = None if unread else _undefined_in_call(probe, cases, results)
        if name:
            return Verdict(v.score, points, f"{probe.what}: not run, because {name} is not defined when its check "
                                            f"runs: define {name} under that name in a cell above the check, and run "
                                            "that cell.", finding="undefined")
        name = None if unread else _not_set_by_cell(probe, cases, results)
        if name:
            given = listing([n for n in cases[0].inputs if n != "seed"] + list(probe.from_kernel))
            # (a name from another cell may be due here, made in this cell, or stand where one it is given is due)
            return Verdict(v.score, points, f"{probe.what}: not run, because the cell uses {name}, which it does not "
                                            "set itself: its check runs the cell alone on fresh inputs, where a name "
                                            f"left from another cell is not there. The cell is given {given}: use "
                                            f"those (is one of them due where {name} is?), or make {name} in this "
                                            "cell from them.", finding="undefined")
    return v


def _not_set_by_cell(probe, cases, results):
    """The name, when the part is a cell its probe runs alone (Probe.cell) and every case raised NameError for one
    name that is neither an input of the case nor one the probe takes from the kernel: the cell relies on a name
    another cell left (a loop variable of the cell before). None otherwise."""
    if not probe.cell or probe.call or probe.program or not cases:
        return None
    name = _one_undefined_name(results)
    if not name or name in probe.from_kernel or any(name in case.inputs for case in cases):
        return None
    return name


def _one_undefined_name(results):
    """The name, when every case raised NameError for that one name; else None."""
    errors = {str(r.get("error", "")) if isinstance(r, dict) and not r.get("ok") else "" for r in results}
    found = re.fullmatch(r"NameError: name '(\w+)' is not defined", errors.pop()) if len(errors) == 1 else None
    return found[1] if found else None


class Unfinished(NamedTuple):
    """A cell that did not run to its end, as a verdict tells it: what happened to it, after "the cell that
    defines it", what to do, and the verdict's finding."""
    why: str
    advice: str
    finding: str


def _called_names(call):
    """The names evaluating `call` always looks up (not those inside a lambda or a comprehension, after the
    first operand of `and`/`or`, or in one branch only of `a if c else b`)."""
    import ast

    def names(node):
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return set()
        if isinstance(node, ast.IfExp):
            return names(node.test) | (names(node.body) & names(node.orelse))
        if isinstance(node, ast.BoolOp):
            return names(node.values[0])
        found = {node.id} if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) else set()
        for child in ast.iter_child_nodes(node):
            found |= names(child)
        return found
    try:
        return names(ast.parse(call, mode="eval").body)
    except (SyntaxError, ValueError, RecursionError):
        return set()


def _undefined_in_call(probe, cases, results):
    """The name, when every case raised NameError for one name that evaluating the part's call always looks up
    in the kernel (not a case's input, not a helper the judgement run puts in place): the part's own function,
    most often. No helper can change that, so no judgement run is made for it. None otherwise."""
    if not probe.call or not cases:
        return None
    name = _one_undefined_name(results)
    if not name or name in probe.uses or any(name in case.inputs for case in cases) or name not in _called_names(probe.call):
        return None
    return name


def _verdict(probe: Probe, cases: list, outputs: list, points: float, helpers: dict = None,
             judge: Callable[[], list] = None) -> Verdict:
    """Mark what the kernel reported for `cases` against the reference.

    `helpers` is {kernel name: (what, Verdict)} for the graded parts this one calls (`Probe.uses`):
    when one of them lost marks, this part is marked on its run with the course's version of that
    helper, so one mistake costs marks once. That run is `judge()`: the outputs of the probe made with
    `swap` (probe_source), run where nothing the student's code keeps can be used or shown afterwards
    (the grader runs the notebook again in a kernel of its own and throws it away). It is asked for only
    when the part is wrong as the notebook runs it; the course's helpers never enter the student's kernel,
    and a `with_reference` in that kernel's own report is not read.
    """
    what = probe.what
    results, unread = _results(cases, outputs)
    if unread:
        return Verdict(0.0, points, f"{what}: not graded, {unread}", finding="reported")

    got, reasons, changed, traces = _read(probe, cases, results)
    with_reference = None
    # Right results with an argument changed in place, from a part whose helper lost marks: the helper may have
    # changed it (learn_merges handing its corpus to a merge_pair that empties and refills it), so the part is
    # judged with the course's helpers too, and the change costs marks once, in the part that makes it
    right = all(why is None for why in reasons)
    changed_by_helper = right and any(changed) and any(h and h[1].score < h[1].points for h in (helpers or {}).values())
    if judge is not None and (not right or changed_by_helper) \
            and not _own_mistake(probe, cases, got, reasons, helpers) and not _undefined_in_call(probe, cases, results):
        with_reference = _with_reference(judge, cases)
    if right and not changed_by_helper or with_reference is None:
        return _marked(probe, cases, got, reasons, changed, points, traces)

    # The part is wrong as the student's notebook runs it. Is it right with the course's helpers?
    helpers = helpers or {}
    wrong_helpers = [(name, h[0]) for name, h in helpers.items() if h and h[1].score < h[1].points]
    # The judgement run's trace is not read: that kernel held the course's helpers, and a name in a trace is
    # words in the feedback, so nothing of that run but its results may reach the student.
    got_r, reasons_r, changed_r, _ = _read(probe, cases, with_reference)
    traces_r = [[] for _ in cases]
    right_with_reference = all(why is None for why in reasons_r)
    if wrong_helpers:
        names = listing([name for name, _ in wrong_helpers])
        parts = listing([part for _, part in wrong_helpers])
        v = _marked(probe, cases, got_r, reasons_r, changed_r, points, traces_r)
        if right_with_reference and v.score >= points:
            return Verdict(points, points, f"{what}: right once your {names} is fixed (see {parts}): marked "
                                           f"with the course's {names} in place of yours, so that mistake "
                                           "costs marks once, in its own part", finding="helper")
        return Verdict(v.score, points, v.message + f" (Marked with the course's {names} in place of yours, "
                                                    f"which {parts} marks on its own.)", v.mistake, v.finding)
    v = _marked(probe, cases, got, reasons, changed, points, traces)
    if right_with_reference and probe.uses:
        names = listing(list(probe.uses))
        yours = f"your {names} passes its own test, yet goes" if len(probe.uses) == 1 else \
            "one of yours passes its own test, yet goes"
        return Verdict(v.score, points, f"{what}: wrong as your notebook runs it, but right with the course's "
                                        f"{names} in place of yours: {yours} wrong on the inputs this part "
                                        "gives it (other shapes or sizes?)", v.mistake, "helper")
    return v


def _own_mistake(probe, cases, got, reasons, helpers):
    """Whether a part wrong as it runs needs no judgement run: every helper it calls earned its marks (the
    part is then marked as it ran, whatever the judgement says), and a catalogued mistake of its own, computed
    with the course's helpers, gives its results: the same value on every wrong case, right where it is right
    (so its helpers did what the course's do there). A mistake known by its error only is not enough: a helper
    can raise that error too."""
    if not probe.uses or not helpers or any(not h or h[1].score < h[1].points for h in helpers.values()):
        return False

    def fits(mistake):
        for case, value, why in zip(cases, got, reasons):
            mistaken = _mistaken(mistake, case.inputs) if mistake.compute else NotAbout
            if why is None and mistaken is NotAbout:
                continue  # right, and the mistake says nothing of this case
            if mistaken is NotAbout or mistaken is Raises or value is None:
                return False
            if not _same_with_nan(value, mistaken, probe.exact_shape):
                return False
        return True
    return any(fits(m) for m in probe.mistakes)


def _escapes_except_exception(ename):
    """Whether an error of this name passes through `except Exception`: SystemExit, GeneratorExit, a class of the
    student's own (its base unknown here, but the probe caught any Exception); not KeyboardInterrupt, which is how
    a kernel is stopped at its time limit."""
    import builtins
    known = getattr(builtins, ename, None) if isinstance(ename, str) else None
    return isinstance(ename, str) and ename != "KeyboardInterrupt" and not (
        isinstance(known, type) and issubclass(known, Exception))


def _results(cases, outputs):
    """(the report's results, None), or (None, why the part's outputs hold no report that can be read)."""
    reported = [o for o in outputs if o.get("output_type") == "display_data" and MIME in o.get("data", {})]
    if len(reported) != 1:
        errors = [o for o in outputs if o.get("output_type") == "error"]
        stopped = [o.get("evalue") for o in errors if o.get("ename") == "KernelStopped" and
                   isinstance(o.get("evalue"), str) and kernel_stopped(o["evalue"])]
        if stopped:
            return None, stopped[0].replace("this cell", "its check")
        if any("Timeout" in str(o.get("ename", "")) for o in errors):
            return None, "it did not finish within the time limit"
        if any(o.get("ename") == SEALED for o in errors):  # the probe ran to its end, and its report was taken away
            return None, ("the probe could not report: what it displayed is gone from the cell's outputs: did your "
                          "code clear them or replace display (clear_output, a hook run after each cell)?")
        escaped = [o["ename"] for o in errors if _escapes_except_exception(o.get("ename"))]
        if escaped == ["SystemExit"] * len(escaped) and escaped:
            return None, "the probe could not report: exit() or sys.exit() in your code ended the check; return instead"
        if escaped:  # the probe catches Exception: what passes through it stops the check, report and all
            return None, (f"the probe could not report: {escaped[0]} was raised and ended the check, as no Exception "
                          "(a BaseException only) passes through it; raise an ordinary exception instead")
        return None, "the probe could not report: did your code redefine display, print or the kernel's hooks?"
    try:
        results = reported[0]["data"][MIME]["results"]
        assert isinstance(results, list) and len(results) == len(cases)
    except (KeyError, TypeError, AssertionError):
        return None, "the probe's report is malformed"
    replaced = reported[0]["data"][MIME].get("replaced")
    if replaced:  # every part is marked with numpy as it ships (attacks7: a patched svd that centres the data)
        names = ", ".join(f"np.{n}" for n in replaced[:3]) + (", ..." if len(replaced) > 3 else "")
        return None, (f"your code replaced numpy's own {names}, and parts are marked with numpy as it ships: "
                      "leave numpy's functions as they are, and write yours under names of your own")
    return results, None


def wrong_as_run(probe: Probe, cases: list, outputs: list) -> bool:
    """Whether `verdict` will ask for the judgement run on these outputs: a report it can read, in which
    some case is wrong. The grader judges all such parts of a notebook in as few kernels as it can."""
    results, unread = _results(cases, outputs)
    return not unread and not all(why is None for why in _read(probe, cases, results)[1])


def _with_reference(judge, cases):
    """The results of the judgement run (the course's helpers in place), or None when it gave none."""
    try:
        outputs = judge() or []
        reported = [o for o in outputs if o.get("output_type") == "display_data" and MIME in o.get("data", {})]
        with_reference = reported[0]["data"][MIME]["with_reference"] if len(reported) == 1 else None
        if isinstance(with_reference, list) and len(with_reference) == len(cases):
            return with_reference
    except Exception:  # a judgement that failed in any way attributes nothing: the part is marked as it ran
        pass
    return None


def listing(words):
    """ "a", "a and b", "a, b and c": diagnose.listing, imported when first needed as diagnose is here, and given
    here to the course's readings, which import the engine's protocol alone (tests/test_layout.py)."""
    from . import diagnose
    return diagnose.listing(words)


# Tracebacks of the diagnoses that raised since the caller last took them (taken_errors): the recording process
# logs them. A diagnosis only finds words; one that fails leaves the score as it is and says less.
_ERRORS = []


def taken_errors():
    """The tracebacks of the diagnoses that raised since the last call, and none kept."""
    out = list(_ERRORS)
    _ERRORS.clear()
    return out


def _diagnosis(default):
    """A diagnosis that raises gives `default` (nothing found) and its traceback to taken_errors(): the words of a
    verdict may come out shorter, its score never lower. The score is counted from the reasons alone."""
    def wrap(fn):
        @functools.wraps(fn)
        def guarded(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception:
                _ERRORS.append(f"{fn.__name__}: {traceback.format_exc(limit=-4)}")
                return default(*args, **kwargs) if callable(default) else default
        return guarded
    return wrap


def _plain(probe, cases, got, reasons, traces=()):
    """What _finding says when it cannot say more: the first wrong case's reason, as compare gave it."""
    case, why = next((c, why) for c, why in zip(cases, reasons) if why is not None)
    return f"On {_where(case)}: {why}", "reported"


def _marked(probe, cases, got, reasons, changed, points, traces=()):
    """The verdict on one set of results (_marked_results), and, when the part lost marks and also changed an
    argument in place on a case it got wrong, that fact too: a result built in an argument's own array (a name
    bound to the input, not a copy of it) overwrites the caller's, and is often why the result is wrong."""
    v = _marked_results(probe, cases, got, reasons, changed, points, traces)
    moved = sorted({n for names, why in zip(changed, reasons) if why is not None for n in names})
    if v.score < v.points and moved and CHANGED not in v.message and v.finding != "budget":
        s = "s" if len(moved) > 1 else ""
        message = v.message if v.message.endswith((".", "?", "!", ")")) else v.message + "."
        v = Verdict(v.score, v.points, f"{message} It also {CHANGED}{s} {', '.join(moved)} in place: what it "
                                       f"writes there overwrites the caller's {'arrays' if s else 'array'}, so work "
                                       "on a copy.", v.mistake, v.finding)
    return v


def _marked_results(probe, cases, got, reasons, changed, points, traces=()):
    """The verdict on one set of results: hard-coded, right on the book's sizes only, named, found, or right."""
    what = probe.what
    if probe.judge:
        return _judged(probe, cases, got, reasons, points)
    # A result that does not change when the input does is hard-coded: no marks at all.
    book = [g for c, g in zip(cases, got) if c.label == "book"]
    named = _recognised(probe, cases, got, reasons, traces)  # once: checking a name against the path has a cost
    # A catalogued mistake that explains every case is the better account of a fresh result that happens to
    # equal the book's (tokenize dropping unknown words can give the book's ids on a fresh sentence).
    if not probe.answers_repeat and not probe.relative and book and book[0] is not None and not named and any(
        c.label == "fresh" and g is not None and compare(g, book[0]) is None
        and compare(probe.reference(c.inputs), book[0]) is not None
        for c, g in zip(cases, got)
    ):
        # Said as what it is, not as an accusation: a real mistake can give one answer whatever the
        # inputs (a gradient check divided by eps, whose error is 1/3 on every input); its first wrong
        # step, when the trace shows one, says where.
        step, certain, *more = _step_finding(probe, cases, got, [compare(g, probe.reference(c.inputs)) if g is not None
                                                                 else "no result" for c, g in zip(cases, got)], traces)
        step = more[0] if more else step
        # Not "every step must work from its arguments" when no step is found: code that reads them all can
        # still give one answer (07's two copies of X bound to one array: every difference 0, every error 1).
        return Verdict(0.0, points, f"{what}: on fresh inputs it returns {HARD_CODED}, where the right answer "
                                    "changes with them" + (f". {step}" if certain else
                                                           ": look for the first value on its way that stays the "
                                                           "same when the inputs change"),
                       HARD_CODED, "step" if certain else "named")

    # One policy in every notebook: right on the book's case and wrong on every fresh input
    # earns nothing. The notebook shows the book's answer, so the book's case alone cannot tell code
    # that works from code tied to the notebook's sizes; the verdict says which, kindly.
    book_ok = [why is None for c, why in zip(cases, reasons) if c.label == "book"]
    fresh_ok = [why is None for c, why in zip(cases, reasons) if c.label == "fresh"]
    # (A part with marks of its own too, when its fresh inputs earn nothing by them: 03's permutation matrices
    # made for n = 3 alone, where a dihedral group's 2n orders happen to be all 3! of them.)
    fresh_earn = not probe.marks or probe.marks(cases, [why if c.label == "fresh" else "the book's case, left out"
                                                        for c, why in zip(cases, reasons)]) > 0
    if not (probe.marks and fresh_earn) and not probe.answers_repeat and book_ok and all(book_ok) and fresh_ok \
            and not any(fresh_ok):
        mistake = named
        argument = None if mistake else _argument_finding(probe, cases, got, reasons)
        step, certain, *more = (None, False) if mistake or argument else _step_finding(probe, cases, got, reasons, traces)
        step = more[0] if more else step
        if not (mistake or argument or certain):  # (a step found says where, which an input swapped does not)
            argument = _swapped_input_finding(probe, cases, got, reasons)
        cause = mistake.said if mistake else argument or (step if certain else _finding(probe, cases, got, reasons, traces)[0])
        # What is known: right on the example, wrong on every fresh input. Not why: a size tied to the example
        # is one cause, a rule the example cannot show (a tie, a space at the end of a text) another, and the
        # cause above says which when anything can.
        said = (f"wrong on every fresh input. {_sentence(cause)} Check it on inputs of your own, unlike the "
                "example: every step must work from its arguments")
        return Verdict(0.0, points, f"{what}: {BOOK_ONLY}, the notebook's own example, and {said}",
                       mistake.name if mistake else BOOK_ONLY, "named" if mistake else "step" if certain else "structural")

    score = round(points * _share(probe, cases, reasons), 2)
    if all(why is None for why in reasons):
        moved = sorted({n for names in changed for n in names})
        if moved:
            lists = [n for n in moved if held(n, "").removesuffix(")") in (probe.call or "")]  # lists handed over
            fix = ("the caller's dictionary changes too: build a new one," if any(n in probe.handed for n in moved) else
                   f"the caller's list changes too (it grows, or is overwritten): work on a copy, list({lists[0]}),"
                   if lists else "the caller's array is overwritten: work on a copy (or build a new array, e.g. with "
                   "np.where)")
            return Verdict(round(points * 2 / 3, 2), points,
                           f"{what}: right results, but it {CHANGED}{'s' if len(moved) > 1 else ''} "
                           f"{', '.join(moved)} in place, so {fix} and leave the arguments as they were",
                           CHANGED, "named")
        return Verdict(points, points, f"{what}: right on the book's case and on "
                                       f"{sum(c.label == 'fresh' for c in cases)} fresh inputs")
    wrong = [why for why in reasons if why is not None]
    over = [c for c, why in zip(cases, reasons) if why is not None and why.startswith(OVER_BUDGET)]
    if over:
        # Right code does these inputs in milliseconds: code that cannot finish them is another method, whatever
        # it gives on small inputs (derivatives taken numerically, exact to rounding by complex steps): nothing
        return Verdict(0.0, points, f"{what}: {_summary(cases, reasons)}. On {_where(over[0])}, the call was "
                                    f"stopped after {over[0].budget:g} s, where the course's takes a small fraction "
                                    f"of a second. {probe.budget_hint}".rstrip(), finding="budget")
    large = [c for c, why in zip(cases, reasons) if c.budget and why is not None]
    if large and all(why is None for c, why in zip(cases, reasons) if not c.budget):
        # Right on every small input, wrong only on the one of realistic size: right code holds at any size, so
        # this is another method, or a branch on the size (round 9's attempts: derivatives taken numerically in
        # long double, exact enough on small inputs, and something else past a size): nothing, as above
        return Verdict(0.0, points, f"{what}: {_summary(cases, reasons)}. It is right on every small input, and "
                                    f"wrong only on {_where(large[0])}: right code holds at any size. Work every "
                                    "step out from the arguments, as the notebook derives it.", finding="budget")
    if probe.precision and all(why.startswith(IMPRECISE) for why in wrong):
        # Right to the course's tolerance everywhere, but not to the precision the part asks for.
        worst = max(wrong, key=lambda why: float(why.split()[len(IMPRECISE.split())]))
        return Verdict(score, points, f"{what}: {_summary(cases, reasons)}: {worst}. {probe.precision_hint}",
                       finding="precision")
    mistake = named
    if mistake:
        return Verdict(score, points, f"{what}: {mistake.said}", mistake.name, "named")
    # What one argument set to another value gives, or another result's right value, on every case: a fact that
    # holds whatever the code looks like, so it comes before what the trace suggests
    argument = _integer_finding(probe, cases, got, reasons) or _argument_finding(probe, cases, got, reasons) or \
        _off_by_one_finding(probe, cases, got, reasons) or _other_result_finding(probe, cases, got, reasons)
    if argument:
        return Verdict(score, points, f"{what}: {_summary(cases, reasons)}. {_sentence(argument)}",
                       finding="structural")
    step, certain, *whole = _step_finding(probe, cases, got, reasons, traces)
    if certain:
        from .steps import BARE
        # The result itself is the first wrong step, and nothing ties it to another: which inputs it is wrong on,
        # when a property of theirs says so exactly, says more than what the result shows on one of them
        traits = _trait_finding(cases, got, reasons) if certain == BARE else None
        text, kind = _finding(probe, cases, got, reasons, traces) if certain == BARE else ("", "")
        if traits:  # and what the result shows, when it shows something
            shown = f" {_sentence(text)}" if kind == "structural" and text else ""
            return Verdict(score, points, f"{what}: {_summary(cases, reasons)}. {step} {_sentence(traits)}{shown}",
                           finding="step")
        said = f"{step} {_sentence(text)}" if kind == "structural" else whole[0] if whole else step
        return Verdict(score, points, f"{what}: {_summary(cases, reasons)}. {said}", finding="step")
    # No step says where: an input used where another is due, when one fits every input, says what
    swapped = _swapped_input_finding(probe, cases, got, reasons)
    if swapped:
        return Verdict(score, points, f"{what}: {_summary(cases, reasons)}. {_sentence(swapped)}", finding="structural")
    text, kind = _finding(probe, cases, got, reasons, traces)
    traits = _trait_finding(cases, got, reasons)
    if traits:  # which inputs it is wrong on, as a property of the inputs (an example would be a third sentence)
        if any(g is None for g, why in zip(got, reasons) if why is not None):  # an error: quoted, not explained
            text = next(f"On {_where(c)}: {why}" for c, why in zip(cases, reasons) if why is not None)
            return Verdict(score, points, f"{what}: {_summary(cases, reasons)}. {_sentence(traits)} {_sentence(text)}",
                           finding="structural")
        return Verdict(score, points, f"{what}: {_summary(cases, reasons)}. {_sentence(traits)}", finding="structural")
    if step and (kind == "reported" or _COUNT_SAID.search(text)):
        # wrong values and no more (or a count off by a number, which is that in other words): say at least which
        # steps are right (round 4's t08: "your projections' and MLP's multiply-adds are right")
        return Verdict(score, points, f"{what}: {_summary(cases, reasons)}. {step} {_sentence(text)}", finding=kind)
    return Verdict(score, points, f"{what}: {_summary(cases, reasons)}. {_sentence(text)}", finding=kind)


INTEGERS = "what comes back is an array of integers"


def _as_integers(reported, value, want):
    """A wrong case's reason when what came back (as the kernel encoded it: its dtype) is an array of integers, or
    holds one, where the right one holds fractions; else None. decode_result makes every result float64. Only an
    array of two entries or more, not all 0: a number or a placeholder of zeros is no array filled with values."""
    several = isinstance(want, list) and isinstance(value, list)
    items = reported.get("list") if several and isinstance(reported, dict) else [reported]
    for r, g, w in zip(items or [], value if several else [value], want if several else [want]):
        kind = str(r.get("dtype", "")) if isinstance(r, dict) else ""
        try:
            w = np.asarray(w, dtype=float)
            integers = np.dtype(kind).kind in "iu" if kind else False
        except (TypeError, ValueError):
            continue
        if integers and np.size(g) >= 2 and np.any(np.asarray(g) != 0) and np.all(np.isfinite(w)) \
                and not np.array_equal(w, np.round(w)):
            return f"{INTEGERS} ({np.dtype(kind)}) where fractions are due"
    return None


@_diagnosis(None)
def _integer_finding(probe, cases, got, reasons):
    """ "What comes back is an array of integers (int64) where fractions are due: ...", when a wrong case's result
    was an integer array and the right one holds fractions (`_as_integers`): every value written into such an array
    is cut to a whole number (sines written into np.arange's positions), whatever the code computes."""
    said = next((why for why in reasons if why and why.startswith(INTEGERS)), None)
    return said and (f"{said}: a value written into such an array is cut to a whole number. Make the array float "
                     "before it is filled (np.zeros(shape) is; np.arange of whole numbers and a list of Python ints "
                     "are not)")


@_diagnosis(None)
def _other_result_finding(probe, cases, got, reasons):
    """ "Its result with length normalisation is the right result without length normalisation on every input
    where the two differ", when each wrong result of a part with several (at most 12) is, on every case, its own
    right value or one other result's right value, the same other one on every case. None otherwise."""
    wants = []
    for case, g in zip(cases, got):
        want = probe.reference(case.inputs)
        if not isinstance(want, list) or not 1 < len(want) <= 12 or not isinstance(g, (list, np.ndarray)) \
                or len(g) != len(want):
            return None
        wants.append(want)
    n = len(wants[0])
    name = (lambda i: probe.outputs[i]) if len(probe.outputs) == n else (lambda i: f"{i + 1} (of {n})")
    said = []
    for i in range(n):
        wrong = [k for k, (g, want) in enumerate(zip(got, wants)) if compare(g[i], want[i], exact=probe.exact_shape)]
        if not wrong:
            continue
        others = [j for j in range(n) if j != i and all(
            compare(got[k][i], wants[k][j], exact=probe.exact_shape) is None for k in wrong)]
        if len(others) != 1:
            return None  # a wrong result that is no other one's (or could be two): nothing certain to say
        said.append(f"its result {name(i)} is the right result {name(others[0])}")
    if not said:
        return None
    return f"{listing(said)[0].upper()}{listing(said)[1:]} on every input where the two differ"


ARGUMENT_BUDGET = 0.3  # CPU seconds of reference calls _argument_finding may spend on one part (a wrong part)


@_diagnosis(None)
def _argument_finding(probe, cases, got, reasons):
    """ "On every input it does what the right code does with num_heads = 4, whatever num_heads it is given (2 on
    the book's case): ..." when the results are, on every case, the reference's with one whole-number argument of
    the part's call set to one other value: a constant (a size written into the code, a notebook's variable
    read in place of the argument) or another argument's value. Said only when exactly one such value fits every
    case, and some wrong case tells it from the argument given; None otherwise (or when the reference calls
    would cost more than ARGUMENT_BUDGET)."""
    import time
    if not probe.call or all(g is None for g, why in zip(got, reasons) if why is not None):
        return None
    names = [k for k, v in cases[0].inputs.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)
             and "seed" not in k and re.search(rf"(?<![\w.'\"]){re.escape(k)}(?![\w'\"=])", probe.call)
             and all(isinstance(c.inputs.get(k), (int, np.integer)) for c in cases)]
    if not names:
        return None
    book = next((c for c in cases if c.label == "book"), cases[0])
    start, fits = time.process_time(), []
    for name in names:
        constants = sorted(set(range(0, 17)) | {int(book.inputs[k]) for k in names})
        options = [(c, None) for c in constants] + [(None, k) for k in names if k != name]
        for constant, other in options:
            def value(case):
                return constant if other is None else int(case.inputs[other])
            if not any(why is not None and value(c) != int(c.inputs[name]) for c, why in zip(cases, reasons)):
                continue  # the argument itself on every wrong case: nothing to tell
            def fits_case(case, g, why):
                if value(case) == int(case.inputs[name]):
                    return why is None  # where it is given that value, the right answer: as the argument was
                try:
                    other_answer = probe.reference(dict(case.inputs, **{name: value(case)}))
                except Exception:  # a value the reference cannot take: where the student's code raised too
                    return g is None
                return g is not None and compare(g, other_answer, exact=probe.exact_shape) is None

            for case, g, why in sorted(zip(cases, got, reasons), key=lambda t: t[2] is None):  # wrong ones first
                if time.process_time() - start > ARGUMENT_BUDGET:
                    return None
                if not fits_case(case, g, why):
                    break
            else:  # every case, and a wrong one whose result is that answer (not only errors where it raises)
                if any(why is not None and g is not None and value(c) != int(c.inputs[name])
                       for c, g, why in zip(cases, got, reasons)):
                    fits.append((name, constant, other))
    if len(fits) != 1:
        return None
    name, constant, other = fits[0]
    # an example of the argument given, on a case where it is not the constant: "2 on the book's case"
    shown = next(c for c, why in zip(cases, reasons) if why is not None and constant != int(c.inputs[name])) \
        if other is None else book
    given = f"{int(shown.inputs[name])} on {_where(shown) if shown.label == 'book' else 'a fresh input'}"
    if other is None:
        return (f"On every input it does what the right code does with {name} = {constant}, whatever {name} it is "
                f"given ({given}): the result must follow the argument {name}")
    return (f"On every input it does what the right code does with {name} equal to {other}, not to the {name} it "
            f"is given ({name} = {int(book.inputs[name])}, {other} = {int(book.inputs[other])} on {_where(book)}): "
            f"the result must follow the argument {name}")


@_diagnosis(None)
def _off_by_one_finding(probe, cases, got, reasons):
    """ "On every input it gives what the right code gives for valid_lens - 1 (each entry one less): ..." when the
    results are, on every case, the reference's with one whole-number input of the call (a number, or an array of
    them: lengths, ids) one less, or one more: a count from 1 where 0 is due, or < where <= is due. Said only when
    exactly one input and one direction fit every case, right ones included, and a wrong case has a result; None
    otherwise (or past ARGUMENT_BUDGET)."""
    import time
    if not probe.call or all(g is None for g, why in zip(got, reasons) if why is not None):
        return None

    def whole(v):
        return (isinstance(v, (int, np.integer)) and not isinstance(v, bool)) or (
            isinstance(v, np.ndarray) and v.dtype.kind in "iu" and v.size)
    names = [k for k, v in cases[0].inputs.items() if "seed" not in k and whole(v) and all(whole(c.inputs.get(k))
             for c in cases) and re.search(rf"(?<![\w.'\"]){re.escape(k)}(?![\w'\"=])", probe.call)]
    start, fits = time.process_time(), []
    for name in names:
        for delta in (-1, 1):
            for case, g, why in sorted(zip(cases, got, reasons), key=lambda t: t[2] is None):  # wrong ones first
                if time.process_time() - start > ARGUMENT_BUDGET:
                    return None
                value = case.inputs[name]
                try:
                    other = probe.reference(dict(case.inputs, **{name: value + delta if isinstance(value, np.ndarray)
                                                                 else int(value) + delta}))
                except Exception:  # a value the reference cannot take: no fit
                    break
                if g is None or compare(g, other, exact=probe.exact_shape) is not None:
                    break
            else:
                fits.append((name, delta))
    if len(fits) != 1:
        return None
    name, delta = fits[0]
    sign = "-" if delta < 0 else "+"
    each = " (each entry one less)" if delta < 0 else " (each entry one more)"
    array = isinstance(cases[0].inputs[name], np.ndarray)
    return (f"On every input it gives what the right code gives for {name} {sign} 1{each if array else ''}: is "
            f"something counted from {1 if delta < 0 else 0} where {0 if delta < 0 else 1} is due, or compared with "
            f"{'<' if delta < 0 else '<='} where {'<=' if delta < 0 else '<'} is due?")


@_diagnosis(None)
def _swapped_input_finding(probe, cases, got, reasons):
    """ "On every input it does what the right code does with all_keys in place of all_queries: ..." when the
    results are, on every case, the reference's with one input (an array, or a list of them) given the value of
    another input of the same shape: a name used where another is due (keys for queries, one bias for another).
    Said only when exactly one pair fits every case, right ones included, and a wrong case tells the two apart;
    None otherwise (or when the reference calls would cost more than ARGUMENT_BUDGET)."""
    import time
    if probe.judge or all(g is None for g, why in zip(got, reasons) if why is not None):
        return None

    def shape(value):
        if isinstance(value, (bool, int, float, np.integer, np.floating, str)) or isinstance(value, dict):
            return None
        try:
            a = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return None
        return a.shape if a.size > 1 else None
    names = [n for n in cases[0].inputs if shape(cases[0].inputs[n]) is not None]
    pairs = [(a, b) for a in names for b in names
             if a != b and all(shape(c.inputs.get(a)) is not None and shape(c.inputs.get(a)) == shape(c.inputs.get(b))
                               for c in cases)]
    start, fits = time.process_time(), []
    for a, b in pairs:
        told = False
        for case, g, why in sorted(zip(cases, got, reasons), key=lambda t: t[2] is None):  # wrong ones first
            if time.process_time() - start > ARGUMENT_BUDGET:
                return None
            if np.array_equal(np.asarray(case.inputs[a], dtype=float), np.asarray(case.inputs[b], dtype=float)):
                if why is not None:  # the two the same here: the swap cannot be why it is wrong
                    break
                continue
            if g is None:
                break
            try:
                other = probe.reference(dict(case.inputs, **{a: case.inputs[b]}))
            except Exception:
                break
            if compare(g, other, exact=probe.exact_shape) is not None:
                break
            told = told or why is not None
        else:
            if told:
                fits.append((a, b))
    if len(fits) != 1:
        return None
    a, b = fits[0]
    return (f"On every input it does what the right code does with {b} in place of {a}: is {b} used where {a} "
            "is due?")


def _yes_no(value):
    """A result that is one yes/no answer (True/False, 1/0), as a bool; else None."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return bool(a.item()) if a.size == 1 and a.item() in (0.0, 1.0) else None


@_diagnosis(None)
def _trait_finding(cases, got, reasons):
    """The inputs a part is wrong on, said as a property they share (Case.traits), or None.

    Only traits every case declares count, in the order the first case declares them, and only with at
    least one right case and one wrong one. First, for a part that answers yes or no on every case: its
    answers are exactly a trait (or exactly its absence), a fact of all its answers at once ("True on exactly
    the inputs where f(X P) = f(X)"). Then: the cases it is wrong on are exactly those that have a trait
    (or exactly those that lack it). Nothing is said when no trait fits exactly."""
    wrong = [why is not None for why in reasons]
    if not any(wrong) or all(wrong) or not cases:
        return None
    declared = [t for t in cases[0].traits if all(t in c.traits for c in cases)]
    if not declared:
        return None
    n = len(cases)
    answers = [_yes_no(g) if g is not None else None for g in got]
    if all(a is not None for a in answers):
        for t in declared:
            has = [bool(c.traits[t]) for c in cases]
            for words, other, flip in ((t.has, t.lacks, False), (t.lacks, t.has, True)):
                if all(a == (h != flip) for a, h in zip(answers, has)):
                    k = sum(h != flip for h in has)
                    said = (f"it answers True on exactly {k} of the {n} inputs, those where {words}, and False on "
                            f"those where {other}")
                    return said + (f": {t.note}" if t.note else "")
    if all(c.shows for c, w in zip(cases, wrong) if not w):
        return None  # right only where a case is drawn to show one rule (Case.shows): on such inputs (probabilities of
        # one value) other mistakes need not show, so being right there is no evidence of which rule is broken
    for t in declared:
        has = [bool(c.traits[t]) for c in cases]
        for words, other, flip in ((t.has, t.lacks, False), (t.lacks, t.has, True)):
            if all(w == (h != flip) for w, h in zip(wrong, has)):
                said = (f"it is wrong on exactly {sum(wrong)} of the {n} inputs, those where {words}, and right "
                        f"on those where {other}")
                return said + (f": {t.note}" if t.note else "")
    return None


def _judged(probe, cases, got, reasons, points):
    """The verdict on a judged result: the mean of the judge's shares, and what it said of the worst case."""
    judged = [probe.judge(c.everything(), g) if g is not None else (0.0, why) for c, g, why in zip(cases, got, reasons)]
    share = sum(s for s, _ in judged) / len(judged)
    said = min(judged, key=lambda j: j[0])[1]
    if share >= 1:
        return Verdict(points, points, f"{probe.what}: {said}")
    said = said if said.endswith((".", "?", "!", ")")) else said + "."
    return Verdict(round(points * min(max(share, 0.0), 1.0), 2), points, f"{probe.what}: {said}",
                   finding="structural" if any(g is not None for g in got) else "reported")


def _sentence(text):
    """`text` ending as a sentence does."""
    text = text[0].upper() + text[1:] if text else text
    return text if text.endswith((".", "?", "!", ")")) else text + "."


def _weights(cases):
    """The book's case is a third of the marks, the fresh inputs share the rest."""
    n_book = sum(c.label == "book" for c in cases)
    n_fresh = len(cases) - n_book
    share = {"book": (1 / 3 if n_fresh else 1.0) / max(n_book, 1),
             "fresh": (2 / 3 if n_book else 1.0) / max(n_fresh, 1)}
    return [share[c.label] for c in cases]


def _mistaken(mistake, inputs):
    """The mistake's result on these inputs; NotAbout when the mistake says nothing about them, Raises when
    it would raise."""
    try:
        return mistake.compute(inputs)
    except LookupError:  # a mistake about other inputs only (notebook 03's checker verdicts)
        return NotAbout
    except Exception:
        return Raises


class NotAbout:
    """A mistake's result on inputs it says nothing about."""


class Raises:
    """A mistake's result on inputs where making it raises an error."""


def recognise(mistake, inputs, value, why, exact=False):
    """Whether this case's result (None with `why` when it raised; `why` None when right) fits this mistake."""
    if mistake.compute is None:  # known by the error it raises, which it raises on every input
        return value is None and bool(mistake.raises) and why.startswith("raised") and mistake.raises in why
    mistaken = _mistaken(mistake, inputs)
    if mistaken is NotAbout:
        return True
    if mistaken is Raises:
        return value is None and why.startswith("raised")
    if value is None:
        return False
    return _same_with_nan(value, mistaken, exact)


def _same_with_nan(got, want, exact=False):
    """Equal, where nan and inf must stand in the same places (a mistaken result may hold them); with
    `exact`, in exactly the same shape."""
    if isinstance(want, list) or isinstance(got, list):
        if not (isinstance(want, list) and isinstance(got, list)) or len(got) != len(want):
            return False
        return all(_same_with_nan(g, w, exact) for g, w in zip(got, want))
    try:
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        if exact and got.shape != want.shape:
            return False
        return bool(course().same(got, want))
    except (TypeError, ValueError):
        return False


@_diagnosis(None)
def _recognised(probe, cases, got, reasons, traces=()):
    """The catalogued mistake that explains every case (right where the student is right, the student's
    result where wrong), and whose own computation does not contradict the student's (`_walks`), when exactly
    one does; else None: a name is given only when it is certain."""
    if all(why is None for why in reasons):
        return None
    fits = [m for m in probe.mistakes
            if all(recognise(m, c.inputs, g, why, probe.exact_shape) for c, g, why in zip(cases, got, reasons))]
    if fits and traces:
        fits = [m for m in fits if _walks(probe, m, cases, got, reasons, traces)]
    names = {m.name for m in fits}
    return fits[0] if len(names) == 1 else None


def _steps_of(probe, case):
    """(the part's steps on this case, the reference's result, whether that result is the last step itself):
    not when the part has several results, or a one-number result the steps build up to. A cell's one output
    is its result, and a cell's list of columns its (D, N) matrix."""
    from . import steps
    wanted = probe.steps(case.inputs)
    want = probe.reference(case.inputs)
    want = want[0] if isinstance(want, list) and len(want) == 1 else want
    try:
        single = steps.holds(np.asarray(want, dtype=float), wanted[-1].value)
    except (TypeError, ValueError):  # several results of different shapes
        single = False
    return wanted, want, single


def _walks(probe, mistake, cases, got, reasons, traces):
    """Whether the mistake's own computation can be the student's: on the first wrong case whose trace holds
    anything (the book's first, as `_step_finding`), no step is right in one and shown wrong in the other
    (engine/steps.py, same_path). Two mistakes can give the same results by different paths; the name
    of one is then not said of the other. True when the part declares no steps or nothing can be compared:
    the results alone decide, as before."""
    if not probe.steps or mistake.compute is None or probe.trace_call:
        # (a probe that traces one call of many: a mistake's path, traced whole, is not comparable)
        return True
    from . import steps
    for case, value, why, trace in zip(cases, got, reasons, traces):
        if why is None or not trace or value is None:
            continue
        try:
            wanted, _, single = _steps_of(probe, case)
            numbers = any(np.ndim(s.value) == 0 for s in wanted)
            theirs, other = steps.traced(mistake.compute, case.inputs, numbers=numbers)
            if single:  # a cell's one output, as an array
                value, theirs = (np.asarray(r[0] if isinstance(r, list) and len(r) == 1 else r, dtype=float)
                                 for r in (value, theirs))
            return steps.same_path(wanted, trace, other, case.inputs, single, value, theirs)
        except Exception:  # a mistake that cannot be traced on this case, or steps that do not describe it
            return True
    return True


@_diagnosis((None, False))
def _step_finding(probe, cases, got, reasons, traces):
    """(words, certain) on the first wrong step in the student's own computation (engine/steps.py), on the
    first wrong case whose trace shows one, the book's first, so the same answer is told the same whatever
    the fresh draw; (None, False) when no trace shows anything."""
    from . import steps

    wrong = [(case, value, trace) for case, value, why, trace in zip(cases, got, reasons, traces)
             if why is not None and trace]

    @functools.cache
    def first_wrong(n):
        """(first_wrong's answer on wrong case n, whether the steps describe that case); each made once."""
        case, value, trace = wrong[n]
        try:
            wanted, want, single = _steps_of(probe, case)
            # (a case on which two steps have one value cannot tell an attempt at one from an attempt at the other:
            # 08's MLP counts 2 T D D_ff, the projections' 4 T D^2, when D_ff = 2 D. It describes no tie.)
            return (steps.first_wrong(wanted, trace, case.inputs, single, value, want, probe.steps),
                    not steps.coincide(wanted, case.inputs))
        except (ArithmeticError, LookupError, TypeError, ValueError):  # a case the steps do not describe
            return None, False  # (or a student's array no step's shape fits): nothing said from the trace

    uncertain = None
    for n in range(len(wrong)):
        said, described = first_wrong(n)
        # A sum of known values is said only when no other wrong case the steps describe ties other words, and,
        # for a few numbers (a count), when one does tie the same: on one case alone it may be chance, not the
        # student's computation (08's block_flops counting the MLP as 4 D wide: with D_ff = 3 D that is also the
        # projections' count put in for the MLP's)
        others = [(other or (None, None))[1] for other, told in (first_wrong(k) for k in range(len(wrong)) if k != n)
                  if told]
        few = said and isinstance(said[1], steps.Known) and np.size(said[1].array) < steps.ENTRIES
        if said and isinstance(said[1], steps.Known) and (not described or any(o != said[1] for o in others)
                                                          or few and not others):
            continue  # chance, not the student's computation
        if said and isinstance(said[1], steps.Sliced) and any(not o for o in others):
            continue  # slices right on this case only: another wrong case ties no array to any step
        if said and said[1]:
            texts = [(first_wrong(k)[0] or (None,))[0] for k in range(len(wrong)) if k != n and first_wrong(k)[1]]
            return (_steady_factor(said[0], texts),) + tuple(said[1:])
        uncertain = uncertain or (said[0] if said else None)
    return uncertain, False


# "every entry is 0.7071 times the right one (0.7071 = 1/sqrt(2): ...)": a factor and the guess said after it
_FACTOR_SAID = re.compile(r"every entry is (\S+) times the right one( \((?:[^()]|\([^()]*\))*\))")


def _steady_factor(text, others):
    """`text` without the guess after "every entry is c times the right one" unless the other wrong cases' words
    (`others`) bear it out. A guess that names no size ("1/sqrt(2): a scale applied twice?"): they say the same c.
    One that names sizes: they name sizes too, none of them other places than this one's ("3 is X.shape[1]"), and
    one of them these places, when this one names places. A factor that changes from one input to the next is no
    constant scale, and one that follows no size is tied to none (04's head size taken as D / 2: sqrt(2/H), H no
    input, is sqrt(2/N) on an input where N = H = 3)."""
    from . import diagnose
    found = _FACTOR_SAID.search(text) if isinstance(text, str) else None
    if not found or not others:
        return text
    if " is " not in found[2]:
        steady = all(f"every entry is {found[1]} times the right one" in (o or "") for o in others)
        return text if steady else text.replace(found[2], "", 1)
    places = diagnose.size_ties(found[2])
    again = [_FACTOR_SAID.search(o or "") for o in others]
    named = [diagnose.size_ties(a[2]) for a in again if a and " is " in a[2]]
    steady = len(named) == len(others) and all(not t or places <= t for t in named) \
        and (not places or any(places <= t for t in named))
    return text if steady else text.replace(found[2], "", 1)


def _where(case):
    return "the book's case" if case.label == "book" else f"fresh input ({case.about})" if case.about else "a fresh input"


def _summary(cases, reasons):
    """Where the part is right: "right on the book's case; right on 1 of 3 fresh inputs"."""
    book_ok = [why is None for c, why in zip(cases, reasons) if c.label == "book"]
    fresh = [why for c, why in zip(cases, reasons) if c.label == "fresh"]
    parts = []
    if book_ok:
        parts.append("right on the book's case" if all(book_ok) else "wrong on the book's case")
    if fresh:
        parts.append(f"right on {sum(why is None for why in fresh)} of {len(fresh)} fresh inputs")
    return "; ".join(parts)


@_diagnosis(_plain)
def _finding(probe, cases, got, reasons, traces=()):
    """(one sentence on what is wrong, and how: "structural" or "reported"). Each wrong case is looked at
    in turn (the book's may be saturated where a fresh one shows the cause) and the first finding is said."""
    from . import diagnose
    hidden = {id(c): _non_finite_on_the_way(t) for c, t in zip(cases, traces)}
    bad = [(c, g, why) for c, g, why in zip(cases, got, reasons) if why is not None]
    right = [c for c, why_ in zip(cases, reasons) if why_ is None]
    if all(g is None for _, g, _ in bad):
        case, _, why = bad[0]
        tied = _fixed_size_tie(bad) or _broadcast_tie(bad)
        if tied:  # said on the input whose sizes name where they come from
            case, why = tied[0], tied[1]
        said = why.split(":", 1)[0] if why.startswith("raised") else why
        meaning = tied[2] if tied else _index_tie(why, case, bad) or diagnose.error(why)
        # The size question only where a size is what tells the inputs apart: on inputs shaped as one it
        # runs on, the error's own words say more than a guess (numpy's "probabilities contain NaN").
        if right and all(_shapes(case.inputs) != _shapes(c.inputs) for c in right) and \
                not isinstance(meaning, diagnose.Empty) and not tied:  # (a tie asks of the sizes itself)
            return (f"On {_where(case)}: {said}{': ' + meaning if meaning else ''}. It runs on {len(right)} "
                    "other input(s): does it assume a size or shape that only some inputs have?", "structural")
        if right:
            return (f"On {_where(case)}: {said}{': ' + meaning if meaning else _words_of(why)}. It runs on "
                    f"{len(right)} other input(s): what does this one have that they do not?", "structural")
        if meaning:
            return f"On {_where(case)}: {said}: {meaning}", "structural"
        return f"On {_where(case)}: {why}", "reported"
    every = [(c.inputs, g) for c, g in zip(cases, got)]
    for case, value, why in bad:  # the part's own reading first, on the first wrong case it reads
        text = _read_by_part(probe, case, value, every)
        if text:
            return f"On {_where(case)}: {text}", "structural"
    weaker = []
    fixed = _fixed_size_tie(bad)
    for case, value, why in bad:
        if value is None:
            meaning = fixed[2] if fixed and fixed[0] is case else _index_tie(why, case, bad) or diagnose.error(why)
            if meaning:
                return f"On {_where(case)}: {why.split(':', 1)[0]}: {meaning}", "structural"
            continue
        text = _case_finding(probe, case, value, why, unfilled=not right)
        if isinstance(text, diagnose.Weak):
            # a fact whose cause this part cannot have (weights where none are due, in a part with no mask: a
            # saturated softmax of other scores): another case may show what the scores are
            weaker.append((case, text))
            continue
        if text:
            text = _without_chance_ties(probe, case, value, text, bad)
        made = hidden.get(id(case))
        if made and text and not right:
            # A result that looks unfilled (all zeros) from code that made a nan or inf on the way: no placeholder,
            # a nan replaced (np.nan_to_num); said as those two facts
            shown = _case_finding(probe, case, value, why, unfilled=False)
            text = f"{shown}, and on the way {made}" if shown != text else text
        if made and text and text.startswith(("it holds nan", "it holds inf")) and text.endswith(")"):
            # A result that holds nan: which arrays of theirs hold one says which lines to look at (02's
            # np.exp(x) / np.exp(max), inf / inf, where np.exp(x - max) is due)
            held = _non_finite_names(dict(zip(map(id, cases), traces)).get(id(case)))
            text = f"{text}; on the way, it is in your {held}" if held else text
        if text:
            return f"On {_where(case)}: {text}", "structural"
    if weaker:  # the first that says more than a mask's or two entries' order, else the first
        case, text = next(((c, t) for c, t in weaker if not {"mask", "order"} & set(t.about)), weaker[0])
        return f"On {_where(case)}: {text}", "structural"
    text = _one_sided(probe, cases, got, reasons) or _sizes_finding(cases, got, reasons)
    if text:
        return text, "structural"
    case, value, why = bad[0]
    return f"On {_where(case)}: {why}", "reported"


def _result_factor(probe, case, value):
    """c when the result is c times the right one (one array), else None."""
    from . import diagnose
    try:
        g, w = np.asarray(value, dtype=float), np.asarray(probe.reference(case.inputs), dtype=float)
    except (TypeError, ValueError):
        return None
    if not probe.exact_shape:
        g, w = np.squeeze(g), np.squeeze(w)
    return diagnose.factor(g, w) if g.shape == w.shape and g.size and np.isfinite(g).all() else None


def _without_chance_ties(probe, case, value, text, bad):
    """`text` without the size it ties the result's factor to ("2 is the input H") when another wrong case's
    result is a factor of the right one too, but one that this size does not give there: a factor that does not
    follow the size from case to case (a count doubled, H = 2 on the book's case) is no scale by that size. A
    guess that names no size ("1/sqrt(2): a scale applied twice...") goes when another wrong result is not the
    same multiple (see _steady_factor). A count off by a multiple of a size ("192 = 6 x 32, and 32 is the input
    D_ff") keeps it only when every other wrong count is off by that multiple of that input."""
    from . import diagnose
    counted, tie, every = _count_tie(probe, case, value)
    if tie and counted in text:  # a count off by k x a size: only when every other wrong count is, by that size
        others = [_count_tie(probe, other, got)[2] for other, got, _ in bad if other is not case and got is not None]
        held = [t for t in [tie] + [t for t in every if t != tie] if all(t in fits for fits in others)]
        # (the tie said first, else the one other tie of this case that every other wrong case has too: 24 is 3 x D
        # on the book's case, D_ff - D on all)
        return text if held and held[0] == tie else text.replace(counted, every[held[0]] if len(held) == 1 else "")
    c = _result_factor(probe, case, value)
    words = diagnose._factor_words(c, case.inputs) if c is not None else ""
    ties = diagnose.size_ties(words)
    if not words or words not in text:
        return text
    if " is " not in words:  # a guess that names no size: only when every other wrong result is the same multiple
        for other, got, _ in bad:
            if other is not case and got is not None:
                c_other = _result_factor(probe, other, got)
                if c_other is None or abs(c_other - c) > 1e-6 * abs(c):
                    return text.replace(words, "")
        return text
    for other, got, _ in bad:
        if other is case or got is None:
            continue
        c_other = _result_factor(probe, other, got)
        if c_other is not None and not ties <= diagnose.size_ties(diagnose._factor_words(c_other, other.inputs)):
            return text.replace(words, "")
    return text


_COUNT_SAID = re.compile(r": (?:it is|every entry is) \d+ (?:above|below) the right value")


def _count_tie(probe, case, value):
    """diagnose.count_tie of a result of whole numbers off by one whole number (a count), else ("", None, {})."""
    from . import diagnose
    try:
        g, w = np.asarray(value, dtype=float), np.asarray(probe.reference(case.inputs), dtype=float)
    except (TypeError, ValueError):
        return "", None, {}
    d = diagnose.offset(g, w)
    return ("", None, {}) if d is None else diagnose.count_tie(d, case.inputs)


def _one_sided(probe, cases, got, reasons):
    """For a part whose answers are yes or no (Probe.answers_repeat, each 1 or 0): "It says True on 7 inputs where
    False is due (...), and is right on every input where True is due", when every wrong answer is the same one;
    "It says False on 5 inputs where True is due (...), and True on 2 where False is due (...)" when both; that it
    answers the opposite on every input, when it does. None for other parts."""
    if not probe.answers_repeat:
        return None
    try:
        answers = [float(np.asarray(g).item()) for g in got]
        due = [float(np.asarray(probe.reference(c.inputs)).item()) for c in cases]
    except (TypeError, ValueError):
        return None
    if not set(answers) | set(due) <= {0.0, 1.0}:
        return None
    wrong = [(c, a) for c, a, why in zip(cases, answers, reasons) if why is not None]
    if not wrong:
        return None

    def told(answer):  # "True on 2 inputs where False is due (X @ W, D=3, N=4; ...)"
        these = [c for c, a in wrong if a == answer]
        named = "; ".join(c.about for c in these[:3] if c.about) + ("; ..." if len(these) > 3 else "")
        return (f"{'True' if answer else 'False'} on {len(these)} input{'s' if len(these) > 1 else ''} where "
                f"{'False' if answer else 'True'} is due{f' ({named})' if named else ''}")
    if len(wrong) == len(cases) and len(cases) > 2:  # every answer the opposite of the one due
        return ("It answers the opposite of the right answer on every input: is a comparison or a condition turned "
                "round (> where <= is due, or a not left out or added)?")
    if len({a for _, a in wrong}) == 2:  # wrong both ways: each way, with the inputs it is wrong on
        return f"It says {told(0.0)}, and {told(1.0)}"
    said = "True" if wrong[0][1] == 1.0 else "False"
    return f"It says {told(wrong[0][1])}, and is right on every input where {said} is due"


_INDEX_PAST = r"index (-?\d+) is out of bounds for axis \d+ with size (\d+)"


def _fixed_size_tie(bad):
    """(case, why, words) when every wrong case that raised raised a shape error (a matrix product or entry-by-entry
    arrays that do not fit), and on those where one of its sizes is no size of the inputs while the other is one, that
    size is one number: "4 is the same on every input and no size of the arguments: is a number fixed in the code, or
    a variable left from the notebook's example?" None otherwise (a case where an input has that size by chance says
    nothing either way)."""
    from . import diagnose
    found = []
    for case, value, why in bad:
        if value is not None:
            continue  # (a wrong result where no error was raised: the error's sizes are read where it was)
        m = re.search(diagnose.MATMUL_MISMATCH, why or "")
        pairs = [(int(m[1]), int(m[2]))] if m else []
        b = diagnose.broadcast_clash(why)
        if b:
            pairs = b.sizes
        if not pairs:
            return None
        met = (f"a matrix product A @ B met an A with {m[2]} columns and a B with {m[1]} rows" if m else
               f"two arrays of shapes ({b.shown[0]}) and ({b.shown[1]}) were combined entry by entry, and do not fit")
        sizes = diagnose._sizes(case.inputs)
        alien = {x for pair in pairs for x in pair if x not in sizes}
        if len(alien) > 1:
            return None
        if alien and any(len(set(pair) & sizes) == 1 for pair in pairs):
            found.append((case, why, alien.pop(), met))
        # (no such size here: an input that has that size too, by chance, says nothing either way)
    if not found or len({n for _, _, n, _ in found}) != 1:
        return None
    case, why, n, met = found[0]
    every = "the same on every input and " if len(found) > 1 else ""
    return case, why, (f"{met}; {n} is {every}no size of the arguments: is a number fixed in the code, or a variable "
                       "left from the notebook's example?")


def _broadcast_tie(bad):
    """(case, why, words) for arrays that do not broadcast, when on one wrong case the sizes that clash are each a
    size of the inputs in one named place, and not the same place ("2 is x.shape[0] and 5 is x.shape[1]"): a size
    taken from another axis than the one due (len(x) for a sequence's length). Every other case that raised so must
    clash by the same places. None otherwise."""
    from . import diagnose

    def places(case, why):
        clash = diagnose.broadcast_clash(why)
        if not clash:
            return None
        said = [(diagnose.size_words(x, case.inputs), diagnose.size_words(y, case.inputs)) for x, y in clash.sizes]
        if not said or any("a size of this input" in w for pair in said for w in pair):
            return ()  # a clash whose sizes are not named in one place: no evidence of where they come from
        return tuple(sorted({(w.split(" is ", 1)[1], v.split(" is ", 1)[1]) for w, v in said}))
    raised = [(c, why, places(c, why)) for c, _, why in bad]
    named = [(c, why, p) for c, why, p in raised if p]
    if not named or any(p is not None and p and p != named[0][2] for _, _, p in raised):
        return None
    case, why, pairs = named[0]
    if any(x == y for x, y in pairs):
        return None
    clash = diagnose.broadcast_clash(why)
    if clash.transposed:
        return None  # one of them transposed fits: numpy's words and their question say it (a row due, a column made)
    clashing = {n for pair in clash.sizes for n in pair}
    words = diagnose.listing(sorted(diagnose.size_words(n, case.inputs) for n in clashing))
    first, second = clash.shown
    return case, why, (f"two arrays of shapes ({first}) and ({second}) were combined entry by entry, and their "
                       f"sizes clash where {words}: is a size taken from another axis (or input) than the one due?")


def _index_tie(why, case, bad):
    """For an index past the end of an axis that is the value of one whole-number input of the case (and of the
    same input on every other wrong case that raised so, and no size of the inputs): what the index is. Failing
    that, an entry of one whole-number array input (a sequence's token ids), on two cases that raised so or more.
    None otherwise: an index that is a size, or several inputs' value, says nothing certain."""
    from . import diagnose
    found = re.search(_INDEX_PAST, why)
    if not found:
        return None

    def named(inputs, index, entries):
        if entries:
            return {n for n, v in inputs.items() if isinstance(v, np.ndarray) and v.dtype.kind in "iu"
                    and v.ndim >= 1 and index in v}
        return {n for n, v in inputs.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                and int(v) == index}
    index, size = int(found[1]), int(found[2])
    raised = [(other, re.search(_INDEX_PAST, other_why or "")) for other, _, other_why in bad if other is not case]
    raised = [(other, int(again[1])) for other, again in raised if again]
    for entries in (False, True):
        names = named(case.inputs, index, entries)
        if len(names) != 1 or (entries and not raised):
            continue
        name = names.pop()
        if any(index in diagnose._sizes({n: v}) for n, v in case.inputs.items() if n != name):
            return None
        if any(name not in named(other.inputs, at, entries) for other, at in raised):
            return None
        what = f"an entry of the input {name}: is an entry of {name}" if entries else f"the input {name}: is {name}"
        return (f"an index ran past the end of an axis (index {index}, on an axis of {size}), and {index} is "
                f"{what} used as the index where another one is due?")
    return None


def _read_by_part(probe, case, value, every=()):
    """The first sentence a reading of the part (Probe.readings) gives of this result, or None. A reading
    that takes an `every` argument is also given every case's (inputs, result), to say only what holds on
    all of them."""
    if value is None:
        return None
    for reading in probe.readings:
        try:
            sees_all = "every" in inspect.signature(reading).parameters
            text = reading(case.inputs, value, every=every) if sees_all else reading(case.inputs, value)
        except (ArithmeticError, LookupError, TypeError, ValueError, np.linalg.LinAlgError):
            continue  # a result it cannot read: nothing said
        if text:
            return text
    return None


def _non_finite_on_the_way(trace):
    """ "your `e` holds inf": the first of the student's traced arrays on a case that holds nan or inf, or None."""
    for where, name, a in trace or ():
        if not np.isfinite(a).all():
            from .steps import _yours
            return f"{_yours(where, name)} holds {'nan' if np.isnan(a).any() else 'inf'}"
    return None


def _non_finite_names(trace):
    """ "`softmax` and `exp_values`": the student's traced arrays on a case that hold nan or inf (three at most),
    in the trace's order, which is each name's first assignment (a placeholder's), not when the nan came."""
    names = [f"`{name}`" for where, name, a in trace or () if name and not np.isfinite(a).all()]
    return listing(names[:3]) if names else ""


def _case_finding(probe, case, value, why, unfilled=True):
    """What is wrong with one case's result, or None when nothing simple fits (`unfilled`: the part is wrong on
    every case, see diagnose.said_for)."""
    from . import diagnose
    want = probe.reference(case.inputs)
    label = ""
    single = True  # the views see the whole result: one output, or one item of a list that has one
    if isinstance(want, list):
        items = list(value) if isinstance(value, np.ndarray) and value.ndim >= 1 else value
        if not isinstance(items, list) or len(items) != len(want):
            return None
        single = len(want) == 1
        for i, (g, w) in enumerate(zip(items, want)):
            if compare(g, w, exact=probe.exact_shape) is not None:
                value, want = g, w
                label = (probe.outputs[i] if probe.outputs and i < len(probe.outputs) else f"item {i + 1}") + ": "
                break
    try:
        g, w = np.asarray(value, dtype=float), np.asarray(want, dtype=float)
    except (TypeError, ValueError):
        return None
    if not probe.exact_shape and np.squeeze(g).shape == np.squeeze(w).shape:
        g, w = np.squeeze(g), np.squeeze(w)
    if g.shape != w.shape:
        if not probe.exact_shape and g.ndim != w.ndim:
            g, w = np.squeeze(g), np.squeeze(w)
        text = diagnose.other_shape(g, w, case.inputs, probe.axes)
        return label + text if not text.startswith("shape ") or "where" in text else None
    text = diagnose.said_for(diagnose.same_shape(g, w, case.inputs, probe.axes), probe.operations, unfilled)
    if text is None and single:
        text = _seen_through_views(probe, case.inputs, _views(probe, case.inputs, value, want), unfilled)
    if isinstance(text, diagnose.Weak):
        return diagnose.Weak.of(label + text, text.about)
    return label + text if text else None


def _views(probe, inputs, value, want):
    """[(words, the result's view, the right result's view, axes)] for the probe's views that apply."""
    out = []
    for words, view, axes in probe.views:
        try:
            out.append((words, view(inputs, value), view(inputs, want), axes))
        except (ValueError, TypeError, IndexError, KeyError, np.linalg.LinAlgError):
            continue
    return out


def _seen_through_views(probe, inputs, seen, unfilled=True):
    """A finding on a view of the result (its heads before the output projection, its weights), or None."""
    from . import diagnose
    for words, g, w, axes in seen:
        if isinstance(g, str):
            return g
        if g is None or w is None or np.shape(g) != np.shape(w):
            continue
        text = diagnose.said_for(diagnose.same_shape(g, w, inputs, axes), probe.operations, unfilled)
        if text:
            return f"{words}, {text}"
    return None


def _words_of(why):
    """An error's own message, ": probabilities contain NaN", when it is one short line; else nothing."""
    message = why.split(":", 1)[1].strip() if ":" in why else ""
    return f": {message}" if message and len(message) <= 100 and "\n" not in message else ""


def _shapes(inputs):
    """{input name: its shape} of a case's arrays of numbers (lists of numbers included): what a student's code
    can tie to a size. Texts, lists of words, dictionaries and single numbers have none."""
    out = {}
    for name, value in (inputs or {}).items():
        if isinstance(value, (str, dict)):
            continue
        try:
            a = np.asarray(value)
        except ValueError:  # a ragged list
            continue
        if a.ndim and a.dtype.kind in "biuf":
            out[name] = a.shape
    return out


def _sizes_finding(cases, got, reasons):
    """Right on the smaller inputs and wrong on every larger one: a fixed size or loop bound, likely. Said only
    when at least two inputs of different sizes are right: one right input may be right for another reason
    (a cross-attention right where the keys are the queries), and its size then says nothing."""
    sized = [(np.size(g) if not isinstance(g, list) else sum(np.size(x) for x in g), c, why)
             for c, g, why in zip(cases, got, reasons) if g is not None]
    right = [n for n, _, why in sized if why is None]
    wrong = [(n, c) for n, c, why in sized if why is not None]
    if len(set(right)) >= 2 and wrong and len(wrong) == sum(why is not None for why in reasons) and min(n for n, _ in wrong) > max(right):
        about = ", ".join(_where(c) for _, c in wrong[:2])
        return (f"Right on the smaller inputs, wrong on every larger one ({about}): look at what in it changes "
                "with the size of its inputs")
    return None


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
