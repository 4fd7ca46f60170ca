"""Notebook 04's reference implementations: where the expected values of its graded functions come from
(float64 throughout).
"""
import numpy as np

from ..shared.reference import scaled_dot_product_self_attention, softmax_cols


def head_attention_weights(X, omega_q, omega_k, beta_q, beta_k):
    """One head's scaled attention weights: (N, N), dot products divided by sqrt of its own query size."""
    Q = omega_q @ X + beta_q  # (D_q, N)
    K = omega_k @ X + beta_k  # (D_q, N)
    return softmax_cols((K.T @ Q) / np.sqrt(Q.shape[0]))  # (N, N)


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
