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
from grader.engine.steps import _deps, holds

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
        elif np.size(want) >= 2:  # one number (a relative error) is no step: a trace cannot tell it apart
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
