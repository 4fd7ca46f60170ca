"""Notebook 11, generating text: its probes and the values its checks show.

The decoders are called with the case's model, next_logits = lambda ids: table[ids[-1]] + first[ids[0]], handed
out read-only: the notebook's bigram table on its examples (first is zero there), and on fresh inputs a model that
reads the first token too, as a transformer reads every token; they report their ids as an array. The sampler gets a generator made
from the
case's seed. The KV cache's step is run as the notebook's logits_with_cache runs it: two sequences in turn, one
token at a time, each step given only the new token and its sequence's cache; on fresh inputs each sequence's
first positions are already cached, by the grader, with keys and values no tokens make, so the step must read the
cache it is given.
"""
import numpy as np

from . import cases, mistakes, readings, reference as ref
from ..shared import cases as shared_cases
from ..shared.steps import _v
from ...engine.protocol import Case, Probe, Step, Trait, held
from ..shared import tiny_transformer as tiny

N_FRESH = 3
NP = "__import__('numpy')"
# The prompt as the notebook gives it, a list; the kernel reports it after the call, so one changed in place is seen
PROMPT = held("prompt", "[int(t) for t in prompt]")
# The logits it hands out are read-only: the notebook's model hands out a row of its own table (a view), so a decoder
# that writes into them (logits /= temperature) changes the model for every later call, and its checks fail. Here a
# fresh array is handed out each call, and such a write raises, where it would otherwise go unseen.
MODEL = "(lambda ids: (lambda row: (row.setflags(write=False), row)[1])(table[ids[-1]] + first[ids[0]]))"


_same, _results, _every_mistake_shows = (shared_cases.same_result, shared_cases.results_of,
                                         shared_cases.every_mistake_shows)


def _told_apart(probe, inputs):
    wrong = _results(probe, inputs)[1:]
    return all(not _same(a, b) for k, a in enumerate(wrong) for b in wrong[k + 1:])


def _fresh(rng, probe, draw, about, sees=lambda inputs: True):
    """N_FRESH fresh cases, each wrong for every mistake, telling every two mistakes apart, and where `sees`
    holds (a rule of the part that the case can see). `draw` and `sees` are one function, or one for each case."""
    out = []
    draws = draw if isinstance(draw, tuple) else (draw,) * N_FRESH
    sees = sees if isinstance(sees, tuple) else (sees,) * N_FRESH
    while len(out) < N_FRESH:
        inputs = draws[len(out)](rng)
        if _every_mistake_shows(probe, inputs) and _told_apart(probe, inputs) and sees[len(out)](inputs):
            out.append(Case("fresh", inputs, about=about(inputs)))
    return out


def _model_about(i):
    return f"{len(i['table'])} tokens, a model that reads the first token and the last"


def _tie_on_path(i):
    """Whether greedy meets a tie for the largest logit on its way: the smaller id's rule then shows."""
    model, ids = mistakes.model_of(i), [int(t) for t in i["prompt"]]
    for _ in range(int(i["n_new"])):
        logits = model(ids)
        if np.sum(logits == logits.max()) > 1:
            return True
        ids.append(int(np.argmax(logits)))
    return False


def _draws_matter(i, chance=0.01):
    """Whether the tokens sampled are unlikely to come from any other draws: the probability of the whole
    sequence under the model is below `chance` (at a low temperature a peaked model gives the same tokens from
    almost any generator, and a sampler that ignores rng would earn that case)."""
    model, n = mistakes.model_of(i), len(i["prompt"])
    ids = [int(t) for t in PROBES["test_sample"].reference(i)]
    log_p = sum(np.log(ref.softmax(model(ids[:k]) / i["temperature"])[ids[k]]) for k in range(n, len(ids)))
    return log_p < np.log(chance)


def _a_beam_finishes(i):
    """Whether a beam that ends with the end token wins, with or without length normalisation: finished beams
    then keep their places among the beams, as the rules say."""
    return any(int(i["end"]) in ids[len(i["prompt"]):] for ids in PROBES["test_beam_search"].reference(i))


def _beam_set_aside(i, length_norm):
    """The rules' beam search but for one rule: a finished beam leaves the beams and waits apart, so it takes no
    place among the beam_width (the best of the finished and the last beams wins). For choosing fresh cases
    only: a case where this gives another result can see the rule that finished beams keep their places."""
    model, prompt, end = mistakes.model_of(i), [int(t) for t in i["prompt"]], int(i["end"])
    beams, finished = [(prompt, 0.0)], []
    for _ in range(int(i["n_new"])):
        candidates = []
        for ids, score in beams:
            log_probs = ref.log_softmax(model(ids))
            candidates += [(ids + [token], score + log_probs[token]) for token in range(len(log_probs))]
        beams = []
        for k in np.argsort([-score for _, score in candidates], kind="stable"):
            (finished if candidates[k][0][-1] == end else beams).append(candidates[k])
            if len(beams) == int(i["beam_width"]):
                break
    pool = finished + beams
    final = [score / (len(ids) - len(prompt)) if length_norm else score for ids, score in pool]
    return pool[int(np.argmax(final))][0]


def _a_beam_finishes_and_every_mistake_shows_itself(i):
    """_a_beam_finishes, and each catalogued mistake gives a sequence that neither right one is (see
    shared.cases.every_mistake_shows_itself): one case of the three in which a mistake's name is not said of
    answers that give one right sequence in the other's place."""
    return _a_beam_finishes(i) and shared_cases.every_mistake_shows_itself(PROBES["test_beam_search"], i)


def _finished_keep_places(i):
    """Whether a finished beam wins and its place among the beams matters: set apart, it changes the result."""
    return _a_beam_finishes(i) and any(
        list(_beam_set_aside(i, norm)) != [int(t) for t in r]
        for norm, r in zip((False, True), PROBES["test_beam_search"].reference(i)))


def _cases(book, name, draw, about, sees=lambda inputs: True):
    def make(rng):
        return [Case("book", b, about=a) for b, a in book()] + _fresh(rng, PROBES[name], draw, about, sees)
    return make


# Said when top_p_probs is wrong on exactly the inputs where a cumulative sum equals p
REACHED = Trait("a cumulative sum of the sorted probabilities equals p exactly", "no cumulative sum equals p",
                note="the nucleus keeps the token whose sum reaches p, equal included")


def _top_p_cases(rng):
    """The notebook's example and fresh logits whose sums stay clear of p, and one case where a sum reaches p exactly
    (no draw shows that and the catalogued mistakes at once: its own rule, Case.shows)."""
    made = _cases(lambda: [(cases.top_p_example(), "")], "test_top_p", cases.fresh_top_p,
                  lambda i: f"{len(i['logits'])} logits, p={i['p']}")(rng)
    reached = cases.fresh_top_p_reached(rng)
    m = int(np.sum(reached["logits"] == reached["logits"].max()))
    made.append(Case("fresh", reached, shows="a p that a cumulative sum reaches exactly",
                     about=f"{len(reached['logits'])} logits, {m} of them equal and the others far below, "
                           f"p={reached['p']}"))
    for c in made:
        c.traits = {REACHED: c is made[-1]}
    return made


# ---------------------------------------------------------------- steps

def _filter_steps(i, keep_of, what):
    """softmax, the kept probabilities (zero elsewhere), the kept ones divided by their sum."""
    probs = _v("probabilities", ref.softmax(i["logits"]))  # (V,)
    keep = keep_of(probs)
    kept = _v("kept probabilities", np.where(np.isin(np.arange(len(probs)), keep), probs, 0.0))
    axes = ("tokens",)
    return [Step("probabilities", "softmax(logits)", probs, axes, ()),
            Step("kept probabilities", f"the probabilities of {what}, 0 elsewhere", kept, axes),
            Step("result", "the kept probabilities divided by their sum", kept / kept.sum(), axes)]


def top_k_steps(i):
    return _filter_steps(i, lambda probs: np.argsort(-probs, kind="stable")[:int(i["k"])],
                         "the k most likely tokens")


def top_p_steps(i):
    return _filter_steps(i, lambda probs: np.argsort(-probs, kind="stable")[:ref.nucleus_size(probs, i["p"])],
                         "the nucleus")


def decode_steps(i):
    """One call of decode_step, the third the probe makes (sequence 0's second new token, so that it attends to
    two keys or more): its input, LayerNorm, query, key and value, the cache with them appended, the weights,
    the heads side by side, the residual sums and LayerNorms, its logits; then every call's logits, the
    probe's result, the later calls run from the caches this one returns."""
    p, H, tokens, start = mistakes.params_of(i), int(i["num_heads"]), np.asarray(i["tokens"]), int(i["start"])
    B, T = tokens.shape
    caches = [(np.array(i["K0"][b], dtype=float), np.array(i["V0"][b], dtype=float)) for b in range(B)]
    calls = [(t, b) for t in range(start, T) for b in range(B)]
    rows = [[] for _ in range(B)]
    steps = []
    for n, (t, b) in enumerate(calls):
        K_cache, V_cache = caches[b]
        if n != 2:
            logits, K, V = ref.decode_step(p, int(tokens[b][t]), K_cache, V_cache, H)
        else:
            steps, logits, K, V = _one_step(p, int(tokens[b][t]), K_cache, V_cache, H)
        caches[b] = (K, V)
        rows[b].append(np.asarray(logits, dtype=float).reshape(-1))
    axes = ("sequences", "positions", "logits")
    return steps + [Step("result", "the logits of every call, each sequence's in turn", np.array(rows), axes,
                         ("new logits", "appended keys", "appended values"))]


def _one_step(p, token, K_cache, V_cache, H):
    """([Step], logits, K, V) of one decode_step call, each step replaceable (shared.steps.replaced)."""
    t = K_cache.shape[1]
    x = _v("new token's input", p["tok_emb"][token] + p["pos_emb"][t])  # (D,)
    D = x.shape[0]
    d = D // H
    h = _v("first LayerNorm", tiny.layer_norm_forward(x, p["gamma1"], p["beta1"])[0])  # (D,)
    q = _v("new query", (h @ p["W_q"] + p["b_q"]).reshape(H, 1, d))  # (H, 1, d)
    k = _v("new key", (h @ p["W_k"] + p["b_k"]).reshape(H, 1, d))
    v = _v("new value", (h @ p["W_v"] + p["b_v"]).reshape(H, 1, d))
    K = _v("appended keys", np.concatenate([K_cache, k], axis=1))  # (H, t+1, d)
    V = _v("appended values", np.concatenate([V_cache, v], axis=1))
    A = _v("attention weights", ref.softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d)))  # (H, 1, t+1)
    heads = _v("heads side by side", (A @ V).reshape(D))  # (D,)
    x1 = _v("first residual sum", x + heads @ p["W_o"] + p["b_o"])  # (D,)
    h2 = _v("second LayerNorm", tiny.layer_norm_forward(x1, p["gamma2"], p["beta2"])[0])
    m = _v("MLP output", tiny.mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])[0])
    x2 = _v("second residual sum", x1 + m)  # the block's output
    hf = _v("final LayerNorm", tiny.layer_norm_forward(x2, p["gamma_f"], p["beta_f"])[0])
    logits = _v("new logits", hf @ p["W_out"] + p["b_out"])  # (V,)
    f, hd = ("features",), ("heads", "", "features")
    lookups = (("pos_emb", p["pos_emb"], t, "t, the number of tokens cached", p["tok_emb"][token]),
               ("tok_emb", p["tok_emb"], token, "the new token", p["pos_emb"][t]))
    steps = [Step("new token's input", "tok_emb[token] + pos_emb[t], t the number of tokens cached", x, f, (),
                  rows=lookups),
             Step("first LayerNorm", "LayerNorm 1 of the new token's input", h, f),
             Step("new query", "the first LayerNorm @ W_q + b_q, one row of d features a head", q, hd,
                  ("first LayerNorm",)),
             Step("new key", "the first LayerNorm @ W_k + b_k, d features a head", k, hd,
                  ("first LayerNorm",)),
             Step("new value", "the first LayerNorm @ W_v + b_v, d features a head", v, hd,
                  ("first LayerNorm",)),
             Step("appended keys", "the cached keys, then the new key, along the positions", K,
                  ("heads", "positions", "features"), ("new key",)),
             Step("appended values", "the cached values, then the new value, along the positions", V,
                  ("heads", "positions", "features"), ("new value",)),
             Step("attention weights", "the softmax over the positions of q K^T / sqrt(d)", A,
                  ("heads", "", "positions"), ("new query", "appended keys")),
             Step("heads side by side", "each head's weights @ its values, the heads' d features in turn", heads,
                  f, ("attention weights", "appended values")),
             Step("first residual sum", "the new token's input + the heads @ W_o + b_o", x1, f,
                  ("new token's input", "heads side by side")),
             Step("second LayerNorm", "LayerNorm 2 of the first residual sum", h2, f),
             Step("MLP output", "the MLP of the second LayerNorm", m, f),
             Step("second residual sum", "the first residual sum + the MLP output", x2, f,
                  ("first residual sum", "MLP output")),
             Step("final LayerNorm", "the final LayerNorm of the second residual sum", hf, f),
             Step("new logits", "the final LayerNorm @ W_out + b_out", logits, ("logits",))]
    return steps, logits, K, V


# ---------------------------------------------------------------- probes

# Each sequence starts from the cache the grader sends (empty on the notebook's example; on fresh inputs the
# keys and values of its first `start` tokens, made by the course's decode_step): a step that recomputes the
# prefix from tokens it remembers, instead of reading the cache it is given, never saw those tokens.
KV_PROGRAM = """\
params = {n: np.array(a, dtype=float) for n, a in zip(names, params)}
H = int(num_heads)
caches = [(np.array(K0[b], dtype=float), np.array(V0[b], dtype=float)) for b in range(len(tokens))]
rows = [[] for _ in range(len(tokens))]
for t in range(int(start), tokens.shape[1]):
    for b in range(len(tokens)):
        logits, K, V = decode_step(params, int(tokens[b][t]), caches[b][0], caches[b][1], H)
        caches[b] = (K, V)
        rows[b].append(np.asarray(logits, dtype=float).reshape(-1))
logits_all = np.array(rows, dtype=float)
"""


def _with_prefix(i, rng):
    """The inputs with `start` and each sequence's cache of its first `start` positions (K0, V0): none on the
    notebook's example (the step builds the whole cache, as logits_with_cache does there), 2 to T - 2 on a fresh
    one: the keys and values of its first tokens, each moved by noise (scale 0.1), so that no tokens make them. A
    step must attend to the cache it is given: one that finds the tokens behind a cache and runs the whole
    model again, or recomputes a prefix it remembers, gives other logits."""
    T = np.shape(i["tokens"])[1]
    start = 0 if rng is None else int(rng.integers(2, T - 1))
    p, H = mistakes.params_of(i), int(i["num_heads"])
    caches = [ref.prefix_cache(p, row[:start], H) for row in i["tokens"]]
    if rng is not None:
        caches = [(K + 0.1 * rng.normal(size=K.shape), V + 0.1 * rng.normal(size=V.shape)) for K, V in caches]
    return dict(i, start=start, K0=[K for K, _ in caches], V0=[V for _, V in caches])


def _sizes_apart(i):
    """Whether the call the trace keeps (decode_steps: sequence 0's second new token, start + 1 tokens cached)
    has a cache length unlike the number of heads and each head's size: a position read from another axis of
    the cache then shows in the new token's own input, not only in the keys later calls append."""
    H, D = int(i["num_heads"]), np.shape(i["params"][i["names"].index("W_q")])[0]
    return int(i["start"]) + 1 not in (H, D // H)


def _kv_about(i):
    return (f"D={np.shape(i['params'][i['names'].index('W_q')])[0]}, {i['num_heads']} heads, two sequences of "
            f"{np.shape(i['tokens'])[1]} tokens, the first {i['start']} positions of each given as a cache of keys "
            "and values no tokens make")


PROBES = {
    "test_greedy": Probe(
        what="greedy",
        call=f"{NP}.array(greedy({MODEL}, {PROMPT}, int(n_new)), dtype=float)",
        cases=_cases(lambda: [(cases.greedy_example(), "")], "test_greedy", cases.fresh_greedy,
                     lambda i: f"{_model_about(i)}, a prompt of {len(i['prompt'])}, {i['n_new']} new, a tie for "
                               "the largest logit on the way", _tie_on_path),
        reference=lambda i: np.array(ref.greedy(mistakes.model_of(i), i["prompt"], int(i["n_new"])), dtype=float),
        operations=(),
        mistakes=mistakes.GREEDY,
        readings=(readings.greedy_path,),  # the first token that is not the rules' pick, with its logits
        exact_shape=True,
    ),
    "test_sample": Probe(
        what="sample",
        call=f"{NP}.array(sample({MODEL}, {PROMPT}, int(n_new), temperature, "
             f"{NP}.random.default_rng(int(seed))), dtype=float)",
        cases=_cases(lambda: [(e, f"temperature {e['temperature']}") for e in cases.sample_examples()],
                     "test_sample", (lambda rng: cases.fresh_sample(rng, cases.LARGE_LOGITS), cases.fresh_sample,
                                     cases.fresh_sample),
                     lambda i: f"{_model_about(i)}, temperature {i['temperature']}, {i['n_new']} new"
                               + (f", logits near {cases.LARGE_LOGITS:.0f}" if np.min(i["table"]) > 100 else ""),
                     _draws_matter),
        reference=lambda i: np.array(ref.sample(mistakes.model_of(i), i["prompt"], int(i["n_new"]), i["temperature"],
                                                np.random.default_rng(int(i["seed"]))), dtype=float),
        operations=(),
        mistakes=mistakes.SAMPLE,
        readings=(readings.sample_path,),  # the first token that is not the rules' draw from the generator
        exact_shape=True,
    ),
    "test_top_k": Probe(
        what="top_k_probs",
        call="top_k_probs(logits, int(k))",
        cases=_cases(lambda: [(cases.top_k_example(), "")], "test_top_k", cases.fresh_top_k,
                     lambda i: f"{len(i['logits'])} logits, k={i['k']}, a tie at the k-th place"),
        reference=lambda i: ref.top_k_probs(i["logits"], int(i["k"])),
        steps=top_k_steps,
        operations=(),
        mistakes=mistakes.TOP_K,
        readings=(readings.top_k_kept,),  # which tokens are kept or left out, ties said as the rule
    ),
    "test_top_p": Probe(
        what="top_p_probs",
        call="top_p_probs(logits, p)",
        cases=_top_p_cases,
        reference=lambda i: ref.top_p_probs(i["logits"], i["p"]),
        steps=top_p_steps,
        operations=(),
        mistakes=mistakes.TOP_P,
        readings=(readings.top_p_kept,),  # a token kept or left out, with the sum before it against p
    ),
    "test_beam_search": Probe(
        what="beam_search",
        call=f"[{NP}.array(beam_search({MODEL}, {PROMPT}, int(n_new), int(beam_width), int(end), "
             f"length_norm=norm), dtype=float) for norm in (False, True)]",
        cases=_cases(lambda: [(cases.beam_example(), "")], "test_beam_search",
                     (lambda rng: cases.fresh_beam(rng, prompt_ends=True), cases.fresh_beam, cases.fresh_beam),
                     lambda i: f"{_model_about(i)}, {i['beam_width']} beams, {i['n_new']} steps"
                               + (", a prompt that ends with the end token" if len(i["prompt"]) > 1 else ""),
                     (_a_beam_finishes, _finished_keep_places, _a_beam_finishes_and_every_mistake_shows_itself)),
        reference=lambda i: [np.array(ref.beam_search(mistakes.model_of(i), i["prompt"], int(i["n_new"]),
                                                      int(i["beam_width"]), int(i["end"]), norm), dtype=float)
                             for norm in (False, True)],
        outputs=("without length normalisation", "with length normalisation"),
        readings=(readings.beam_path,),  # where the sequence leaves the rules' beams: a search has no array to trace
        operations=(),
        mistakes=mistakes.BEAM,
        exact_shape=True,
    ),
    "test_decode_step": Probe(
        what="decode_step",
        program=KV_PROGRAM,
        from_kernel=("decode_step",),
        outputs=("logits_all",),
        cases=_cases(lambda: [(_with_prefix(cases.kv_example(), None), "")], "test_decode_step",
                     lambda rng: _with_prefix(cases.fresh_kv(rng), rng), _kv_about, _sizes_apart),
        # the course's decode_step from the cache sent (on the notebook's example, none: the full forward pass's
        # logits, tests/test_reference.py checks)
        reference=lambda i: [ref.logits_with_cache(ref.decode_step, mistakes.params_of(i), i["tokens"],
                                                   int(i["num_heads"]), int(i["start"]), mistakes.caches_of(i))],
        operations=("dot products", "bias"),
        mistakes=[type(m)(m.name, m.message, (lambda f: lambda i: [f(i)])(m.compute)) for m in mistakes.DECODE_STEP],
        steps=decode_steps,
        trace_call=("decode_step", 3),  # the call decode_steps describes: sequence 0's second new token
        precision=1e-10,
        precision_hint=("the logits agree only roughly with the right ones: from the cache it is given, a step "
                        "should give the same numbers to 1e-10 of the largest logit, computed in float64 from the "
                        "same keys and values"),
    ),
}


# ---------------------------------------------------------------- generated cells

def _differing(probe, i):
    """{what a check says: the mistake's value} for the mistakes of `probe` that are wrong on inputs i."""
    true = probe.reference(i)
    out = {}
    for m in probe.mistakes:
        value = m.compute(i)
        if not _same(value if not isinstance(value, list) else value[0], true if not isinstance(true, list) else true[0]):
            out[m.said] = value if not isinstance(value, list) else value[0]
    return out


def _decoders():
    greedy, samples = cases.greedy_example(), cases.sample_examples()
    out = {"sentences": list(cases.SENTENCES), "smoothing": np.array(cases.SMOOTHING),
           "greedy_true": PROBES["test_greedy"].reference(greedy),
           "greedy_mistakes": _differing(PROBES["test_greedy"], greedy)}
    for name, i in zip(("cold", "hot"), samples):
        out[f"sample_{name}_true"] = PROBES["test_sample"].reference(i)
        out[f"sample_{name}_mistakes"] = _differing(PROBES["test_sample"], i)
    return out


def _filters():
    k, p = cases.top_k_example(), cases.top_p_example()
    return {"top_k_true": PROBES["test_top_k"].reference(k), "top_k_mistakes": _differing(PROBES["test_top_k"], k),
            "top_p_true": PROBES["test_top_p"].reference(p), "top_p_mistakes": _differing(PROBES["test_top_p"], p)}


def _beam():
    i = cases.beam_example()
    probe = PROBES["test_beam_search"]
    true = probe.reference(i)
    # A mistake whose ids on the example are, with and without length normalisation, the right ids of one of the two
    # is not named by the check: there it cannot be told from a search where length_norm changes nothing (the
    # product of probabilities divided by the length ranks the beams as the product does, as the sum does).
    return {"end_word": cases.END_WORD, "beam_true": true,
            "beam_mistakes": {m.said: m.compute(i) for m in probe.mistakes if not _same(m.compute(i), true)
                              and not all(any(_same(ids, t) for t in true) for ids in m.compute(i))}}


def _kv():
    i = _with_prefix(cases.kv_example(), None)
    return {"kv_tokens": np.asarray(i["tokens"]), "kv_logits_true": PROBES["test_decode_step"].reference(i)[0],
            "kv_mistakes": _differing(PROBES["test_decode_step"], i)}


VALUES = {
    "n11_decoders": _decoders,
    "n11_filters": _filters,
    "n11_beam": _beam,
    "n11_kv": _kv,
}
