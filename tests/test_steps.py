"""The reference's named steps (Probe.steps) and the fresh inputs each part draws (issue 26, point 4).

A fresh case that cannot see a step hands out marks that a wrong answer did not earn: with one head, a
per-head quantity counted once is right; with a LayerNorm over two features, every token normalises to
+-gamma + beta whatever came before it. So every step a part declares must move the part's result past
the course's tolerance on every case the grader can draw: here each step of the reference is replaced by
a changed copy, on every case of many draws, and the result must change.
"""
import numpy as np
import pytest

from grader.course import PROBES
from grader.course.shared import steps as course_steps
from grader.engine.courseware import course
from grader.engine.protocol import Step
from grader.engine.steps import Known, _deps, _telling, first_wrong, holds

SEEDS = range(20)
STEPPED = sorted((a, g) for a, probes in PROBES.items() for g, p in probes.items() if p.steps)


def _results(steps):
    """The steps no other step is computed from: the part's result(s)."""
    used = {d for i in range(len(steps)) for d in _deps(steps, i)}
    return [s for i, s in enumerate(steps) if i not in used]


def _changed(value, rng):
    """A copy of a step's value changed everywhere by about a tenth of its size; ids (whole numbers) are
    another order of the same ids instead, since a tenth of an id is no id."""
    value = np.asarray(value, dtype=np.float64)
    if value.ndim == 0:  # a count's part: one more than it is
        return value + 1
    if np.array_equal(value, np.round(value)) and not np.array_equal(np.roll(value, 1, axis=-1), value):
        return np.roll(value, 1, axis=-1)
    return value + 0.1 * (np.abs(value) + np.mean(np.abs(value)) + 1e-3) * rng.standard_normal(value.shape)


@pytest.mark.parametrize("assignment, part", STEPPED)
def test_every_step_moves_the_result_on_every_case_drawn(assignment, part):
    probe = PROBES[assignment][part]
    blind = []
    for seed in SEEDS:
        rng = np.random.default_rng(1000 + seed)
        for case in probe.cases(np.random.default_rng(seed)):
            steps = probe.steps(case.inputs)
            results = _results(steps)
            for step in steps:
                if step in results or not step.moves_result or np.size(step.value) < 2:
                    continue
                with course_steps.replaced({step.name: _changed(step.value, rng)}):
                    moved = _results(probe.steps(case.inputs))
                if all(course().same(np.asarray(a.value, dtype=float), np.asarray(b.value, dtype=float))
                       for a, b in zip(moved, results)):
                    blind.append(f"{step.name} on {case.label} case ({case.about or 'seed ' + str(seed)})")
    assert not blind, f"{assignment} {part}: a changed step leaves the result unchanged: {sorted(set(blind))[:6]}"


@pytest.mark.parametrize("assignment, part", STEPPED)
def test_the_steps_end_in_the_result(assignment, part):
    """A single result is the last step; a list of results has each array among the steps' results (one number,
    such as a gradient check's relative error, is never a step)."""
    probe = PROBES[assignment][part]
    for case in probe.cases(np.random.default_rng(0)):
        steps, want = probe.steps(case.inputs), probe.reference(case.inputs)
        if isinstance(want, list):  # each result is a step, in a form the trace matching accepts (a list of columns)
            for w in want:
                w = np.asarray(w, dtype=float)
                if w.size >= 2:
                    assert any(holds(w, s.value) for s in steps), (part, w.shape)
        elif np.size(want) >= 2 or np.ndim(steps[-1].value) == 0:  # a count is its own last step; a relative
            # error (one number made of arrays) is no step
            assert course().same(np.squeeze(np.asarray(steps[-1].value, dtype=float)),
                                 np.squeeze(np.asarray(want, dtype=float)))


def test_a_changed_step_changes_only_what_is_computed_from_it():
    """`replaced` reaches the steps after the one replaced, and leaves those before it as they were."""
    probe = PROBES["02_scaled_attention"]["test_scaled_attention"]
    case = probe.cases(np.random.default_rng(0))[0]
    steps = probe.steps(case.inputs)
    scores = [s.name for s in steps].index("scaled scores")
    with course_steps.replaced({"scaled scores": steps[scores].value * 2}):
        moved = probe.steps(case.inputs)
    for k, (a, b) in enumerate(zip(steps, moved)):
        assert np.array_equal(a.value, b.value) == (k < scores), a.name


# ------------------------------------------------------------- the engine on made-up steps

def _block(x, w):
    """Made-up steps: h = x @ w, r = x + h (a residual), the result 2 r."""
    h = x @ w
    return [Step("hidden", "x @ w", h, (), ()), Step("residual sum", "x + hidden", x + h, (), ("hidden",)),
            Step("result", "2 * residual sum", 2 * (x + h), ())]


def _said(steps, trace, inputs, result):
    said = first_wrong(steps, trace, inputs, True, result)
    return said[-1] if said and said[1] == "bare" else said[0] if said else None


def test_a_wrong_step_is_told_what_it_is_when_it_is_a_known_value_plus_another():
    """The right step plus an input (a residual added twice), or with one known term in place of another
    (the normalised input where the input should be), is said as that; the right step less an input is
    not (x @ w before a bias is added is how a right answer builds it)."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    inputs = {"x": x, "w": w}
    steps = _block(x, w)
    h, r = steps[0].value, steps[1].value
    twice = _said(steps, [("block", "h", h), ("block", "r", r + x), ("block", "", 2 * (r + x))], inputs, 2 * (r + x))
    assert "your `r` is the right residual sum plus the input `x`" in twice, twice
    swapped = _said(steps, [("block", "h", h), ("block", "r", 2 * h)], inputs, 4 * h)
    assert "your `r` is the right residual sum with the input `x` in it replaced by the hidden" in swapped, swapped
    less = _said(steps, [("block", "r", r - x)], inputs, 2 * (r - x) + 1)
    assert "minus the input" not in (less or ""), less


def test_a_helpers_right_return_does_not_make_a_step_right_that_the_student_kept_wrong():
    """`h = project(x, w).T`: the helper returned the right hidden, and the student kept its transpose. The
    hidden is then not right, and the verdict says what `h` is; a name that holds the right hidden keeps
    it right."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    inputs = {"x": x, "w": w}
    steps = _block(x, w)
    h = steps[0].value
    r = x + h.T
    kept = [("project", "x", x), ("project", "w", w), ("project", "", h), ("block", "x", x), ("block", "h", h.T),
            ("block", "r", r), ("block", "", 2 * r)]
    said = _said(steps, kept, inputs, 2 * r)
    assert "hidden is right" not in said and "your `h` is the transpose of the right hidden" in said, said
    named = [("project", "", h), ("block", "h", h), ("block", "g", h.T), ("block", "r", r), ("block", "", 2 * r)]
    assert _said(steps, named, inputs, 2 * r) == "Your hidden is right."
    # an array the helper made on the way to its right return (softmax's exponentials) is no kept wrong one
    inside = [("project", "p", h.T), ("project", "", h), ("block", "r", r), ("block", "", 2 * r)]
    assert "hidden is right" in _said(steps, inside, inputs, 2 * r)


def test_an_array_seen_only_in_a_helper_is_named_with_the_helper():
    """An array the part's function never holds under a name of its own, seen in a helper it calls (layer_norm's
    `x`), is "the `x` in `norm`", not "your `x`": the student's code has no such variable. The part's own function
    is the one given the inputs, and the last one the trace keeps."""
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    steps = _block(x, w)
    h = steps[0].value
    kept = [("block", "x", x), ("block", "w", w), ("norm", "z", h.T), ("norm", "", 3 * h.T), ("block", "", 2 * x)]
    said = _said(steps, kept, {"x": x, "w": w}, 2 * x)
    assert "the `z` in `norm` is the transpose of the right hidden" in said, said
    kept[2] = ("block", "z", h.T)
    assert "your `z` is the transpose of the right hidden" in _said(steps, kept, {"x": x, "w": w}, 2 * x)


def test_weights_normalised_together_with_another_blocks_are_said_so():
    """Two heads' scores stacked, then one softmax: each head's block of the weights is the right weights times a
    number below one for each query. The first head's weights are the wrong step, and the verdict says what the
    student's array is, not only which tokens of the output are off."""
    from grader.course.shared import reference
    rng = np.random.default_rng(8)
    s1, s2, v = rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), rng.normal(size=(3, 5))
    w1 = reference.softmax_cols(s1)
    steps = [Step("head 1's scores", "K1^T Q1", s1, ("keys", "queries")),
             Step("head 1's attention weights", "softmax_cols of the scores", w1, ("keys", "queries"), ("head 1's scores",)),
             Step("head 1's output", "V1 @ the weights", v @ w1, ("features", "tokens"), ("head 1's attention weights",))]
    both = reference.softmax_cols(np.vstack([s1, s2]))  # (10, 4)
    trace = [("f", "scores1", s1), ("f", "attention", both), ("f", "head1", v @ both[:5])]
    said = _said(steps, trace, {"v": v}, v @ both[:5])
    assert ("your `attention` is normalised over all 10 of its keys at once, where head 1's attention weights are "
            "normalised over their own 5: its keys 1 to 5 are the right ones times a number below one for each query"
            ) in said, said
    # the right weights stacked with another head's, each normalised alone: no such finding
    apart = np.vstack([w1, reference.softmax_cols(s2)])
    assert "at once" not in (_said(steps, [("f", "attention", apart), ("f", "head1", 2 * v @ w1)], {"v": v},
                                   2 * v @ w1) or ""), apart


def test_an_argument_is_no_attempt_at_a_step_and_a_later_step_is_no_part_of_an_earlier():
    """The arguments as they came in are in the trace (at the call): an input of the step's shape is never
    said to be an attempt at it; and an array that is a step less a step computed from it (the one-hot
    targets are the probabilities less (probabilities - one-hot)) is no attempt at it either."""
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    inputs = {"x": x, "w": w}
    steps = _block(x, w)
    said = _said(steps, [("block", "x", x), ("block", "w", w)], inputs, rng.standard_normal((3, 3)))
    assert "`x`" not in (said or "") and "`w`" not in (said or ""), said
    later = steps[0].value - steps[1].value  # hidden less the residual sum: minus x
    said = _said(steps[:2], [("block", "parts", later)], inputs, steps[1].value + 1)
    assert "parts" not in (said or ""), said


def test_a_count_is_told_its_first_wrong_part():
    """Single-number steps (08's counts): a part equal to a number the inputs hold is no evidence (the
    student's `D`), a part a size times too small or large is said so, and a total short of one right
    part's count is said to be the right one minus it."""
    inputs = {"D": 8, "H": 2, "D_ff": 32}
    def count(mlp):
        return [Step("attention's", "4 D^2 + 4 D", 288.0, (), ()), Step("MLP's", "2 D D_ff + D_ff + D", mlp, (), ()),
                Step("norms'", "4 D", 32.0, (), ()), Step("result", "sum", 288.0 + mlp + 32.0, (), ("attention's", "MLP's", "norms'"))]
    steps = count(552.0)
    assert [s.name for s in __import__("grader.engine.steps", fromlist=["_telling"])._telling(steps, inputs)] == \
        ["attention's", "MLP's", "result"]  # 4 D = 32 = D_ff: said by no array of the student's
    per_head = _said(steps, [("f", "D", np.array(8.0)), ("f", "attention", np.array(288.0)), ("f", "mlp", np.array(276.0))],
                     inputs, np.array(596.0))
    assert "your `mlp` is 1/2 of the right one (2 is the input H)" in per_head, per_head
    short = _said(steps, [("f", "attention", np.array(288.0)), ("f", "", np.array(872.0 - 288.0))], inputs,
                  np.array(872.0 - 288.0))
    assert "the right result minus the attention's (4 D^2 + 4 D)" in short, short


def _two_results(x):
    """Made-up steps with two results: h = 2x, then r1 = h + 1 and r2 = 3h, and r3 = x - 1 from x alone."""
    return [Step("h", "2 x", 2 * x, (), ()), Step("r1", "h + 1", 2 * x + 1, (), ("h",)),
            Step("r2", "3 h", 6 * x, (), ("h",)), Step("r3", "x - 1", x - 1, (), ())]


def test_a_part_with_several_results_is_told_the_one_step_its_wrong_results_come_from():
    """When exactly the results computed from one step are missing from the student's arrays, and that step's
    own steps are right, that step is named (a result itself, when it is the one missing)."""
    x = np.arange(1.0, 7.0).reshape(2, 3)
    steps = _two_results(x)
    inputs = {"x": x}
    noise = np.random.default_rng(0).standard_normal((2, 2, 3))  # no finding ties them to a step
    h_wrong = [("f", "r3", x - 1), ("f", "r1", noise[0]), ("f", "r2", noise[1])]
    said = first_wrong(steps, h_wrong, inputs, False, None, [s.value for s in steps[1:]])
    assert said and said[1] is True and "All your results are right but the r1 and the r2, the ones computed from the h" \
        in said[0], said
    one_missing = [("f", "r3", x - 1), ("f", "r1", 2 * x + 1), ("f", "r2", noise[1])]  # r2 alone, h right
    said = first_wrong(steps, one_missing, inputs, False, None, [s.value for s in steps[1:]])
    assert said and said[1] is True and "Your h is right, and so are all the results but the r2 (3 h)" in said[0], said
    two_ways = [("f", "r1", 2 * x + 1), ("f", "r2", 6 * x)]  # r3 missing, and x is no step: r3 is its own
    said = first_wrong(steps, two_ways, inputs, False, None, [s.value for s in steps[1:]])
    assert said and "All your results are right but the r3 (x - 1): no array of yours equals it" in said[0], said


def test_a_result_that_comes_back_as_another_step_is_said_so():
    """Adam's m_hat returned where the new m is due: the student's result is another step of the reference."""
    x = np.arange(1.0, 7.0).reshape(2, 3)
    steps = _two_results(x)
    result = [2 * x + 1, 2 * x, x - 1]  # the second result is h, where r2 is due
    trace = [("f", "h", 2 * x), ("f", "r1", 2 * x + 1), ("f", "r3", x - 1)]
    said = first_wrong(steps, trace, {"x": x}, False, result, [2 * x + 1, 6 * x, x - 1])
    assert said and said[1] is True and "Your result 2 (of 3) is the h (2 x), where the r2 (3 h) is due" in said[0], said


def test_two_steps_that_lead_to_the_same_wrong_results_are_not_told_apart():
    """r computed from a and b, neither seen, and a second result right: a or b? Nothing said of either."""
    x = np.arange(1.0, 7.0).reshape(2, 3)
    steps = [Step("a", "x + 1", x + 1, (), ()), Step("b", "x * 2", 2 * x, (), ()),
             Step("r", "a * b", (x + 1) * 2 * x, (), ("a", "b")), Step("s", "x - 1", x - 1, (), ())]
    noise = np.random.default_rng(0).standard_normal((2, 3))
    said = first_wrong(steps, [("f", "s", x - 1), ("f", "r", noise)], {"x": x}, False, None, [steps[2].value, x - 1])
    assert not (said and (said[1] is True or isinstance(said[1], Known))), said


def test_two_paths_to_one_result_are_one_mistake_only_when_no_step_tells_them_apart():
    """Issue 26: a catalogued name is said only when its mistake's own steps agree with the student's. The
    made-up block's result 6 (x + h) comes from the residual sum tripled (`r` is 3 (x + h)) or from the result
    tripled (`r` right): each shows a step the other gets right made otherwise, so they are two mistakes. The
    same path written with other names, or a trace that shows nothing, is no contradiction."""
    from grader.engine.steps import same_path
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    inputs = {"x": x, "w": w}
    steps = _block(x, w)
    h, r = steps[0].value, steps[1].value
    tripled_sum = [("block", "h", h), ("block", "r", 3 * r), ("block", "", 6 * r)]
    tripled_result = [("block", "h", h), ("block", "r", r), ("block", "", 6 * r)]
    assert not same_path(steps, tripled_sum, tripled_result, inputs, True, 6 * r, 6 * r)
    assert not same_path(steps, tripled_result, tripled_sum, inputs, True, 6 * r, 6 * r)
    renamed = [("mistake", "hidden", h), ("mistake", "thrice", 3 * r), ("mistake", "", 6 * r)]
    assert same_path(steps, tripled_sum, renamed, inputs, True, 6 * r, 6 * r)
    inline = [("block", "", 6 * r)]
    assert same_path(steps, tripled_sum, inline, inputs, True, 6 * r, 6 * r)


def test_a_catalogued_mistake_is_traced_as_a_students_code_is():
    """The course's functions' local variables and results, as the probe records a student's."""
    from grader.course.shared import reference
    from grader.engine.steps import traced
    scores = np.array([[1.0, 2.0], [3.0, -1.0]])
    value, trace = traced(reference.softmax_cols, scores)
    assert np.array_equal(value, reference.softmax_cols(scores))
    assert any(np.array_equal(a, value) for _, _, a in trace)
    assert any(name == "data_in" and np.array_equal(a, scores) for _, name, a in trace), trace


def test_every_part_of_01_to_09_declares_how_its_path_is_read():
    """Issue 26: every part declares the steps its trace is matched against, or, where its result is no array
    a trace can follow, readings of its result (03's generator read as orders, 06's tokenize word by word) or
    traits of its cases (03's checker, which answers True or False). 09's trained model is judged on a training
    run whose last step must be one of train_step's, a part with steps: tracing that time-limited run would slow
    it, so fewer steps would be trained, and the trace must never change a score."""
    unread = []
    for assignment, probes in PROBES.items():
        if assignment[:2] > "09":
            continue
        for part, probe in probes.items():
            cases = probe.cases(np.random.default_rng(0))
            traits = all(c.traits for c in cases)
            trained = probe.judge is not None and "train_step" in probe.from_kernel and probes["test_train_step"].steps
            if not (probe.steps or probe.readings or traits or trained):
                unread.append(f"{assignment} {part}")
    assert not unread, f"parts that declare neither steps, readings nor traits: {unread}"


def test_a_step_made_with_another_row_of_a_table_is_said_to_be_that_row():
    """Step.rows: an embedding lookup taken at another row (a position read from another axis of the cache)."""
    rng = np.random.default_rng(0)
    pos, tok = rng.standard_normal((6, 4)), rng.standard_normal(4)
    step = Step("input", "tok + pos[t]", tok + pos[2], ("features",), (), rows=(("pos", pos, 2, "t", tok),))
    result = Step("result", "3 * input", 3 * (tok + pos[2]), ("features",), ("input",))
    said = first_wrong([step, result], [("f", "x", tok + pos[4])], {"pos": pos}, True, 3 * (tok + pos[4]))
    assert said and said[1] and "your `x` is made with pos[4] where pos[2] is due (t)" in said[0], said
    other = first_wrong([step, result], [("f", "x", tok + pos[2] + 1)], {"pos": pos}, True, 3 * (tok + pos[2] + 1))
    assert other is None or "made with pos[" not in other[0], other  # off by 1 everywhere: no row of the table


def test_a_spread_taken_about_zero_is_told_as_the_right_one_plus_a_known_value_squared():
    """A LayerNorm's variance computed as the mean of x^2 is the variance plus the mean squared: the verdict
    says so of the student's array, whatever the array is called."""
    from grader.course.shared.steps import layer_norm
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4)) + 1.5
    gamma, beta = rng.standard_normal(4), rng.standard_normal(4)
    steps = layer_norm(x, gamma, beta, 1e-5)
    mean = x.mean(axis=-1, keepdims=True)
    spread = np.mean(x ** 2, axis=-1, keepdims=True)
    out = gamma * (x - mean) / np.sqrt(spread + 1e-5) + beta
    trace = [("layer_norm", "mu", mean), ("layer_norm", "s2", spread), ("layer_norm", "", out)]
    said = first_wrong(steps, trace, {"x": x, "gamma": gamma, "beta": beta}, True, out)
    assert said and "your `s2` is the right variance plus the square of the mean" in said[0].lower(), said
    # the same array without the mean's square in it is no such thing
    other = spread + 0.3
    trace = [("layer_norm", "mu", mean), ("layer_norm", "s2", other), ("layer_norm", "", out)]
    said = first_wrong(steps, trace, {"x": x, "gamma": gamma, "beta": beta}, True, out)
    assert not said or "square of" not in " ".join(map(str, said)), said


def test_an_array_holds_a_step_reshaped_only_when_the_reshape_keeps_each_axis_whole():
    """Heads as (B*H, T, d) for (B, H, T, d), or (B, T, H, d) for (B, T, D), are the same arrays; (B, H, T, d)
    reshaped straight to (B, T, D) interleaves heads and tokens (a merge without its transpose), and holds no
    step whose numbers it scrambles."""
    rng = np.random.default_rng(2)
    B, H, T, d = 2, 3, 4, 5
    heads = rng.standard_normal((B, H, T, d))
    assert holds(heads.reshape(B * H, T, d), heads)
    merged = heads.transpose(0, 2, 1, 3)  # (B, T, H, d)
    assert holds(merged, merged.reshape(B, T, H * d)) and holds(merged.reshape(B, T, H * d), merged)
    assert not holds(heads.reshape(B, T, H * d), heads)
    assert not holds(heads.reshape(B, T, H * d), merged)


def test_a_step_merged_by_a_plain_reshape_is_told_as_its_numbers_read_in_memory_order():
    """Heads (B, H, T, d) merged to (B, T, D) with a reshape alone (no transpose first): the student's array
    holds the step's numbers in their memory order, and the verdict says that of it."""
    rng = np.random.default_rng(4)
    B, H, T, d = 2, 2, 3, 2
    heads, w = rng.standard_normal((B, H, T, d)), rng.standard_normal((H * d, H * d))
    merged = heads.transpose(0, 2, 1, 3).reshape(B, T, H * d)
    steps = [Step("heads", "the heads", heads, (), ()), Step("result", "the heads merged @ w", merged @ w, (), ("heads",))]
    wrong = heads.reshape(B, T, H * d)
    said = first_wrong(steps, [("f", "h", wrong), ("f", "", wrong @ w)], {"w": w}, True, wrong @ w)
    assert said and "your `h` is the right heads, of shape (2, 2, 3, 2), reshaped straight to (2, 3, 4)" in said[0], said
    # the merge done right holds the heads (a reshape that keeps each axis whole) and says nothing of the kind
    right = heads.transpose(0, 2, 1, 3)  # (B, T, H, d)
    said = first_wrong(steps, [("f", "h", right), ("f", "", right.reshape(B, T, H * d) @ w + 1)], {"w": w}, True,
                       right.reshape(B, T, H * d) @ w + 1)
    assert not said or "reshaped straight" not in " ".join(map(str, said)), said


def test_two_arguments_of_one_shape_given_the_other_way_round_are_said_swapped():
    """`beta * x_hat + gamma`: the LayerNorm's result made with gamma and beta swapped, said of the student's array."""
    from grader.course.shared.steps import layer_norm
    rng = np.random.default_rng(6)
    x, gamma, beta = rng.standard_normal((2, 3, 4)), rng.standard_normal(4), rng.standard_normal(4)
    inputs = {"x": x, "gamma": gamma, "beta": beta, "eps": 1e-5}
    steps = layer_norm(x, gamma, beta, 1e-5)
    x_hat = steps[3].value
    out = beta * x_hat + gamma
    said = first_wrong(steps, [("layer_norm", "x_hat", x_hat), ("layer_norm", "out", out), ("layer_norm", "", out)],
                       inputs, True, out, remake=lambda i: layer_norm(i["x"], i["gamma"], i["beta"], i["eps"]))
    assert said and "your `out` is the result made with `gamma` and `beta` swapped" in " ".join(map(str, said)), said


def test_an_argument_as_given_holds_no_step_it_is_only_close_to():
    """A gradient check is given the analytic gradient, within the tolerance of the central differences: the
    student's differences, wrong, are not called right because the argument is close to them."""
    rng = np.random.default_rng(7)
    numeric = rng.standard_normal((4, 3))
    analytic = numeric * (1 + 1e-6)  # within the course's tolerance of it, not equal
    steps = [Step("numeric gradient", "central differences", numeric, (), ())]
    wrong = np.repeat(numeric[:, :1], 3, axis=1)
    trace = [("gradient_check", "dX", analytic), ("gradient_check", "numeric", wrong)]
    said = first_wrong(steps, trace, {"dX": analytic}, False, [0.5], None)
    assert not said or "numeric gradient is right" not in said[0], said
    assert first_wrong(steps, [("gradient_check", "numeric", numeric + 1e-9), ("gradient_check", "e", wrong)],
                       {"dX": analytic}, False, [0.5], None)[0] == "Your numeric gradient is right."


def test_a_count_one_term_short_is_said_as_its_fraction_and_other_ratios_are_not():
    """3 projections counted where there are 4 is 3/4 of the right count; 3/8 of another count ties nothing."""
    from grader.engine.steps import _scaled
    inputs = {"D": 8, "T": 6}
    assert _scaled(np.array(1152.0), np.array(1536.0), inputs) == "it is 3/4 of the right one"
    assert isinstance(_scaled(np.array(1152.0), np.array(1536.0), inputs), Known)
    assert _scaled(np.array(1152.0), np.array(3072.0), inputs) is None
    assert _scaled(np.array(1152.5), np.array(1536.0), inputs) is None


def test_a_renaming_of_two_inputs_is_tried_as_a_renaming_and_a_swap_as_a_swap():
    """{omega_q: omega_k, beta_q: beta_k} (a renaming) is no swap, and trying it raises nothing."""
    from grader.engine.steps import _trials
    rng = np.random.default_rng(8)
    inputs = {n: rng.standard_normal((3, 3) if n.startswith("omega") else (3, 1))
              for n in ("omega_q", "omega_k", "beta_q", "beta_k")}
    said = [(used, due) for used, due, _, _, _ in _trials([], [], inputs, [])]
    assert ("the inputs `omega_k` and `beta_k`", "`omega_q` and `beta_q`") in said, said
    assert ("`omega_q` and `omega_k` swapped", "") in said, said


def test_a_case_on_which_two_steps_are_one_number_does_not_overrule_a_tie_the_other_cases_agree_on():
    """08's block_flops with the output projection left out: the student's `projections` is 3/4 of the right count
    on every case. On a case with D_ff = 2 D the MLP's count equals the projections', so there `projections` reads as
    3/4 of the MLP's count and `mlp_products` as the right projections. Such a case tells neither step apart, so it
    does not stop the verdict from saying the 3/4 the other cases agree on."""
    from grader.engine import protocol

    def trace(D, H, T, D_ff):  # the student's locals, as the kernel's trace keeps them
        d = D // H
        projections = 3 * T * D * D  # x @ W_q, x @ W_k, x @ W_v: the output projection left out
        attention = H * (T * d * T + T * T * d)
        mlp_products = T * D * D_ff + T * D_ff * D
        flops = projections + attention + mlp_products
        names = dict(D=D, H=H, T=T, D_ff=D_ff, d=d, projections=projections, attention=attention,
                     mlp_products=mlp_products, flops=flops)
        return flops, [("block_flops", n, np.array(float(v))) for n, v in names.items()]

    probe = PROBES["08_transformer_block"]["test_block_flops"]
    book = protocol.Case("book", {"D": 8, "H": 2, "T": 6, "D_ff": 32})
    alike = protocol.Case("fresh", {"D": 96, "H": 6, "T": 647, "D_ff": 192})  # D_ff = 2 D
    other = protocol.Case("fresh", {"D": 48, "H": 6, "T": 551, "D_ff": 288})  # D_ff = 6 D
    for cases in ([book, alike, other], [alike, book, other], [other, alike, book]):
        got, traces = zip(*(trace(**c.inputs) for c in cases))
        reasons = ["wrong"] * len(cases)
        said = protocol._step_finding(probe, cases, list(got), reasons, list(traces))
        assert said[0] and "your `projections` is 3/4 of the right one" in said[0], said
        assert "projections' multiply-adds are right" not in said[0], said
    # A count's tie that one described case alone shows is not said: nothing rules out chance there
    got, traces = zip(*(trace(**c.inputs) for c in (book, alike)))
    said = protocol._step_finding(probe, [book, alike], list(got), ["wrong"] * 2, list(traces))
    assert not said[0] or "3/4" not in said[0], said


def _another_of_its_kind(value, rng):
    """A changed copy of a step's value that is still what any attempt at it is: weights that sum to one along an
    axis become other such weights (a softmax of other scores), masked zeros kept; anything else `_changed`."""
    value = np.asarray(value, dtype=np.float64)
    for axis in range(value.ndim):
        if value.shape[axis] > 1 and np.all(value >= 0) and np.allclose(value.sum(axis=axis), 1):
            e = np.where(value > 0, np.exp(rng.standard_normal(value.shape)), 0.0)
            return e / e.sum(axis=axis, keepdims=True)
    return _changed(value, rng)


def _shown(steps, j):
    """The steps that step j being right makes right (`steps._right`): its uses, theirs, ..., through steps that
    show their uses."""
    out, todo = set(), [j]
    while todo:
        k = todo.pop()
        if getattr(steps[k], "shows_uses", True):
            for d in _deps(steps, k):
                if d not in out:
                    out.add(d)
                    todo.append(d)
    return out


@pytest.mark.parametrize("assignment, part", STEPPED)
def test_a_step_said_to_show_its_uses_changes_when_any_of_them_does(assignment, part):
    """A step found right makes right every step it is computed from (`steps._right`) unless it declares
    shows_uses=False. So each such step must change when a step it shows is replaced by another of its kind:
    07's d_beta_v, dV summed over the tokens, is dX_prime summed over the tokens for any weights whose columns
    sum to one, and would otherwise tell a student with wrong weights that their weights are right."""
    probe = PROBES[assignment][part]
    blind = []
    for seed in range(4):
        rng = np.random.default_rng(2000 + seed)
        for case in probe.cases(np.random.default_rng(seed)):
            steps = _telling(probe.steps(case.inputs), case.inputs)  # as first_wrong sees them: no step zero
            for j, step in enumerate(steps):  # everywhere (a key bias's gradient), which is never found right
                for u in sorted(_shown(steps, j)):
                    if not steps[u].moves_result or np.size(steps[u].value) < 2:
                        continue
                    with course_steps.replaced({steps[u].name: _another_of_its_kind(steps[u].value, rng)}):
                        moved = next(s for s in probe.steps(case.inputs) if s.name == step.name)
                    if course().same(np.asarray(moved.value, dtype=float), np.asarray(step.value, dtype=float)):
                        blind.append(f"{step.name} shows nothing of {steps[u].name} ({case.label} case)")
    assert not blind, f"{assignment} {part}: {sorted(set(blind))[:6]}"


def test_a_function_applied_entry_by_entry_in_place_of_the_one_due_is_said_where_it_differs():
    """A leaky ReLU differs from the ReLU where h is negative, a GELU or a sigmoid on both sides; the ReLU of other
    numbers (the pre-activations without their bias) is no function of h, and nothing is said of it."""
    from grader.engine.steps import _entrywise
    rng = np.random.default_rng(0)
    h = rng.standard_normal((2, 3, 8))
    axes = ("items", "tokens", "features")
    steps = [Step("hidden pre-activations", "x @ W1 + b1", h, axes, ()),
             Step("ReLU", "np.maximum(0, x @ W1 + b1)", np.maximum(0, h), axes,
                  entrywise=("hidden pre-activations", "np.maximum(0, h)"))]
    values = [s.value for s in steps]
    gelu = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
    said = {name: _entrywise(a, steps[1], steps, values) for name, a in {
        "leaky": np.maximum(0.01 * h, h), "gelu": gelu, "sigmoid": 1 / (1 + np.exp(-h)), "right": np.maximum(0, h),
        "other numbers": np.maximum(0, h - rng.standard_normal(8))}.items()}
    assert said["leaky"].startswith("not np.maximum(0, h) (h: the hidden pre-activations) where h is negative: at h = ")
    assert "where h is negative or positive: at h = " in said["gelu"]
    assert "where h is negative or positive" in said["sigmoid"]
    assert said["right"] is None and said["other numbers"] is None, said


def test_a_step_is_not_said_made_from_an_array_that_the_steps_after_it_turn_back_into_itself():
    """`_used_instead`: top_k_probs renormalising with a softmax returns a result with k entries that sum to one.
    Put in place of the probabilities, that result is kept and renormalised to itself: no sign that the student
    used it for the probabilities, which their `probs` holds right. The weights recomputed unmasked, which the steps
    after them are made from, are (tests/test_diagnosis.py)."""
    from grader.engine.steps import _used_instead
    probe = PROBES["11_decoding"]["test_top_k"]
    case = probe.cases(np.random.default_rng(0))[0]
    steps = probe.steps(case.inputs)
    values = [np.asarray(s.value, dtype=float) for s in steps]
    probs = values[0]
    keep = np.argsort(-probs, kind="stable")[:int(case.inputs["k"])]
    result = np.zeros_like(probs)
    result[keep] = np.exp(probs[keep]) / np.exp(probs[keep]).sum()
    trace = [("top_k_probs", "probs", probs), ("top_k_probs", "result", result)]
    found = [("top_k_probs", "probs"), None, None]
    assert _used_instead(steps, values, found, trace, case.inputs, probe.steps) == (found, {})


def _chain(x):
    """a = 2 x, k = x + 7 (from the input alone), b = a + 1, result c = 3 b."""
    return [Step("a", "2 x", 2 * x, ("rows", "columns"), ()), Step("k", "x + 7", x + 7, ("rows", "columns"), ()),
            Step("b", "a + 1", 2 * x + 1, ("rows", "columns"), ("a",)),
            Step("c", "3 b", 3 * (2 * x + 1), ("rows", "columns"), ("b",))]


def test_an_array_tied_to_a_step_by_some_right_slices_is_said_only_when_every_wrong_case_ties_one():
    """Some slices right and the others wrong can be chance on one input (l04's head output right in one token
    where its weights were one-hot, told as the head's values, head 2's keys unseen before them): after a step not
    shown right, said only when the other wrong cases tie an array of theirs to a step too; after right steps alone
    (d09's new parameters, its gradients right), said as before."""
    from grader.engine import protocol
    from grader.engine.protocol import Case, Probe
    from grader.engine.steps import Sliced
    xs = [np.arange(1.0, 7.0).reshape(2, 3), np.arange(2.0, 14.0).reshape(3, 4)]
    probe = Probe(what="f", call="f(x)", cases=lambda rng: [Case("book", {"x": xs[0]}), Case("fresh", {"x": xs[1]})],
                  reference=lambda i: 3 * (2 * i["x"] + 1), steps=lambda i: _chain(i["x"]))
    cases = probe.cases(None)

    def partly(x):  # b right in every column but the first
        b = 2 * x + 1
        b[:, 0] += 5
        return b
    noise = np.random.default_rng(0).standard_normal(xs[1].shape) * 100
    book = [("f", "a", 2 * xs[0]), ("f", "z", partly(xs[0]))]
    said = first_wrong(_chain(xs[0]), book, {"x": xs[0]}, True, 3 * partly(xs[0]), 3 * (2 * xs[0] + 1))
    assert isinstance(said[1], Sliced) and "column 1 of 3 is wrong" in said[0], said
    got = [3 * partly(xs[0]), noise]
    reasons = ["wrong values", "wrong values"]
    for fresh, shown in (([("f", "a", 2 * xs[1]), ("f", "z", noise)], False),  # no array of it tied: chance
                         ([("f", "a", 2 * xs[1]), ("f", "z", partly(xs[1]))], True)):  # tied again: said
        words, certain = protocol._step_finding(probe, cases, got, reasons, [book, fresh])[:2]
        assert ("column 1 of 3 is wrong" in (words or "")) == shown, words
    # k seen right too: every step before b is right, and the slices are said whatever the other case ties
    book_k = book + [("f", "k", xs[0] + 7)]
    said = first_wrong(_chain(xs[0]), book_k, {"x": xs[0]}, True, 3 * partly(xs[0]), 3 * (2 * xs[0] + 1))
    assert said[1] is True and "column 1 of 3 is wrong" in said[0], said
    untied = [("f", "a", 2 * xs[1]), ("f", "z", noise)]
    words, _ = protocol._step_finding(probe, cases, got, reasons, [book_k, untied])[:2]
    assert "column 1 of 3 is wrong" in words, words


def test_an_array_named_as_a_step_on_the_way_is_its_attempt_when_what_it_is_made_from_is_right():
    """09's `dlogits`, made with every position counted: no finding ties it to the step "dlogits", yet it is the
    student's dlogits, made from right logits; a later update tied by its slices is not where it went wrong."""
    x = np.arange(1.0, 7.0).reshape(2, 3)
    noise = np.random.default_rng(1).standard_normal(x.shape) * 100
    trace = [("f", "a", 2 * x), ("f", "b", noise)]
    said = first_wrong(_chain(x), trace, {"x": x}, True, 3 * noise, 3 * (2 * x + 1))
    assert said and said[0].startswith("Your a is right, but not the b (a + 1)"), said
    anonymous = [("f", "a", 2 * x), ("f", "z", noise)]  # not named as the step: no evidence where it went wrong
    said = first_wrong(_chain(x), anonymous, {"x": x}, True, 3 * noise, 3 * (2 * x + 1))
    assert not said or "but not the b" not in said[0], said
