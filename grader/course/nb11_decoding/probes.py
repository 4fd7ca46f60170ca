"""Notebook 11, generating text: its probes and the values its checks show.

The decoders are called with the case's model, next_logits = lambda ids: table[ids[-1]] + first[ids[0]]: the
notebook's bigram table on its examples (first is zero there), and on fresh inputs a model that reads the first
token too, as a transformer reads every token; they report their ids as an array. The sampler gets a generator made from the
case's seed. The KV cache's step is run as the notebook's logits_with_cache runs it: two sequences in turn, one
token at a time, each step given only the new token and its sequence's cache; on fresh inputs each sequence's
first tokens are already cached, by the grader, so the step must read the cache it is given.
"""
import numpy as np

from . import cases, mistakes, reference as ref
from ..shared import cases as shared_cases
from ..shared.steps import _v
from ...engine.protocol import Case, Probe, Step

N_FRESH = 3
NP = "__import__('numpy')"
MODEL = "(lambda ids: table[ids[-1]] + first[ids[0]])"


_same, _results, _every_mistake_shows = (shared_cases.same_result, shared_cases.results_of,
                                         shared_cases.every_mistake_shows)


def _told_apart(probe, inputs):
    wrong = _results(probe, inputs)[1:]
    return all(not _same(a, b) for k, a in enumerate(wrong) for b in wrong[k + 1:])


def _fresh(rng, probe, draw, about, sees=lambda inputs: True):
    """N_FRESH fresh cases, each wrong for every mistake, telling every two mistakes apart, and one where
    `sees` holds (a rule of the part that the case can see). `draw` is one function, or one for each case."""
    out = []
    draws = draw if isinstance(draw, tuple) else (draw,) * N_FRESH
    while len(out) < N_FRESH:
        inputs = draws[len(out)](rng)
        if _every_mistake_shows(probe, inputs) and _told_apart(probe, inputs) and sees(inputs):
            out.append(Case("fresh", inputs, about=about(inputs)))
    return out


def _model_about(i):
    return f"{len(i['table'])} tokens, a model that reads the first token and the last"


def _tie_on_path(i):
    """Whether greedy meets a tie for the largest logit on its way: the smaller id's rule then shows."""
    model, ids = mistakes.bigram(i), [int(t) for t in i["prompt"]]
    for _ in range(int(i["n_new"])):
        logits = model(ids)
        if np.sum(logits == logits.max()) > 1:
            return True
        ids.append(int(np.argmax(logits)))
    return False


def _a_beam_finishes(i):
    """Whether a beam that ends with the end token wins, with or without length normalisation: finished beams
    then keep their places among the beams, as the rules say."""
    return any(int(i["end"]) in ids[len(i["prompt"]):] for ids in PROBES["test_beam_search"].reference(i))


def _cases(book, name, draw, about, sees=lambda inputs: True):
    def make(rng):
        return [Case("book", b, about=a) for b, a in book()] + _fresh(rng, PROBES[name], draw, about, sees)
    return make


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
    """The inputs with `start` and each sequence's cache of its first `start` tokens (K0, V0): none on the
    notebook's example (the step builds the whole cache, as logits_with_cache does there), 2 to T - 2 on a fresh one."""
    T = np.shape(i["tokens"])[1]
    start = 0 if rng is None else int(rng.integers(2, T - 1))
    p, H = mistakes.params_of(i), int(i["num_heads"])
    caches = [ref.prefix_cache(p, row[:start], H) for row in i["tokens"]]
    return dict(i, start=start, K0=[K for K, _ in caches], V0=[V for _, V in caches])


def _kv_about(i):
    return (f"D={np.shape(i['params'][i['names'].index('W_q')])[0]}, {i['num_heads']} heads, two sequences of "
            f"{np.shape(i['tokens'])[1]} tokens, the first {i['start']} of each cached by the grader")


PROBES = {
    "test_greedy": Probe(
        what="greedy",
        call=f"{NP}.array(greedy({MODEL}, [int(t) for t in prompt], int(n_new)), dtype=float)",
        cases=_cases(lambda: [(cases.greedy_example(), "")], "test_greedy", cases.fresh_greedy,
                     lambda i: f"{_model_about(i)}, a prompt of {len(i['prompt'])}, {i['n_new']} new, a tie for "
                               "the largest logit on the way", _tie_on_path),
        reference=lambda i: np.array(ref.greedy(mistakes.bigram(i), i["prompt"], int(i["n_new"])), dtype=float),
        operations=(),
        mistakes=mistakes.GREEDY,
        exact_shape=True,
    ),
    "test_sample": Probe(
        what="sample",
        call=f"{NP}.array(sample({MODEL}, [int(t) for t in prompt], int(n_new), temperature, "
             f"{NP}.random.default_rng(int(seed))), dtype=float)",
        cases=_cases(lambda: [(e, f"temperature {e['temperature']}") for e in cases.sample_examples()],
                     "test_sample", (lambda rng: cases.fresh_sample(rng, cases.LARGE_LOGITS), cases.fresh_sample,
                                     cases.fresh_sample),
                     lambda i: f"{_model_about(i)}, temperature {i['temperature']}, {i['n_new']} new"
                               + (f", logits near {cases.LARGE_LOGITS:.0f}" if np.min(i["table"]) > 100 else "")),
        reference=lambda i: np.array(ref.sample(mistakes.bigram(i), i["prompt"], int(i["n_new"]), i["temperature"],
                                                np.random.default_rng(int(i["seed"]))), dtype=float),
        operations=(),
        mistakes=mistakes.SAMPLE,
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
    ),
    "test_top_p": Probe(
        what="top_p_probs",
        call="top_p_probs(logits, p)",
        cases=_cases(lambda: [(cases.top_p_example(), "")], "test_top_p", cases.fresh_top_p,
                     lambda i: f"{len(i['logits'])} logits, p={i['p']}"),
        reference=lambda i: ref.top_p_probs(i["logits"], i["p"]),
        steps=top_p_steps,
        operations=(),
        mistakes=mistakes.TOP_P,
    ),
    "test_beam_search": Probe(
        what="beam_search",
        call=f"[{NP}.array(beam_search({MODEL}, [int(t) for t in prompt], int(n_new), int(beam_width), int(end), "
             f"length_norm=norm), dtype=float) for norm in (False, True)]",
        cases=_cases(lambda: [(cases.beam_example(), "")], "test_beam_search",
                     (lambda rng: cases.fresh_beam(rng, prompt_ends=True), cases.fresh_beam, cases.fresh_beam),
                     lambda i: f"{_model_about(i)}, {i['beam_width']} beams, {i['n_new']} steps"
                               + (", a prompt that ends with the end token" if len(i["prompt"]) > 1 else ""),
                     _a_beam_finishes),
        reference=lambda i: [np.array(ref.beam_search(mistakes.bigram(i), i["prompt"], int(i["n_new"]),
                                                      int(i["beam_width"]), int(i["end"]), norm), dtype=float)
                             for norm in (False, True)],
        outputs=("without length normalisation", "with length normalisation"),
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
                     lambda rng: _with_prefix(cases.fresh_kv(rng), rng), _kv_about),
        reference=lambda i: [ref.logits_full(mistakes.params_of(i), i["tokens"], int(i["num_heads"]))[:, int(i["start"]):]],
        operations=("dot products", "bias"),
        mistakes=[type(m)(m.name, m.message, (lambda f: lambda i: [f(i)])(m.compute)) for m in mistakes.DECODE_STEP],
        precision=1e-10,
        precision_hint=("the logits agree with the full forward pass only roughly: with the cache they should be "
                        "the same numbers, to 1e-10 of the largest logit, computed in float64 from the same keys and "
                        "values"),
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
    return {"end_word": cases.END_WORD, "beam_true": true,
            "beam_mistakes": {m.said: m.compute(i) for m in probe.mistakes if not _same(m.compute(i), true)}}


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
