"""Sealed verdicts, unit by unit: the probe's kernel side runs here in-process (no Jupyter kernel)."""
import functools
import re

import IPython.display
import nbformat
import numpy as np
import pytest
from nbgrader.utils import determine_grade

from grader.engine import protocol
from grader.course import PROBES
from grader.engine.nbgrader_plugin import unfinished, unfinished_before
from grader.engine.protocol import Case, Probe, verdict

SELF_ATTENTION = PROBES["01_self_attention"]["test_self_attention"]
QKV = PROBES["01_self_attention"]["test_qkv_loop"]


def run_probe(probe, kernel, cell_source="", seed=0, monkeypatch=None):
    """Execute the probe's source in `kernel` (a dict standing for the kernel's globals); return cases, outputs."""
    cases = probe.cases(np.random.default_rng(seed))
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append(obj))
    with pytest.raises(RuntimeError, match="awaiting the grader"):  # fail-closed without SealVerdicts
        exec(protocol.probe_source(probe, cases, cell_source), kernel)
    outputs = [{"output_type": "display_data", "data": obj} for obj in shown]
    return cases, outputs


def kernel_with(source):
    """A stand-in kernel namespace after the student's cells ran."""
    space = {"np": np}
    exec("import numpy as np\n"
         "def softmax_cols(a):\n  e = np.exp(a)\n  return e / e.sum(axis=0)\n" + source, space)
    return space


RIGHT = """
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  print("students print things")
  return V @ softmax_cols(K.T @ Q)
"""


def test_right_answer_gets_full_marks_and_prints_nothing(monkeypatch, capsys):
    cases, outputs = run_probe(SELF_ATTENTION, kernel_with(RIGHT), monkeypatch=monkeypatch)
    v = verdict(SELF_ATTENTION, cases, outputs, 3)
    assert (v.score, v.points) == (3, 3)
    assert "right on the book's case" in v.message
    assert capsys.readouterr().out == ""


def test_einsum_and_float32_answers_are_right_too(monkeypatch):
    other = RIGHT.replace("return V @ softmax_cols(K.T @ Q)",
                          "return np.einsum('dm,mn->dn', V, softmax_cols(np.einsum('dm,dn->mn', K, Q))).astype(np.float32)")
    cases, outputs = run_probe(SELF_ATTENTION, kernel_with(other), monkeypatch=monkeypatch)
    assert verdict(SELF_ATTENTION, cases, outputs, 3).score == 3


@pytest.mark.parametrize("edit, name", [
    (("softmax_cols(K.T @ Q)", "softmax_cols((K.T @ Q).T).T"), "softmax over rows"),
    (("softmax_cols(K.T @ Q)", "softmax_cols(Q.T @ K)"), "Q.T @ K"),
    ((" + beta_q", ""), None),  # one bias left out is wrong, but is not the catalogued "all biases" mistake
])
def test_mistakes_score_zero_and_are_named(monkeypatch, edit, name):
    cases, outputs = run_probe(SELF_ATTENTION, kernel_with(RIGHT.replace(*edit)), monkeypatch=monkeypatch)
    v = verdict(SELF_ATTENTION, cases, outputs, 3)
    assert v.score == 0
    if name:
        assert name in v.message
    else:  # not named, but found: behind the values, each key's score is off by K.T @ beta_q
        assert v.mistake is None and v.finding == "structural" and "a bias left out of the queries" in v.message


def test_an_answer_right_on_the_book_case_only_for_no_known_reason_earns_nothing(monkeypatch):
    """The notebook prints the book's answer, so being right there alone is no evidence. One policy in
    every notebook: a catalogued mistake that shows on other sizes only (02's global D) earns nothing too."""
    only_4 = RIGHT.replace("def self_attention(X,", "D = 4\ndef self_attention(X,").replace(
        "return V @", "V = V[:D] if V.shape[0] == D else V * 0\n  return V @")
    cases, outputs = run_probe(SELF_ATTENTION, kernel_with(only_4), monkeypatch=monkeypatch)
    v = verdict(SELF_ATTENTION, cases, outputs, 3)
    assert v.score == 0 and v.mistake == protocol.BOOK_ONLY
    assert "right on the book's case only" in v.message and "all zeros" in v.message


def test_a_hard_coded_result_scores_zero_even_on_the_book_case(monkeypatch):
    book = SELF_ATTENTION.reference(SELF_ATTENTION.cases(np.random.default_rng(0))[0].inputs)
    kernel = kernel_with("def self_attention(*args):\n  return BOOK\n")
    kernel["BOOK"] = book
    cases, outputs = run_probe(SELF_ATTENTION, kernel, monkeypatch=monkeypatch)
    v = verdict(SELF_ATTENTION, cases, outputs, 3)
    assert v.score == 0 and v.mistake == protocol.HARD_CODED and "returns the answer it gives on the book's case, unchanged" in v.message


def test_an_exception_is_reported_with_its_message(monkeypatch):
    kernel = kernel_with("def self_attention(*args):\n  raise ValueError('shapes do not align')\n")
    cases, outputs = run_probe(SELF_ATTENTION, kernel, monkeypatch=monkeypatch)
    v = verdict(SELF_ATTENTION, cases, outputs, 3)
    assert v.score == 0 and "ValueError: shapes do not align" in v.message


def test_a_missing_function_scores_zero(monkeypatch):
    cases, outputs = run_probe(SELF_ATTENTION, kernel_with(""), monkeypatch=monkeypatch)
    v = verdict(SELF_ATTENTION, cases, outputs, 3)
    assert v.score == 0 and "self_attention is not defined when its check runs" in v.message
    assert v.finding == "undefined"


def test_cell_probe_runs_the_students_cell_on_fresh_inputs(monkeypatch):
    cell = ("all_queries, all_keys, all_values = [], [], []\n"
            "for x in all_x:\n"
            "  all_queries.append(omega_q @ x + beta_q)\n"
            "  all_keys.append(omega_k @ x + beta_k)\n"
            "  all_values.append(omega_v @ x)\n")
    cases, outputs = run_probe(QKV, {}, cell_source=cell, monkeypatch=monkeypatch)
    v = verdict(QKV, cases, outputs, 2)
    assert v.score == 0 and "all_values: every one of its" in v.message and "a bias left out" in v.message
    fixed = cell.replace("omega_v @ x)", "omega_v @ x + beta_v)")
    cases, outputs = run_probe(QKV, {}, cell_source=fixed, monkeypatch=monkeypatch)
    assert verdict(QKV, cases, outputs, 2).score == 2


def test_a_cell_that_does_not_set_its_outputs_is_told_so(monkeypatch):
    cases, outputs = run_probe(QKV, {}, cell_source="all_queries = []\n", monkeypatch=monkeypatch)
    v = verdict(QKV, cases, outputs, 2)
    assert v.score == 0 and "did not set all_keys, all_values" in v.message


@pytest.mark.parametrize("outputs, words", [
    ([], "could not report"),
    ([{"output_type": "error", "ename": "CellTimeoutError", "evalue": ""}], "time limit"),
    ([{"output_type": "display_data", "data": {protocol.MIME: {"results": "nonsense"}}}], "malformed"),
    # the grader's words where the kernel stopped, and in the cells after it (grader/engine/parallel.py)
    ([{"output_type": "error", "ename": "KernelStopped", "evalue": protocol.KERNEL_STOPPED[0]}],
     "not graded, the kernel died while running its check"),
    ([{"output_type": "error", "ename": "KernelStopped", "evalue": protocol.KERNEL_STOPPED[5].format(gib="5")}],
     "not graded, its check did not run: the kernel was stopped at an earlier cell, where it went over its memory "
     "budget of 5 GiB"),
    # a student's exception of that name is not the grader's word
    ([{"output_type": "error", "ename": "KernelStopped", "evalue": "full marks, says the grader"}], "could not report"),
    # what passes through the probe's `except Exception`, said as that; an Exception there is no such thing
    ([{"output_type": "error", "ename": "SystemExit", "evalue": "0"}], "exit() or sys.exit() in your code ended"),
    ([{"output_type": "error", "ename": "_Leave", "evalue": ""}], "_Leave was raised and ended the check, as no"),
    ([{"output_type": "error", "ename": "ValueError", "evalue": ""}], "did your code redefine display"),
    ([{"output_type": "error", "ename": "KeyboardInterrupt", "evalue": ""}], "did your code redefine display"),
    # the probe's own closing error with no report: the probe ran to its end, and its report was taken away (attacks8's
    # e05 cleared every cell's outputs after it ran); no BaseException of the student's
    ([{"output_type": "error", "ename": protocol.SEALED, "evalue": ""}], "what it displayed is gone from the cell's "
                                                                          "outputs: did your code clear them"),
])
def test_no_report_scores_zero(outputs, words):
    cases = SELF_ATTENTION.cases(np.random.default_rng(0))
    v = verdict(SELF_ATTENTION, cases, outputs, 3)
    assert v.score == 0 and words in v.message


def test_two_reports_score_zero(monkeypatch):
    cases, outputs = run_probe(SELF_ATTENTION, kernel_with(RIGHT), monkeypatch=monkeypatch)
    assert verdict(SELF_ATTENTION, cases, outputs * 2, 3).score == 0


@pytest.mark.parametrize("obj, words", [
    ({"dtype": "|O", "shape": [1], "data": ""}, "not numbers"),
    ({"dtype": "<f8", "shape": [10**7], "data": ""}, "far too large"),
    ({"dtype": "<f8", "shape": [3], "data": "AAAA"}, "malformed"),
    ({"type": "Tricky"}, "Tricky"),
])
def test_results_that_are_not_arrays_are_refused(obj, words):
    with pytest.raises(protocol.BadResult, match=words):
        protocol.decode_result(obj)


def test_a_probe_left_unmarked_ends_in_one_line_of_error_that_nbgrader_scores_zero():
    """A probe whose outputs no grader replaced fails closed, and IPython shows its error as its message alone:
    not a traceback quoting the probe's long request line (which cost a few hundredths of a second a probe)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    shell = InteractiveShell()
    shell.user_ns.update(kernel_with(RIGHT))
    cases = SELF_ATTENTION.cases(np.random.default_rng(0))
    with capture_output() as shown:
        result = shell.run_cell(protocol.probe_source(SELF_ATTENTION, cases))
    error = result.error_in_exec
    assert isinstance(error, RuntimeError) and "awaiting the grader" in str(error)
    report, _, error_shown = shown.stdout.strip().rpartition("\n")
    assert protocol.MIME in report and "'ok': True" in report  # (a terminal shell prints the report)
    assert error_shown == "sealed probe: awaiting the grader's verdict"
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [nbformat.v4.new_output("error", ename=type(error).__name__, evalue=str(error),
                                           traceback=[error_shown])]
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "points": 3, "grade_id": "t"}
    assert determine_grade(cell) == (0, 3.0)


def test_nbgrader_scores_the_verdict_outputs_as_intended():
    for score, expected in ((3.0, 3.0), (0.0, 0.0), (1.5, 1.5)):
        outputs = protocol.verdict_outputs(protocol.Verdict(score, 3.0, "message"))
        cell = nbformat.v4.new_code_cell("")
        cell.outputs = [nbformat.from_dict(o) for o in outputs]
        cell.metadata["nbgrader"] = {"grade": True, "solution": False, "points": 3, "grade_id": "t"}
        assert determine_grade(cell) == (expected, 3.0)
        assert not any(o.get("name") == "stderr" for o in outputs)


def test_weights_give_the_book_case_a_third():
    cases = [Case("book", {}), Case("fresh", {}), Case("fresh", {})]
    assert protocol._weights(cases) == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert protocol._weights([Case("fresh", {})] * 4) == pytest.approx([0.25] * 4)


def test_every_probe_draws_fresh_sizes_unlike_the_books():
    for notebook, probes in PROBES.items():
        for grade_id, probe in probes.items():
            cases = probe.cases(np.random.default_rng(1))
            assert all(c.label in ("book", "fresh") for c in cases)
            assert any(c.label == "fresh" for c in cases), f"{notebook} {grade_id} draws no fresh inputs"
            books = [c for c in cases if c.label == "book"]
            for c in cases:
                for name in ("X", "items_in", "all_x", "all_queries"):
                    if c.label == "fresh" and name in c.inputs:
                        assert all(np.shape(c.inputs[name]) != np.shape(b.inputs.get(name)) for b in books), \
                            (notebook, grade_id, name)


def test_02s_stability_cases_tell_a_shift_by_the_column_maximum_from_any_other_shift():
    """The book's reason for the shift is that np.exp cannot overflow: among the cases 02's softmax_cols draws, one
    has a column whose scores spread past exp's range, so a shift by the column's minimum is wrong there; and none
    is square, so code that takes a row count for a column count is wrong on every case."""
    probe = PROBES["02_scaled_attention"]["test_softmax_cols"]
    for seed in range(20):
        wrong = 0
        for case in probe.cases(np.random.default_rng(seed)):
            s = np.asarray(case.inputs["data_in"], dtype=np.float64)
            assert s.shape[0] != s.shape[1], (seed, case.about)  # a square case cannot tell rows from columns
            with np.errstate(all="ignore"):
                e = np.exp(s - s.min(axis=0))
                wrong += protocol.compare(e / e.sum(axis=0), probe.reference(case.inputs)) is not None
        assert wrong >= 1, seed


def test_02s_cases_tell_code_that_only_overflows_from_a_shift_in_the_numerator_only():
    """On columns near +-1000 a log-sum-exp without the shift and the maximum subtracted in the numerator only give
    the same zeros and infs; the last case has a column of small scores, where the first is right and the second
    is not, so the catalogued name is not said of code that only overflows."""
    probe = PROBES["02_scaled_attention"]["test_softmax_cols"]
    numerator_only = next(m for m in probe.mistakes if m.name == "maximum subtracted in the numerator only")

    def unshifted(x):
        return np.exp(x - np.log(np.sum(np.exp(x), axis=0, keepdims=True)))
    for seed in range(20):
        cases = probe.cases(np.random.default_rng(seed))
        with np.errstate(all="ignore"):
            got = [unshifted(np.asarray(c.inputs["data_in"], dtype=np.float64)) for c in cases]
        reasons = [protocol.compare(g, probe.reference(c.inputs)) for c, g in zip(cases, got)]
        assert all(reasons), seed  # wrong on every case: each has overflowing columns
        assert not all(protocol.recognise(numerator_only, c.inputs, g, why) for c, g, why in zip(cases, got, reasons))


def test_a_probe_may_mark_by_its_own_rule():
    cases = [Case("fresh", {"x": np.ones(1)}), Case("fresh", {"x": np.ones(1)})]
    probe = Probe(what="checker", call="f(x)", cases=None, reference=lambda i: np.ones(1),
                  marks=lambda cases, reasons: 0.0 if any(reasons) else 1.0)
    report = [{"output_type": "display_data", "data": {protocol.MIME: {"results": [
        {"ok": True, "value": protocol_value(1.0)}, {"ok": True, "value": protocol_value(0.0)}]}}}]
    v = verdict(probe, cases, report, 2)
    assert v.score == 0 and "got 0, expected 1" in v.message


def protocol_value(x):
    """A result as the kernel side reports it."""
    import base64
    a = np.asarray(x, dtype=np.float64)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode()}


def test_strings_and_numbers_reach_the_kernel_as_themselves(monkeypatch):
    probe = Probe(what="count", call="len(sentence.split()) + n", cases=lambda rng: [
        Case("fresh", {"sentence": "the bank of the river", "n": 2})], reference=lambda i: np.array(7.0))
    cases, outputs = run_probe(probe, {}, monkeypatch=monkeypatch)
    assert verdict(probe, cases, outputs, 1).score == 1


@pytest.mark.parametrize("notebook, grade_id", [(n, g) for n, probes in PROBES.items() for g in probes])
def test_every_probe_can_mark_every_input_it_draws(notebook, grade_id):
    """The grader's side never fails: references and mistakes run on whatever the cases draw. A judged
    probe's reference is one right answer (notebook 09's: a model trained, 3 s each): the judge gives it
    full marks, on fewer draws."""
    probe = PROBES[notebook][grade_id]

    def flat(value):
        return np.concatenate([flat(v) for v in value]) if isinstance(value, list) else np.ravel(np.asarray(value, float))

    for seed in range(3 if probe.judge else 25):
        for case in probe.cases(np.random.default_rng(seed)):
            want = probe.reference(case.everything())
            assert np.all(np.isfinite(flat(want))), (seed, case.about)
            if probe.judge:
                assert probe.judge(case.everything(), want)[0] == 1.0, (seed, case.about)


def test_yes_no_answers_that_repeat_are_not_taken_for_hard_coding():
    cases = [Case("book", {"x": np.zeros(1)}), Case("fresh", {"x": np.ones(1)})]
    report = [{"output_type": "display_data", "data": {protocol.MIME: {"results": [
        {"ok": True, "value": protocol_value(1.0)}, {"ok": True, "value": protocol_value(1.0)}]}}}]
    truth = lambda i: np.asarray(float(i["x"][0] == 0))  # noqa: E731 (True on the book's case only)
    repeating = Probe(what="checker", call="f(x)", cases=None, reference=truth, answers_repeat=True)
    v = verdict(repeating, cases, report, 3)
    assert v.mistake is None and "It says True on 1 input where False is due" in v.message and v.score == 1.0
    plain = Probe(what="function", call="f(x)", cases=None, reference=truth)
    assert verdict(plain, cases, report, 3).mistake == protocol.HARD_CODED


# ---------------------------------------------------------------- attribution, in-place changes, findings

SCALED = PROBES["02_scaled_attention"]["test_scaled_attention"]
SOFTMAX_COLS = PROBES["02_scaled_attention"]["test_softmax_cols"]
SCALED_RIGHT = """
def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
"""
ROWS_SOFTMAX = "def softmax_cols(a):\n  e = np.exp(a - a.max(axis=1, keepdims=True))\n  return e / e.sum(axis=1, keepdims=True)\n"


def run_with_helpers(probe, kernel, helpers_of, monkeypatch, seed=0):
    """Run `probe` as the grader does when its helpers have their kernel references: the student's kernel
    gets the probe alone; the judgement, with the course's helpers, runs in a kernel of its own that the
    grader throws away (here the same globals, which the probe puts back as they were). Returns cases,
    outputs, judge."""
    cases = probe.cases(np.random.default_rng(seed))
    swap = {name: helpers_of[part].kernel_reference for name, part in probe.uses.items()}

    def outputs_of(source, space):
        shown = []
        monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append(obj))
        with pytest.raises(RuntimeError, match="awaiting the grader"):
            exec(source, space)
        return [{"output_type": "display_data", "data": obj} for obj in shown]

    judged = []
    outputs = outputs_of(protocol.probe_source(probe, cases, ""), kernel)

    def judge():
        judged.append(probe.what)
        return outputs_of(protocol.probe_source(probe, cases, "", swap), kernel)
    assert "with_reference" not in outputs[0]["data"][protocol.MIME]
    return cases, outputs, judge


def _helper_verdict(probe, kernel, monkeypatch):
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    return probe.what, verdict(probe, cases, outputs, 2)


def test_a_part_whose_only_fault_is_a_wrong_helper_keeps_its_marks(monkeypatch):
    kernel = {"np": np}
    exec("import numpy as np\n" + ROWS_SOFTMAX + SCALED_RIGHT, kernel)
    helper = _helper_verdict(SOFTMAX_COLS, kernel, monkeypatch)
    assert helper[1].score == 0
    cases, outputs, judge = run_with_helpers(SCALED, kernel, PROBES["02_scaled_attention"], monkeypatch)
    assert verdict(SCALED, cases, outputs, 3).score == 0  # no judgement asked for: marked as it runs
    alone = verdict(SCALED, cases, outputs, 3, judge=judge)  # no helper verdicts known: marked as it runs
    assert alone.score == 0 and alone.finding == "helper" and "right with the course's softmax_cols" in alone.message
    v = verdict(SCALED, cases, outputs, 3, {"softmax_cols": helper}, judge)
    assert v.score == 3 and "right once your softmax_cols is fixed" in v.message
    assert kernel["softmax_cols"].__code__.co_consts != ()  # the student's own function is put back


def test_a_part_with_its_own_mistake_and_a_wrong_helper_is_marked_on_its_own_mistake(monkeypatch):
    kernel = {"np": np}
    exec("import numpy as np\n" + ROWS_SOFTMAX + SCALED_RIGHT.replace(" / np.sqrt(Q.shape[0])", ""), kernel)
    helper = _helper_verdict(SOFTMAX_COLS, kernel, monkeypatch)
    cases, outputs, judge = run_with_helpers(SCALED, kernel, PROBES["02_scaled_attention"], monkeypatch)
    v = verdict(SCALED, cases, outputs, 3, {"softmax_cols": helper}, judge)
    assert v.score == 0 and v.mistake == "no scaling" and "in place of yours" in v.message


def test_no_judgement_run_for_a_part_whose_own_catalogued_mistake_explains_it_when_its_helpers_are_right(monkeypatch):
    """A judgement run (a kernel of its own, the notebook run again) cannot change the score of a part whose
    helpers earned their marks; when a catalogued mistake of the part gives its results, it is not asked for,
    and the verdict is the one the judgement would have given. Otherwise it still is."""
    cols_softmax = "def softmax_cols(a):\n  e = np.exp(a - a.max(axis=0))\n  return e / e.sum(axis=0)\n"
    for body, named in ((SCALED_RIGHT.replace(" / np.sqrt(Q.shape[0])", ""), "no scaling"),
                        (SCALED_RIGHT.replace("np.sqrt(Q.shape[0])", "(1.5 * Q.shape[0])"), None)):
        kernel = {"np": np}
        exec("import numpy as np\n" + cols_softmax + body, kernel)
        helper = _helper_verdict(SOFTMAX_COLS, kernel, monkeypatch)
        assert helper[1].score == helper[1].points
        cases, outputs, judge = run_with_helpers(SCALED, kernel, PROBES["02_scaled_attention"], monkeypatch)
        asked = []
        v = verdict(SCALED, cases, outputs, 3, {"softmax_cols": helper}, lambda: asked.append(1) or judge())
        assert v.score == 0 and v.mistake == named and asked == ([] if named else [1]), v.message
        with monkeypatch.context() as m:  # the judgement asked for anyway, as before
            m.setattr(protocol, "_own_mistake", lambda *a: False)
            asked_anyway = []
            judged = verdict(SCALED, cases, outputs, 3, {"softmax_cols": helper},
                             lambda: asked_anyway.append(1) or judge())
        assert asked_anyway == [1]
        assert (judged.score, judged.message, judged.mistake) == (v.score, v.message, v.mistake)
    # A wrong helper: asked for, whatever the part's results look like (see the test above this one).
    exec(ROWS_SOFTMAX + SCALED_RIGHT.replace(" / np.sqrt(Q.shape[0])", ""), kernel)
    helper = _helper_verdict(SOFTMAX_COLS, kernel, monkeypatch)
    cases, outputs, judge = run_with_helpers(SCALED, kernel, PROBES["02_scaled_attention"], monkeypatch)
    asked = []
    verdict(SCALED, cases, outputs, 3, {"softmax_cols": helper}, lambda: asked.append(1) or judge())
    assert asked == [1]


def test_the_judgement_is_asked_for_only_when_the_part_is_wrong_and_a_forged_one_is_not_read(monkeypatch):
    cols_softmax = "def softmax_cols(a):\n  e = np.exp(a - a.max(axis=0))\n  return e / e.sum(axis=0)\n"
    kernel = {"np": np}
    exec("import numpy as np\n" + cols_softmax + SCALED_RIGHT, kernel)
    cases, outputs, judge = run_with_helpers(SCALED, kernel, PROBES["02_scaled_attention"], monkeypatch)
    asked = []
    v = verdict(SCALED, cases, outputs, 3, {"softmax_cols": None}, lambda: asked.append(1) or judge())
    assert v.score == 3 and not asked  # right as it runs: no second kernel

    exec(ROWS_SOFTMAX, kernel)
    helper = _helper_verdict(SOFTMAX_COLS, kernel, monkeypatch)
    cases, outputs, judge = run_with_helpers(SCALED, kernel, PROBES["02_scaled_attention"], monkeypatch)
    judged = judge()[0]["data"][protocol.MIME]["with_reference"]
    # A kernel that writes its own "with_reference" into its report gains nothing from it.
    forged = [dict(o, data={protocol.MIME: dict(o["data"][protocol.MIME], with_reference=judged)}) for o in outputs]
    assert verdict(SCALED, cases, forged, 3, {"softmax_cols": helper}).score == 0
    assert verdict(SCALED, cases, forged, 3, {"softmax_cols": helper}, judge).score == 3
    # A judgement that fails (a kernel that could not start, a report that cannot be read) attributes nothing.
    for broken in (lambda: [], lambda: 1 / 0, lambda: [{"output_type": "display_data", "data": {protocol.MIME: {}}}]):
        assert verdict(SCALED, cases, outputs, 3, {"softmax_cols": helper}, broken).score == 0


def test_a_function_that_overwrites_its_argument_is_caught(monkeypatch):
    probe = Probe(what="double", call="double(x)", reference=lambda i: 2 * i["x"], cases=lambda rng: [
        Case("book", {"x": np.arange(3.0)}), Case("fresh", {"x": rng.normal(size=4)})])
    kernel = {"np": np}
    exec("def double(x):\n  x *= 2\n  return x\n", kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 3)
    assert v.score == 2 and protocol.CHANGED in v.message and "x" in v.message
    exec("def double(x):\n  return 2 * x\n", kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    assert verdict(probe, cases, outputs, 3).score == 3


def test_a_flat_vector_broadcast_with_a_column_is_said_by_its_diagonal():
    """(n,) combined with (n, 1) is (n, n): its diagonal is the right column when the two were to be added (or
    multiplied) entry by entry. Said only when every other entry is such a pair too: a matrix of dot products whose
    diagonal happens to be the answer (K.T @ Q where each query's own dot product is due) is not that."""
    from grader.engine import diagnose
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=4), rng.normal(size=(4, 1))
    for got in (a + b, a * b, np.stack([a + b, a - b])):
        want = np.diagonal(got, axis1=-2, axis2=-1)[..., None]
        said = diagnose.other_shape(got, want)
        assert "whose diagonal" in said and "broadcasts a flat vector, shape (4,), with a column" in said, said
    K, Q = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    dots = K.T @ Q  # (4, 4)
    assert "diagonal" not in diagnose.other_shape(dots, np.diagonal(dots)[:, None])
    assert "diagonal" not in diagnose.other_shape(a + b + 0.1 * dots, np.diagonal(a + b + 0.1 * dots)[:, None])


def test_a_function_that_grows_the_list_its_call_hands_it_is_caught(monkeypatch):
    """11's decoders get the prompt as a list, as in the notebook (protocol.held): one that appends to it changes
    its caller's prompt, and is told so; one that copies it first, or builds a new list, is not."""
    call = f"extend({protocol.held('prompt', '[int(t) for t in prompt]')}, int(n))"
    probe = Probe(what="extend", call=call, reference=lambda i: np.append(i["prompt"], np.zeros(int(i["n"]))),
                  cases=lambda rng: [Case("book", {"prompt": np.array([3, 1]), "n": 2}),
                                     Case("fresh", {"prompt": rng.integers(0, 9, size=3), "n": 1})])
    kernel = {"np": np}
    for source, score in (("def extend(prompt, n):\n  ids = prompt\n  ids += [0] * n\n  return ids\n", 2),
                          ("def extend(prompt, n):\n  prompt[0] = prompt[0]\n  return prompt + [0] * n\n", 3),
                          ("def extend(prompt, n):\n  ids = list(prompt)\n  ids += [0] * n\n  return ids\n", 3)):
        exec(source, kernel)
        v = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 3)
        assert v.score == score, (source, v.message)
        assert (protocol.CHANGED in v.message and "list(prompt)" in v.message) == (score == 2), v.message


def test_a_function_that_changes_the_dictionary_its_call_hands_it_is_caught(monkeypatch):
    """10's corpus is a dictionary the call builds and hands over (Probe.handed says how it was made): one that the
    function empties, refills or adds to is told so; one it only reads is not."""
    call = f"total({protocol.held('counts', '{k: v for k, v in zip(keys, values)}')})"
    probe = Probe(what="total", call=call, reference=lambda i: np.array(float(np.sum(i["values"]))),
                  handed={"counts": lambda i: {k: v for k, v in zip(i["keys"], i["values"])}},
                  cases=lambda rng: [Case("book", {"keys": ["a", "b"], "values": [1, 2]}),
                                     Case("fresh", {"keys": ["c", "d", "e"], "values": [3, 1, 4]})])
    kernel = {"np": np}
    for source, score in (("def total(counts):\n  return float(sum(counts.values()))\n", 3),
                          ("def total(counts):\n  t = float(sum(counts.values()))\n  counts.clear()\n  return t\n", 2),
                          ("def total(counts):\n  counts['all'] = float(sum(counts.values()))\n  return counts['all']\n",
                           2)):
        exec(source, kernel)
        v = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 3)
        assert v.score == score, (source, v.message)
        assert (protocol.CHANGED in v.message and "dictionary" in v.message) == (score == 2), v.message


def test_a_dictionary_changed_by_a_helper_costs_marks_once_in_the_helpers_part(monkeypatch):
    """A merge_pair that empties and refills the corpus it is given loses a third of its marks; learn_merges, right
    and calling it, is judged with the course's helpers, which leave its corpus as it was: full marks, the change
    said to be merge_pair's. A learn_merges that changes the corpus itself still loses its third."""
    import nbformat
    from nbgrader import utils
    from grader.engine.build import SOURCE, answer_key
    name = "10_byte_pair_encoding"
    key = {c.metadata.nbgrader["grade_id"]: c.source for c in answer_key(nbformat.read(
        str(SOURCE / name / f"{name}.ipynb"), as_version=4)).cells if utils.is_solution(c)}
    probes = PROBES[name]
    kernel = {"np": np}
    for grade_id in ("count_pairs_def", "merge_pair_def", "learn_merges_def"):
        exec(key[grade_id], kernel)
    right_merge = kernel["merge_pair"]
    exec("def merge_pair(corpus, pair):\n  merged = _right_merge(corpus, pair)\n  corpus.clear()\n"
         "  corpus.update(merged)\n  return corpus\n", dict(kernel, _right_merge=right_merge), kernel)
    kernel["_right_merge"] = right_merge
    helpers = {part: _helper_verdict(probes[part], kernel, monkeypatch) for part in ("test_count_pairs", "test_merge_pair")}
    assert helpers["test_count_pairs"][1].score == 2 and helpers["test_merge_pair"][1].mistake == protocol.CHANGED
    uses = {"count_pairs": helpers["test_count_pairs"], "merge_pair": helpers["test_merge_pair"]}
    learn = probes["test_learn_merges"]
    cases, outputs, judge = run_with_helpers(learn, kernel, probes, monkeypatch)
    assert verdict(learn, cases, outputs, 2, uses).mistake == protocol.CHANGED  # without a judgement: as it runs
    v = verdict(learn, cases, outputs, 2, uses, judge)
    assert v.score == 2 and v.finding == "helper" and "right once your merge_pair is fixed" in v.message, v.message
    kernel["merge_pair"] = right_merge  # now learn_merges itself empties the corpus it was given, after its work
    exec("_learn = learn_merges\ndef learn_merges(corpus, n):\n  out = _learn(corpus, n)\n  corpus.clear()\n"
         "  return out\n", kernel)
    helpers = {part: _helper_verdict(probes[part], kernel, monkeypatch) for part in ("test_count_pairs", "test_merge_pair")}
    uses = {"count_pairs": helpers["test_count_pairs"], "merge_pair": helpers["test_merge_pair"]}
    cases, outputs, judge = run_with_helpers(learn, kernel, probes, monkeypatch)
    v = verdict(learn, cases, outputs, 2, uses, judge)
    assert v.score == 1.33 and v.mistake == protocol.CHANGED and "corpus" in v.message, v.message


def test_a_call_past_its_cases_budget_is_stopped_in_the_kernel_and_earns_nothing(monkeypatch):
    """A case with a budget (Case.budget: a layer of realistic size, which right code does in milliseconds): a call
    past it is stopped where it runs, and the part earns nothing, however right its other results; a quick one is
    marked as ever, and no timer is left behind in the kernel."""
    import signal
    probe = Probe(what="f", call="f(x)", reference=lambda i: 2 * i["x"], budget_hint="Write it another way.",
                  cases=lambda rng: [Case("book", {"x": np.ones(3)}), Case("fresh", {"x": np.arange(4.0)}),
                                     Case("fresh", {"x": np.arange(50.0)}, about="a large one", budget=0.5)])
    kernel = {"np": np}
    for source, score in (("def f(x):\n  return 2 * x\n", 3),
                          ("import time\ndef f(x):\n  time.sleep(3 if x.size > 10 else 0)\n  return 2 * x\n", 0)):
        exec(source, kernel)
        v = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 3)
        assert v.score == score, (source, v.message)
        assert (v.finding == "budget") == (score == 0), v.message
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert "On fresh input (a large one), the call was stopped after 0.5 s" in v.message and "another way" in v.message


def test_a_mistake_is_named_only_when_it_explains_every_case():
    """Right on some inputs where the mistake is wrong: not that mistake, whatever one wrong case shows."""
    cases = [Case("book", {"x": np.ones(2)}), Case("fresh", {"x": np.full(2, 2.0)}), Case("fresh", {"x": np.full(2, 3.0)})]
    double = protocol.Mistake("doubled", "twice the answer", lambda i: 2 * i["x"])
    probe = Probe(what="f", call="f(x)", cases=None, reference=lambda i: i["x"], mistakes=[double])
    report = lambda values: [{"output_type": "display_data", "data": {protocol.MIME: {"results": [  # noqa: E731
        {"ok": True, "value": protocol_value(v)} for v in values]}}}]
    every = verdict(probe, cases, report([2 * c.inputs["x"] for c in cases]), 3)
    assert every.mistake == "doubled"
    some = verdict(probe, cases, report([2 * cases[0].inputs["x"], cases[1].inputs["x"], 2 * cases[2].inputs["x"]]), 3)
    assert some.mistake is None and some.score == 1
    twin = protocol.Mistake("twice", "the same", lambda i: i["x"] + i["x"])
    probe.mistakes = [double, twin]
    assert verdict(probe, cases, report([2 * c.inputs["x"] for c in cases]), 3).mistake is None  # which one?


@pytest.mark.parametrize("make, words", [
    (lambda w: w.T, "transpose"),
    (lambda w: 2 * w, "2 times the right one (2 = sqrt(4)"),
    (lambda w: -w, "wrong sign"),
    (lambda w: w[:, [1, 0, 2, 3]], "columns 1 and 2 are swapped"),
    (lambda w: w[:, ::-1], "reverse order"),
    (lambda w: np.vstack([w[:2], -w[2:]]), "rows 3 and 4 have the wrong sign"),
    (lambda w: np.hstack([w[:, :2], w[:, 2:] + 1]), "column 3 and every one after it are wrong"),
    (lambda w: w + np.arange(1.0, 5.0)[:, None], "off by the same amount"),
    (lambda w: np.zeros_like(w), "all zeros"),
    (lambda w: np.vstack([np.zeros((1, 4)), w[1:]]), "row 1 of 4 is 0 everywhere, where the right values are not"),
    (lambda w: np.hstack([w[:, :3], np.zeros((4, 1))]), "column 4 of 4 is 0 everywhere"),
    (lambda w: w + 1e-3 * np.cos(np.arange(16.0)).reshape(4, 4), "close, but not within the tolerance"),
    (lambda w: np.floor(w), "it is the right answer rounded down: whole numbers where fractions are due"),
    (lambda w: np.trunc(w), "it is the right answer with its fractions cut off (toward 0)"),
    (lambda w: (w <= 0).astype(float), "with 0 and 1 swapped"),  # (held against the mask w > 0 below)
])
def test_structural_findings_say_what_is_wrong(make, words):
    from grader.engine import diagnose
    w = np.random.default_rng(3).normal(size=(4, 4))
    if "swapped" in words and "0 and 1" in words:
        w = (w > 0).astype(float)  # a mask: 1 where a query may see a key
    text = diagnose.same_shape(make(w), w, {"X": np.zeros((4, 4))})
    assert text and words in text, text


def test_the_placeholder_is_asked_after_only_when_the_part_is_wrong_on_every_case():
    """All zeros on one case, right on another: no placeholder gives that, so the verdict says what the result
    is and asks after no placeholder; all zeros on every case still asks."""
    cases = [Case("book", {"x": np.ones(3)}), Case("fresh", {"x": np.full(3, 1000.0)})]
    probe = Probe(what="f", call="f(x)", cases=None, reference=lambda i: i["x"] / 2)
    some = verdict(probe, cases, _report([cases[0].inputs["x"] / 2, np.zeros(3)]), 2)
    assert "it is all zeros" in some.message and "placeholder" not in some.message, some.message
    fresh = [Case("fresh", {"x": np.full(3, 1000.0)}), Case("fresh", {"x": np.arange(3.0)})]
    every = verdict(probe, fresh, _report([np.zeros(3), np.zeros(3)]), 2)
    assert "placeholder" in every.message, every.message
    # All zeros from code that made an inf on the way (np.nan_to_num of an overflow): no placeholder, the inf said
    zeros = [np.zeros(3), np.zeros(3)]
    reasons = [protocol.compare(z, probe.reference(c.inputs)) for z, c in zip(zeros, fresh)]
    traces = [[("f", "e", np.array([np.inf, 1.0, 2.0]))], []]
    text, _ = protocol._finding(probe, fresh, zeros, reasons, traces)
    assert "all zeros, and on the way your `e` holds inf" in text and "placeholder" not in text, text


def test_a_result_that_holds_nan_says_which_arrays_of_theirs_hold_one():
    """Round 11's m02 (np.exp(x) / np.exp(max), inf / inf on large scores): the result's nan said, and the student's
    arrays that hold one, the lines to look at (no 'first': the trace keeps each name's first assignment)."""
    probe = Probe(what="f", call="f(x)", cases=None, reference=lambda i: i["x"] / 2)
    cases = [Case("fresh", {"x": np.full(3, 1000.0)}), Case("fresh", {"x": np.arange(3.0)})]
    nans = [np.full(3, np.nan), np.full(3, np.nan)]
    reasons = [protocol.compare(g, probe.reference(c.inputs)) for g, c in zip(nans, cases)]
    # (the result's name first, as a placeholder made first and the result last leaves it in the trace)
    traces = [[("f", "out", np.full(3, np.nan)), ("f", "top", np.ones(3)), ("f", "exp_values", np.full(3, np.nan))]] * 2
    text, _ = protocol._finding(probe, cases, nans, reasons, traces)
    assert "it holds nan in 3 of 3 entries" in text and text.endswith("; on the way, it is in your `out` and `exp_values`")


def test_the_log_or_the_exponential_of_the_right_answer_is_said_so():
    """A softmax that returns its log (the log-sum-exp trick without the last np.exp), or an exponential too many."""
    from grader.engine import diagnose
    scores = np.random.default_rng(3).normal(size=(4, 3))
    weights = np.exp(scores - scores.max(axis=0)) / np.exp(scores - scores.max(axis=0)).sum(axis=0)
    assert diagnose.same_shape(np.log(weights), weights).startswith("it is the log of the right answer")
    assert diagnose.same_shape(np.exp(scores), scores).startswith("it is the exponential of the right answer")
    # not of right values all the same (log 1 = 0 is also "all zeros"), nor of a right answer with values <= 0
    assert "log" not in str(diagnose.same_shape(np.zeros((2, 3)), np.ones((2, 3))))
    assert "log" not in str(diagnose.same_shape(np.log(np.abs(scores)), scores))


def test_a_factor_of_its_own_for_each_token_is_said_so():
    """A normalisation whose divisor is wrong per token (a LayerNorm divided by the variance, not its square root):
    each token's entries share one factor, a different one for each token. Said as that, and only then."""
    from grader.engine import diagnose
    x = np.random.default_rng(6).normal(size=(2, 3, 4))
    centred, var = x - x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    right = centred / np.sqrt(var + 1e-5)
    text = diagnose.same_shape(centred / (var + 1e-5), right, {"x": x}, ("items", "tokens", "features"))
    assert text.startswith("the entries of each token are all off by one factor, a different one from token to token")
    assert "what each token is scaled or divided by is wrong" in text
    # one factor along the tokens (each feature's own), on a matrix: said of the columns
    assert diagnose.same_shape(right[0] * np.array([1.5, 2.0, 2.5, 3.0]), right[0]).startswith(
        "the entries of each column are all off by one factor")
    # one factor for every entry is the single factor's finding; a factor that changes within a row is neither
    assert diagnose.same_shape(2 * right, right).startswith("every entry is 2 times the right one")
    assert "one factor" not in str(diagnose.same_shape(right * (1 + x ** 2), right))


def test_a_ratio_of_sizes_that_is_a_whole_numbers_root_is_told_both_readings():
    """Round 11's m07: dS divided by d where sqrt(d) is due, d = D / H = 3: 1/sqrt(3) = sqrt(2)/sqrt(6) was said
    as 'sqrt(6) where sqrt(2) is due' alone. Where the ratio is a whole number's root, both readings are said."""
    from grader.engine import diagnose
    w = np.random.default_rng(0).normal(size=(2, 5, 3, 3))
    text = diagnose.same_shape(w / np.sqrt(3), w, {"x": np.zeros((2, 5, 6)), "H": 2})
    assert "= sqrt(2)/sqrt(6) = 1/sqrt(3)" in text and "sqrt(6) where sqrt(2) is due, or a scale by sqrt(3) applied " \
        "twice?" in text
    # sqrt(4)/sqrt(6) is the root of no whole number: the wrong size alone
    assert diagnose.same_shape(w * np.sqrt(4 / 6), w, {"X": np.zeros((4, 6))}).endswith(
        "a scale by the wrong size, sqrt(6) where sqrt(4) is due?)")


def test_a_wrong_length_says_where_the_inputs_have_it():
    """Round 11's m04 (Q @ K.T where K.T @ Q is due): 4 keys where 6 are due, 4 being the queries' feature size.
    The places are listed, all of them (a fact, no pick among them); a length no input has is said alone."""
    from grader.engine import diagnose
    inputs = {"Q": np.zeros((4, 6)), "K": np.zeros((4, 6))}
    assert diagnose.other_shape(np.ones((4, 4)), np.ones((6, 6)), inputs, ("keys", "queries")).endswith(
        "4 keys where 6 are expected; 4 queries where 6 are expected (4 is .shape[0] of Q and K)")
    assert diagnose.other_shape(np.ones((5, 5)), np.ones((6, 6)), inputs, ("keys", "queries")).endswith(
        "5 queries where 6 are expected")


def test_a_count_off_by_a_whole_number_is_said_so_not_close():
    """Round 11's m08 (one LayerNorm's 2 D parameters left out of the count) was told 'close, but not within the
    tolerance', which sends a student after rounding. Whole numbers off by one whole number are said as that, with
    the multiple of a size where one size fits."""
    from grader.engine import diagnose
    sizes = {"D": 320, "H": 5, "D_ff": 1920}
    assert diagnose.same_shape(np.array(4000.0 - 640), np.array(4000.0), sizes) == \
        "it is 640 below the right value (640 = 2 x 320, and 320 is the input D)"
    assert diagnose.same_shape(np.array(4007.0), np.array(4000.0), sizes) == "it is 7 above the right value"
    # 16 = 2 x 8 = 8 x 2 where D is 8 and H is 2: the smallest multiple
    assert diagnose.same_shape(np.array(84.0), np.array(100.0), {"D": 8, "H": 2, "D_ff": 32}) == \
        "it is 16 below the right value (16 = 2 x 8, and 8 is the input D)"
    assert "close, but not" in diagnose.same_shape(np.array(4000.5), np.array(4000.0), sizes)


def test_weights_the_same_for_every_key_are_said_so_before_their_sums():
    """Round 11's m01 (the loop weighs every value with output n's own weight a[n, n]): its weights are the same
    for every key, and so do not sum to one; the first is the fact to say ('a normalisation missing?' was not)."""
    from grader.engine import diagnose
    scores = np.random.default_rng(8).normal(size=(4, 4))
    weights = np.exp(scores) / np.exp(scores).sum(axis=0)
    one_each = np.tile(np.diagonal(weights), (4, 1))  # column n: a[n, n] for every key
    assert diagnose.same_shape(one_each, weights, names=("keys", "queries")).startswith(
        "it is the same for every key, which the right answer is not")
    assert "do not sum to one" in diagnose.same_shape(2 * weights + 0.1, weights, names=("keys", "queries"))


def test_a_factor_names_where_the_inputs_have_it_only_when_one_place_does():
    """A factor equal to one list's length is said as that length; one that two axes share is only "a size"."""
    from grader.engine import diagnose
    w = np.random.default_rng(5).normal(size=(3, 5))
    params = [np.zeros((2, 2))] * 7
    assert "(7 is len(params): something done once per item" in diagnose.same_shape(7 * w, w, {"params": params, "X": w})
    assert "(5 is X.shape[1]: a scale applied twice" in diagnose.same_shape(5 * w, w, {"X": w})
    # Divided by a size (a loop's outputs averaged, a batch's gradients): said as that, not as a scale applied twice
    assert "(0.2 = 1/5, and 5 is X.shape[1]: divided by 5 where it should not be?)" in diagnose.same_shape(
        w / 5, w, {"X": w})
    assert "(3 is a size of this input" in diagnose.same_shape(3 * w, w, {"X": w, "Y": np.zeros(3)})
    # A whole number is the square root of its square: "3 = sqrt(9)" where no input has a 9 would be a guess
    assert diagnose.same_shape(3 * w, w, {"X": np.zeros((2, 7))}) == "every entry is 3 times the right one"
    assert "(1.732 = sqrt(3): a scale applied twice" in diagnose.same_shape(np.sqrt(3) * w, w, {"X": np.zeros((2, 7))})


def test_one_number_is_called_a_multiple_of_the_right_one_only_by_a_size_and_an_update_on_a_copy_is_seen():
    """Any number is some multiple of another: "1.169 times the right loss" says nothing, "3 times, 3 being
    X.shape[0]" does. And a result equal to one of a list input's arrays as given (an update made on a copy) is
    said as the input left unchanged, not as rows that happen to differ."""
    from grader.engine import diagnose
    X = np.zeros((3, 2))
    assert diagnose.same_shape(np.array(1.169 * 2.5), np.array(2.5), {"X": X}) is None
    assert "3 is X.shape[0]" in diagnose.same_shape(np.array(3 * 2.5), np.array(2.5), {"X": X})
    rng = np.random.default_rng(0)
    params = [rng.normal(size=(4, 3)), rng.normal(size=(5, 3))]
    updated = params[1] - 0.01 * np.vstack([rng.normal(size=(3, 3)), np.zeros((2, 3))])
    said = diagnose.same_shape(params[1], updated, {"params": params})
    assert said.startswith("it equals one of the arrays of the input params, unchanged"), said


def test_weights_normalised_along_the_wrong_axis_are_found():
    from grader.course.shared import reference as shared_ref
    from grader.engine import diagnose
    scores = np.random.default_rng(4).normal(size=(3, 5))
    text = diagnose.same_shape(shared_ref.softmax_cols(scores.T).T, shared_ref.softmax_cols(scores), {},
                               ("keys", "queries"))
    assert "sums to one along the queries instead of along the keys" in text


def test_scores_masked_where_the_right_ones_are_not_are_said_as_a_mask_with_where_it_hides():
    """Scores filled with a large negative number (or -inf) where the right ones are numbers, and right
    everywhere else, are a mask: said with where it hides (a triangle of every (query, key) slice) and
    whether any mask is due; weights that are 0 there are asked after as a mask, not blamed on one."""
    from grader.course.shared import reference as shared_ref
    from grader.engine import diagnose
    s = np.random.default_rng(6).normal(size=(2, 5, 5))
    upper = np.triu(np.ones((5, 5), bool), 1)
    for fill, words in ((-1e9, "(set to -1e+09)"), (-np.inf, "(set to -inf)")):
        said = diagnose.same_shape(np.where(upper, fill, s), s)
        assert said == (f"it is the right answer with the entries above the diagonal (20 of 50) masked {words}: a mask "
                        "where none is due"), said
    causal = np.where(upper, -1e9, s)
    assert "except the entries below the diagonal (20 of 50), which are due to be masked (set to a large negative " \
        "number) and are not (yours all hold 0)" in diagnose.same_shape(np.where(upper.T, 0, s), np.where(upper.T, -1e9, s))
    assert "which are due to be kept, and keeps the entries below the diagonal" in diagnose.same_shape(
        causal, np.where(upper.T, -1e9, s))
    more = np.where(np.triu(np.ones((5, 5), bool), 0), -1e9, s)
    assert "as well as those due: a mask over too much" in diagnose.same_shape(more, causal)
    assert diagnose._masked(s + 1, np.where(upper, -1e9, s)) is None  # wrong where both keep: no mask finding
    weights = [shared_ref.softmax_cols(x.T).T for x in (causal, s)]  # (batch, queries, keys)
    said = diagnose.same_shape(weights[0], weights[1], {}, ("batch items", "queries", "keys"))
    assert said == ("it gives no weight to the entries above the diagonal (20 of 50), which should get some: is a "
                    "mask hiding them where none is due?"), said


def test_a_missing_batch_axis_is_found_when_shapes_are_exact():
    from grader.engine import diagnose
    w = np.ones((1, 3, 2)) * np.arange(2.0)
    assert "batch axis" in diagnose.other_shape(w[0], w)
    assert "transpose" in diagnose.other_shape(np.arange(6.0).reshape(3, 2).T, np.arange(6.0).reshape(3, 2))


def _report(values):
    return [{"output_type": "display_data", "data": {protocol.MIME: {"results": [
        {"ok": True, "value": protocol_value(v)} for v in values]}}}]


def test_a_diagnosis_that_fails_costs_words_never_marks(monkeypatch):
    """A finding that raises (a 1-D vector of weights once broke one) leaves the part's score what its cases earn:
    the verdict says the plain symptom, and the traceback is kept for the recording process's log."""
    from grader.engine import diagnose
    cases = [Case("book", {"x": np.arange(1.0, 4.0)}), Case("fresh", {"x": np.arange(2.0, 5.0)}),
             Case("fresh", {"x": np.arange(3.0, 6.0)})]
    probe = Probe(what="f", call="f(x)", cases=None, reference=lambda i: i["x"] / i["x"].sum())
    results = [probe.reference(cases[0].inputs), probe.reference(cases[1].inputs), 2 * probe.reference(cases[2].inputs)]
    protocol.taken_errors()
    right = verdict(probe, cases, _report(results), 3)

    def broken(*args, **kwargs):
        raise IndexError("tuple index out of range")
    monkeypatch.setattr(diagnose, "same_shape", broken)
    v = verdict(probe, cases, _report(results), 3)
    assert v.score == right.score > 0 and "wrong values" in v.message, (v, right)
    errors = protocol.taken_errors()
    assert errors and "IndexError" in errors[0] and not protocol.taken_errors(), errors


def test_one_vector_of_weights_is_read_without_failing():
    """One distribution (a (V,) vector): the per-entry offset of _scores fits any scores there, so it says nothing."""
    from grader.course.shared import reference as shared_ref
    from grader.engine import diagnose
    p = shared_ref.softmax_cols(np.array([[2.0], [1.0], [0.5], [-1.0]]))[:, 0]
    kept = np.where(p >= p[1], p, 0)
    said = diagnose.same_shape(np.where(kept > 0, np.exp(kept) / np.exp(kept[kept > 0]).sum(), 0), kept / kept.sum(),
                               {}, ("tokens",))
    assert said is None or "off by the same amount" not in said, said


def test_a_wrong_head_is_found_behind_the_output_projection():
    """Notebook 04: head 2's values doubled; every entry of X' is wrong, but undoing omega_c shows which head."""
    from grader.course.nb04_multihead_attention import mistakes as mistakes04, reference as ref04
    probe = PROBES["04_multihead_attention"]["test_multihead_general"]
    cases = probe.cases(np.random.default_rng(5))

    def head_2_doubled(i):
        lists = i if "omegas_v" in i else mistakes04.two_heads(i)
        heads = list(zip(*(lists[mistakes04.plural(n)] for n in shared_cases.PARAMETERS)))
        heads[1] = (2 * heads[1][0],) + tuple(heads[1][1:])
        return ref04.multihead_self_attention(lists["X"], heads, lists["omega_c"])
    from grader.course.shared import cases as shared_cases
    v = verdict(probe, cases, _report([head_2_doubled(c.inputs) for c in cases]), 3)
    assert v.finding == "structural" and "undoing the output projection omega_c" in v.message, v.message
    assert "head 2 of" in v.message, v.message


def test_weights_over_the_wrong_axis_are_found_behind_the_values():
    """Notebook 01: a softmax over rows, seen in the weights that the result implies (when D >= N)."""
    from grader.course.shared import reference as shared_ref
    probe = Probe(what="self_attention", call="", cases=None, axes=("features", "tokens"),
                  reference=SELF_ATTENTION.reference, views=SELF_ATTENTION.views)
    rng = np.random.default_rng(0)
    i = {"X": rng.normal(size=(5, 3)), **{n: rng.normal(size=(5, 5)) / 2 for n in ("omega_v", "omega_q", "omega_k")},
         **{n: rng.normal(size=(5, 1)) for n in ("beta_v", "beta_q", "beta_k")}}
    V, Q, K = shared_ref.queries_keys_values(i["X"], *(i[n] for n in cases_module_params()))
    rows = V @ shared_ref.softmax_cols((K.T @ Q).T).T
    v = verdict(probe, [Case("fresh", i, "D=5, N=3")], _report([rows]), 3)
    assert "other attention weights" in v.message and "sums to one along the queries instead of along the keys" in v.message, v.message


def cases_module_params():
    from grader.course.shared import cases as shared_cases
    return shared_cases.PARAMETERS


def test_every_helper_a_part_uses_has_a_kernel_reference_that_computes_the_reference():
    """A part's `uses` name graded parts whose course version runs in the kernel: each one defines its
    name and, run through its own probe in place of a student's, gets full marks."""
    for notebook, probes in PROBES.items():
        for probe in probes.values():
            for name, part in probe.uses.items():
                helper = probes[part]
                assert helper.kernel_reference, f"{notebook}: {part} has no kernel_reference"
                space = {"np": np}
                exec(helper.kernel_reference, space)
                assert callable(space[name])


@pytest.mark.parametrize("notebook, part", [(n, p) for n, probes in PROBES.items() for p, probe in probes.items()
                                            if probe.kernel_reference])
def test_a_kernel_reference_gets_full_marks_on_its_own_part(monkeypatch, notebook, part):
    probe = PROBES[notebook][part]
    kernel = {"np": np}
    exec(probe.kernel_reference, kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 3)
    assert v.score == 3, v.message


@pytest.mark.parametrize("obj", [
    {"dtype": "<f8", "shape": [2**32, 2**32], "data": ""},   # np.prod of this shape wraps round to 0
    {"dtype": "<f8", "shape": [1] * 40, "data": "AAAAAAAAAAA="},
    functools.reduce(lambda inner, _: {"list": [inner]}, range(800), {"dtype": "<f8", "shape": [], "data": ""}),
])
def test_a_forged_report_is_refused_not_raised(obj):
    with pytest.raises(protocol.BadResult):
        protocol.decode_result(obj)


def test_an_error_that_quotes_its_inputs_is_cut_to_its_type(monkeypatch):
    kernel = kernel_with("def self_attention(X, *args):\n  raise ValueError(f'X={X.ravel().tolist()}')\n")
    cases, outputs = run_probe(SELF_ATTENTION, kernel, monkeypatch=monkeypatch)
    v = verdict(SELF_ATTENTION, cases, outputs, 3)
    assert v.score == 0 and "ValueError (its message is not shown" in v.message
    fresh_x = next(c.inputs["X"] for c in cases if c.label == "fresh")
    assert f"{fresh_x.ravel()[0]:.4f}"[:6] not in v.message


def test_a_kernel_whose_numpy_says_everything_is_equal_cannot_hide_a_changed_argument(monkeypatch):
    """Whether an argument changed is decided on the grading side, from its bytes after the call: the
    kernel's np.array_equal, np.allclose, np.isclose and np.copy, patched by the student, are not asked."""
    probe = Probe(what="double", call="double(x)", reference=lambda i: 2 * i["x"], cases=lambda rng: [
        Case("book", {"x": np.arange(3.0)}), Case("fresh", {"x": rng.normal(size=4)})])
    kernel = {"np": np}
    exec("def double(x):\n  x *= 2\n  return x\n", kernel)
    honest = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 3)
    with monkeypatch.context() as lying:
        for name in ("array_equal", "array_equiv", "allclose"):
            lying.setattr(np, name, lambda *a, **k: True)
        lying.setattr(np, "isclose", lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, dtype=bool))
        lying.setattr(np, "copy", lambda a, *r, **k: a)
        cases, outputs = run_probe(probe, kernel, monkeypatch=lying)
    patched = verdict(probe, cases, outputs, 3)
    # (since attacks7: a numpy whose own functions were replaced earns nothing, and is told so)
    assert honest.score == 2 and protocol.CHANGED in honest.message
    assert patched.score == 0 and "your code replaced numpy's own np.allclose, np.array_equal" in patched.message


def test_numpy_functions_replaced_by_the_student_earn_nothing(monkeypatch):
    """attacks7's b06 (np.linalg.svd replaced by one that centres the data and fixes the signs) and b11 (np.argsort
    replaced so that ties come out the other way): the part is right only through numpy changed for the whole
    kernel. Parts are marked with numpy as it ships: a function of numpy's that says it comes from elsewhere
    earns nothing, and the verdict says which."""
    probe = PROBES["06_contextual_embeddings"]["test_pca"]
    kernel = {"np": np}
    exec("def pca(X, n_components):\n"
         "  _, _, Vt = np.linalg.svd(X, full_matrices=False)\n"
         "  return Vt[:n_components]\n", kernel)
    honest = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 2)
    original = np.linalg.svd
    exec("def centred_svd(X, full_matrices=True):\n"
         "  U, S, Vt = original(X - X.mean(axis=0), full_matrices=full_matrices)\n"
         "  Vt = Vt * np.where(Vt[np.arange(len(Vt)), np.abs(Vt).argmax(axis=1)] < 0, -1, 1)[:, None]\n"
         "  return U, S, Vt\n", dict(kernel, original=original), kernel)
    cases, shown = probe.cases(np.random.default_rng(0)), []  # (drawn before numpy is changed: they use its svd)
    with monkeypatch.context() as patched:
        patched.setattr(IPython.display, "display", lambda obj, raw=False: shown.append(obj))
        patched.setattr(np.linalg, "svd", kernel["centred_svd"])
        with pytest.raises(RuntimeError, match="awaiting the grader"):
            exec(protocol.probe_source(probe, cases, ""), kernel)
    v = verdict(probe, cases, [{"output_type": "display_data", "data": obj} for obj in shown], 2)
    assert honest.score == 0 and v.score == 0 and "your code replaced numpy's own np.linalg.svd" in v.message


def test_a_part_whose_function_is_in_a_cell_with_a_syntax_error_is_told_that_and_nothing_else(monkeypatch):
    import nbformat
    from grader.engine.nbgrader_plugin import syntax_errors
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import numpy as np"),
                                         nbformat.v4.new_code_cell("def softmax_cols(a):\n  def broken(:\n  return a\n"),
                                         nbformat.v4.new_code_cell("%matplotlib inline\nX_other = 1")])
    broken = syntax_errors([c.source for c in nb.cells])
    assert set(broken) == {"softmax_cols"} and "line 2" in broken["softmax_cols"]  # module-level names only
    kernel = {"np": np}  # the cell never ran: softmax_cols is not defined
    cases, outputs = run_probe(SOFTMAX_COLS, kernel, monkeypatch=monkeypatch)
    ran = [(c.source, ["SyntaxError"] if i == 1 else []) for i, c in enumerate(nb.cells)]
    v = verdict(SOFTMAX_COLS, cases, outputs, 2, broken=functools.partial(unfinished_before, lambda: unfinished(ran), 3))
    assert v.score == 0 and v.finding == "syntax" and "a syntax error on line 2" in v.message
    assert "take sizes" not in v.message  # nothing else
    assert verdict(SOFTMAX_COLS, cases, outputs, 2).finding != "syntax"


def _undefined(name, kind, monkeypatch):
    """The verdict of 02's scaled attention (which calls softmax_cols) when `name` is not defined as its check
    runs, its cell having ended with an error output of `kind` (None: no cell defines it), and the judgement
    runs it asked for."""
    import nbformat
    cells = ["import numpy as np", ROWS_SOFTMAX, SCALED_RIGHT]
    at = [i for i, c in enumerate(cells) if re.search(rf"^def {name}\(", c, re.M)][0]
    if kind:
        cells[at] = "while True:\n    pass\n" + cells[at] if kind == "CellTimeoutError" else "1 / 0\n" + cells[at]
    kernel = {"np": np}
    for i, source in enumerate(cells):
        if i != at:
            exec(source, kernel)
    if kind is None:
        cells[at] = ""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    ran = [(c.source, ([kind] if kind and i == at else [])) for i, c in enumerate(nb.cells)]
    helper = _helper_verdict(SOFTMAX_COLS, kernel, monkeypatch)
    cases, outputs, judge = run_with_helpers(SCALED, kernel, PROBES["02_scaled_attention"], monkeypatch)
    judged = []
    v = verdict(SCALED, cases, outputs, 3, {"softmax_cols": helper}, lambda: judged.append(1) or judge(),
                broken=functools.partial(unfinished_before, lambda: unfinished(ran), len(cells)))
    return v, judged


@pytest.mark.parametrize("kind, said", [("CellTimeoutError", "was stopped at its time limit"),
                                        ("ZeroDivisionError", "stopped at an error (ZeroDivisionError)"),
                                        (None, "define scaled_dot_product_self_attention under that name")])
def test_a_part_whose_own_function_is_not_defined_is_told_why_and_no_judgement_is_run(kind, said, monkeypatch):
    """The part's own function missing when its check runs: the cell that defines it stopped early (its time
    limit, an error) or there is none. Its words say which, and nothing about sizes or shapes; no helper can
    define the part's own function, so no judgement kernel is started for it (a looping cell would loop there
    again, to its time limit)."""
    v, judged = _undefined("scaled_dot_product_self_attention", kind, monkeypatch)
    assert v.score == 0 and said in v.message and "take sizes" not in v.message, v.message
    assert v.finding == ("undefined" if kind is None else "unfinished")
    assert judged == []


def test_a_helper_that_is_not_defined_still_gets_its_part_judged_with_the_courses_helper(monkeypatch):
    """softmax_cols's cell stopped before its def: the part calling it raises NameError for a name the
    judgement run puts in place, so that run is made, and the part keeps its marks."""
    v, judged = _undefined("softmax_cols", "ZeroDivisionError", monkeypatch)
    assert judged == [1] and v.score == 3, v.message


def test_the_names_a_call_always_looks_up():
    from grader.engine.protocol import _called_names
    assert _called_names("f(x, g(y))") == {"f", "x", "g", "y"}
    assert _called_names("(f(x) if e == 1 else f(x, e=e))") == {"e", "f", "x"}
    assert _called_names("(lambda m: own or h(m))(k(z))") == {"k", "z"}
    assert _called_names("a or b") == {"a"} and _called_names("not valid(") == set()


def test_a_finding_never_guesses_at_an_operation_the_part_does_not_have(monkeypatch):
    """Issue 26: a likely cause names an operation (dot products, a mask, a bias) only in a part that has it
    (Probe.operations); elsewhere the verdict says what the result shows and no more. 02's softmax_cols has no
    dot products: a column shrunk before the softmax shows as 'scores c times the right ones', nothing more."""
    from grader.course import PROBES
    probe = PROBES["02_scaled_attention"]["test_softmax_cols"]
    assert probe.operations == ()
    shrunk = ("def softmax_cols(data_in):\n"
              "  s = data_in / 4\n"
              "  e = np.exp(s - s.max(axis=0, keepdims=True))\n"
              "  return e / e.sum(axis=0, keepdims=True)\n")
    space = {"np": np}
    exec("import numpy as np\n" + shrunk, space)
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 2)
    assert v.score == 0 and "times the right ones" in v.message and "dot products" not in v.message
    # the same finding in a part that has dot products keeps its likely cause
    from grader.engine import diagnose
    finding = diagnose.Finding("its weights are the softmax of scores 0.5 times the right ones",
                               "are the dot products scaled by the right amount?", "dot products")
    assert diagnose.said_for(finding, ("dot products", "bias")) == finding
    assert diagnose.said_for(finding, ()) == finding.shown
    assert diagnose.said_for(finding, None) == finding


def test_the_trace_changes_no_result_and_a_student_cannot_break_the_probe_through_it(monkeypatch):
    """The first-wrong-step trace is words only: an array whose bytes cannot be read, a kernel that turns the
    profiler off, or a report with a forged trace change the verdict's words at most, never the score."""
    probe = PROBES["02_scaled_attention"]["test_scaled_attention"]
    hostile = """
import sys
class Stubborn(np.ndarray):
    def tobytes(self, *a, **k):
        raise RuntimeError("no bytes for you")
def softmax_cols(a):
    e = np.exp(a - a.max(axis=0))
    return e / e.sum(axis=0)
def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    sys.setprofile(None)
    Q = (omega_q @ X + beta_q).view(Stubborn)
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    return np.asarray(V @ softmax_cols(np.asarray(K.T @ Q) / np.sqrt(Q.shape[0])))
"""
    space = {"np": np}
    exec("import numpy as np\n" + hostile, space)
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    assert verdict(probe, cases, outputs, 3).score == 3
    report = outputs[0]["data"][protocol.MIME]
    for result in report["results"]:
        result["trace"] = [{"where": "f", "name": "Q", "value": {"dtype": "<f8", "shape": [10 ** 9], "data": ""}},
                           "not an entry", {"where": 1}]
    assert verdict(probe, cases, outputs, 3).score == 3


def test_a_trace_names_nothing_but_python_names():
    """A name in the trace is said in the feedback: anything but a Python name (with an index or a key) is dropped."""
    good = {"dtype": "<f8", "shape": [2], "data": __import__("base64").b64encode(np.ones(2).tobytes()).decode()}
    trace = protocol._trace([{"where": "f", "name": "def softmax(x): return", "value": good},
                             {"where": "f x", "name": "heads[2]", "value": good},
                             {"where": "g", "name": "grads['b_q']", "value": good}])
    assert [(w, n) for w, n, _ in trace] == [("f", ""), ("your code", "heads[2]"), ("g", "grads['b_q']")]


def test_a_count_is_traced_by_its_numbers_and_told_its_first_wrong_part(monkeypatch):
    """A part whose steps are single numbers (08's parameter count) has the student's numbers traced too,
    apart from the arrays' room: a count that leaves out the MLP's biases is told so, from its own parts."""
    probe = PROBES["08_transformer_block"]["test_block_parameters"]
    cases = probe.cases(np.random.default_rng(0))
    assert protocol._traced(probe, cases) == "numbers"
    assert protocol._traced(PROBES["02_scaled_attention"]["test_scaled_attention"], cases) is True
    student = """
def block_parameters(D, H, D_ff):
    attention = 4 * D * D + 4 * D
    mlp = D * D_ff + D_ff * D
    norms = 4 * D
    return attention + mlp + norms
"""
    space = {"np": np}
    exec(compile("import numpy as np\n" + student, "<a student's cell>", "exec"), space)  # the probe's own frames are not traced
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 1)
    assert v.score == 0 and v.finding == "step", v.message
    assert "minus the MLP's biases (b1 and b2: D_ff + D)" in v.message, v.message


def test_a_sum_of_known_values_is_said_only_when_every_wrong_case_shows_it_and_for_a_count_another_does(monkeypatch):
    """Each head's scores costed at full width: H T^2 D where T^2 D is due. On the book's case (H = 2) that is
    also the attention's count less the projections', by chance; the fresh inputs (other H) show it is H
    times the scores' count. The verdict says what holds on every case, not the sum one case allows."""
    probe = PROBES["08_transformer_block"]["test_block_flops"]
    student = """
def block_flops(D, H, T, D_ff):
    projections = 4 * T * D * D
    scores = H * T * D * T
    weighted = H * T * T * D
    return projections + scores + weighted + T * D * D_ff + T * D_ff * D
"""
    space = {"np": np}
    exec(compile("import numpy as np\n" + student, "<a student's cell>", "exec"), space)
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    assert cases[0].inputs["H"] == 2 and all(c.inputs["H"] != 2 for c in cases[1:])
    chance = "is the right attention's multiply-adds minus the projections' multiply-adds"
    v = verdict(probe, cases, outputs, 1)
    assert v.score == 0 and v.finding == "step" and chance not in v.message, v.message
    assert "your `scores` is" in v.message and "times the right one" in v.message and "is the input H" in v.message
    # On the book's case alone the sum holds, and is not said either: a count's tie on one case, with no other
    # case to show the same, may be chance (round 8's block_flops that takes D_ff as 4 D was told such a sum)
    results = outputs[0]["data"][protocol.MIME]["results"]
    alone = [dict(outputs[0], data={protocol.MIME: dict(outputs[0]["data"][protocol.MIME], results=results[:1])})]
    assert chance not in verdict(probe, cases[:1], alone, 1).message


def test_which_inputs_a_result_is_wrong_on_is_said_when_nothing_ties_it_to_a_step(monkeypatch):
    """A layer_norm whose default eps is 1e-6: its result is the first wrong step, tied to nothing; it is wrong
    exactly where eps is left to its default (as transformer_block calls it), which the verdict says."""
    probe = PROBES["08_transformer_block"]["test_layer_norm"]
    student = """
def layer_norm(x, gamma, beta, eps=1e-6):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta
"""
    space = {"np": np}
    exec(compile("import numpy as np\n" + student, "<a student's cell>", "exec"), space)
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 2)
    assert 0 < v.score < 2 and v.finding == "step", v.message
    assert "those where eps is left to its default" in v.message and "right on those where eps=1e-3" in v.message


@pytest.mark.parametrize("notebook, part, student, said", [
    ("11_decoding", "test_greedy", """
def greedy(next_logits, prompt, n_new):
    ids = list(prompt)
    for _ in range(5):  # the notebook's example asks for 5
        ids.append(int(np.argmax(next_logits(ids))))
    return ids
""", "does what the right code does with n_new = 5, whatever n_new it is given"),
    ("05_batched_masked_attention", "test_transpose_output", """
H = 4  # the notebook's own number of heads, read in place of the argument
def transpose_output(X, num_heads):
    X = X.reshape(X.shape[0] // H, H, X.shape[1], X.shape[2])
    return X.transpose(0, 2, 1, 3).reshape(X.shape[0], X.shape[2], -1)
""", "does what the right code does with num_heads = 4, whatever num_heads it is given"),
])
def test_a_whole_number_argument_the_code_does_not_follow_is_said(monkeypatch, notebook, part, student, said):
    """A size written into the code, or a notebook's variable read in place of the argument: on every case the
    result is the reference's with that argument set to one value (an error where that value raises too)."""
    probe = PROBES[notebook][part]
    space = {"np": np}
    exec(compile("import numpy as np\n" + student, "<a student's cell>", "exec"), space)
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 1)
    assert v.score < 1 and said in v.message and v.finding == "structural", v.message
    # and not of an answer that follows its argument, right or wrong another way
    right = student.replace("range(5)", "range(n_new)").replace("// H, H,", "// num_heads, num_heads,")
    space = {"np": np}
    exec(compile("import numpy as np\n" + right, "<a student's cell>", "exec"), space)
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    assert verdict(probe, cases, outputs, 1).score == 1


def test_a_result_that_is_another_results_right_value_is_said_so(monkeypatch):
    """beam_search that never applies length_norm: its normalised answer is the unnormalised one, on every input.
    The catalogued "probabilities multiplied" is not said of it: its products divided by the length gave these
    same results on most inputs, so one fresh case is drawn where each catalogued mistake gives a sequence that
    neither right one is (shared.cases.every_mistake_shows_itself), and the fact is said with or without the
    catalogue."""
    import dataclasses
    catalogued = PROBES["11_decoding"]["test_beam_search"]
    probe = dataclasses.replace(catalogued, mistakes=[])
    student = """
def log_softmax(x):
    shifted = np.asarray(x, dtype=float) - np.max(x)
    return shifted - np.log(np.sum(np.exp(shifted)))

def beam_search(next_logits, prompt, n_new, beam_width, end, length_norm=False):
    prompt = list(prompt)
    beams = [(prompt, 0.0)]
    for step in range(n_new):
        candidates = []
        for ids, score in beams:
            if len(ids) > len(prompt) and ids[-1] == end:
                candidates.append((ids, score))
                continue
            log_probs = log_softmax(next_logits(ids))
            for token in range(len(log_probs)):
                candidates.append((ids + [token], score + log_probs[token]))
        order = np.argsort(-np.array([score for _, score in candidates]), kind="stable")
        beams = [candidates[i] for i in order[:beam_width]]
    return beams[0][0]
"""
    space = {"np": np}
    exec(compile("import numpy as np\n" + student, "<a student's cell>", "exec"), space)
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 1)
    assert v.score < 1 and v.mistake is None, v.message
    assert ("Its result with length normalisation is the right result without length normalisation on every "
            "input where the two differ") in v.message, v.message
    with_catalogue = verdict(catalogued, cases, outputs, 1)
    assert with_catalogue.mistake is None and "probabilities" not in with_catalogue.message, with_catalogue.message
    assert ("Its result with length normalisation is the right result without length normalisation on every "
            "input where the two differ") in with_catalogue.message, with_catalogue.message


def test_the_judgement_runs_trace_never_reaches_the_verdict(monkeypatch):
    """The run with the course's helpers in place of the student's held the course's code: its trace (names
    and arrays of the course's functions) must not reach the words of the verdict, only its results do."""
    import base64
    probe = PROBES["02_scaled_attention"]["test_scaled_attention"]
    student = """
def softmax_cols(a):
    return np.exp(a) / np.exp(a).sum()
def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    return V @ softmax_cols(K.T @ Q / Q.shape[0])
"""
    space = {"np": np}
    exec(compile("import numpy as np\n" + student, "<a student's cell>", "exec"), space)
    cases, outputs = run_probe(probe, space, monkeypatch=monkeypatch)
    results = outputs[0]["data"][protocol.MIME]["results"]

    def forged(case):  # what a judgement run could carry: an array of the course's, by a name of the course's
        scores = next(s.value for s in probe.steps(case.inputs) if s.name == "scaled scores") * 3
        value = {"dtype": "<f8", "shape": list(scores.shape),
                 "data": base64.b64encode(np.ascontiguousarray(scores, dtype="<f8").tobytes()).decode()}
        return [{"where": "softmax_cols", "name": "course_secret", "value": value}]

    judged = [dict(r, trace=forged(c)) for r, c in zip(results, cases)]
    helpers = {"softmax_cols": ("softmax_cols", protocol.Verdict(0, 2, "softmax_cols: wrong"))}
    v = verdict(probe, cases, outputs, 3, helpers=helpers, judge=lambda: judged)
    assert v.score < 3 and "course_secret" not in v.message, v.message
    # and the same forged trace in the student's own run is read (so the test above can fail)
    for r, c in zip(results, cases):
        r["trace"] = forged(c)
    assert "course_secret" in verdict(probe, cases, outputs, 3).message


def test_a_fixed_size_is_suspected_only_from_two_right_inputs_of_different_sizes():
    """Right on one smaller input may be chance (keys equal to the queries); right on two smaller ones of
    different sizes, and wrong on every larger one, points at a size that stays fixed."""
    from grader.engine.protocol import _sizes_finding
    cases = [Case("fresh", {}, about=f"N={n}") for n in (2, 3, 5, 6)]
    got = [np.zeros(n) for n in (2, 3, 5, 6)]
    assert "Right on the smaller inputs" in _sizes_finding(cases, got, [None, None, "wrong", "wrong"])
    assert _sizes_finding(cases, got, [None, "wrong", "wrong", "wrong"]) is None
    assert _sizes_finding(cases, got, [None, None, "wrong", None]) is None


def test_the_graders_allclose_and_same_agree_with_numpy_and_the_notebooks_checks():
    """diagnose.allclose is np.allclose, and the course's `same` is the notebooks' own `_same`, on every kind of
    pair a verdict compares: equal, off by about the tolerance either way, far off, nan and inf in the same and
    in other places, integers, float32, singleton axes, other shapes."""
    import grader.course as course
    from grader.course.shared import notebook_checks
    from grader.engine.diagnose import allclose
    rng = np.random.default_rng(0)
    agreed = {True: 0, False: 0}
    for n in range(3000):
        shape = [(4,), (3, 5), (2, 3, 4), (1, 6), ()][n % 5]
        b = rng.normal(size=shape) * 10.0 ** rng.integers(-8, 4)
        kind = n % 7
        if kind == 0:
            a = b.copy()
        elif kind == 1:  # within or beyond the tolerance, entry by entry
            a = b + (course.ATOL + course.RTOL * np.abs(b)) * rng.uniform(0.5, 1.5, size=np.shape(b))
        elif kind == 2:  # well within, but for one entry at the tolerance's very edge (which side is |b|'s?)
            a = b + (course.ATOL + course.RTOL * np.abs(b)) * 0.5
            i = rng.integers(b.size)
            a.flat[i] = b.flat[i] + (course.ATOL + course.RTOL * abs(b.flat[i])) * (1 + rng.uniform(-2e-4, 2e-4))
        elif kind == 3:
            a = rng.normal(size=shape)
        elif kind == 4 and np.ndim(b):  # nan or inf, in b's places or others
            a, b = b.copy(), b.copy()
            for x in (a, b):
                x.flat[rng.integers(x.size)] = rng.choice([np.nan, np.inf, -np.inf])
        elif kind == 5:
            a, b = np.round(b).astype(int), np.round(b + rng.integers(0, 2, size=np.shape(b))).astype(int)
        else:
            a, b = b.astype(np.float32), (b + 1e-6 * rng.normal(size=np.shape(b))).astype(np.float32)
        a, b = np.asarray(a), np.asarray(b)
        expected = bool(np.allclose(a, b, rtol=course.RTOL, atol=course.ATOL))
        assert allclose(a, b, course.RTOL, course.ATOL) == expected, (a, b)
        a_ = a.reshape((1,) + a.shape) if n % 2 else a  # a singleton axis the checks drop
        assert course.same(a_, b) == bool(notebook_checks._same(a_, b)), (a_, b)
        assert course.same(a.ravel()[:1], b) == bool(notebook_checks._same(a.ravel()[:1], b))  # other shapes
        agreed[expected] += 1
    assert min(agreed.values()) > 500  # both answers were asked for, many times


@pytest.mark.parametrize("p, said", [
    ([0.5, 0.6], "the probabilities given to a random choice do not sum to one: divide them by their own sum"),
    ([np.nan, 1.0], "the probabilities given to a random choice contain nan"),
    ([-0.5, 1.5], "the probabilities given to a random choice include negative numbers"),
])
def test_numpys_own_errors_on_a_random_choices_probabilities_are_explained(p, said):
    """The errors numpy's choice raises, as the kernel reports them, each told what it means."""
    from grader.engine import diagnose
    with pytest.raises(ValueError) as raised:
        np.random.default_rng(0).choice(2, p=p)
    assert diagnose.error(f"raised ValueError: {raised.value}").startswith(said)


@pytest.mark.parametrize("a, b, said", [
    ((2, 1, 6), (10, 4, 6), "on axis 0, 2 against 10 (10 = 5 x 2): is a size of 5 folded into that axis in one of "
                            "them (a reshape) and not in the other, or entries repeated on one side only"),
    ((4, 2), (2, 1), ": is an axis missing (keepdims=True, [:, None]), or one of them transposed?"),  # a row due
    ((3, 4), (4, 3), ": is an axis missing"),
    ((3, 4), (3, 5), ": is an axis missing"),  # no multiple
])
def test_shapes_that_do_not_broadcast_are_read_by_how_they_differ(a, b, said):
    """numpy's broadcasting error, as the kernel reports it. Lengths not repeated for the heads folded into the batch
    (2 against 10) are no missing axis: said as a size folded in, or entries repeated, on one side only. A misfit that
    a transpose mends, or that is no whole multiple, keeps the question of a missing axis or a transpose."""
    from grader.engine import diagnose
    with pytest.raises(ValueError) as raised:
        np.zeros(a) + np.zeros(b)
    assert said in diagnose.error(f"raised ValueError: {raised.value}")


def test_an_array_of_one_value_is_no_evidence_of_rounding():
    """An array of numerical zeros (a keys' bias gradient, 1e-17 here and there) is within half a unit of any small
    answer at one decimal: it was said to be "the right new v rounded to 1 decimal" (attacks8's e09). Rounding is
    said only when the rounded entries take two values or more."""
    from grader.engine import diagnose
    rng = np.random.default_rng(0)
    small = 1e-3 * rng.random(6)  # (6,): what a second moment is after one step
    assert diagnose._rounded_to(1e-17 * rng.normal(size=6), small) is None
    assert diagnose._rounded_to(np.full(6, 0.2), small + 0.2) is None
    right = rng.normal(size=6)
    assert diagnose._rounded_to(np.round(right, 3), right) == 3


def test_sizes_that_clash_in_a_broadcast_are_named_where_the_inputs_have_them():
    """A causal mask made with len(x), the batch, where the sequence's length is due: (3, 3) against the scores'
    (6, 5, 5). Said by where each clashing size comes from, on a case where each is one input's size in one place;
    not where a size is in several places (B = H = 2), nor when another case clashes by other places."""
    x = np.zeros((3, 5, 8))  # (B, T, D)
    book = protocol.Case("book", {"x": x, "num_heads": 2})
    fresh = protocol.Case("fresh", {"x": np.zeros((2, 7, 6)), "num_heads": 2})
    error = "raised ValueError: operands could not be broadcast together with shapes ({}) ({}) "
    bad = [(fresh, None, error.format("2,2", "4,7,7")), (book, None, error.format("3,3", "6,5,5"))]
    case, _, said = protocol._broadcast_tie(bad)
    assert case is book and said.endswith("their sizes clash where 3 is x.shape[0] and 5 is x.shape[1]: is a size "
                                          "taken from another axis (or input) than the one due?"), said
    assert protocol._broadcast_tie(bad[:1]) is None  # 2 is x.shape[0] and the input num_heads
    other = protocol.Case("fresh", {"x": np.zeros((4, 6, 5)), "num_heads": 3})
    assert protocol._broadcast_tie(bad + [(other, None, error.format("4,5", "12,6,6"))]) is None
    # column sums made a column where a row is due: a transpose fits, and the question of one is said (round 9's q02)
    sums = protocol.Case("fresh", {"data_in": np.zeros((3, 2))})
    assert protocol._broadcast_tie([(sums, None, error.format("3,2", "2,1"))]) is None


def test_a_size_in_a_shape_error_that_no_argument_has_is_said_fixed():
    """omega_c[:, :H_D] with the notebook's H_D = 4 on fresh inputs of head size 3: the matrix product's error holds
    4, the same on every input that raised and no size of the arguments. Said so, in place of the transpose question;
    not when the odd size changes from case to case, nor when both sizes are the arguments'."""
    def case(D, N):
        return protocol.Case("fresh", {"X": np.zeros((D, N)), "omega_c": np.zeros((D, D)),
                                       "omega_q1": np.zeros((D // 2, D))})
    error = ("raised ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
             "(n?,k),(k,m?)->(n?,m?) (size {} is different from {})")
    book = protocol.Case("book", {"X": np.zeros((8, 3)), "omega_c": np.zeros((8, 8)), "omega_q1": np.zeros((4, 8))})
    bad = [(book, np.zeros((8, 3)), "wrong values"), (case(6, 5), None, error.format(3, 4)),
           (case(10, 7), None, error.format(5, 4))]
    found, _, said = protocol._fixed_size_tie(bad)
    assert found is bad[1][0] and said == (
        "a matrix product A @ B met an A with 4 columns and a B with 3 rows; 4 is the same on every input and no size "
        "of the arguments: is a number fixed in the code, or a variable left from the notebook's example?"), said
    assert protocol._fixed_size_tie(bad[:2] + [(case(10, 7), None, error.format(5, 9))]) is None  # 4, then 9
    assert protocol._fixed_size_tie([(case(6, 5), None, error.format(3, 6))]) is None  # both the arguments' sizes


def test_a_count_off_by_the_difference_of_two_sizes_is_said_so():
    """A bias of D numbers counted where it has D_ff: 24 below, 24 = 32 - 8. With no multiple of one size, the one
    difference of two named sizes is said; where a multiple fits this case by chance (24 = 3 x 8), the verdict keeps
    the tie every wrong case has (tests/test_diagnosis.py, "b1 counted with D numbers")."""
    from grader.engine import diagnose
    words, tie, every = diagnose.count_tie(-24, {"D": 8, "H": 2, "D_ff": 32})
    assert tie == (3, "the input D") and ("-", "the input D_ff", "the input D") in every
    words, tie, _ = diagnose.count_tie(-26, {"D": 6, "H": 4, "D_ff": 32})
    assert tie == ("-", "the input D_ff", "the input D") and words == (
        " (26 = 32 - 6, and 32 is the input D_ff, 6 the input D: one term counted with the input D where the input "
        "D_ff is due?)"), words
    words, tie, _ = diagnose.count_tie(26, {"D": 6, "H": 4, "D_ff": 32})  # above: the other way round
    assert "counted with the input D_ff where the input D is due?" in words


def test_max_of_nothing_is_said_as_something_empty_with_no_question_of_sizes():
    """Python's max() of an empty dict (learn_merges with no stop when no pair is left): said as something empty to
    check for first, as the error the kernel reports; an Empty, so that the verdict asks nothing about sizes."""
    from grader.engine import diagnose
    with pytest.raises(ValueError) as raised:
        max({}.values())
    said = diagnose.error(f"raised ValueError: {raised.value}")
    assert isinstance(said, diagnose.Empty) and said.startswith("Python's max() was given nothing to choose from")
    assert not isinstance(diagnose.error("raised IndexError: index 5 is out of bounds for axis 0 with size 3"),
                          diagnose.Empty)


def test_learn_merges_is_given_more_merges_than_pairs_on_some_fresh_case_and_not_on_all():
    """Learning stops when no pair is left (the notebook's 300 merges on its training text do): on every grading
    seed one fresh corpus runs out of pairs before its num_merges, and another does not."""
    from grader.course.nb10_byte_pair_encoding import probes
    probe = PROBES["10_byte_pair_encoding"]["test_learn_merges"]
    for seed in range(20):
        fresh = [c for c in probe.cases(np.random.default_rng(seed)) if c.label == "fresh"]
        assert {probes._runs_out(c.inputs) for c in fresh} == {True, False}, seed


def test_decode_is_given_ids_that_end_in_a_merged_word_end_on_every_seed():
    """A decode that drops its last id (taking it for a lone '</w>') is right on ids that end in one: on every grading
    seed one fresh case ends in a word's end merged with letters, as the notebook's texts do after their merges."""
    from grader.course.nb10_byte_pair_encoding import probes
    probe = PROBES["10_byte_pair_encoding"]["test_decode"]
    for seed in range(20):
        fresh = [c for c in probe.cases(np.random.default_rng(seed)) if c.label == "fresh"]
        assert any(probes._ends_in_a_merged_word_end(c.inputs) for c in fresh), seed


@pytest.mark.parametrize("reduce, said", [(np.max, "a maximum was taken over an array with no entries"),
                                          (np.min, "a minimum was taken over an array with no entries")])
def test_a_reduction_over_an_empty_array_is_explained(reduce, said):
    """numpy's error for np.max of nothing (a softmax over a cache read before the new key is appended to it), as
    the kernel reports it: said as what it means, with the question of what was read while still empty."""
    from grader.engine import diagnose
    with pytest.raises(ValueError) as raised:
        reduce(np.zeros((2, 0)), axis=-1)
    assert diagnose.error(f"raised ValueError: {raised.value}").startswith(said)


def test_a_sum_that_keeps_only_its_last_term_is_said_so():
    """Weights that are 0 for every key but the last, and right for the last: a loop's running sum overwritten on
    each pass. Not said of a result that is 0 everywhere (where the last key's right weights are 0 too), nor along
    an axis of two, where the last alone kept is as likely a slice taken wrong."""
    from grader.engine import diagnose
    rng = np.random.default_rng(0)
    w = rng.random((4, 3))
    w /= w.sum(axis=0)  # (keys, queries): columns sum to one
    g = np.zeros_like(w)
    g[-1] = w[-1]
    said = diagnose.same_shape(g + 1e-17, w, {}, ("keys", "queries"))
    assert said.startswith("every key but the last is 0, where it should not be, and the last key is right: a sum "
                           "over the keys overwritten"), said
    masked = np.triu(w)  # (4 keys, 3 queries): the last key is masked for every query
    assert "every key but the last" not in (diagnose.same_shape(np.zeros_like(w), masked, {}, ("keys", "queries"))
                                            or "")
    two = w[:2] / w[:2].sum(axis=0)
    g2 = np.zeros_like(two)
    g2[-1] = two[-1]
    assert "but the last" not in (diagnose.same_shape(g2, two, {}, ("keys", "queries")) or "")


@pytest.mark.parametrize("times, tied", [("2", False), ("H", True)])
def test_a_factor_is_tied_to_a_size_only_when_it_follows_that_size_from_case_to_case(times, tied, monkeypatch):
    """08's block_flops counted twice (FLOPs for multiply-adds) is 2 times the right count on every case; on the
    book's case H is 2 too, but the fresh cases have other H: the verdict says the factor, not "2 is the input H".
    A count that really is H times the right one keeps the tie."""
    probe = PROBES["08_transformer_block"]["test_block_flops"]
    kernel = {"np": np}
    exec("def block_flops(D, H, T, D_ff):\n"
         f"    return {times} * (4 * T * D * D + 2 * T * T * D + 2 * T * D * D_ff)\n", kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    assert cases[0].inputs["H"] == 2 and any(c.inputs["H"] != 2 for c in cases[1:])
    v = verdict(probe, cases, outputs, 1)
    assert v.score == 0 and ("2 times the right one" in v.message or times == "H"), v.message
    assert ("is the input H" in v.message) == tied, v.message


def test_permutation_matrices_right_for_the_books_n_alone_earn_nothing(monkeypatch):
    """The one policy (right on the book's case, wrong on every fresh input: nothing) holds for a part with
    marks of its own too: 2n rotations and reflections are all 3! orders at the book's n = 3, and too few
    from 4 on."""
    probe = PROBES["03_permutation_equivariance"]["test_permutation_matrices"]
    kernel = {"np": np}
    exec("def generate_permutation_matrices(n):\n"
         "    orders = [[(i + s) % n for i in range(n)] for s in range(n)]\n"
         "    orders += [o[::-1] for o in orders]\n"
         "    return [np.eye(n)[:, o] for o in orders]\n", kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 2)
    assert v.score == 0 and protocol.BOOK_ONLY in v.message, v.message


def test_round_9s_attempts_earn_nothing_in_process(monkeypatch):
    """Three of round 9's attempts to game the grader (tests/heldout/attacks4.py), reduced: init_weight that sets
    its generator back after a right draw (the probe calls it twice with one generator), softmax_cols without the
    shift in long double (the scores are past what any precision holds), and attention_backward's numerical
    gradients (a layer of realistic size, with a time budget, as mha_backward has)."""
    init = PROBES["05_batched_masked_attention"]["test_init_weight"]
    kernel = {"np": np}
    exec("def init_weight(fan_in, fan_out, rng):\n"
         "    state = rng.bit_generator.state\n"
         "    W = rng.normal(0.0, 1 / np.sqrt(fan_in), size=(fan_in, fan_out))\n"
         "    rng.bit_generator.state = state\n"
         "    return W\n", kernel)
    assert verdict(init, *run_probe(init, kernel, monkeypatch=monkeypatch), 1).score == 0
    exec("def init_weight(fan_in, fan_out, rng):\n"
         "    return rng.normal(0.0, 1 / np.sqrt(fan_in), size=(fan_in, fan_out))\n", kernel)
    assert verdict(init, *run_probe(init, kernel, monkeypatch=monkeypatch), 1).score == 1
    softmax = PROBES["02_scaled_attention"]["test_softmax_cols"]
    exec("def softmax_cols(a):\n"
         "    e = np.exp(np.asarray(a, dtype=np.longdouble))\n"
         "    return (e / e.sum(axis=0)).astype(float)\n", kernel)
    assert verdict(softmax, *run_probe(softmax, kernel, monkeypatch=monkeypatch), 2).score == 0
    large = PROBES["07_attention_backprop"]["test_attention_backward"].cases(np.random.default_rng(0))[-1]
    assert large.budget > 0 and sum(np.size(v) for v in large.inputs.values()) > 50_000


def test_a_part_wrong_only_on_its_input_of_realistic_size_earns_nothing(monkeypatch):
    """attention_backward right on the small inputs and wrong on the layer of realistic size (round 9's p07 gave
    numerical gradients below 2500 numbers and zeros past them): right code holds at any size, so nothing."""
    from grader.course.nb07_attention_backprop import probes as p07
    probe = PROBES["07_attention_backprop"]["test_attention_backward"]
    kernel = {"np": np}

    def attention_backward(X, *rest):
        g = p07.ref.attention_backward(X, *rest)
        return g if X.size < 2500 else {name: np.zeros_like(v) for name, v in g.items()}
    kernel["attention_backward"] = attention_backward
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 4)
    assert v.score == 0 and "wrong only on fresh input" in v.message and "realistic size" in v.message, v.message
    kernel["attention_backward"] = p07.ref.attention_backward
    assert verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 4).score == 4


def test_a_wrong_result_from_a_function_that_overwrites_its_argument_says_that_too(monkeypatch):
    """Round 9's q04: `stacked = X` binds the input, not a copy, so each head's rows overwrite the caller's X and
    the later heads are computed from it. The result is wrong, and the verdict says the argument changed too."""
    probe = Probe(what="heads", call="heads(X)", reference=lambda i: np.vstack([i["X"][:2] * 2, i["X"][:2] * 2]),
                  cases=lambda rng: [Case("book", {"X": np.arange(12.0).reshape(4, 3)}),
                                     Case("fresh", {"X": rng.normal(size=(4, 5))})])
    kernel = {"np": np}
    exec("def heads(X):\n  stacked = X\n  stacked[:2] = X[:2] * 2\n  stacked[2:] = X[:2] * 2\n  return stacked\n",
         kernel)
    v = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 3)
    assert v.score == 0 and "It also changed its argument X in place" in v.message, v.message
    exec("def heads(X):\n  return np.vstack([X[:2], X[:2]])\n", kernel)  # wrong, and X left as it was
    v = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 3)
    assert v.score == 0 and "in place" not in v.message, v.message


def test_a_cell_that_relies_on_a_name_another_cell_left_is_told_so(monkeypatch):
    """Round 9's q01: the loop cell uses `query`, the previous cell's loop variable, where all_queries[n] is due.
    Its check runs the cell alone on fresh inputs, where `query` is not there: said as that, with no advice on
    sizes or functions."""
    probe = PROBES["01_self_attention"]["test_attention_loop"]
    cell = ("all_x_prime = []\nfor n in range(N):\n    scores = [k.T @ query for k in all_keys]\n"
            "    w = softmax(np.array(scores).reshape(-1, 1))\n"
            "    all_x_prime.append(sum(w[m] * all_values[m] for m in range(N)))\n")
    kernel = kernel_with("def softmax(items_in):\n  e = np.exp(items_in)\n  return e / e.sum()\n")
    kernel["query"] = np.ones((4, 1))  # left in the kernel by an earlier cell: the check does not see it
    cases, outputs = run_probe(probe, kernel, cell, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 2)
    assert v.score == 0 and "the cell uses query, which it does not set itself" in v.message, v.message
    assert "take sizes" not in v.message
    # What the cell is given is named (round 14's f01 used the notebook's all_x where all_values is due): the name
    # may be one to make in the cell, or stand where one it is given is due
    assert "The cell is given N, D, all_queries, all_keys, all_values and softmax: use those" in v.message, v.message


@pytest.mark.parametrize("index, tied", [("token", True), ("token + 1", False)])
def test_an_index_past_an_axis_that_is_an_inputs_value_is_said_as_that(index, tied, monkeypatch):
    """Round 9's q11: the position embedding looked up with the token's id. The index that runs past the axis is
    the input token's value on every case that raised: said as that. One more than it is no input: not said."""
    probe = Probe(what="lookup", call="lookup(table, token, t)", reference=lambda i: i["table"][i["t"]],
                  cases=lambda rng: [Case("book", {"table": np.arange(15.0).reshape(5, 3), "token": 7, "t": 2}),
                                     Case("fresh", {"table": rng.normal(size=(6, 3)), "token": 9, "t": 1})])
    kernel = {"np": np}
    exec(f"def lookup(table, token, t):\n  return table[{index}]\n", kernel)
    v = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 2)
    assert v.score == 0 and ("7 is the input token" in v.message) == tied, v.message


@pytest.mark.parametrize("index, tied", [("tokens[t]", True), ("len(table) + t", False)])
def test_an_index_past_an_axis_that_is_an_entry_of_an_array_input_is_said_as_that(index, tied, monkeypatch):
    """Round 9's q11 as it is: the position embedding looked up with the token id at each position, the ids a
    whole-number array. The index that runs past the axis is an entry of the input tokens on every case that
    raised: said as that. An index past the axis that is no entry of it: not said."""
    probe = Probe(what="lookup", call="lookup(table, tokens, t)", reference=lambda i: i["table"][i["t"]],
                  cases=lambda rng: [Case("book", {"table": np.arange(15.0).reshape(5, 3),
                                                   "tokens": np.array([1, 7, 2]), "t": 1}),
                                     Case("fresh", {"table": rng.normal(size=(6, 3)),
                                                    "tokens": np.array([3, 0, 9, 4]), "t": 2})])
    kernel = {"np": np}
    exec(f"def lookup(table, tokens, t):\n  return table[{index}]\n", kernel)
    v = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 2)
    assert v.score == 0 and ("7 is an entry of the input tokens" in v.message) == tied, v.message


def test_a_yes_no_part_wrong_one_way_only_is_told_which_way(monkeypatch):
    """Round 9's q03: a checker that sums the signed differences lets through functions whose differences cancel.
    Every answer it gets wrong is True where False is due: said as that, with the functions it lets through."""
    import itertools
    probe = PROBES["03_permutation_equivariance"]["test_is_permutation_equivariant"]
    kernel = {"np": np, "itertools": itertools}
    exec("def generate_permutation_matrices(n):\n"
         "    return [np.eye(n)[:, list(p)] for p in itertools.permutations(range(n))]\n"
         "def is_permutation_equivariant(f, X, tolerance=1e-6):\n"
         "    for P in generate_permutation_matrices(X.shape[1]):\n"
         "        if np.sum(f(X @ P) - f(X) @ P) > tolerance:\n"
         "            return False\n"
         "    return True\n", kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 4)
    assert v.score == 0 and "says True on" in v.message and "where False is due" in v.message, v.message


def test_a_yes_no_part_wrong_both_ways_is_told_each_way_with_its_inputs(monkeypatch):
    """Round 11's m03: a checker that permutes the features (rows) rejects some equivariant functions and passes
    some others; told 'got 0, expected 1' on one input before. Each way is now said, with the functions."""
    import itertools
    probe = PROBES["03_permutation_equivariance"]["test_is_permutation_equivariant"]
    kernel = {"np": np, "itertools": itertools}
    exec("def is_permutation_equivariant(f, X, tolerance=1e-6):\n"
         "    for p in itertools.permutations(range(X.shape[0])):\n"
         "        P = np.eye(X.shape[0])[:, list(p)]\n"
         "        if not np.allclose(f(P @ X), P @ f(X), atol=tolerance):\n"
         "            return False\n"
         "    return True\n", kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 4)
    assert re.search(r"It says False on \d+ inputs? where True is due \(.+\), and True on \d+ inputs? where False "
                     r"is due \(", v.message), v.message


def test_a_yes_no_part_wrong_on_every_input_is_told_it_answers_the_opposite(monkeypatch):
    """Round 15's l03: a checker whose comparison is turned round was told each way, with the inputs, where the
    one fact is that every answer is the opposite of the right one."""
    probe = PROBES["03_permutation_equivariance"]["test_is_permutation_equivariant"]
    kernel = {"np": np}
    exec("def is_permutation_equivariant(f, X, tolerance=1e-6):\n"
         "    for P in generate_permutation_matrices(X.shape[1]):\n"
         "        if np.max(np.abs(f(X @ P) - f(X) @ P)) > tolerance:\n"
         "            return True\n"
         "    return False\n", kernel)
    from grader.course.nb03_permutation_equivariance import reference as ref03
    kernel["generate_permutation_matrices"] = ref03.permutation_matrices
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 4)
    assert v.score == 0 and "It answers the opposite of the right answer on every input: is a comparison or a " \
        "condition turned round" in v.message, v.message
    assert "It says" not in v.message


def test_a_gradient_check_that_assumes_a_matrix_loses_its_marks(monkeypatch):
    """Round 10's k07: central differences that loop over X.shape[0] and X.shape[1] and move X[i, j] are right
    for a matrix only; the notebook checks its mha_backward with x of three axes. The fresh inputs include X of
    three axes, so such a check loses their marks and is told where it is wrong; np.ndindex's stays right."""
    probe = PROBES["07_attention_backprop"]["test_gradient_check"]
    loops = ("def gradient_check(f, X, dX, eps=1e-6):\n"
             "  numeric = np.zeros_like(X)\n"
             "  for i in range({rows}):\n"
             "    for j in range({columns}):\n"
             "      plus, minus = X.copy(), X.copy()\n"
             "      plus[{index}] += eps\n"
             "      minus[{index}] -= eps\n"
             "      numeric[{index}] = (f(plus) - f(minus)) / (2 * eps)\n"
             "  return np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)\n")
    matrix = loops.format(rows="X.shape[0]", columns="X.shape[1]", index="i, j")
    every = ("def gradient_check(f, X, dX, eps=1e-6):\n"
             "  numeric = np.zeros_like(X)\n"
             "  for i in np.ndindex(X.shape):\n"
             "    plus, minus = X.copy(), X.copy()\n"
             "    plus[i] += eps\n"
             "    minus[i] -= eps\n"
             "    numeric[i] = (f(plus) - f(minus)) / (2 * eps)\n"
             "  return np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)\n")
    cases, outputs = run_probe(probe, kernel_with(every), monkeypatch=monkeypatch)
    right = verdict(probe, cases, outputs, 2)
    assert right.score == 2, right.message
    cases, outputs = run_probe(probe, kernel_with(matrix), monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 2)
    assert v.score < 2 and "wrong on exactly 2 of the 7 inputs, those where X has three axes" in v.message, v.message


@pytest.mark.parametrize("seed", range(4))
def test_a_head_size_taken_from_the_books_head_count_is_right_on_the_book_only(seed, monkeypatch):
    """Round 10's k04: one head's weights scaled by sqrt(D / 2), the book's two heads, where the head's own size
    (omega_q.shape[0]) is due. attention_weights' fresh inputs never have two heads, so it earns nothing."""
    probe = PROBES["04_multihead_attention"]["test_attention_weights"]
    kernel = kernel_with("def softmax_cols(S):\n  e = np.exp(S - S.max(axis=0))\n  return e / e.sum(axis=0)\n"
                         "def attention_weights(X, omega_q, omega_k, beta_q, beta_k):\n"
                         "  Q, K = omega_q @ X + beta_q, omega_k @ X + beta_k\n"
                         "  return softmax_cols(K.T @ Q / np.sqrt(X.shape[0] / 2))\n")
    v = verdict(probe, *run_probe(probe, kernel, seed=seed, monkeypatch=monkeypatch), 2)
    assert v.score == 0, v.message
    assert all(c.inputs["X"].shape[0] != 2 * c.inputs["omega_q"].shape[0]
               for c in probe.cases(np.random.default_rng(seed)) if c.label == "fresh")


def test_a_masked_softmax_for_one_length_per_sequence_only_is_told_where_it_fails(monkeypatch):
    """Round 10's n05 (its honest part): valid_lens[:, None, None] handles one length per sequence, and raises on
    a length per query. Said as the inputs it is wrong on, not as a guess at an axis."""
    probe = PROBES["05_batched_masked_attention"]["test_masked_softmax"]
    kernel = kernel_with("def softmax(S):\n  e = np.exp(S - S.max(axis=-1, keepdims=True))\n"
                         "  return e / e.sum(axis=-1, keepdims=True)\n"
                         "def masked_softmax(scores, valid_lens):\n"
                         "  if valid_lens is None:\n    return softmax(scores)\n"
                         "  mask = np.arange(scores.shape[-1]) < np.asarray(valid_lens)[:, None, None]\n"
                         "  return softmax(np.where(mask, scores, -1e6))\n")
    v = verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 3)
    assert 0 < v.score < 3 and "those where valid_lens gives one length per query (B, Tq)" in v.message, v.message
    assert "transposed" not in v.message, v.message


@pytest.mark.parametrize("query, said", [("all_keys[n]", True), ("all_keys[n] * 2", False)])
def test_an_input_used_where_another_is_due_is_said_as_that(query, said, monkeypatch):
    """Round 10's k01: the loop's dot products take key n where query n is due. On every input the result is
    the right code's with all_keys in place of all_queries: said as that. Twice the key is no input: not said."""
    probe = PROBES["01_self_attention"]["test_attention_loop"]
    cell = ("all_x_prime = []\nfor n in range(N):\n"
            f"    scores = [k.T @ ({query}) for k in all_keys]\n"
            "    w = softmax(np.array(scores).reshape(-1, 1))\n"
            "    all_x_prime.append(sum(w[m] * all_values[m] for m in range(N)))\n")
    kernel = kernel_with("def softmax(items_in):\n  e = np.exp(items_in - np.max(items_in))\n  return e / e.sum()\n")
    v = verdict(probe, *run_probe(probe, kernel, cell, monkeypatch=monkeypatch), 2)
    assert v.score == 0 and ("with all_keys in place of all_queries" in v.message) == said, v.message


def test_a_factor_that_changes_from_input_to_input_is_not_guessed_at():
    """Round 10's k04 with the fresh head counts 3 and 4: sqrt(D / 2) for the head's size makes the scaled scores
    sqrt(2 / H) times the right ones, a factor that changes with H. "1/sqrt(2): a scale applied twice, or a missing
    one?" held on one input only: the guess goes, the factor stays. The same factor on every wrong input keeps it,
    and a guess that names a size is kept when the others name sizes too (a size changes from case to case, and the
    factor with it)."""
    said = ("Your scaled scores are not right: in your `data_in`, every entry is 0.7071 times the right one "
            "(0.7071 = 1/sqrt(2): a scale applied twice, or a missing one?).")
    other = "Your scaled scores are not right: in your `data_in`, every entry is 0.8165 times the right one."
    assert protocol._steady_factor(said, [other]) == ("Your scaled scores are not right: in your `data_in`, every "
                                                      "entry is 0.7071 times the right one.")
    assert protocol._steady_factor(said, [said, said]) == said
    assert protocol._steady_factor(said, []) == said
    # A guess that names a size stays when the others name sizes too (the same places), and goes when they do not:
    # the ratio sqrt(2)/sqrt(3) tied to N = 3 on one input, where the others' factors tie to no N
    for size in ("2 is the input H", "2 is a size of this input"):
        tied = f"every entry is 0.5 times the right one (0.5 = 1/2, and {size}: a scale by the wrong size?)"
        follows = tied.replace("0.5", "0.25").replace("1/2", "1/4").replace("2 is", "4 is")
        assert protocol._steady_factor(tied, [follows]) == tied
        assert protocol._steady_factor(tied, [other]) == "every entry is 0.5 times the right one"
    ratio = ("in your `data_in`, every entry is 0.8165 times the right one (0.8165 = sqrt(2)/sqrt(3), where 3 is "
             "X.shape[1] and 2 is a size of this input: a scale by the wrong size, sqrt(3) where sqrt(2) is due?).")
    assert protocol._steady_factor(ratio, [said]) == "in your `data_in`, every entry is 0.8165 times the right one."
    # Round 6's w04 (scaled by sqrt(N), N = X.shape[1]): where another input ties the factor to X.shape[1] too, the
    # guess stays, and an input whose sizes make the tie ambiguous ("5 is a size of this input") does not undo it
    supports = ratio.replace("0.8165", "0.7746").replace("sqrt(2)/sqrt(3)", "sqrt(3)/sqrt(5)") \
        .replace("3 is X.shape[1]", "5 is X.shape[1]")
    generic = "every entry is 0.5 times the right one (0.5 = 1/sqrt(4), and 4 is a size of this input: ...?)"
    assert protocol._steady_factor(ratio, [supports, generic]) == ratio
    assert protocol._steady_factor(ratio, [generic]) == "in your `data_in`, every entry is 0.8165 times the right one."


def test_01s_softmax_is_probed_fresh_in_both_forms_the_notebook_gives_it(monkeypatch):
    """The notebook calls softmax on a flat array (its own check) and on a list of 1 x 1 dot products (the loop,
    the book's case): fresh inputs have both, every draw, and a softmax right on one form only is told which."""
    from grader.course.nb01_self_attention.probes import DOT_PRODUCTS
    probe = PROBES["01_self_attention"]["test_softmax"]
    for seed in range(6):
        assert {c.traits[DOT_PRODUCTS] for c in probe.cases(np.random.default_rng(seed)) if c.label == "fresh"} \
            == {True, False}
    last_axis = "def softmax(items_in):\n  e = np.exp(items_in)\n  return e / np.sum(e, axis=-1, keepdims=True)\n"
    kernel = {"np": np}
    exec(last_axis, kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 1)
    assert v.score < 0.5 and "inputs, those where items_in is a list of 1 x 1 dot products" in v.message


def test_one_answer_on_every_input_from_code_that_reads_its_arguments_is_not_told_to_read_them(monkeypatch):
    """A gradient check whose two copies of X are one array (every difference 0, every error 1) reads all its
    arguments and returns 1 on every input: told to look for the value that stays the same, not to read them."""
    probe = PROBES["07_attention_backprop"]["test_gradient_check"]
    aliased = ("def gradient_check(f, X, dX, eps=1e-6):\n"
               "  numeric = np.zeros_like(X, dtype=float)\n"
               "  for index in np.ndindex(X.shape):\n"
               "    X_plus = X_minus = X.astype(float)\n"
               "    X_plus[index] += eps\n"
               "    X_minus[index] -= eps\n"
               "    numeric[index] = (f(X_plus) - f(X_minus)) / (2 * eps)\n"
               "  return np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)\n")
    kernel = {"np": np}
    exec(aliased, kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    v = verdict(probe, cases, outputs, 2)
    assert v.score == 0 and v.mistake == protocol.HARD_CODED, v.message
    assert "work from its arguments" not in v.message and "stays the same when the inputs change" in v.message


def test_a_counts_multiple_of_a_size_is_said_only_when_every_wrong_case_has_it():
    """Round 3's s08 (projections counted once per head, 3 H D^2 + D^2 where 4 D^2 is due) is 192 above on the
    book's case, 192 = 6 x 32 with D_ff = 32: a coincidence, which the fresh cases do not bear out; said without it.
    One LayerNorm's 2 D left out (round 11's m08) is 2 x D on every case, and keeps its words."""
    probe = PROBES["08_transformer_block"]["test_block_parameters"]
    for body, kept in (("4 * D * D + 4 * D + 2 * D * D_ff + D_ff + D + 4 * D + (H - 1) * 3 * D * D", False),
                       ("4 * D * D + 4 * D + 2 * D * D_ff + D_ff + D + 2 * D", True)):
        kernel = {"np": np}
        exec(f"def block_parameters(D, H, D_ff):\n  return {body}\n", kernel)
        cases, outputs = run_probe(probe, kernel, monkeypatch=pytest.MonkeyPatch())
        v = verdict(probe, cases, outputs, 1)
        assert v.score == 0 and ("the right value (" in v.message) == kept, v.message
        assert "is the input D_ff" not in v.message


def test_a_count_off_by_a_number_keeps_which_steps_are_right():
    """Round 4's t08 (block_flops counting the masked scores out) was told its projections' and MLP's multiply-adds
    are right and the two numbers; said as 'below the right value' now, the steps that are right stay said."""
    probe = PROBES["08_transformer_block"]["test_block_flops"]
    cases = probe.cases(np.random.default_rng(0))

    def student(D, H, T, D_ff):  # t08's code: every step a variable of its own
        d, visible = D // H, T * (T + 1) // 2
        steps = {"d": d, "projections": 4 * T * D * D, "scores": H * visible * d, "weighted": H * visible * d,
                 "mlp_products": T * D * D_ff + T * D_ff * D}
        steps["flops"] = steps["projections"] + steps["scores"] + steps["weighted"] + steps["mlp_products"]
        return steps
    runs = [student(*(c.inputs[k] for k in ("D", "H", "T", "D_ff"))) for c in cases]
    got = [np.array(float(r["flops"])) for r in runs]
    traces = [[("block_flops", n, np.array(float(v))) for n, v in r.items()] for r in runs]
    reasons = [protocol.compare(g, probe.reference(c.inputs)) for g, c in zip(got, cases)]
    v = protocol._marked_results(probe, cases, got, reasons, [()] * len(cases), 1, traces)
    assert re.search(r"Your .*multiply-adds .* right\. On .*: it is \d+ below the right value", v.message), v.message


def test_a_text_is_read_as_it_holds_not_as_its_class_iterates(monkeypatch):
    """attacks7's b10: decode returning a str subclass whose __iter__ gives the right characters while the string
    holds the end-of-word markers. The probe reads a text by str's own methods, so it earns nothing."""
    probe = PROBES["10_byte_pair_encoding"]["test_decode"]
    kernel = {"np": np}
    exec("class Shown(str):\n"
         "  def __new__(cls, held, shown):\n"
         "    s = super().__new__(cls, held)\n"
         "    s.shown = shown\n"
         "    return s\n"
         "  def __iter__(self):\n"
         "    return iter(self.shown)\n"
         "  def __len__(self):\n"
         "    return len(self.shown)\n"
         "def decode(ids, tokens):\n"
         "  held = ''.join(tokens[i] for i in ids)\n"
         "  return Shown(held, held.replace('</w>', ' ')[:-1])\n", kernel)
    cases, outputs = run_probe(probe, kernel, monkeypatch=monkeypatch)
    assert verdict(probe, cases, outputs, 2).score == 0


CONTEXTUAL = PROBES["06_contextual_embeddings"]["test_self_attention"]


def _contextual_kernel(keep="attn_weights", output="output"):
    """The answer key's SelfAttention, keeping `keep` in self.attn_weights and returning `output`."""
    from grader.engine.build import SOURCE, answer_key
    nb = answer_key(nbformat.read(str(SOURCE / "06_contextual_embeddings" / "06_contextual_embeddings.ipynb"),
                                  as_version=4))
    source = next(c.source for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                  == "self_attention_class")
    assert source.count("self.attn_weights = attn_weights") == source.count("return output") == 1
    source = source.replace("self.attn_weights = attn_weights", f"self.attn_weights = {keep}")
    space = {"np": np}
    exec("import numpy as np\n" + source.replace("return output", f"return {output}"), space)
    return space


@pytest.mark.parametrize("keep, score, words", [
    ("attn_weights", 3, "right on the book's case and on 3 fresh inputs"),
    ("scores", 1.5, "`self.attn_weights` holds the scaled scores (Q @ K^T / np.sqrt(d) for each head"),
    ("None", 1.5, "`self.attn_weights` is None after the call, where the attention weights are due"),
    ("np.zeros((2, 2))", 1.5, "`self.attn_weights` is not the attention weights: shape (2, 2), expected"),
    ("attn_weights.transpose(0, 1, 3, 2)", 1.5, "`self.attn_weights` is not the attention weights: wrong values"),
])
def test_an_array_a_part_keeps_must_be_right_too_and_is_told_apart_from_its_result(monkeypatch, keep, score, words):
    cases, outputs = run_probe(CONTEXTUAL, _contextual_kernel(keep), monkeypatch=monkeypatch)
    v = verdict(CONTEXTUAL, cases, outputs, 3)
    assert v.score == score and words in v.message, v.message
    if score < 3:
        assert v.message.startswith("SelfAttention: its result is right, but") and "(on every case it was given). " \
            "Keep the attention weights in `self.attn_weights` too." in v.message, v.message


def test_a_wrong_result_is_said_first_and_a_kept_array_costs_only_where_the_result_is_right(monkeypatch):
    import dataclasses
    alone = dataclasses.replace(CONTEXTUAL, kept=(), call=f"({CONTEXTUAL.call})[0]")  # the result alone

    def both(kernel):
        return [verdict(probe, *run_probe(probe, kernel, monkeypatch=monkeypatch), 3) for probe in (CONTEXTUAL, alone)]
    # wrong everywhere (no output projection): the kept weights, right or not, change nothing
    for keep in ("attn_weights", "scores"):
        v, v_alone = both(_contextual_kernel(keep, "merged"))
        assert v == v_alone and v.score < 3
    # wrong on the book's two sentences only; the scores kept on the fresh inputs, where the result is right
    cases = CONTEXTUAL.cases(np.random.default_rng(0))
    assert [c.label for c in cases if np.shape(c.inputs["X"])[0] == 2] == ["book"]
    v, v_alone = both(_contextual_kernel("attn_weights if B == 2 else scores", "output if B != 2 else merged"))
    assert v_alone.score == 2  # the fresh inputs' two thirds
    assert v.score == 1 and v.message.startswith(v_alone.message.rstrip(".")), (v, v_alone)
    assert v.message.endswith("On 3 of the cases where its result is right, `self.attn_weights` holds the scaled "
                              "scores (Q @ K^T / np.sqrt(d) for each head, d its queries' size), not the attention "
                              "weights."), v.message


def test_large_negative_numbers_are_a_masks_only_where_no_input_holds_one():
    """Round 15's l02: 02's stability cases hold scores near -20000, so a column's maximum taken from the wrong row
    read as 'a mask over the wrong entries' in a part with no mask. Such numbers are a mask's fill only where no
    input holds one."""
    from grader.engine import diagnose
    w = np.array([[1.0, -2e4, 3.0], [-2e4, 5.0, 6.0]])
    g = np.array([[1.0, 2.0, -2e4], [-2e4, 5.0, 6.0]])  # one entry masked, one kept, the rest right
    assert "a mask over the wrong entries" in diagnose.same_shape(g, w, {"x": np.ones((2, 3))})
    said = diagnose.same_shape(g, w, {"data_in": np.array([[2e4, -2e4]])})
    assert "mask" not in str(said or ""), said
