"""Notebook 05's inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time.
"""
import numpy as np


def book_05():
    """Seed 001's cross-attention: 2 sequences, 4 queries against 6 key-value pairs, 100 hiddens, 5 heads.

    Inputs from np.random.rand as in the seed, valid_lens [3, 2], no biases; the weights
    are drawn N(0, 1/100) (the seed's np.random.rand weights saturate, section 7). Seed 5.
    """
    num_hiddens, num_heads, batch_size, num_queries, num_kvpairs = 100, 5, 2, 4, 6
    np.random.seed(5)
    X = np.random.rand(batch_size, num_queries, num_hiddens)
    Y = np.random.rand(batch_size, num_kvpairs, num_hiddens)
    out = dict(queries=X, keys=Y, values=Y, valid_lens=np.array([3, 2]),
               num_hiddens=num_hiddens, num_heads=num_heads)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        out[name] = np.random.normal(0, 1 / np.sqrt(num_hiddens), size=(num_hiddens, num_hiddens))
    for name in ("b_q", "b_k", "b_v", "b_o"):
        out[name] = np.zeros(num_hiddens)
    return out


MASKS_05 = ("lengths", "empty", "causal", "causal padded")


def fresh_05(rng, mask="lengths", self_attention=True, bias=True):
    """MultiHeadAttention inputs of another size (2-4 heads of size 5 or 10, B=2 or 3, 4-7 tokens).

    num_hiddens is a multiple of 5, so code that uses the notebook's 5 heads whatever num_heads is
    computes (and is recognised) instead of failing to reshape; the head count is never 5, and never
    the head size.

    mask "lengths": valid_lens (B,), all different, in 1..Tk-1; "empty": one sequence of
    length 0 (no valid key), the others all different in 2..Tk-1; "causal": (B, T), query t sees keys 0..t;
    "causal padded": (B, T), min(t + 1, L_b) with L_b all different.
    """
    H, d, B = int(rng.choice((2, 3, 4))), int(rng.choice((5, 10))), int(rng.choice((2, 3)))
    D = H * d
    self_attention = self_attention or mask.startswith("causal")
    Tq = int(rng.integers(4, 8))
    Tk = Tq if self_attention else int(rng.choice([t for t in range(4, 8) if t != Tq]))
    lens = rng.choice(np.arange(1, Tk), size=B, replace=False)  # (B,) all different
    if mask == "empty":
        # the others at least 2: with lengths of 0 and 1 only, every weight is fixed whatever the scores
        lens = np.insert(rng.choice(np.arange(2, Tk), size=B - 1, replace=False), rng.integers(B), 0)
    elif mask == "causal":
        lens = _causal_lens(B, Tq)
    elif mask == "causal padded":
        lens = np.minimum(_causal_lens(B, Tq), lens[:, None])  # (B, T)
    queries = rng.normal(size=(B, Tq, D))
    keys = queries if self_attention else rng.normal(size=(B, Tk, D))
    out = dict(queries=queries, keys=keys, values=keys if self_attention else rng.normal(size=(B, Tk, D)),
               valid_lens=np.asarray(lens), num_hiddens=D, num_heads=H)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        out[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    for name in ("b_q", "b_k", "b_v", "b_o"):
        out[name] = rng.normal(0, 0.5, size=D) if bias else np.zeros(D)
    return out


def small_05():
    """The checks' second example, of other sizes than seed 001's: 2 sequences, 3 queries against 4 keys,
    10 hiddens in 2 heads (5 would divide 10 too, so a head count fixed at the notebook's 5 shows), valid
    lengths [2, 3], biases; drawn once from seed 50."""
    rng = np.random.default_rng(50)
    B, Tq, Tk, D = 2, 3, 4, 10
    out = dict(queries=rng.normal(size=(B, Tq, D)), keys=rng.normal(size=(B, Tk, D)),
               values=rng.normal(size=(B, Tk, D)), valid_lens=np.array([2, 3]), num_hiddens=D, num_heads=2)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        out[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    for name in ("b_q", "b_k", "b_v", "b_o"):
        out[name] = rng.normal(0, 0.5, size=D)
    return out


def _causal_lens(batch_size, num_steps):
    from ..shared.reference import causal_valid_lens
    return causal_valid_lens(batch_size, num_steps)


def book_05_softmax():
    """d2l's masked_softmax example: scores (2, 2, 4) from np.random.rand (seed 1), lengths [2, 3] and [[1, 3], [2, 4]]."""
    np.random.seed(1)
    scores = np.random.rand(2, 2, 4)
    return [dict(scores=scores, valid_lens=np.array([2, 3])),
            dict(scores=scores, valid_lens=np.array([[1, 3], [2, 4]]))]


def fresh_05_softmax(rng, per_query=False):
    """Scores (B, Tq, Tk) of another size with lengths (B,) or (B, Tq): one of them 0, the others in 1..Tk-1."""
    B, Tq, Tk = int(rng.integers(2, 5)), int(rng.integers(2, 6)), int(rng.integers(5, 9))
    lens = rng.integers(1, Tk, size=(B, Tq) if per_query else B)
    lens.flat[rng.integers(lens.size)] = 0  # a query (or a sequence) with no valid key
    return dict(scores=rng.normal(scale=2.0, size=(B, Tq, Tk)), valid_lens=lens)


def book_05_loop():
    """The tutorial-style loop over heads: q (B=3, C=11, E=8), keys and values (C, E) shared by the batch, H=4 heads,
    proj (E, E); all from np.random.rand as in the seed (seed 2)."""
    np.random.seed(2)
    B, C, E = 3, 11, 8
    q = np.random.rand(B, C, E)
    k = np.random.rand(C, E)
    v = np.random.rand(C, E)
    H = 4
    proj = np.random.rand(E, E)
    return dict(q=q, k=k, v=v, H=H, E=E, proj=proj)


def fresh_05_loop(rng):
    """The loop's inputs of another size: 2-3 heads of size 2, 3 or 5, B=2 or 4, 3-7 queries and 3-7 keys."""
    H, d, B = int(rng.choice((2, 3))), int(rng.choice((2, 3, 5))), int(rng.choice((2, 4)))
    E, C, C_k = H * d, int(rng.integers(3, 8)), int(rng.integers(3, 8))
    return dict(q=rng.normal(size=(B, C, E)), k=rng.normal(size=(C_k, E)), v=rng.normal(size=(C_k, E)),
                H=H, E=E, proj=rng.normal(0, 1 / np.sqrt(E), size=(E, E)))


def book_05_masks():
    """The boolean masks of d2l's masked_softmax example: lengths [2, 3] of 4 keys, 2 queries."""
    return dict(valid_lens=np.array([2, 3]), num_queries=2, num_keys=4)


def _lengths_with_ends(rng, B, Tk):
    """B valid lengths in 0..Tk, among them 0 (a sequence with no valid key) and Tk (one with no padding)."""
    lens = rng.integers(1, Tk, size=B)  # (B,)
    ends = rng.choice(B, size=2, replace=False)
    lens[ends] = (0, Tk)
    return lens


def fresh_05_masks(rng, shape="wide"):
    """Inputs of key_padding_mask and causal_mask of another size: 3-4 sequences, 2-7 queries and keys,
    fewer queries than keys ("wide"), more ("tall") or as many ("square"); lengths with 0 and Tk among them."""
    B = int(rng.integers(3, 5))
    Tq, Tk = (int(n) for n in np.sort(rng.choice(np.arange(2, 8), size=2, replace=False)))  # Tq < Tk
    if shape == "tall":
        Tq, Tk = Tk, Tq
    elif shape == "square":
        Tk = Tq
    return dict(valid_lens=_lengths_with_ends(rng, B, Tk), num_queries=Tq, num_keys=Tk)


def book_05_bool_softmax():
    """d2l's scores (2, 2, 4) with the padding mask of lengths [3, 0] (the second sequence has no valid key),
    and with the causal mask (2, 4)."""
    from .reference import causal_mask, key_padding_mask
    scores = book_05_softmax()[0]["scores"]
    return [dict(scores=scores, mask=key_padding_mask(np.array([3, 0]), 4)),
            dict(scores=scores, mask=causal_mask(2, 4))]


def fresh_05_bool_softmax(rng, kind="padding"):
    """Scores (B, Tq, Tk) of another size and a boolean mask: "padding" (B, 1, Tk) with lengths 0 and Tk among
    them; "causal tall" or "causal wide" (Tq, Tk), more queries than keys or fewer; "both" (B, Tq, Tk), padding
    and causal together (&). At least three sequences, so one is padded part of the way: a case where every
    sequence is all padding or none cannot tell a mask value of 0 from -1e6."""
    from .reference import causal_mask, key_padding_mask
    B = int(rng.integers(3, 5))
    Tq, Tk = (int(n) for n in np.sort(rng.choice(np.arange(2, 8), size=2, replace=False)))  # Tq < Tk
    if kind == "causal tall":
        Tq, Tk = Tk, Tq
    lens = _lengths_with_ends(rng, B, Tk)
    mask = {"padding": key_padding_mask(lens, Tk), "causal tall": causal_mask(Tq, Tk),
            "causal wide": causal_mask(Tq, Tk), "both": key_padding_mask(lens, Tk) & causal_mask(Tq, Tk)}[kind]
    return dict(scores=rng.normal(scale=2.0, size=(B, Tq, Tk)), mask=mask)
