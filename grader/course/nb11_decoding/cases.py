"""Notebook 11's inputs: the notebook's examples (a bigram model counted from a few sentences, and a small
random model of notebook 09's kind) and the fresh tables, logits and models drawn at grading time.
"""
import numpy as np

from ..shared import tiny_transformer as tiny

# The bigram model's sentences (written for this notebook); "." ends a sentence and starts the next.
SENTENCES = [
    "the cat sat on the mat .",
    "the cat saw the dog .",
    "the dog sat on the rug .",
    "a dog ran to the cat .",
    "the cat ran to a mat .",
    "a cat sat on a dog .",
]
SMOOTHING = 0.1   # added to every count, so that no next word has probability 0


def words():
    """The vocabulary: the sentences' words, sorted."""
    return sorted({w for s in SENTENCES for w in s.split()})


def bigram_table():
    """(V, V): logits[a, b] = log((count of "a b" + SMOOTHING) / (count of "a" followed by a word + V SMOOTHING)),
    the sentences read as one text, each "." followed by the next sentence's first word."""
    vocab = {w: n for n, w in enumerate(words())}
    text = " ".join(SENTENCES).split()
    counts = np.zeros((len(vocab), len(vocab)))
    for a, b in zip(text[:-1], text[1:]):
        counts[vocab[a], vocab[b]] += 1
    counts += SMOOTHING
    return np.log(counts / counts.sum(axis=1, keepdims=True))


PROMPT = ["the"]
GREEDY_NEW = 8
SAMPLE_NEW, SAMPLE_SEED = 12, 0
TEMPERATURES = (0.5, 2.0)
TOP_K_WORD, TOP_K = "the", 3   # after "the": "cat" 4 times, "dog" twice, "mat" and "rug" once each: a tie at k = 3
TOP_P_WORD, TOP_P = "the", 0.6


def ids_of(text):
    vocab = {w: n for n, w in enumerate(words())}
    return [vocab[w] for w in text]


def no_context():
    """The `first` table of the notebook's examples: the bigram model reads the last token only."""
    return np.zeros_like(bigram_table())


def greedy_example():
    return {"table": bigram_table(), "first": no_context(), "prompt": np.array(ids_of(PROMPT)), "n_new": GREEDY_NEW}


def sample_examples():
    return [{"table": bigram_table(), "first": no_context(), "prompt": np.array(ids_of(PROMPT)), "n_new": SAMPLE_NEW,
             "temperature": t, "seed": SAMPLE_SEED} for t in TEMPERATURES]


def top_k_example():
    return {"logits": bigram_table()[ids_of([TOP_K_WORD])[0]], "k": TOP_K}


def top_p_example():
    return {"logits": bigram_table()[ids_of([TOP_P_WORD])[0]], "p": TOP_P}


# The KV cache's example: a small model of notebook 09's kind, not trained, with every parameter drawn (biases
# and LayerNorm gains too, so that every term shows), and two sequences of 8 tokens.
KV_SIZES = dict(D=16, D_ff=32, T=10, num_heads=2, seed=11, length=8)


def random_model(rng, D, D_ff, T, vocab):
    """init_model's parameters, then its biases, LayerNorm gains and offsets drawn too."""
    p = tiny.init_model(rng, D=D, D_ff=D_ff, T=T, vocab=vocab)
    for name in ("b_q", "b_k", "b_v", "b_o", "b1", "b2", "beta1", "beta2", "beta_f", "b_out"):
        p[name] = 0.3 * rng.normal(size=p[name].shape)
    for name in ("gamma1", "gamma2", "gamma_f"):
        p[name] = 1 + 0.3 * rng.normal(size=p[name].shape)
    p["pos_emb"] = rng.normal(size=p["pos_emb"].shape)  # positions as strong as tokens: a shifted one shows
    return p


def kv_example():
    s = KV_SIZES
    rng = np.random.default_rng(s["seed"])
    p = random_model(rng, s["D"], s["D_ff"], s["T"], tiny.VOCAB)
    tokens = rng.integers(0, tiny.VOCAB, size=(2, s["length"]))
    return {"names": list(p), "params": list(p.values()), "tokens": tokens, "num_heads": s["num_heads"]}


# ---------------------------------------------------------------- fresh inputs

def fresh_model(rng, V, grid=False):
    """A fresh model's two tables, (V, V) each: next_logits(ids) = table[ids[-1]] + first[ids[0]], a model that
    reads the first token as well as the last, so a decoder that passes only the last id is wrong. On a grid
    (multiples of 0.7), logits tie, and the tie-break rule shows."""
    if grid:
        return 0.7 * rng.integers(-3, 4, size=(V, V)), 0.7 * rng.integers(-2, 3, size=(V, V))
    return 2.0 * rng.normal(size=(V, V)), rng.normal(size=(V, V))


def fresh_greedy(rng):
    V = int(rng.integers(5, 10))
    table, first = fresh_model(rng, V, grid=True)
    prompt = rng.integers(0, V, size=int(rng.integers(1, 4)))
    return {"table": table, "first": first, "prompt": prompt, "n_new": int(rng.integers(5, 10))}


def fresh_sample(rng, offset=0.0):
    """A fresh model, with `offset` added to every logit: the softmax is the same, but past about 710 np.exp
    overflows unless the maximum is subtracted first."""
    V = int(rng.integers(5, 10))
    table, first = fresh_model(rng, V)
    return {"table": table + offset, "first": first, "prompt": rng.integers(0, V, size=int(rng.integers(1, 4))),
            "n_new": int(rng.integers(10, 16)), "temperature": float(rng.choice([0.4, 0.6, 1.6, 2.5])),
            "seed": int(rng.integers(0, 2**31))}


LARGE_LOGITS = 2000.0  # one fresh sampling case's logits are this much larger: 2000 / 2.5 is past exp's 709


def fresh_top_k(rng):
    """Logits with a tie across the k-th place: on multiples of 0.7, some equal."""
    while True:
        V = int(rng.integers(6, 13))
        logits = 0.7 * rng.integers(-3, 4, size=V)
        ordered = np.sort(logits)[::-1]
        ties = [k for k in range(2, V) if ordered[k - 1] == ordered[k]]
        if ties:
            return {"logits": logits, "k": int(rng.choice(ties))}


def fresh_top_p(rng):
    """Logits and a p that no cumulative sum comes within 0.02 of, with a nucleus of 2 tokens or more."""
    while True:
        V = int(rng.integers(6, 13))
        logits = 1.5 * rng.normal(size=V)
        p = float(np.round(rng.uniform(0.5, 0.95), 3))
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        cumulative = np.cumsum(np.sort(probs)[::-1])
        n = int(np.searchsorted(cumulative, p)) + 1
        if np.min(np.abs(cumulative - p)) > 0.02 and 2 <= n < V:
            return {"logits": logits, "p": p}


def fresh_top_p_reached(rng):
    """Logits and a p that a cumulative sum reaches exactly: m = 4 or 8 tokens of one logit, the others 800 or more
    below it (their exponentials are 0 in float64), so the probabilities are 1/m and 0, their sums k/m exact on every
    machine, and p is one of them. The nucleus is the first k of the m (the smaller ids first), 2 <= k <= m - 2: a
    nucleus of one token is 1 there whatever its probability, and would show nothing of the probabilities; one token
    more than k is then still not all m (a nucleus of every token is the probabilities themselves, and would read as
    a cut-off left out)."""
    m = int(rng.choice([4, 8]))
    V = int(rng.integers(max(m + 1, 6), 13))
    top = rng.choice(V, size=m, replace=False)
    c = 1.5 * rng.normal()
    logits = c - 800.0 - rng.uniform(0, 5, size=V)  # (V,)
    logits[top] = c
    return {"logits": logits, "p": int(rng.integers(2, m - 1)) / m}


def fresh_kv(rng):
    D = int(rng.choice([8, 12, 16, 24]))
    H = int(rng.choice([h for h in (2, 3, 4) if D % h == 0]))
    T = int(rng.integers(5, 10))
    vocab = int(rng.integers(7, 14))
    p = random_model(rng, D, 2 * D, T + 2, vocab)
    tokens = rng.integers(0, vocab, size=(2, T))
    return {"names": list(p), "params": list(p.values()), "tokens": tokens, "num_heads": H}


# Beam search on the bigram model: after "a", 4 beams, 5 steps, "." ends a sentence. Greedy, the sum and the
# length-normalised sum give three different answers here.
BEAM_PROMPT, BEAM_NEW, BEAM_WIDTH, END_WORD = ["a"], 5, 4, "."


def beam_example():
    return {"table": bigram_table(), "first": no_context(), "prompt": np.array(ids_of(BEAM_PROMPT)),
            "n_new": BEAM_NEW, "beam_width": BEAM_WIDTH, "end": ids_of([END_WORD])[0]}


def fresh_beam(rng, prompt_ends=False):
    """A fresh model whose token 0 ends a sequence (made likelier, so that beams finish and keep their places),
    a prompt of one other token (or, with `prompt_ends`, a prompt that ends with the end token, which does not
    finish a beam: it has no new token yet), 2 to 4 beams, 4 to 7 steps."""
    V = int(rng.integers(5, 10))
    table, first = fresh_model(rng, V)
    table[:, 0] += 1.0
    prompt = [int(rng.integers(1, V))] + ([0] if prompt_ends else [])
    return {"table": table, "first": first, "prompt": np.array(prompt), "n_new": int(rng.integers(4, 8)),
            "beam_width": int(rng.integers(2, 5)), "end": 0}
