"""Sample students of notebook 11 (decoding strategies and the KV cache): the answer key, answers written other
ways, the untouched notebook, and one mistake per part, two parts to a student where the parts are independent.

No part calls another graded part. The expected scores follow from the notebook's examples: every mistake is
wrong on every fresh case (the grader draws them so) and on the notebook's examples, so a mistaken part scores 0.
"""
from tests.students import Student

A11 = "11_decoding"
FULL_11 = {"test_greedy": 1, "test_sample": 2, "test_top_k": 2, "test_top_p": 2, "test_beam_search": 2,
           "test_decode_step": 3}


def _11(**changed):
    return dict(FULL_11, **changed)


# Right, written other ways: greedy with a while loop, sampling with rng.random() against the cumulative sum
# (what rng.choice(V, p=probs) does with its one draw), top-k by masking the logits before the softmax, the nucleus
# by "the sum before this token is below p", a step that splits the heads with the course's helper.
WHILE_GREEDY = """\
def greedy(next_logits, prompt, n_new):
  ids = [int(t) for t in prompt]
  while len(ids) < len(prompt) + n_new:
    ids = ids + [int(np.argmax(next_logits(ids)))]
  return ids"""

CUMSUM_SAMPLE = """\
def sample(next_logits, prompt, n_new, temperature, rng):
  ids = list(prompt)
  for _ in range(n_new):
    z = np.asarray(next_logits(ids), dtype=float) / temperature
    probs = np.exp(z - z.max())
    probs = probs / probs.sum()
    cdf = np.cumsum(probs)
    ids.append(int(np.searchsorted(cdf / cdf[-1], rng.random(), side="right")))
  return ids"""

MASKED_TOP_K = """\
def top_k_probs(logits, k):
  order = np.argsort(-np.asarray(logits, dtype=float), kind="stable")
  masked = np.full(len(logits), -np.inf)
  masked[order[:k]] = np.asarray(logits, dtype=float)[order[:k]]
  e = np.exp(masked - masked.max())
  return e / e.sum()"""

BEFORE_P = """\
def top_p_probs(logits, p):
  probs = softmax(logits)
  order = np.argsort(-probs, kind="stable")
  before = np.cumsum(probs[order]) - probs[order]  # the sum of the tokens more likely than this one
  kept = np.zeros_like(probs)
  kept[order[before < p]] = probs[order[before < p]]
  return kept / kept.sum()"""

RETURN_IDS = "  return ids"
GREEDY_LOGITS = "    logits = next_logits(ids)  # (V,)"
SAMPLE_PROBS = "    probs = softmax(np.asarray(next_logits(ids)) / temperature)  # (V,)"
TOP = '  top = np.argsort(-probs, kind="stable")[:k]  # equal probabilities: the smaller id first'
RENORMALISE = "  result = kept / np.sum(kept)"
ORDER = '  order = np.argsort(-probs, kind="stable")  # the most likely first'
SIZE = "  n = int(np.searchsorted(cumulative, p)) + 1"
POSITION = '  x = p["tok_emb"][token] + p["pos_emb"][t]'
WEIGHTS = "  weights = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))"
HEADS = "  heads = (weights @ V).reshape(D)"
RETURN_STEP = "  return logits, K, V"
EXTEND = "        candidates.append((ids + [token], score + log_probs[token]))"
KEEP = "    beams = [candidates[k] for k in order[:beam_width]]"
FINISHED = "      if len(ids) > len(prompt) and ids[-1] == end:"

STUDENTS = {
    "correct": Student(A11, FULL_11),
    "correct_other_ways": Student(A11, FULL_11, cells={
        "greedy_def": WHILE_GREEDY, "sample_def": CUMSUM_SAMPLE, "top_k_def": MASKED_TOP_K, "top_p_def": BEFORE_P}),
    "untouched": Student(A11, {g: 0 for g in FULL_11}, untouched=True),
    "prompt_left_out_after_softmax": Student(
        A11, _11(test_greedy=0, test_sample=0),
        edits={"greedy_def": [(RETURN_IDS, "  return ids[len(prompt):]")],
               "sample_def": [(SAMPLE_PROBS, "    probs = softmax(np.asarray(next_logits(ids))) / temperature\n"
                                             "    probs = probs / probs.sum()")]},
        diagnoses={"test_greedy": "the prompt left out", "test_sample": "temperature applied after the softmax"}),
    "not_fed_back_multiplied": Student(
        A11, _11(test_greedy=0, test_sample=0),
        edits={"greedy_def": [(GREEDY_LOGITS, "    logits = next_logits(list(prompt))")],
               "sample_def": [(SAMPLE_PROBS, "    probs = softmax(np.asarray(next_logits(ids)) * temperature)")]},
        diagnoses={"test_greedy": "new tokens not fed back", "test_sample": "logits multiplied by the temperature"}),
    "sample_not_fed_back_ties_all": Student(
        A11, _11(test_sample=0, test_top_k=0),
        edits={"sample_def": [(SAMPLE_PROBS, "    probs = softmax(np.asarray(next_logits(list(prompt))) / temperature)")],
               "top_k_def": [(TOP, "  top = probs >= np.sort(probs)[::-1][k - 1]")]},
        diagnoses={"test_sample": "new tokens not fed back", "test_top_k": "more than k kept on ties"}),
    "larger_id_crossing_dropped": Student(
        A11, _11(test_top_k=0, test_top_p=0),
        edits={"top_k_def": [(TOP, "  top = np.argsort(probs, kind=\"stable\")[-k:]")],
               "top_p_def": [(SIZE, "  n = int(np.sum(cumulative < p))")]},
        diagnoses={"test_top_k": "ties broken toward the larger id", "test_top_p": "the token that crosses p dropped"}),
    # (its top_p is right on the fresh case where a sum reaches p exactly: probabilities 1/m and 0, which add up
    # in id order as they do sorted, so the part earns that case's share)
    "top_k_not_renormalised_id_order": Student(
        A11, _11(test_top_k=0, test_top_p=0.33),
        edits={"top_k_def": [(RENORMALISE, "  result = kept")], "top_p_def": [(ORDER, "  order = np.arange(len(probs))")]},
        diagnoses={"test_top_k": "renormalised over all tokens", "test_top_p": "cumulative sum in id order"}),
    "top_p_not_renormalised_attends_twice": Student(
        A11, _11(test_top_p=0, test_decode_step=0),
        edits={"top_p_def": [(RENORMALISE, "  result = kept")],
               "decode_step_def": [(WEIGHTS, "  K2, V2 = np.concatenate([K, k], axis=1), np.concatenate([V, v], axis=1)\n"
                                             "  weights = softmax(q @ K2.transpose(0, 2, 1) / np.sqrt(d))"),
                                   (HEADS, "  heads = (weights @ V2).reshape(D)")]},
        diagnoses={"test_top_p": "renormalised over all tokens", "test_decode_step": "the new token attends to itself twice"}),
    "cache_never_grows": Student(
        A11, _11(test_decode_step=0),
        edits={"decode_step_def": [(RETURN_STEP, "  return logits, K_cache, V_cache")]},
        diagnoses={"test_decode_step": "the cache never grows"}),
    "position_off_by_one": Student(
        A11, _11(test_decode_step=0),
        edits={"decode_step_def": [(POSITION, '  x = p["tok_emb"][token] + p["pos_emb"][t + 1]')]},
        diagnoses={"test_decode_step": "the position off by one"}),
    "beam_probabilities_multiplied": Student(
        A11, _11(test_beam_search=0),
        edits={"beam_search_def": [("beams = [(prompt, 0.0)]", "beams = [(prompt, 1.0)]"),
                                   (EXTEND, "        candidates.append((ids + [token], score * np.exp(log_probs[token])))")]},
        diagnoses={"test_beam_search": "probabilities multiplied"}),
    "beam_unsorted": Student(
        A11, _11(test_beam_search=0),
        edits={"beam_search_def": [(KEEP, "    beams = candidates[:beam_width]")]},
        diagnoses={"test_beam_search": "the beams not sorted by score"}),
    "beam_finished_extended": Student(
        A11, _11(test_beam_search=0),
        edits={"beam_search_def": [(FINISHED, "      if False:")]},
        diagnoses={"test_beam_search": "finished beams extended"}),
    "mask_in_step": Student(
        A11, _11(test_decode_step=0),
        edits={"decode_step_def": [(WEIGHTS, "  scores = q @ K.transpose(0, 2, 1) / np.sqrt(d)\n"
                                             "  weights = softmax(np.where(causal_mask(K.shape[1])[:1], scores, -1e6))")]},
        diagnoses={"test_decode_step": "the causal mask applied in the step"}),
}
