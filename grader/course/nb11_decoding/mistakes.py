"""Notebook 11's named mistakes: each a wrong answer the grader computes with the reference pieces, and what
to tell the student. Each computes the result as the probe reports it, on the inputs of one case.
"""
import numpy as np

from . import reference as ref
from ..shared import tiny_transformer as tiny
from ...engine.protocol import Mistake


def model_of(i):
    """The case's model: next_logits(ids) = the row of the table for the last id, plus the row of `first` for
    the first id (zero on the notebook's examples, the bigram model; on fresh inputs a model that reads more
    than the last token, as a transformer does)."""
    table, first = (np.asarray(i[n], dtype=np.float64) for n in ("table", "first"))
    return lambda ids: table[ids[-1]] + first[ids[0]]


def _ids(ids):
    return np.array(ids, dtype=float)


# ---------------------------------------------------------------- greedy

def _greedy_not_fed_back(i):
    prompt = [int(t) for t in i["prompt"]]
    token = int(np.argmax(model_of(i)(prompt)))
    return _ids(prompt + [token] * int(i["n_new"]))


GREEDY = [
    Mistake("the prompt left out",
            "return the whole sequence, the prompt and then the new tokens, as generate's caller expects",
            lambda i: _ids(ref.greedy(model_of(i), i["prompt"], int(i["n_new"]))[len(i["prompt"]):])),
    Mistake("new tokens not fed back",
            "each new token is the argmax of the logits given every id so far: append it to ids before "
            "the next call of next_logits(ids)",
            _greedy_not_fed_back),
]


# ---------------------------------------------------------------- sampling with a temperature

def _sampled(i, probs_of, fed_back=True):
    """The case's draws with probs_of(logits) in place of softmax(logits / temperature)."""
    rng = np.random.default_rng(int(i["seed"]))
    ids = [int(t) for t in i["prompt"]]
    model = model_of(i)
    for _ in range(int(i["n_new"])):
        probs = probs_of(np.asarray(model(ids if fed_back else [int(t) for t in i["prompt"]])))
        ids.append(int(rng.choice(len(probs), p=probs)))
    return _ids(ids)


def _after_softmax(i):
    def probs_of(logits):
        scaled = ref.softmax(logits) / i["temperature"]
        return scaled / scaled.sum()
    return _sampled(i, probs_of)


SAMPLE = [
    Mistake("temperature applied after the softmax",
            "dividing the probabilities by the temperature and renormalising undoes it: divide the logits "
            "by the temperature, then take the softmax",
            _after_softmax),
    Mistake("logits multiplied by the temperature",
            "a temperature above 1 should flatten the distribution: divide the logits by it",
            lambda i: _sampled(i, lambda logits: ref.softmax(logits * i["temperature"]))),
    Mistake("new tokens not fed back",
            "each step's logits come from next_logits(ids) with every id so far: append the drawn token to ids",
            lambda i: _sampled(i, lambda logits: ref.softmax(logits / i["temperature"]), fed_back=False)),
]


# ---------------------------------------------------------------- top-k

def _kept(probs, keep):
    kept = np.zeros_like(probs)
    kept[keep] = probs[keep]
    return kept


def _top_k_ties_all(i):
    probs = ref.softmax(i["logits"])
    kth = np.sort(probs)[::-1][int(i["k"]) - 1]
    kept = np.where(probs >= kth, probs, 0.0)
    return kept / kept.sum()


def _top_k_larger_id(i):
    probs = ref.softmax(i["logits"])
    kept = _kept(probs, np.argsort(probs, kind="stable")[-int(i["k"]):])
    return kept / kept.sum()


def _top_k_not_renormalised(i):
    probs = ref.softmax(i["logits"])
    return _kept(probs, np.argsort(-probs, kind="stable")[:int(i["k"])])


TOP_K = [
    Mistake("more than k kept on ties",
            "probs >= the k-th largest keeps every token equal to it: keep exactly k, equal ones in id order, "
            "as np.argsort(-probs, kind=\"stable\")[:k] gives them",
            _top_k_ties_all),
    Mistake("ties broken toward the larger id",
            "the last k of an ascending sort keep the larger ids among equal probabilities (and without "
            "kind=\"stable\", whichever the sort puts last): keep the smaller, np.argsort(-probs, kind=\"stable\")[:k]",
            _top_k_larger_id),
    Mistake("renormalised over all tokens",
            "the kept probabilities must sum to 1: divide them by their own sum, not by the sum over every token",
            _top_k_not_renormalised),
]


# ---------------------------------------------------------------- nucleus (top-p)

def _top_p_variant(i, size_of, order_of=lambda probs: np.argsort(-probs, kind="stable"), renormalise=True):
    probs = ref.softmax(i["logits"])
    order = order_of(probs)
    kept = _kept(probs, order[:size_of(probs[order], i["p"])])
    return kept / kept.sum() if renormalise else kept


def _crossing_dropped(ordered, p):
    return int(np.sum(np.cumsum(ordered) < p))  # only the tokens before the sum reaches p


def _size(ordered, p):
    return int(np.searchsorted(np.cumsum(ordered), p)) + 1


TOP_P = [
    Mistake("the token that crosses p dropped",
            "keep the smallest set whose probabilities sum to p or more: the token that takes the sum past p "
            "belongs to it (keep cumulative - probs < p, not cumulative < p)",
            lambda i: _top_p_variant(i, _crossing_dropped)),
    Mistake("cumulative sum in id order",
            "sort the probabilities from the largest down before the cumulative sum: the nucleus is the most "
            "likely tokens, not the first ids",
            lambda i: _top_p_variant(i, _size, order_of=lambda probs: np.arange(len(probs)))),
    Mistake("renormalised over all tokens",
            "the kept probabilities must sum to 1: divide them by their own sum, not by the sum over every token",
            lambda i: _top_p_variant(i, _size, renormalise=False)),
]


# ---------------------------------------------------------------- the KV cache

def params_of(i):
    return {n: np.asarray(a, dtype=np.float64) for n, a in zip(i["names"], i["params"])}


def step_variant(append="once", position=0, mask=False):
    """decode_step with one thing changed: the cache appended twice (the new key read twice) or never, the
    position shifted, or the causal mask's first row applied to the step's scores."""
    def step(p, token, K_cache, V_cache, num_heads):
        t = K_cache.shape[1]
        x = p["tok_emb"][token] + p["pos_emb"][t + position]
        D = x.shape[0]
        d = D // num_heads
        h, _ = tiny.layer_norm_forward(x, p["gamma1"], p["beta1"])
        q, k, v = ((h @ p["W_" + n] + p["b_" + n]).reshape(num_heads, 1, d) for n in "qkv")
        K, V = np.concatenate([K_cache, k], axis=1), np.concatenate([V_cache, v], axis=1)
        keys, values = K, V
        if append == "twice":
            keys, values = np.concatenate([K, k], axis=1), np.concatenate([V, v], axis=1)
        scores = q @ keys.transpose(0, 2, 1) / np.sqrt(d)  # (H, 1, t+1)
        if mask:
            scores = np.where(tiny.causal_mask(keys.shape[1])[:1], scores, -1e6)
        A = ref.softmax(scores)
        x1 = x + (A @ values).reshape(D) @ p["W_o"] + p["b_o"]
        h2, _ = tiny.layer_norm_forward(x1, p["gamma2"], p["beta2"])
        m, _ = tiny.mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
        hf, _ = tiny.layer_norm_forward(x1 + m, p["gamma_f"], p["beta_f"])
        if append == "never":
            K, V = K_cache, V_cache
        return hf @ p["W_out"] + p["b_out"], K, V
    return step


def caches_of(i):
    """Each sequence's cache as the probe sends it: (K0[b], V0[b])."""
    return list(zip(i["K0"], i["V0"]))


def _with(step):
    return lambda i: ref.logits_with_cache(step, params_of(i), i["tokens"], int(i["num_heads"]), int(i["start"]),
                                           caches_of(i))


DECODE_STEP = [
    Mistake("the new token attends to itself twice",
            "its key and value were appended to the cache and then added again: append them once, then "
            "attend to the cache as it now is",
            _with(step_variant(append="twice"))),
    Mistake("the cache never grows",
            "return the cache with the new key and value appended: the next step must see them, or every token "
            "attends to itself alone",
            _with(step_variant(append="never"))),
    Mistake("the position off by one",
            "the new token's position is the number of tokens already cached, K_cache.shape[1], read before "
            "appending: the first token is at position 0",
            _with(step_variant(position=1))),
    Mistake("the causal mask applied in the step",
            "the new token is the last one, so it may attend to every cached key: the first row of a causal "
            "mask hides all but the first. Leave the step's scores unmasked",
            _with(step_variant(mask=True))),
]


# ---------------------------------------------------------------- beam search

def beam_variant(next_logits, prompt, n_new, beam_width, end, length_norm, product=False, ranked=True,
                 finish=True):
    """reference.beam_search with one thing changed: probabilities multiplied in place of log-probabilities
    added (a product, and with length_norm the product divided by the length), the candidates kept in the
    order made instead of the best first, or the end token not finishing a beam."""
    prompt = [int(t) for t in prompt]
    beams = [(prompt, 1.0 if product else 0.0)]
    for _ in range(n_new):
        candidates = []
        for ids, score in beams:
            if finish and len(ids) > len(prompt) and ids[-1] == end:
                candidates.append((ids, score))
                continue
            log_probs = ref.log_softmax(next_logits(ids))
            for token in range(len(log_probs)):
                step = np.exp(log_probs[token]) if product else log_probs[token]
                candidates.append((ids + [token], score * step if product else score + step))
        order = np.argsort([-score for _, score in candidates], kind="stable") if ranked else range(len(candidates))
        beams = [candidates[k] for k in list(order)[:beam_width]]
    final = [score / (len(ids) - len(prompt)) if length_norm else score for ids, score in beams]
    return beams[int(np.argmax(final))][0]


def beam_pair(i, **changed):
    """[the ids without length normalisation, the ids with it], as the probe reports them."""
    args = (model_of(i), i["prompt"], int(i["n_new"]), int(i["beam_width"]), int(i["end"]))
    return [_ids(beam_variant(*args, False, **changed)), _ids(beam_variant(*args, True, **changed))]


BEAM = [
    Mistake("probabilities multiplied",
            "a product of many probabilities underflows (110 tokens of probability 0.001 make 1e-330, which "
            "float64 rounds to 0), and a product divided by the length is no per-token average: add the "
            "log-probabilities",
            lambda i: beam_pair(i, product=True)),
    Mistake("the beams not sorted by score",
            "keep the beam_width candidates with the largest sums, not the first ones made: sort every step's "
            "candidates by their sum, largest first (a stable sort, for ties)",
            lambda i: beam_pair(i, ranked=False)),
    Mistake("finished beams extended",
            "a beam whose last token is the end token is finished: carry it over as it is, with its sum, and "
            "extend only the others",
            lambda i: beam_pair(i, finish=False)),
]
