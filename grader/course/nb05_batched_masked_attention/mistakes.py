"""Notebook 05's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np

from . import reference as ref
from ..shared import reference as shared_ref
from ...engine.protocol import Mistake


def _mask_05(valid_lens, num_queries, num_keys, inclusive=False, over_queries=False):
    """The mask (B, Tq, Tk) a masked_softmax makes: the right one, or one of its mistaken variants.

    inclusive: key j kept when j <= valid length (off by one); over_queries: the positions compared
    with the lengths are the queries', so whole queries are masked instead of padding keys.
    """
    lens = np.asarray(valid_lens)
    lens = lens[:, None, None] if lens.ndim == 1 else lens[:, :, None]  # (B, 1, 1) or (B, Tq, 1)
    positions = np.arange(num_queries)[:, None] if over_queries else np.arange(num_keys)  # (Tq, 1) or (Tk,)
    mask = positions <= lens if inclusive else positions < lens
    return np.broadcast_to(mask, (len(lens), num_queries, num_keys))


def _softmax_along(a, axis):
    """Softmax along one axis of a (B, Tq, Tk) array: -1 is right (the keys), 1 the queries, 0 the batch."""
    return np.moveaxis(shared_ref.softmax_rows(np.moveaxis(a, axis, -1)), -1, axis)


def _masked_softmax_05(scores, valid_lens, fill=shared_ref.MASK_VALUE, after=False, inclusive=False, over_queries=False,
                       axis=-1):
    """masked_softmax with one mistake: another fill value, masking after the softmax, another mask, another axis."""
    scores = np.asarray(scores, dtype=float)
    if valid_lens is None:  # the notebook's own first lines: the softmax over the keys
        return shared_ref.softmax_rows(scores)
    mask = _mask_05(valid_lens, scores.shape[1], scores.shape[2], inclusive, over_queries)  # (B, Tq, Tk)
    with np.errstate(invalid="ignore"):
        if after:
            return shared_ref.softmax_rows(scores) * mask
        return _softmax_along(np.where(mask, scores, fill), axis)


def _lens_repeated(valid_lens, num_heads):
    return np.repeat(valid_lens, num_heads, axis=0)  # (B*H,) or (B*H, Tq)


def _lens_tiled(valid_lens, num_heads):
    return np.tile(valid_lens, num_heads)


def _split_no_transpose(X, num_heads):
    B, T, D = np.shape(X)
    return np.reshape(X, (B * num_heads, T, D // num_heads))


def _merge_no_transpose(X, num_heads):
    BH, T, d = np.shape(X)
    return np.reshape(X, (BH // num_heads, T, num_heads * d))


FIXED_HEADS_05 = 5  # the notebook's global num_heads (seed 001's case)


def _mha_05(i, masked_softmax=shared_ref.masked_softmax, lens=_lens_repeated, split=shared_ref.transpose_qkv,
            merge=shared_ref.transpose_output, weights="qkv", num_heads=None, root=lambda d, D: np.sqrt(d),
            masked=True, project=True):
    """MultiHeadAttention.forward on a probe's inputs, with one of its pieces swapped for a mistaken one.

    weights: which projection makes the queries, keys and values ("qvk": keys from W_v, values from W_k);
    num_heads: a head count fixed in the code; root(d, D): what the dot products are divided by;
    masked: whether valid_lens reaches masked_softmax; project: whether W_o and b_o are applied.
    """
    H = i["num_heads"] if num_heads is None else num_heads
    (W_q, b_q), (W_k, b_k), (W_v, b_v) = ((i[f"W_{c}"], i[f"b_{c}"]) for c in weights)
    Q = split(i["queries"] @ W_q + b_q, H)  # (B*H, Tq, d)
    K = split(i["keys"] @ W_k + b_k, H)  # (B*H, Tk, d)
    V = split(i["values"] @ W_v + b_v, H)  # (B*H, Tk, d)
    valid_lens = None if i["valid_lens"] is None or not masked else lens(np.asarray(i["valid_lens"]), H)
    scores = Q @ np.swapaxes(K, -1, -2) / root(Q.shape[-1], i["queries"].shape[-1])  # (B*H, Tq, Tk)
    heads = merge(masked_softmax(scores, valid_lens) @ V, H)  # (B, Tq, D)
    return heads @ i["W_o"] + i["b_o"] if project else heads  # (B, Tq, D)


MASK_ZERO = Mistake(
    "masked with 0",
    "the masked scores were set to 0, and exp(0) = 1 still gives those keys weight: set them to a large "
    "negative number such as -1e6 before the softmax",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], fill=0.0))

MASK_AFTER_SOFTMAX = Mistake(
    "masked after the softmax",
    "the weights of the masked keys were zeroed after the softmax, so the rest no longer sum to one: "
    "mask the scores (set them to -1e6) before the softmax",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], after=True))

MASK_NEG_INF = Mistake(
    "masked with -inf",
    "a query with no valid key (valid length 0) has every score at -inf, and the softmax of a row of -inf "
    "is nan (-inf minus -inf): mask with a large finite negative number such as -1e6, which gives that "
    "query uniform weights",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], fill=-np.inf))

MASK_OFF_BY_ONE = Mistake(
    "mask off by one",
    "each query sees one key too many: a valid length of 3 means keys 0, 1 and 2, so keep key j when "
    "j < valid_len (compare with <, not <=)",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], inclusive=True))

MASK_OVER_QUERIES = Mistake(
    "mask over the queries",
    "the mask compares the valid lengths with the positions of the queries (axis 1), so whole queries were "
    "masked and the padding keys were not: compare them with the key positions, np.arange(scores.shape[-1])",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], over_queries=True))

SOFTMAX_AXIS_1 = Mistake(
    "softmax over axis 1 (the queries)",
    "in scores (B, Tq, Tk) axis 1 holds the queries, so each key's weights sum to one instead of each "
    "query's: take the softmax over the keys, the last axis (axis=-1)",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], axis=1))

SOFTMAX_AXIS_0 = Mistake(
    "softmax over axis 0 (the batch)",
    "the softmax ran across the sequences of the batch (axis 0), mixing scores of different sequences: "
    "each query's weights must sum to one over its keys, the last axis (axis=-1)",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], axis=0))

MASKED_SOFTMAX_05 = [MASK_ZERO, MASK_AFTER_SOFTMAX, MASK_NEG_INF, MASK_OFF_BY_ONE, MASK_OVER_QUERIES,
                     SOFTMAX_AXIS_1, SOFTMAX_AXIS_0]
_MASKED_SOFTMAX_VARIANTS_05 = {  # each masked_softmax mistake, as MultiHeadAttention meets it
    MASK_ZERO.name: dict(fill=0.0), MASK_AFTER_SOFTMAX.name: dict(after=True), MASK_NEG_INF.name: dict(fill=-np.inf),
    MASK_OFF_BY_ONE.name: dict(inclusive=True), MASK_OVER_QUERIES.name: dict(over_queries=True),
    SOFTMAX_AXIS_1.name: dict(axis=1), SOFTMAX_AXIS_0.name: dict(axis=0)}

SPLIT_NO_TRANSPOSE = Mistake(
    "heads split with a reshape and no transpose",
    "reshaping (B, T, D) straight to (B*H, T, d) cuts the rows of different tokens into one head: "
    "reshape to (B, T, H, d), transpose to (B, H, T, d), then reshape to (B*H, T, d)",
    lambda i: _split_no_transpose(i["X"], i["num_heads"]))

MERGE_NO_TRANSPOSE = Mistake(
    "heads merged with a reshape and no transpose",
    "reshaping (B*H, T, d) straight to (B, T, H*d) puts the features of different tokens side by side: "
    "reshape to (B, H, T, d), transpose to (B, T, H, d), then reshape to (B, T, H*d)",
    lambda i: _merge_no_transpose(i["X"], i["num_heads"]))

LENS_TILED = Mistake(
    "valid_lens tiled, not repeated",
    "np.tile(valid_lens, num_heads) gives [l0, l1, ..., l0, l1, ...], but after transpose_qkv the rows go "
    "sequence by sequence, every head of sequence 0 first: repeat each length in place, "
    "np.repeat(valid_lens, num_heads, axis=0)",
    lambda i: _mha_05(i, lens=_lens_tiled))

def _mha_with_masked_softmax_05(mistake):
    """A masked_softmax mistake, as MultiHeadAttention.forward gives it (it calls masked_softmax)."""
    variant = _MASKED_SOFTMAX_VARIANTS_05[mistake.name]
    return Mistake(mistake.name, mistake.message,
                   lambda i: _mha_05(i, masked_softmax=lambda s, l: _masked_softmax_05(s, l, **variant)))


KEYS_VALUES_SWAPPED = Mistake(
    "keys and values swapped",
    "the keys were made with W_v and the values with W_k: keys @ self.W_k + self.b_k are the keys, "
    "values @ self.W_v + self.b_v the values",
    lambda i: _mha_05(i, weights="qvk"))

QUERIES_FROM_W_K = Mistake(
    "queries from W_k",
    "the queries were projected with W_k: use queries @ self.W_q + self.b_q, so that queries and keys "
    "are made by different weights",
    lambda i: _mha_05(i, weights="kkv"))

W_O_LEFT_OUT = Mistake(
    "output projection W_o left out",
    "the heads were merged but not mixed: finish with transpose_output(...) @ self.W_o + self.b_o (step 4)",
    lambda i: _mha_05(i, project=False))

FIXED_HEAD_COUNT = Mistake(
    "a fixed number of heads",
    f"forward split the features into {FIXED_HEADS_05} heads (the notebook's num_heads), not into the number "
    "the class was built with: use self.num_heads everywhere in forward",
    lambda i: _mha_05(i, num_heads=FIXED_HEADS_05))

SCALED_BY_NUM_HIDDENS = Mistake(
    "scaled by sqrt(num_hiddens), not sqrt(head size)",
    "each head's dot products are sums over its own d = num_hiddens / num_heads features: divide them by "
    "np.sqrt(Q.shape[-1]), the head's size, not by np.sqrt(num_hiddens)",
    lambda i: _mha_05(i, root=lambda d, D: np.sqrt(D)))

VALID_LENS_IGNORED = Mistake(
    "valid_lens ignored",
    "no key was masked, so the padding got weight: repeat valid_lens once per head "
    "(np.repeat(valid_lens, self.num_heads, axis=0)) and pass it to masked_softmax",
    lambda i: _mha_05(i, masked=False))

MHA_05 = [_mha_with_masked_softmax_05(m) for m in MASKED_SOFTMAX_05] + [
    LENS_TILED,
    Mistake(SPLIT_NO_TRANSPOSE.name, SPLIT_NO_TRANSPOSE.message, lambda i: _mha_05(i, split=_split_no_transpose)),
    Mistake(MERGE_NO_TRANSPOSE.name, MERGE_NO_TRANSPOSE.message, lambda i: _mha_05(i, merge=_merge_no_transpose)),
    KEYS_VALUES_SWAPPED, QUERIES_FROM_W_K, W_O_LEFT_OUT, FIXED_HEAD_COUNT, SCALED_BY_NUM_HIDDENS, VALID_LENS_IGNORED,
]


HEAD_SCALED_BY_E = Mistake(
    "scaled by sqrt(E), not sqrt(E/H)",
    "each head's dot products are sums over its E/H features: divide them by np.sqrt(split_dim), the "
    "head's size, not by np.sqrt(E)",
    lambda i: [ref.multihead_shared_kv(i["q"], i["k"], i["v"], i["H"], i["proj"], scale=1 / np.sqrt(i["H"]))])


def _init_05(i, std=None, uniform=False, global_rng=False, transposed=False):
    """init_weight with one mistake. global_rng: drawn from np.random, which the probe seeds with the case's
    seed before the call (np.random.rand for a uniform draw, np.random.normal otherwise), not from rng."""
    fan_in, fan_out = i["fan_in"], i["fan_out"]
    rng = np.random.RandomState(i["seed"]) if global_rng else np.random.default_rng(i["seed"])
    shape = (fan_out, fan_in) if transposed else (fan_in, fan_out)
    for _ in range(i.get("draws", ref.INIT_DRAWS)):  # the probe's calls with one generator: the last one's weights
        if uniform:
            W = rng.random_sample(shape) if global_rng else rng.random(shape)
        else:
            W = rng.normal(0.0, std(fan_in, fan_out), size=shape)
    return W


INIT_05 = [
    Mistake("weights from a uniform draw in [0, 1)",
            "every weight is positive with mean 0.5 (as with np.random.rand), so x @ W grows with "
            "fan_in and the softmax saturates: draw rng.normal with mean 0 and std 1/sqrt(fan_in)",
            lambda i: _init_05(i, uniform=True)),
    Mistake("scaled by fan_out",
            "the std must be 1/sqrt(fan_in), the number of inputs each output of x @ W sums over (the rows "
            "of W), not 1/sqrt(fan_out)",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1 / np.sqrt(n_out))),
    Mistake("not scaled",
            "the weights have std 1, so x @ W is sqrt(fan_in) times larger than x: use std 1/np.sqrt(fan_in)",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1.0)),
    Mistake("std 1/fan_in",
            "1/fan_in is the variance you want, not the std: use scale=1/np.sqrt(fan_in)",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1 / n_in)),
    Mistake("weights from np.random.rand",
            "np.random.rand ignores the generator rng you are given, and its weights are all positive with "
            "mean 0.5: draw them with rng.normal, mean 0 and std 1/np.sqrt(fan_in)",
            lambda i: _init_05(i, uniform=True, global_rng=True)),
    Mistake("drawn from np.random, not rng",
            "the weights have the right distribution but come from np.random's own generator, so the rng you "
            "are given cannot reproduce them: call rng.normal(...) instead of np.random.normal or np.random.randn",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1 / np.sqrt(n_in), global_rng=True)),
    Mistake("Glorot (Xavier) std",
            "sqrt(2 / (fan_in + fan_out)) is Glorot's std; this course keeps x @ W at the scale of x, which "
            "needs std 1/np.sqrt(fan_in)",
            lambda i: _init_05(i, std=lambda n_in, n_out: np.sqrt(2 / (n_in + n_out)))),
    Mistake("weight shape transposed",
            "the weight has shape (fan_out, fan_in), the book's Omega shape; in the row convention x @ W needs "
            "W of shape (fan_in, fan_out)",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1 / np.sqrt(n_in), transposed=True)),
]


def _boolean_masks_05(i, inverted=False, inclusive=False, triu=False):
    """[key_padding_mask, causal_mask] on a probe's inputs, one of them made with one mistake."""
    lens, Tq, Tk = np.asarray(i["valid_lens"]), i["num_queries"], i["num_keys"]
    positions = np.arange(Tk)  # (Tk,)
    padding = positions <= lens[:, None, None] if inclusive else positions < lens[:, None, None]  # (B, 1, Tk)
    ones = np.ones((Tq, Tk), dtype=bool)
    return [~padding if inverted else padding, np.triu(ones) if triu else np.tril(ones)]


def _masked_softmax_bool_05(i, fill=shared_ref.MASK_VALUE, after=False, inverted=False, added=False):
    """masked_softmax_bool with one mistake: another fill value, masking after the softmax, True taken as
    "masked", or the fill added to the masked scores instead of put in their place."""
    scores, mask = np.asarray(i["scores"], dtype=float), np.asarray(i["mask"], dtype=bool)
    keep = ~mask if inverted else mask
    with np.errstate(invalid="ignore"):
        if after:
            return shared_ref.softmax_rows(scores) * keep  # (B, Tq, Tk)
        if added:
            return shared_ref.softmax_rows(scores + np.where(keep, 0.0, fill))
        return shared_ref.softmax_rows(np.where(keep, scores, fill))


PADDING_MASK_INVERTED = Mistake(
    "padding mask inverted (True = ignore)",
    "your key_padding_mask is True at the padding keys, the convention of PyTorch's nn.MultiheadAttention "
    "key_padding_mask (True = ignore that key); here True means a key may be attended: "
    "np.arange(num_keys) < valid_lens[:, None, None]",
    lambda i: _boolean_masks_05(i, inverted=True))

PADDING_MASK_OFF_BY_ONE = Mistake(
    "padding mask off by one",
    "each sequence keeps one key too many: a valid length of 3 means keys 0, 1 and 2, so compare with <, "
    "not <=",
    lambda i: _boolean_masks_05(i, inclusive=True))

CAUSAL_MASK_TRIU = Mistake(
    "causal mask from np.triu",
    "np.triu keeps the keys on and above the diagonal, so each query sees itself and the future: "
    "np.tril keeps keys 0..t for query t",
    lambda i: _boolean_masks_05(i, triu=True))

BOOLEAN_MASKS_05 = [PADDING_MASK_INVERTED, PADDING_MASK_OFF_BY_ONE, CAUSAL_MASK_TRIU]

BOOL_MASK_ZERO = Mistake(
    MASK_ZERO.name,
    "the scores where the mask is False were set to 0, and exp(0) = 1 still gives those keys weight: "
    "use np.where(mask, scores, -1e6) before the softmax",
    lambda i: _masked_softmax_bool_05(i, fill=0.0))

BOOL_MASK_AFTER_SOFTMAX = Mistake(
    MASK_AFTER_SOFTMAX.name,
    "the weights were multiplied by the mask after the softmax, so the rest no longer sum to one: "
    "mask the scores with np.where(mask, scores, -1e6) before the softmax",
    lambda i: _masked_softmax_bool_05(i, after=True))

BOOL_MASK_NEG_INF = Mistake(
    MASK_NEG_INF.name,
    "a query whose mask is all False has every score at -inf, and the softmax of that row is nan: fill "
    "with -1e6, which gives that query uniform weights, this course's convention",
    lambda i: _masked_softmax_bool_05(i, fill=-np.inf))

BOOL_MASK_INVERTED = Mistake(
    "mask inverted (True taken as masked)",
    "your softmax masks the keys where the mask is True, as PyTorch's key_padding_mask would; here True "
    "means a key may be attended: keep the scores where mask is True, np.where(mask, scores, -1e6)",
    lambda i: _masked_softmax_bool_05(i, inverted=True))

BOOL_MASK_ADDED = Mistake(
    "-1e6 added, not put in place",
    "adding -1e6 to the masked scores shifts a query with no valid key by the same amount everywhere, so "
    "it gets the softmax of its raw scores, not uniform weights: replace them, np.where(mask, scores, -1e6)",
    lambda i: _masked_softmax_bool_05(i, added=True))

MASKED_SOFTMAX_BOOL_05 = [BOOL_MASK_ZERO, BOOL_MASK_AFTER_SOFTMAX, BOOL_MASK_NEG_INF, BOOL_MASK_INVERTED,
                          BOOL_MASK_ADDED]
