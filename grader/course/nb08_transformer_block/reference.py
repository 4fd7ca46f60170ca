"""Notebook 08's reference implementations: where the expected values of its graded functions come from
(float64 throughout).
"""
import numpy as np

from ..shared.reference import (MASK_VALUE, causal_valid_lens, multi_head_attention, softmax_rows, transpose_output,
                                transpose_qkv)


def layer_norm(x, gamma, beta, eps=1e-5):
    """LayerNorm over the last axis (each token's features): biased variance, eps inside the square root."""
    mean = np.mean(x, axis=-1, keepdims=True)  # (B, T, 1)
    var = np.var(x, axis=-1, keepdims=True)  # (B, T, 1): biased, divided by D
    return gamma * (x - mean) / np.sqrt(var + eps) + beta  # (B, T, D)


def mlp(x, W1, b1, W2, b2):
    """The position-wise MLP with a ReLU: each token alone, (B, T, D) -> (B, T, D_ff) -> (B, T, D)."""
    return np.maximum(0.0, x @ W1 + b1) @ W2 + b2  # (B, T, D)


BLOCK_PARAMETERS = ("W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o",
                    "gamma1", "beta1", "W1", "b1", "W2", "b2", "gamma2", "beta2")


def block_attention(x, params, num_heads, causal=True):
    """The block's multi-head self-attention of x (B, T, D), with a causal mask unless told otherwise."""
    B, T, _ = np.shape(x)
    lens = causal_valid_lens(B, T) if causal else None  # (B, T): query t sees keys 0..t
    return multi_head_attention(x, x, x, lens, num_heads, params["W_q"], params["W_k"], params["W_v"],
                                params["W_o"], params["b_q"], params["b_k"], params["b_v"], params["b_o"])


def block_attention_masked(x, params, num_heads, mask):
    """The notebook's multi_head_attention(x, params, num_heads, mask): self-attention of x (B, T, D) with a
    boolean mask (T, T), True where query t may see key j (block_attention's causal lengths, as a mask)."""
    Q, K, V = (transpose_qkv(x @ params[f"W_{n}"] + params[f"b_{n}"], num_heads) for n in "qkv")  # (B*H, T, d) each
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])  # (B*H, T, T)
    weights = softmax_rows(np.where(mask, scores, MASK_VALUE))  # (B*H, T, T)
    return transpose_output(weights @ V, num_heads) @ params["W_o"] + params["b_o"]  # (B, T, D)


def transformer_block(x, params, num_heads, post_norm=False, causal=True, norm=layer_norm, feed_forward=mlp):
    """A transformer layer (the book's section 12.4), row convention: pre-norm (GPT-2) by default,
    x + attn(LN(x)) then x + mlp(LN(x)); post-norm, LN(x + attn(x)) then LN(x + mlp(x))."""
    def attention(h):
        return block_attention(h, params, num_heads, causal)  # (B, T, D)

    def ff(h):
        return feed_forward(h, params["W1"], params["b1"], params["W2"], params["b2"])  # (B, T, D)

    def ln1(h):
        return norm(h, params["gamma1"], params["beta1"])

    def ln2(h):
        return norm(h, params["gamma2"], params["beta2"])

    if post_norm:
        x = ln1(x + attention(x))  # (B, T, D)
        return ln2(x + ff(x))  # (B, T, D)
    x = x + attention(ln1(x))  # (B, T, D)
    return x + ff(ln2(x))  # (B, T, D)


def block_parameters(D, H, D_ff):
    """The trainable numbers of one block: attention 4 D^2 + 4 D, MLP 2 D D_ff + D_ff + D, two LayerNorms 4 D.
    The head count does not change it: the heads split the D features, they do not add weights."""
    return 4 * D * D + 4 * D + 2 * D * D_ff + D_ff + D + 4 * D


def block_attention_flops(D, H, T):
    """Multiply-adds of the attention sublayer on one sequence of T tokens: Q, K, V and output projections
    4 T D^2, scores T^2 D and weighted sums T^2 D (every head together; masked scores counted too)."""
    return 4 * T * D * D + 2 * T * T * D


def block_mlp_flops(D, T, D_ff):
    """Multiply-adds of the MLP on T tokens: two matrices, T D D_ff each."""
    return 2 * T * D * D_ff


def block_flops(D, H, T, D_ff):
    """Multiply-adds of one block on one sequence of T tokens: matrix products only (no softmax, LayerNorm,
    biases, residuals or ReLU)."""
    return block_attention_flops(D, H, T) + block_mlp_flops(D, T, D_ff)
