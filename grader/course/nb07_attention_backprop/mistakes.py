"""Notebook 07's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np

from . import cases, reference as ref
from ..shared import reference as shared_ref, tiny_transformer as tiny
from ..shared.mistakes import _parameters
from ...engine.protocol import Mistake


SOFTMAX_BACKWARD_NO_OUTER = Mistake(
    "softmax backward without the -a a^T term",
    "you multiplied by diag(a) only: each column's Jacobian is diag(a) - a a^T, so subtract the column's "
    "sum of A * dA before multiplying, dS = A * (dA - np.sum(A * dA, axis=0, keepdims=True))",
    lambda i: i["A"] * i["dA"])

SOFTMAX_BACKWARD_ROWS = Mistake(
    "softmax backward summed over rows",
    "the sum of A * dA ran along each row (axis=1): the softmax normalises each column, so the sum that "
    "couples its entries runs down the column, np.sum(A * dA, axis=0, keepdims=True)",
    lambda i: i["A"] * (i["dA"] - np.sum(i["A"] * i["dA"], axis=1, keepdims=True)))

SOFTMAX_BACKWARD = [SOFTMAX_BACKWARD_NO_OUTER, SOFTMAX_BACKWARD_ROWS]


def _attention_backward_variant(i, scale_in_backward=True, swap_qk=False, beta_sum=lambda G: G.sum(axis=1, keepdims=True),
                                dV_transposed=False):
    """attention_backward's gradients, in ref.ATTENTION_GRADIENTS's order, with one step done wrong."""
    X, G = i["X"], i["dX_prime"]
    ov, oq, ok, bv, bq, bk = _parameters(i)
    V, Q, K = shared_ref.queries_keys_values(X, ov, oq, ok, bv, bq, bk)
    c = 1.0 / np.sqrt(Q.shape[0])
    A = shared_ref.softmax_cols(K.T @ Q * c)  # (N, N)
    dV = G @ A if dV_transposed else G @ A.T  # (D, N)
    dS = ref.softmax_backward(A, V.T @ G)  # (N, N)
    b = c if scale_in_backward else 1.0
    dQ, dK = b * K @ dS, b * Q @ dS.T  # (D, N) each
    if swap_qk:
        dQ, dK = dK, dQ
    dX = ov.T @ dV + oq.T @ dQ + ok.T @ dK
    return [dX, dV @ X.T, dQ @ X.T, dK @ X.T, beta_sum(dV), beta_sum(dQ), beta_sum(dK)]


ATTENTION_BACKWARD_NO_SCALE = Mistake(
    "scale forgotten in the backward pass",
    "the forward pass divides the dot products by sqrt(D_q), so the chain rule multiplies their gradient "
    "by 1/sqrt(D_q) too: dQ = K @ dS / sqrt(D_q) and dK = Q @ dS.T / sqrt(D_q)",
    lambda i: _attention_backward_variant(i, scale_in_backward=False))

ATTENTION_BACKWARD_QK_SWAPPED = Mistake(
    "gradients of the queries and keys swapped",
    "entry [m, n] of the scores is key m times query n, so the queries get dQ = K @ dS / sqrt(D_q) (dS as it "
    "is) and the keys dK = Q @ dS.T / sqrt(D_q) (dS transposed)",
    lambda i: _attention_backward_variant(i, swap_qk=True))

ATTENTION_BACKWARD_BIAS_NOT_SUMMED = Mistake(
    "bias gradients not summed over the tokens",
    "every token adds the same bias, so its gradient is the sum of the tokens' gradients: "
    "d_beta_v = dV.sum(axis=1, keepdims=True), a D x 1 column like beta_v (and the same for q and k)",
    lambda i: _attention_backward_variant(i, beta_sum=lambda G: G))

ATTENTION_BACKWARD_BIAS_WRONG_AXIS = Mistake(
    "bias gradients summed over the features",
    "the sum ran down each column (axis=0), over the features: a bias is added to every token, so sum "
    "over the tokens, the columns, dV.sum(axis=1, keepdims=True), to get a D x 1 column like beta_v",
    lambda i: _attention_backward_variant(i, beta_sum=lambda G: G.sum(axis=0, keepdims=True)))

ATTENTION_BACKWARD_DV_NOT_TRANSPOSED = Mistake(
    "attention matrix not transposed in dV",
    "X' = V @ A, so dV = dX_prime @ A.T: column m of dV collects the gradients of the outputs that "
    "attended to token m, weighted by row m of A",
    lambda i: _attention_backward_variant(i, dV_transposed=True))

ATTENTION_BACKWARD = [ATTENTION_BACKWARD_NO_SCALE, ATTENTION_BACKWARD_QK_SWAPPED, ATTENTION_BACKWARD_BIAS_NOT_SUMMED,
                      ATTENTION_BACKWARD_BIAS_WRONG_AXIS, ATTENTION_BACKWARD_DV_NOT_TRANSPOSED]


def _one_sided_gradient(f, X, eps):
    grad = np.zeros_like(X)
    f_X = f(X)
    for index in np.ndindex(X.shape):
        plus = X.copy()
        plus[index] += eps
        grad[index] = (f(plus) - f_X) / eps
    return grad


def _checked(i, numeric, error=ref.relative_error):
    f = cases.gradient_check_function(i)
    X = np.asarray(i["X"], dtype=float)
    return np.array(error(np.reshape(i["dX"], X.shape), numeric(f, X, float(i["eps"]))))


GRADIENT_CHECK_ONE_SIDED = Mistake(
    "one-sided differences",
    "(f(X + eps) - f(X)) / eps is off by about eps times the second derivative: use central differences, "
    "(f(X + eps) - f(X - eps)) / (2 * eps), whose error is about eps squared",
    lambda i: _checked(i, _one_sided_gradient))

GRADIENT_CHECK_ABSOLUTE = Mistake(
    "absolute error instead of the relative one",
    "you returned max |analytic - numeric|, which depends on how large the gradients are: divide it by "
    "max(max(|analytic| + |numeric|), 1e-12), as the TODO says",
    lambda i: _checked(i, ref.numerical_gradient, lambda a, n: np.max(np.abs(a - n))))

GRADIENT_CHECK = [GRADIENT_CHECK_ONE_SIDED, GRADIENT_CHECK_ABSOLUTE]


def _mha_backward_variant(i, softmax_axis=-1, scale="d", dx_paths="qkv", bias_axes=(0, 1), causal=True):
    """mha_backward's results as the probe reads them, [dx, grads["W_q"], ..., grads["b_o"]] (the order of
    ref.MHA_GRADIENTS), with one step done wrong: the softmax's sum along `softmax_axis`, dS scaled by
    1/sqrt(d), 1/sqrt(D) or not at all (`scale` "d", "D" or None), dx from the projections in `dx_paths`,
    the biases' gradients summed over `bias_axes`, the forward pass with or without the causal mask."""
    x, dout, H = np.asarray(i["x"], dtype=float), np.asarray(i["dout"], dtype=float), int(i["num_heads"])
    p = {name: np.asarray(i[name], dtype=float) for name in ref.MHA_GRADIENTS}
    T, D = x.shape[1], x.shape[2]
    Q, K, V = (tiny.split_heads(x @ p["W_" + n] + p["b_" + n], H) for n in "qkv")  # (B, H, T, d) each
    d = Q.shape[-1]
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)  # (B, H, T, T)
    A = tiny.softmax(np.where(tiny.causal_mask(T), scores, -1e6) if causal else scores)  # (B, H, T, T)
    heads = tiny.merge_heads(A @ V)  # (B, T, D)
    grads = {"W_o": np.einsum("btd,bte->de", heads, dout), "b_o": dout.sum(axis=bias_axes)}
    d_heads = tiny.split_heads(dout @ p["W_o"].T, H)  # (B, H, T, d)
    dA = d_heads @ V.transpose(0, 1, 3, 2)  # (B, H, T, T)
    dV = A.transpose(0, 1, 3, 2) @ d_heads  # (B, H, T, d)
    c = {"d": 1 / np.sqrt(d), "D": 1 / np.sqrt(D), None: 1.0}[scale]
    dS = A * (dA - np.sum(dA * A, axis=softmax_axis, keepdims=True)) * c  # (B, H, T, T)
    dQ, dK = dS @ K, dS.transpose(0, 1, 3, 2) @ Q  # (B, H, T, d) each
    dx = np.zeros_like(x)  # (B, T, D)
    for n, d_proj in (("q", dQ), ("k", dK), ("v", dV)):
        d_proj = tiny.merge_heads(d_proj)  # (B, T, D)
        grads["W_" + n] = np.einsum("btd,bte->de", x, d_proj)  # (D, D)
        grads["b_" + n] = d_proj.sum(axis=bias_axes)
        if n in dx_paths:
            dx = dx + d_proj @ p["W_" + n].T
    return [dx] + [grads[name] for name in ref.MHA_GRADIENTS]


MHA_SOFTMAX_OVER_QUERIES = Mistake(
    "softmax backward over the queries",
    "the sum of dA * A ran down each column, over the queries (axis=-2): in rows each query's weights are "
    "one row, a softmax over the keys, so sum along the last axis, "
    "dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))",
    lambda i: _mha_backward_variant(i, softmax_axis=-2))

MHA_NO_SCALE = Mistake(
    "1/sqrt(d) left out of the backward pass",
    "the forward pass divides the scores by sqrt(d), so the chain rule multiplies their gradient by "
    "1/sqrt(d) too: divide dS by np.sqrt(d) before making dQ and dK from it",
    lambda i: _mha_backward_variant(i, scale=None))

MHA_DX_QUERIES_ONLY = Mistake(
    "dx from the queries only",
    "x makes the queries, the keys and the values, so its gradient is the sum of what comes back along all "
    "three paths: dx = dQ @ W_q.T + dK @ W_k.T + dV @ W_v.T, each merged back to (B, T, D) first",
    lambda i: _mha_backward_variant(i, dx_paths="q"))

MHA_SCALE_SQRT_D_MODEL = Mistake(
    "1/sqrt(D) in place of 1/sqrt(d)",
    "each head's scores are divided by sqrt(d), d = D / num_heads, the size of one head's queries: multiply "
    "dS by 1 / np.sqrt(d), taking d from the heads' shape, not 1 / np.sqrt(D)",
    lambda i: _mha_backward_variant(i, scale="D"))

MHA_BIAS_NOT_SUMMED_OVER_BATCH = Mistake(
    "bias gradients not summed over the batch",
    "every token of every sequence gets the same bias, so its gradient is summed over the batch and the "
    "tokens: grads[\"b_q\"] = dQ.sum(axis=(0, 1)) with dQ of shape (B, T, D), a (D,) like b_q, and the same "
    "for the other three biases",
    lambda i: _mha_backward_variant(i, bias_axes=1))

MHA_MASK_LEFT_OUT = Mistake(
    "causal mask left out of the backward pass",
    "your backward pass used weights computed without the causal mask: take A (and Q, K, V, heads) from "
    "mha_forward's cache, whose weights are zero above the diagonal, or mask the scores as it does",
    lambda i: _mha_backward_variant(i, causal=False))

MHA_BACKWARD = [MHA_SOFTMAX_OVER_QUERIES, MHA_NO_SCALE, MHA_DX_QUERIES_ONLY, MHA_SCALE_SQRT_D_MODEL,
                MHA_BIAS_NOT_SUMMED_OVER_BATCH, MHA_MASK_LEFT_OUT]
