"""Notebook 07's reference implementations: where the expected values of its graded functions come from
(float64 throughout).
"""
import numpy as np

from ..shared import tiny_transformer as tiny
from ..shared.reference import queries_keys_values, softmax_cols


ATTENTION_GRADIENTS = ("dX", "d_omega_v", "d_omega_q", "d_omega_k", "d_beta_v", "d_beta_q", "d_beta_k")
GRADIENT_CHECK_FLOOR = 1e-12  # the relative error's denominator is never below this (both gradients 0)


def softmax_jacobian(a):
    """The Jacobian d a / d s of one column a = softmax[s]: diag(a) - a a^T, (N, N)."""
    a = np.asarray(a, dtype=np.float64).reshape(-1)  # (N,)
    return np.diag(a) - np.outer(a, a)  # (N, N)


def softmax_backward(A, dA):
    """dL/dS for A = softmax_cols(S), given dL/dA: every column's Jacobian times its dA, never formed."""
    A = np.asarray(A, dtype=np.float64)  # (N, M)
    dA = np.asarray(dA, dtype=np.float64)  # (N, M)
    return A * (dA - np.sum(A * dA, axis=0, keepdims=True))  # (N, M)


def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime, scale=None):
    """Gradients of a loss L through X' = V @ softmax_cols(K^T Q * scale) (eq. 12.9 when scale is None,
    1/sqrt(D_q)), given dX_prime = dL/dX' (D_v, N): {name: gradient}, each of its parameter's shape."""
    Q = omega_q @ X + beta_q  # (D_q, N)
    K = omega_k @ X + beta_k  # (D_q, N)
    V = omega_v @ X + beta_v  # (D_v, N)
    c = 1.0 / np.sqrt(Q.shape[0]) if scale is None else scale
    A = softmax_cols(K.T @ Q * c)  # (N, N): [key m, query n]
    dV = dX_prime @ A.T  # (D_v, N)
    dA = V.T @ dX_prime  # (N, N)
    dS = softmax_backward(A, dA)  # (N, N)
    dQ = c * K @ dS  # (D_q, N): S[m, n] = c k_m . q_n
    dK = c * Q @ dS.T  # (D_q, N)
    return {"dX": omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK,  # (D, N)
            "d_omega_v": dV @ X.T, "d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T,  # (D_., D)
            "d_beta_v": dV.sum(axis=1, keepdims=True), "d_beta_q": dQ.sum(axis=1, keepdims=True),
            "d_beta_k": dK.sum(axis=1, keepdims=True)}  # (D_., 1)


def attention_loss(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime, scale=None):
    """The loss whose gradient `attention_backward` returns: L = sum(X' * dX_prime), so dL/dX' = dX_prime."""
    V, Q, K = queries_keys_values(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    c = 1.0 / np.sqrt(Q.shape[0]) if scale is None else scale
    return float(np.sum(V @ softmax_cols(K.T @ Q * c) * dX_prime))


def numerical_gradient(f, X, eps=1e-6):
    """Central differences (f(X + eps e_i) - f(X - eps e_i)) / (2 eps) of a scalar f, for every entry i of X.

    E.g. numerical_gradient(lambda W: attention_loss(X, ov, W, ok, bv, bq, bk, G), oq) should match
    attention_backward(X, ov, oq, ok, bv, bq, bk, G)["d_omega_q"] to about 1e-8 (relative)."""
    X = np.asarray(X, dtype=np.float64)
    grad = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        plus, minus = X.copy(), X.copy()
        plus[i] += eps
        minus[i] -= eps
        grad[i] = (f(plus) - f(minus)) / (2 * eps)
    return grad


def relative_error(analytic, numeric):
    """max |analytic - numeric| / max(max(|analytic| + |numeric|), GRADIENT_CHECK_FLOOR)."""
    analytic = np.asarray(analytic, dtype=np.float64)
    numeric = np.asarray(numeric, dtype=np.float64)
    return float(np.max(np.abs(analytic - numeric))
                 / max(np.max(np.abs(analytic) + np.abs(numeric)), GRADIENT_CHECK_FLOOR))


def gradient_check(f, X, dX, eps=1e-6):
    """The relative error between the analytic gradient dX and central differences of f at X."""
    return relative_error(np.reshape(dX, np.shape(X)), numerical_gradient(f, X, eps))


MHA_GRADIENTS = ("W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o")  # the keys of mha_backward's grads


def mha_backward(x, params, num_heads, dout):
    """(dx, grads) for causal multi-head self-attention of x (B, T, D) in the row convention (notebook 08's
    multi_head_attention(x, params, num_heads, causal_mask(T, T))), given dout = dL/d(output) (B, T, D):
    dx (B, T, D) and {name: gradient} for the eight weights, each of its weight's shape. The course's one
    attention backward pass, the tiny transformer's (shared/tiny_transformer.py)."""
    x = np.asarray(x, dtype=np.float64)
    params = {name: np.asarray(params[name], dtype=np.float64) for name in MHA_GRADIENTS}
    _, cache = tiny.attention_forward(x, params, int(num_heads))
    dx, grads = tiny.attention_backward(np.asarray(dout, dtype=np.float64), cache)
    return dx, {name: grads[name] for name in MHA_GRADIENTS}


def mha_loss(x, params, num_heads, dout):
    """The loss whose gradients `mha_backward` returns: L = sum(output * dout), so dL/d(output) = dout."""
    out, _ = tiny.attention_forward(np.asarray(x, dtype=np.float64), params, int(num_heads))
    return float(np.sum(out * dout))
