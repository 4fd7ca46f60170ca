"""Notebook 11's reference implementations: decoding from a model, and the model's step with a KV cache.

A model, to a decoder, is a function next_logits(ids) -> (V,): the logits of the token that follows the list
of ids. Sampling draws one token per step with rng.choice(V, p=probs), nothing else from rng.
"""
import numpy as np

from ..shared import tiny_transformer as tiny


def softmax(x):
    """Softmax over the last axis, the maximum subtracted first."""
    return tiny.softmax(np.asarray(x, dtype=np.float64))


def greedy(next_logits, prompt, n_new):
    """The prompt and n_new tokens, each the most likely after the ids before it (np.argmax: ties to the
    smaller id)."""
    ids = [int(t) for t in prompt]
    for _ in range(n_new):
        ids.append(int(np.argmax(next_logits(ids))))
    return ids


def sample(next_logits, prompt, n_new, temperature, rng):
    """The prompt and n_new tokens, each drawn with one rng.choice(V, p=softmax(logits / temperature))."""
    ids = [int(t) for t in prompt]
    for _ in range(n_new):
        probs = softmax(np.asarray(next_logits(ids), dtype=np.float64) / temperature)
        ids.append(int(rng.choice(len(probs), p=probs)))
    return ids


def top_k_probs(logits, k):
    """The softmax of logits, kept for the k most likely tokens (ties: the smaller id), divided by their sum."""
    probs = softmax(logits)  # (V,)
    keep = np.argsort(-probs, kind="stable")[:k]  # the k largest; equal ones in id order
    kept = np.zeros_like(probs)
    kept[keep] = probs[keep]
    return kept / kept.sum()


def nucleus_size(probs, p):
    """How many tokens the nucleus keeps: the smallest n whose n largest probabilities sum to p or more."""
    cumulative = np.cumsum(np.sort(probs)[::-1])
    return int(np.searchsorted(cumulative, p)) + 1  # the first position where the sum reaches p, included


def top_p_probs(logits, p):
    """The softmax of logits, kept for the smallest set of most likely tokens whose probabilities sum to p or
    more (the token that crosses p included), divided by their sum (Holtzman et al., 2020)."""
    probs = softmax(logits)  # (V,)
    order = np.argsort(-probs, kind="stable")
    keep = order[:nucleus_size(probs, p)]
    kept = np.zeros_like(probs)
    kept[keep] = probs[keep]
    return kept / kept.sum()


# ---------------------------------------------------------------- the KV cache

def decode_step(p, token, K_cache, V_cache, num_heads):
    """(logits (V,), K_cache, V_cache) for one new token of one sequence: its position is the number of
    tokens cached, K_cache[h] and V_cache[h] (t, d) the keys and values of head h at positions 0 .. t-1;
    the new token's key and value are appended, and it attends to all of them (nothing to mask)."""
    t = K_cache.shape[1]                                          # the new token's position
    x = p["tok_emb"][token] + p["pos_emb"][t]                     # (D,)
    D = x.shape[0]
    d = D // num_heads
    h, _ = tiny.layer_norm_forward(x, p["gamma1"], p["beta1"])    # (D,)
    q = (h @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)        # (H, 1, d)
    k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)        # (H, 1, d)
    v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)        # (H, 1, d)
    K = np.concatenate([K_cache, k], axis=1)                      # (H, t+1, d)
    V = np.concatenate([V_cache, v], axis=1)                      # (H, t+1, d)
    A = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))            # (H, 1, t+1)
    heads = (A @ V).reshape(D)                                    # (D,): the heads side by side
    x1 = x + heads @ p["W_o"] + p["b_o"]                          # (D,)
    h2, _ = tiny.layer_norm_forward(x1, p["gamma2"], p["beta2"])
    m, _ = tiny.mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
    hf, _ = tiny.layer_norm_forward(x1 + m, p["gamma_f"], p["beta_f"])
    return hf @ p["W_out"] + p["b_out"], K, V


def logits_with_cache(step, p, tokens, num_heads, start=0, caches=None):
    """(B, T - start, V): the logits step gives at positions start .. T-1 of each sequence of tokens (B, T), the
    sequences fed in turn, one token at a time, each with its own cache: empty, or, from position `start`, the
    `caches` given ([(K, V)] a sequence), by default the keys and values of its first `start` tokens as the
    course's decode_step makes them (a cache the step did not make itself, so a step that looks its prefix up,
    rather than reading the cache, cannot pass)."""
    B, T = np.shape(tokens)
    if caches is None:
        caches = [prefix_cache(p, tokens[b][:start], num_heads) for b in range(B)]
    caches = [(np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)) for K, V in caches]
    out = np.zeros((B, T - start, p["W_out"].shape[1]))
    for t in range(start, T):
        for b in range(B):  # the sequences in turn: each step is given its own sequence's cache only
            logits, K, V = step(p, int(tokens[b][t]), caches[b][0], caches[b][1], num_heads)
            caches[b] = (K, V)
            out[b, t - start] = np.asarray(logits, dtype=np.float64).reshape(-1)
    return out


def prefix_cache(p, tokens, num_heads):
    """(K, V), each (H, len(tokens), d): the cache of one sequence's tokens, made by the course's decode_step."""
    d = p["W_q"].shape[1] // num_heads
    K, V = np.zeros((num_heads, 0, d)), np.zeros((num_heads, 0, d))
    for token in tokens:
        _, K, V = decode_step(p, int(token), K, V, num_heads)
    return K, V


def logits_full(p, tokens, num_heads):
    """(B, T, V): the full forward pass of notebook 09's model."""
    return tiny.model_forward(p, np.asarray(tokens, dtype=int), num_heads)[0]


def kv_cache_numbers(layers, T, B, H, d):
    """The numbers a KV cache holds: keys and values (2), for every layer, sequence, position and head."""
    return 2 * layers * B * T * H * d


# ---------------------------------------------------------------- beam search

def log_softmax(x):
    """log(softmax(x)) over the last axis, computed without the softmax: x - max - log(sum(exp(x - max)))."""
    x = np.asarray(x, dtype=np.float64)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def beam_search(next_logits, prompt, n_new, beam_width, end, length_norm=False, history=None):
    """The best sequence a beam search of beam_width beams finds in n_new steps, scored by the sum of the
    new tokens' log-probabilities (divided by their number when length_norm). A beam that has produced `end`
    is finished: it is carried over as it is. Each step ranks every candidate (the finished beams, then each
    unfinished beam extended by every token, beams in order and tokens in id order) by its sum, largest first,
    equal sums in that order (a stable sort), and keeps the first beam_width. `history`, a list, gets each
    step's ranked candidates [(ids, sum)], for the verdict's words."""
    prompt = [int(t) for t in prompt]
    beams = [(prompt, 0.0)]
    for _ in range(n_new):
        candidates = []
        for ids, score in beams:
            if len(ids) > len(prompt) and ids[-1] == end:
                candidates.append((ids, score))  # finished
                continue
            log_probs = log_softmax(next_logits(ids))  # (V,)
            candidates += [(ids + [token], score + log_probs[token]) for token in range(len(log_probs))]
        order = np.argsort([-score for _, score in candidates], kind="stable")
        if history is not None:
            history.append([candidates[k] for k in order])
        beams = [candidates[k] for k in order[:beam_width]]
    if length_norm:
        final = [score / (len(ids) - len(prompt)) for ids, score in beams]
    else:
        final = [score for _, score in beams]
    return beams[int(np.argmax(final))][0]
