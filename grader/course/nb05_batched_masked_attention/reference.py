"""Notebook 05's reference implementations: where the expected values of its graded functions come from
(float64 throughout).
"""
import numpy as np

from ..shared.reference import MASK_VALUE, multi_head_attention, softmax_rows


def multihead_shared_kv(q, k, v, num_heads, proj, scale=1.0):
    """Seed 002's multi-head attention: q (B, C, E) against keys and values (C_k, E) shared by the batch,
    no input projections, heads side by side, then proj (E, E) -> (B, C, E). `scale` multiplies q."""
    B, E = np.shape(q)[0], np.shape(q)[-1]
    k, v = (np.broadcast_to(x, (B,) + np.shape(x)) for x in (k, v))  # (B, C_k, E)
    eye = np.eye(E)
    return multi_head_attention(np.asarray(q) * scale, k, v, None, num_heads, eye, eye, eye, proj)  # (B, C, E)


def key_padding_mask(valid_lens, num_keys):
    """The padding mask as booleans, True where a key may be attended (key j < valid_lens[b]): (B,) -> (B, 1, Tk).

    The axis of length 1 broadcasts over the queries of scores (B, Tq, Tk)."""
    return np.arange(num_keys) < np.asarray(valid_lens)[:, None, None]  # (B, 1, Tk)


def causal_mask(num_queries, num_keys):
    """The causal mask as booleans: query t may attend to keys 0..t, True on and below the diagonal. -> (Tq, Tk)."""
    return np.tril(np.ones((num_queries, num_keys), dtype=bool))  # (Tq, Tk)


def masked_softmax_bool(scores, mask):
    """Softmax over the keys of scores (B, Tq, Tk) where `mask` (broadcastable to it) is True.

    The other scores become MASK_VALUE first, exactly as in `masked_softmax`, so a query whose mask is all
    False gets uniform weights 1/Tk; with mask = key_padding_mask(valid_lens, Tk) it is masked_softmax."""
    scores = np.asarray(scores, dtype=np.float64)
    return softmax_rows(np.where(mask, scores, MASK_VALUE))  # (B, Tq, Tk)


# The probe calls init_weight this many times with one generator and marks the last call's weights (see
# probes.INIT_CALL); the notebook's own check calls it once ("draws": 1 among its inputs).
INIT_DRAWS = 2


def init_weight(fan_in, fan_out, rng):
    """A weight for x @ W, (fan_in, fan_out): normal, std 1/sqrt(fan_in), so x @ W keeps the scale of x."""
    return rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))
