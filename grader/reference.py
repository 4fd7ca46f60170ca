"""Reference implementations: the one place every expected value comes from.

float64 throughout. The book-based functions use the book's column
convention: a sequence of N tokens of size D is a D x N matrix, and the
softmax runs down each column.
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


def head_attention_weights(X, omega_q, omega_k, beta_q, beta_k):
    """One head's scaled attention weights: (N, N), dot products divided by sqrt of its own query size."""
    Q = omega_q @ X + beta_q  # (D_q, N)
    K = omega_k @ X + beta_k  # (D_q, N)
    return softmax_cols((K.T @ Q) / np.sqrt(Q.shape[0]))  # (N, N)


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Self-attention in matrix form (eq. 12.8): X (D, N) -> X' (D, N)."""
    V, _, _ = queries_keys_values(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    return V @ attention_matrix(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)


def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Scaled dot-product self-attention (eq. 12.9): dot products divided by sqrt(D_q)."""
    V, Q, _ = queries_keys_values(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scale = 1.0 / np.sqrt(Q.shape[0])
    return V @ attention_matrix(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scale)


def attention_loop(all_queries, all_keys, all_values):
    """The book's loop form: x'_n = sum_m softmax_m(k_m . q_n) v_m, one (D, 1) column per token."""
    outputs = []
    for q in all_queries:
        weights = softmax([(k.T @ q).item() for k in all_keys])  # (N,)
        outputs.append(sum(w * v for w, v in zip(weights, all_values)))  # (D, 1)
    return outputs


def multihead_self_attention(X, heads, omega_c):
    """Multi-head self-attention (book figure 12.6): X (D, N) -> X' (D, N).

    `heads` is a list of H tuples (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k),
    each projecting to D/H; the heads' outputs are stacked (D/H each, one on top
    of the other) and mixed by omega_c (D, D).
    """
    outputs = [scaled_dot_product_self_attention(X, *head) for head in heads]  # H x (D/H, N)
    return omega_c @ np.vstack(outputs)  # (D, N)


def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """The book's two-head version (notebook 12.2)."""
    heads = [(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
             (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]
    return multihead_self_attention(X, heads, omega_c)
