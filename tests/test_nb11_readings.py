"""Notebook 11's readings (grader/course/nb11_decoding/readings.py) and the weights a softmax over an axis of
length 1 gives (grader/engine/diagnose.py): each says a fact of the result, and nothing of a right one."""
import numpy as np

from grader.course import PROBES
from grader.course.nb11_decoding import mistakes, readings, reference as ref
from grader.engine import diagnose

GREEDY, BEAM = PROBES["11_decoding"]["test_greedy"], PROBES["11_decoding"]["test_beam_search"]


def _fresh(probe, seed=0):
    return [c for c in probe.cases(np.random.default_rng(seed)) if c.label == "fresh"]


def _greedy_by(i, pick, given=lambda ids: ids):
    model, ids = mistakes.model_of(i), [int(t) for t in i["prompt"]]
    for _ in range(int(i["n_new"])):
        ids.append(pick(model(given(ids))))
    return np.array(ids, dtype=float)


def test_greedy_read_as_its_picks():
    case = _fresh(GREEDY)[0]  # each fresh greedy case meets a tie on its way
    i = case.inputs
    assert readings.greedy_path(i, GREEDY.reference(i)) is None
    larger_on_ties = _greedy_by(i, lambda l: int(np.flatnonzero(l == l.max())[-1]))
    assert "on a tie the smaller id is due" in readings.greedy_path(i, larger_on_ties)
    last_only = _greedy_by(i, lambda l: int(np.argmax(l)), lambda ids: ids[-1:])
    if not np.array_equal(last_only, GREEDY.reference(i)):  # fresh models read the first id too
        assert "given the last id alone" in readings.greedy_path(i, last_only)


def test_beam_read_where_the_rules_drop_the_sequence_or_as_a_final_beam_not_the_best():
    for case in _fresh(BEAM):
        i = case.inputs
        assert readings.beam_path(i, BEAM.reference(i)) is None
        history = []
        ref.beam_search(mistakes.model_of(i), i["prompt"], int(i["n_new"]), int(i["beam_width"]), int(i["end"]),
                        False, history)
        other = history[-1][1][0]  # the second of the final beams: right without the best one's place
        said = readings.beam_path(i, [np.array(other, dtype=float), BEAM.reference(i)[1]])
        assert said.startswith("without length normalisation: your sequence is one of the rules'"), said


def test_weights_of_one_everywhere_are_said_to_be_a_softmax_over_an_axis_of_length_1():
    scores = np.random.default_rng(0).normal(size=(2, 1, 5))  # (heads, one query, positions)
    due = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    said = diagnose.same_shape(np.ones_like(due), due, {}, ("heads", "", "positions"))
    assert said.startswith("every entry is 1, which is what a softmax over axis 1, an axis of length 1, gives"), said
    half = due.copy()
    half[0] = 1.0  # not 1 everywhere: not what a softmax over one entry gives
    assert not str(diagnose.same_shape(half, due, {}, ("heads", "", "positions"))).startswith("every entry is 1")


SAMPLE, TOP_K, TOP_P = (PROBES["11_decoding"][g] for g in ("test_sample", "test_top_k", "test_top_p"))


def test_sample_read_against_the_generators_own_draws():
    for case in _fresh(SAMPLE):
        i = case.inputs
        assert readings.sample_path(i, SAMPLE.reference(i)) is None
        no_temperature = ref.sample(mistakes.model_of(i), i["prompt"], int(i["n_new"]), 1.0,
                                    np.random.default_rng(int(i["seed"])))
        if list(no_temperature) != [int(t) for t in SAMPLE.reference(i)]:
            assert "without the temperature" in readings.sample_path(i, np.array(no_temperature, dtype=float))


def test_top_k_and_top_p_read_as_the_tokens_kept():
    for case in _fresh(TOP_K):
        i = case.inputs
        probs = ref.softmax(i["logits"])
        assert readings.top_k_kept(i, TOP_K.reference(i)) is None
        one_more = np.where(np.isin(np.arange(len(probs)), np.argsort(-probs, kind="stable")[:int(i["k"]) + 1]), probs, 0)
        said = readings.top_k_kept(i, one_more / one_more.sum())
        assert "not among the" in said and f"where {int(i['k'])} are due" in said, said
    for case in _fresh(TOP_P):
        i = case.inputs
        assert readings.top_p_kept(i, TOP_P.reference(i)) is None
        order = np.argsort(-ref.softmax(i["logits"]), kind="stable")
        n = ref.nucleus_size(ref.softmax(i["logits"]), i["p"])
        short = np.where(np.isin(np.arange(len(order)), order[:n - 1]), ref.softmax(i["logits"]), 0)
        if n > 1:  # the token that reaches p left out
            assert f"you leave out token {order[n - 1]} " in readings.top_p_kept(i, short / short.sum())


def test_a_decoder_that_writes_into_the_models_logits_is_stopped_and_told():
    """The notebook's model hands out a row of its own table, so `logits /= temperature` changes the model for every
    later call; the grader's model hands out a fresh row each call, read-only, so such a write raises where it would
    otherwise go unseen, and the error is explained. The answer key's decoders run on it unchanged."""
    from grader.course.nb11_decoding import reference
    sample = PROBES["11_decoding"]["test_sample"]

    def in_place(next_logits, prompt, n_new, temperature, rng):
        ids = list(prompt)
        for _ in range(n_new):
            logits = next_logits(ids)
            logits /= temperature
            ids.append(int(rng.choice(len(logits), p=reference.softmax(logits))))
        return ids
    for case in sample.cases(np.random.default_rng(0)):
        names = dict(case.inputs, sample=reference.sample, __builtins__=__builtins__, __course_held=lambda n, v: v)
        assert np.array_equal(eval(sample.call, names), sample.reference(case.inputs))
        try:
            eval(sample.call, dict(names, sample=in_place))
        except ValueError as error:
            said = diagnose.error(f"raised ValueError: {error}")
        else:
            raise AssertionError(f"a write into the model's logits went unseen on {case.label}")
        assert said and "it writes into an array that may not be changed" in said, said


def test_a_beam_longer_than_the_search_can_make_is_said_so_and_not_blamed_on_a_finished_beam():
    """Round 8: candidates made by appending to their beam's own list share it, and the sequence grows far past
    the prompt and n_new, the end token inside it. That is no finished beam extended (which keeps to n_new
    tokens): the verdict says the length, and prints a long sequence cut short."""
    i = _fresh(BEAM)[0].inputs
    prompt, n_new, end = [int(t) for t in i["prompt"]], int(i["n_new"]), int(i["end"])
    grown = np.array(prompt + ([end] + list(range(1, 12))) * 8, dtype=float)  # far more than n_new new tokens
    said = readings.beam_path(i, [grown, BEAM.reference(i)[1]])
    assert f"has {len(grown) - len(prompt)} new tokens, where the search runs {n_new} steps" in said, said
    assert "finished beam" not in said and "ids + [token]" in said
    long_one = readings._ids(range(100))
    assert long_one.endswith("... and 88 more]") and long_one.count(",") == 12
