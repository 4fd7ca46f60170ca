"""The catalogue of named mistakes: each is told apart from the right answer and from the others, and has a fixture."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from grader.assignments import PROBES
from grader.protocol import HARD_CODED, _same_with_nan, compare, recognise
from tests.sample_class import STUDENTS

PARTS = [(notebook, grade_id) for notebook, probes in PROBES.items() for grade_id, probe in probes.items()
         if any(m.compute for m in probe.mistakes)]


@pytest.mark.parametrize("notebook, grade_id", PARTS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_mistakes_are_never_the_right_answer_and_never_each_other(notebook, grade_id, seed):
    probe = PROBES[notebook][grade_id]
    for case in probe.cases(np.random.default_rng(seed)):
        if case.label != "fresh":
            continue  # on the book's case some mistakes are right (the notebook's global D is the book's)
        want = probe.reference(case.inputs)
        made = {}
        for mistake in probe.mistakes:
            if mistake.compute is None:
                continue
            try:
                made[mistake.name] = mistake.compute(case.inputs)
            except Exception:
                continue  # a mistake that cannot be made on these inputs
            # A student who made this mistake is never marked right ...
            assert compare(made[mistake.name], want) is not None, f"{mistake.name} passes as right on {case.about}"
            # ... and the right answer is never diagnosed as this mistake.
            assert not recognise(mistake, case.inputs, want, "wrong values"), f"right answer taken for {mistake.name}"
        names = sorted(made)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                assert not _same_with_nan(made[a], made[b]), f"{a} and {b} cannot be told apart on {case.about}"


def test_every_catalogued_mistake_has_a_fixture_whose_verdict_names_it():
    """End to end through grading: tests/test_grading.py checks each student's diagnoses in the verdicts."""
    catalogued = {m.name for probes in PROBES.values() for p in probes.values() for m in p.mistakes} | {HARD_CODED}
    named = " | ".join(words for s in STUDENTS.values() for words in s.diagnoses.values())
    missing = sorted(m for m in catalogued if m not in named)
    assert not missing, f"named mistakes with no fixture submission: {missing}"


def test_the_catalogue_has_at_least_fifteen_mistakes():
    catalogued = {m.name for probes in PROBES.values() for p in probes.values() for m in p.mistakes}
    assert len(catalogued | {HARD_CODED}) >= 15, sorted(catalogued)
