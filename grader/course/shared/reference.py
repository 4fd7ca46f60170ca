"""Reference implementations that two or more notebooks use: the softmax, attention in the book's columns
and in rows (masks, heads), float64 throughout. The book-based functions use the book's column convention:
a sequence of N tokens of size D is a D x N matrix, and the softmax runs down each column.
"""
import numpy as np


def softmax(items_in):
    """Softmax over all the numbers in `items_in` (eq. 12.5); keeps its shape."""
    x = np.asarray(items_in, dtype=np.float64)
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def softmax_cols(data_in):
    """Softmax down each column of a matrix: every column sums to one."""
    x = np.asarray(data_in, dtype=np.float64)
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)


def queries_keys_values(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Values, queries and keys of the columns of X (eqs. 12.2, 12.4); each (D, N)."""
    V = omega_v @ X + beta_v  # (D, N)
    Q = omega_q @ X + beta_q  # (D, N)
    K = omega_k @ X + beta_k  # (D, N)
    return V, Q, K


def attention_matrix(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scale=1.0):
    """Attention weights a[m, n] of key m for query n (eq. 12.8): (N, N), columns sum to 1."""
    _, Q, K = queries_keys_values(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    return softmax_cols((K.T @ Q) * scale)  # (N, N)


def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Scaled dot-product self-attention (eq. 12.9): dot products divided by sqrt(D_q)."""
    V, Q, _ = queries_keys_values(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scale = 1.0 / np.sqrt(Q.shape[0])
    return V @ attention_matrix(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scale)


MASK_VALUE = -1e6  # a masked score: exp(-1e6 - max) is 0, and a row of nothing but masked scores stays finite


def softmax_rows(scores):
    """Softmax along the last axis (one row per query in the row convention), any leading axes."""
    x = np.moveaxis(np.asarray(scores, dtype=np.float64), -1, 0)  # (Tk, ...)
    return np.moveaxis(softmax_cols(x), 0, -1)


def sequence_mask(valid_lens, num_queries, num_keys):
    """Which keys each query may see: key j < valid_lens[b] ((B,)) or < valid_lens[b, t] ((B, Tq)). -> (B, Tq, Tk)."""
    lens = np.asarray(valid_lens)
    lens = lens[:, None, None] if lens.ndim == 1 else lens[:, :, None]  # (B, 1, 1) or (B, Tq, 1)
    return np.broadcast_to(np.arange(num_keys) < lens, (len(lens), num_queries, num_keys))


def masked_softmax(scores, valid_lens):
    """Softmax over the keys of scores (B, Tq, Tk), the keys at or past each valid length masked (d2l 11.3).

    valid_lens is None (nothing masked), (B,) one length per sequence or (B, Tq) one per
    query. Masked scores become MASK_VALUE before the softmax, so they get weight 0; a
    query with no valid key (length 0) gets uniform weights 1/Tk, never nan.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if valid_lens is None:
        return softmax_rows(scores)
    mask = sequence_mask(valid_lens, scores.shape[1], scores.shape[2])  # (B, Tq, Tk)
    return softmax_rows(np.where(mask, scores, MASK_VALUE))


def transpose_qkv(X, num_heads):
    """Split the features into heads: (B, T, H*d) -> (B*H, T, d); row b*H + h is head h of sequence b."""
    B, T, D = np.shape(X)
    X = np.asarray(X, dtype=np.float64).reshape(B, T, num_heads, D // num_heads)  # (B, T, H, d)
    return X.transpose(0, 2, 1, 3).reshape(B * num_heads, T, D // num_heads)  # (B*H, T, d)


def transpose_output(X, num_heads):
    """Undo transpose_qkv: (B*H, T, d) -> (B, T, H*d), the heads' features side by side."""
    BH, T, d = np.shape(X)
    X = np.asarray(X, dtype=np.float64).reshape(BH // num_heads, num_heads, T, d)  # (B, H, T, d)
    return X.transpose(0, 2, 1, 3).reshape(BH // num_heads, T, num_heads * d)  # (B, T, H*d)


def dot_product_attention(Q, K, V, valid_lens=None):
    """Scaled dot-product attention, batched and masked, in the row convention (eq. 12.9 transposed).

    Q (B, Tq, d), K (B, Tk, d), V (B, Tk, d_v) -> softmax(Q K^T / sqrt(d)) V, (B, Tq, d_v).
    """
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(np.shape(Q)[-1])  # (B, Tq, Tk)
    return masked_softmax(scores, valid_lens) @ V  # (B, Tq, d_v)


def multi_head_attention(queries, keys, values, valid_lens, num_heads, W_q, W_k, W_v, W_o,
                         b_q=0.0, b_k=0.0, b_v=0.0, b_o=0.0):
    """d2l's MultiHeadAttention.forward: queries (B, Tq, D), keys and values (B, Tk, D) -> (B, Tq, D).

    Weights act from the right (X @ W + b, W is (fan_in, fan_out)); every head of
    sequence b sees sequence b's valid lengths. With no biases and no mask, in
    self-attention, it is `multihead_self_attention_rows`.
    """
    Q = transpose_qkv(queries @ W_q + b_q, num_heads)  # (B*H, Tq, d)
    K = transpose_qkv(keys @ W_k + b_k, num_heads)  # (B*H, Tk, d)
    V = transpose_qkv(values @ W_v + b_v, num_heads)  # (B*H, Tk, d)
    if valid_lens is not None:
        valid_lens = np.repeat(valid_lens, num_heads, axis=0)  # (B*H,) or (B*H, Tq)
    heads = dot_product_attention(Q, K, V, valid_lens)  # (B*H, Tq, d)
    return transpose_output(heads, num_heads) @ W_o + b_o  # (B, Tq, D)


def causal_valid_lens(batch_size, num_steps):
    """The causal mask as valid lengths: query t sees keys 0..t, a length of t + 1. -> (B, T)."""
    return np.tile(np.arange(1, num_steps + 1), (batch_size, 1))
