"""Notebook 08's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np

from . import reference as ref
from ...engine.protocol import Mistake


def _layer_norm_08(i, axis=-1, ddof=0, eps_outside=False):
    """LayerNorm of i["x"] (B, T, D) computed that way."""
    x, eps = i["x"], i.get("eps", 1e-5)
    mean = np.mean(x, axis=axis, keepdims=True)
    std = np.std(x, axis=axis, ddof=ddof, keepdims=True)
    x_hat = (x - mean) / (std + eps) if eps_outside else (x - mean) / np.sqrt(std ** 2 + eps)
    return i["gamma"] * x_hat + i["beta"]  # (B, T, D)


LN_BATCH_AXIS = Mistake(
    "LayerNorm over the batch axis",
    "the mean and variance were taken over axis 0, across the sequences of the batch (that is BatchNorm's "
    "direction): LayerNorm normalises each token over its own features, axis=-1 with keepdims=True",
    lambda i: _layer_norm_08(i, axis=0))

LN_TOKEN_AXIS = Mistake(
    "LayerNorm over the token axis",
    "the mean and variance were taken over axis 1, across the tokens of a sequence: LayerNorm normalises "
    "each token over its own features, axis=-1 with keepdims=True",
    lambda i: _layer_norm_08(i, axis=1))

LN_EPS_OUTSIDE = Mistake(
    "eps outside the square root",
    "you divided by np.sqrt(var) + eps; eps belongs inside, np.sqrt(var + eps), which matters for a token "
    "whose features are almost equal (its variance is below eps)",
    lambda i: _layer_norm_08(i, eps_outside=True))

LN_UNBIASED = Mistake(
    "unbiased variance (ddof=1)",
    "the variance was divided by D - 1; LayerNorm uses the plain mean of the squared deviations, "
    "np.var(x, axis=-1, keepdims=True), which divides by D",
    lambda i: _layer_norm_08(i, ddof=1))

LAYER_NORM_08 = [LN_BATCH_AXIS, LN_TOKEN_AXIS, LN_EPS_OUTSIDE, LN_UNBIASED]


def _mlp_across_tokens(i):
    """The MLP's weights applied to the token axis: x swapped to (B, D, T) first (needs T == D to run)."""
    x = np.swapaxes(i["x"], 1, 2)  # (B, D, T)
    if x.shape[-1] != i["W1"].shape[0]:
        raise ValueError("matmul: the shapes do not fit")
    return np.swapaxes(np.maximum(0.0, x @ i["W1"] + i["b1"]) @ i["W2"] + i["b2"], 1, 2)


MLP_ACROSS_TOKENS = Mistake(
    "MLP applied across tokens",
    "the weights met the token axis (x swapped to (B, D, T)), so tokens were mixed: the MLP acts on each "
    "token alone, x @ W1 + b1 on the features, the last axis of x (B, T, D)",
    _mlp_across_tokens)

RELU_BEFORE_BIAS = Mistake(
    "ReLU before the first bias",
    "b1 was added after the ReLU; the bias goes inside it: np.maximum(0, x @ W1 + b1)",
    lambda i: (np.maximum(0.0, i["x"] @ i["W1"]) + i["b1"]) @ i["W2"] + i["b2"])

RELU_AFTER_SECOND_LAYER = Mistake(
    "ReLU after the second layer",
    "the ReLU was applied to the output, after W2 and b2; it goes between the two layers, on the hidden "
    "activations x @ W1 + b1, and the output is left as it is",
    lambda i: np.maximum(0.0, (i["x"] @ i["W1"] + i["b1"]) @ i["W2"] + i["b2"]))

MLP_08 = [MLP_ACROSS_TOKENS, RELU_BEFORE_BIAS, RELU_AFTER_SECOND_LAYER]


def _block_08(i, post_norm=False, causal=True):
    from .cases import block_params_08
    return ref.transformer_block(i["x"], block_params_08(i), i["num_heads"], post_norm=post_norm, causal=causal)


RESIDUAL_AFTER_NORM = Mistake(
    "residual added before the norm (post-norm) in a pre-norm block",
    "you computed layer_norm(x + attention(x)), the post-norm layer; pre-norm normalises only the "
    "sublayer's input and adds the result to x untouched: x = x + attention(layer_norm(x))",
    lambda i: _block_08(i, post_norm=True))

MASK_FORGOTTEN = Mistake(
    "causal mask forgotten",
    "every token attended to the tokens after it too: pass causal_mask(T, T) to multi_head_attention, "
    "so that token t sees tokens 0..t only",
    lambda i: _block_08(i, causal=False))

MASK_FORGOTTEN_POST = Mistake(
    MASK_FORGOTTEN.name, MASK_FORGOTTEN.message, lambda i: _block_08(i, post_norm=True, causal=False))

POST_NORM_IGNORED = Mistake(
    "pre-norm when post_norm=True",
    "with post_norm=True the block must put the LayerNorm after each residual addition, "
    "x = layer_norm(x + attention(x)), then the same for the MLP; yours computed the pre-norm block",
    lambda i: _block_08(i))

BLOCK_08 = [RESIDUAL_AFTER_NORM, MASK_FORGOTTEN]
POST_NORM_08 = [POST_NORM_IGNORED, MASK_FORGOTTEN_POST]

PARAMETERS_NO_LAYER_NORM = Mistake(
    "LayerNorm parameters left out",
    "the two LayerNorms have trainable parameters too, a gamma and a beta of D numbers each: 4 D in all",
    lambda i: ref.block_parameters(i["D"], i["H"], i["D_ff"]) - 4 * i["D"])

FLOPS_MLP_ONCE = Mistake(
    "MLP counted once",
    "the MLP has two matrices, W1 (D, D_ff) and W2 (D_ff, D), so T D D_ff multiply-adds each: "
    "2 T D D_ff in all",
    lambda i: ref.block_flops(i["D"], i["H"], i["T"], i["D_ff"]) - i["T"] * i["D"] * i["D_ff"])
