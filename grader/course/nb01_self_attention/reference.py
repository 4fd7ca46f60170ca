"""Notebook 01's reference implementations: where the expected values of its graded functions come from
(float64 throughout).
"""
from ..shared.reference import attention_matrix, queries_keys_values, softmax


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Self-attention in matrix form (eq. 12.8): X (D, N) -> X' (D, N)."""
    V, _, _ = queries_keys_values(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    return V @ attention_matrix(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)


def attention_loop(all_queries, all_keys, all_values):
    """The book's loop form: x'_n = sum_m softmax_m(k_m . q_n) v_m, one (D, 1) column per token."""
    outputs = []
    for q in all_queries:
        weights = softmax([(k.T @ q).item() for k in all_keys])  # (N,)
        outputs.append(sum(w * v for w, v in zip(weights, all_values)))  # (D, 1)
    return outputs
