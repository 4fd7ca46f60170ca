"""The course's tiny transformer, with its backward pass: what notebook 09 gives you.

One pre-norm block of notebook 08 (causal multi-head attention, then the MLP, each with a LayerNorm and
a residual), between token and position embeddings and a final LayerNorm with a linear read-out, in the
row convention: a batch of B sequences of T tokens is (B, T), its features (B, T, D).
Every forward function returns its output and a cache; the matching backward function takes the
gradient of the loss with respect to that output and the cache, and returns the gradients of the
inputs and the parameters, as notebook 07 derived them.
"""
import numpy as np

# ---------------------------------------------------------------- the task: reverse a sequence of digits

DIGITS = 10     # tokens 0..9 are digits
SEP = 10        # token 10 separates the digits from their reversal
VOCAB = 11      # the model reads and predicts these 11 tokens
LENGTH = 6      # digits per sequence


def reversal_batch(rng, batch_size, length=LENGTH):
    """(tokens, targets, weights) for sequences "d_0 .. d_{L-1} SEP d_{L-1} .. d_0".
    tokens (B, 2L) is what the model reads; targets (B, 2L) the next token at each position; weights (B, 2L)
    1.0 where the target is a digit of the reversal (positions L .. 2L-1), 0.0 at positions 0 .. L-1: their
    targets are the random digits d_1 .. d_{L-1}, which nothing can predict, and at position L-1 always SEP,
    which the position alone tells, left out too so that only the reversal counts."""
    digits = rng.integers(0, DIGITS, size=(batch_size, length))  # (B, L)
    sequence = np.concatenate([digits, np.full((batch_size, 1), SEP), digits[:, ::-1]], axis=1)  # (B, 2L+1)
    weights = np.zeros((batch_size, 2 * length))  # (B, 2L)
    weights[:, length:] = 1.0
    return sequence[:, :-1], sequence[:, 1:], weights


# How notebook 09 trains the model: its sizes, Adam's learning rate, and a time limit well inside the
# grader's 60 s per cell, so that a slow step ends the training, not the notebook
TRAINING = dict(D=32, num_heads=2, D_ff=64, steps=200, batch_size=32, lr=3e-3, seed=0, time_limit=40)


# ---------------------------------------------------------------- the pieces, forward and backward

def softmax(x):
    """Softmax over the last axis, the maximum subtracted first."""
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def causal_mask(T):
    """(T, T): True where query t may attend to key j, that is j <= t."""
    return np.tril(np.ones((T, T), dtype=bool))


def layer_norm_forward(x, gamma, beta, eps=1e-5):
    """LayerNorm of each token over its D features (notebook 08)."""
    mean = np.mean(x, axis=-1, keepdims=True)  # (B, T, 1)
    std = np.sqrt(np.var(x, axis=-1, keepdims=True) + eps)  # (B, T, 1)
    x_hat = (x - mean) / std  # (B, T, D)
    return gamma * x_hat + beta, (x_hat, std, gamma)


def layer_norm_backward(dout, cache):
    """dx (B, T, D), dgamma (D,), dbeta (D,): each token's mean and deviation depend on all its features,
    hence the two mean terms."""
    x_hat, std, gamma = cache
    dgamma = np.sum(dout * x_hat, axis=(0, 1))  # (D,)
    dbeta = np.sum(dout, axis=(0, 1))  # (D,)
    dx_hat = dout * gamma  # (B, T, D)
    dx = (dx_hat - np.mean(dx_hat, axis=-1, keepdims=True)
          - x_hat * np.mean(dx_hat * x_hat, axis=-1, keepdims=True)) / std  # (B, T, D)
    return dx, dgamma, dbeta


def mlp_forward(x, W1, b1, W2, b2):
    """The position-wise MLP with a ReLU (notebook 08)."""
    z = x @ W1 + b1  # (B, T, D_ff)
    hidden = np.maximum(0.0, z)  # (B, T, D_ff)
    return hidden @ W2 + b2, (x, z, hidden, W1, W2)


def mlp_backward(dout, cache):
    """dx and the gradients of W1, b1, W2, b2; the weights' gradients are summed over every token."""
    x, z, hidden, W1, W2 = cache
    dW2 = np.einsum("btf,btd->fd", hidden, dout)  # (D_ff, D)
    db2 = np.sum(dout, axis=(0, 1))  # (D,)
    dz = (dout @ W2.T) * (z > 0)  # (B, T, D_ff): the ReLU passes the gradient where it passed the input
    dW1 = np.einsum("btd,btf->df", x, dz)  # (D, D_ff)
    db1 = np.sum(dz, axis=(0, 1))  # (D_ff,)
    return dz @ W1.T, dW1, db1, dW2, db2


def split_heads(X, num_heads):
    """(B, T, D) -> (B, H, T, D/H)."""
    B, T, D = X.shape
    return X.reshape(B, T, num_heads, D // num_heads).transpose(0, 2, 1, 3)


def merge_heads(X):
    """(B, H, T, d) -> (B, T, H*d): the heads' features side by side."""
    B, H, T, d = X.shape
    return X.transpose(0, 2, 1, 3).reshape(B, T, H * d)


def attention_forward(x, p, num_heads):
    """Causal multi-head self-attention of x (B, T, D), weights p["W_q"] .. p["b_o"] (notebook 08)."""
    Q = split_heads(x @ p["W_q"] + p["b_q"], num_heads)  # (B, H, T, d)
    K = split_heads(x @ p["W_k"] + p["b_k"], num_heads)  # (B, H, T, d)
    V = split_heads(x @ p["W_v"] + p["b_v"], num_heads)  # (B, H, T, d)
    d = Q.shape[-1]
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)  # (B, H, T, T): query t's score for key j
    A = softmax(np.where(causal_mask(x.shape[1]), scores, -1e6))  # (B, H, T, T): each row sums to 1
    heads = merge_heads(A @ V)  # (B, T, D)
    return heads @ p["W_o"] + p["b_o"], (x, Q, K, V, A, heads, p)


def attention_backward(dout, cache):
    """dx (B, T, D) and {"W_q": ..., "b_o": ...}: notebook 07's backward pass, for every head at once.
    A masked weight is 0, so its score gets no gradient: the mask needs no code of its own here."""
    x, Q, K, V, A, heads, p = cache
    num_heads, d = Q.shape[1], Q.shape[-1]
    grads = {"W_o": np.einsum("btd,bte->de", heads, dout), "b_o": np.sum(dout, axis=(0, 1))}
    d_heads = split_heads(dout @ p["W_o"].T, num_heads)  # (B, H, T, d)
    dA = d_heads @ V.transpose(0, 1, 3, 2)  # (B, H, T, T)
    dV = A.transpose(0, 1, 3, 2) @ d_heads  # (B, H, T, d)
    d_scores = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)  # (B, H, T, T): the softmax's VJP
    dQ = d_scores @ K  # (B, H, T, d)
    dK = d_scores.transpose(0, 1, 3, 2) @ Q  # (B, H, T, d)
    dx = np.zeros_like(x)  # (B, T, D)
    for name, d_proj in (("q", dQ), ("k", dK), ("v", dV)):
        d_proj = merge_heads(d_proj)  # (B, T, D)
        grads["W_" + name] = np.einsum("btd,bte->de", x, d_proj)  # (D, D)
        grads["b_" + name] = np.sum(d_proj, axis=(0, 1))  # (D,)
        dx += d_proj @ p["W_" + name].T  # x feeds all three projections: their gradients add
    return dx, grads


# ---------------------------------------------------------------- the model

BLOCK = ("W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o",
         "gamma1", "beta1", "W1", "b1", "W2", "b2", "gamma2", "beta2")   # notebook 08's names
PARAMETERS = ("tok_emb", "pos_emb") + BLOCK + ("gamma_f", "beta_f", "W_out", "b_out")


def init_model(rng, D=32, D_ff=64, T=2 * LENGTH, vocab=VOCAB):
    """A dict of the model's parameters: weights drawn with scale 1/sqrt(fan-in), embeddings with scale 0.1,
    biases 0, LayerNorm gains 1."""
    p = {"tok_emb": 0.1 * rng.normal(size=(vocab, D)), "pos_emb": 0.1 * rng.normal(size=(T, D))}
    for name in ("W_q", "W_k", "W_v", "W_o"):
        p[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    p["W1"] = rng.normal(0, 1 / np.sqrt(D), size=(D, D_ff))
    p["W2"] = rng.normal(0, 1 / np.sqrt(D_ff), size=(D_ff, D))
    p["W_out"] = rng.normal(0, 1 / np.sqrt(D), size=(D, vocab))
    for name, size in (("b_q", D), ("b_k", D), ("b_v", D), ("b_o", D), ("b1", D_ff), ("b2", D),
                       ("beta1", D), ("beta2", D), ("beta_f", D), ("b_out", vocab)):
        p[name] = np.zeros(size)
    for name in ("gamma1", "gamma2", "gamma_f"):
        p[name] = np.ones(D)
    return {name: p[name] for name in PARAMETERS}


def model_forward(p, tokens, num_heads):
    """logits (B, T, vocab) for tokens (B, T), and the cache model_backward needs."""
    T = tokens.shape[1]
    x0 = p["tok_emb"][tokens] + p["pos_emb"][:T]  # (B, T, D): what each token is, and where
    h1, ln1 = layer_norm_forward(x0, p["gamma1"], p["beta1"])
    a, att = attention_forward(h1, p, num_heads)
    x1 = x0 + a  # (B, T, D): residual
    h2, ln2 = layer_norm_forward(x1, p["gamma2"], p["beta2"])
    m, ff = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
    x2 = x1 + m  # (B, T, D): residual
    hf, lnf = layer_norm_forward(x2, p["gamma_f"], p["beta_f"])
    logits = hf @ p["W_out"] + p["b_out"]  # (B, T, vocab)
    return logits, (tokens, ln1, att, ln2, ff, lnf, hf, p)


def model_backward(dlogits, cache):
    """{name: gradient} for every parameter, from dlogits (B, T, vocab), the gradient of the loss."""
    tokens, ln1, att, ln2, ff, lnf, hf, p = cache
    g = {"W_out": np.einsum("btd,btv->dv", hf, dlogits), "b_out": np.sum(dlogits, axis=(0, 1))}
    dx2, g["gamma_f"], g["beta_f"] = layer_norm_backward(dlogits @ p["W_out"].T, lnf)
    dh2, g["W1"], g["b1"], g["W2"], g["b2"] = mlp_backward(dx2, ff)
    dx1_norm, g["gamma2"], g["beta2"] = layer_norm_backward(dh2, ln2)
    dx1 = dx2 + dx1_norm  # (B, T, D): the residual passes dx2 straight through
    dh1, att_grads = attention_backward(dx1, att)
    g.update(att_grads)
    dx0_norm, g["gamma1"], g["beta1"] = layer_norm_backward(dh1, ln1)
    dx0 = dx1 + dx0_norm  # (B, T, D)
    g["pos_emb"] = np.zeros_like(p["pos_emb"])
    g["pos_emb"][:tokens.shape[1]] = np.sum(dx0, axis=0)  # (T, D): every sequence uses the same positions
    g["tok_emb"] = np.zeros_like(p["tok_emb"])
    np.add.at(g["tok_emb"], tokens, dx0)  # a token that appears twice gets both gradients
    return {name: g[name] for name in PARAMETERS}


def attention_maps(p, tokens, num_heads):
    """The attention weights (B, H, T, T) of the model's block on tokens (B, T): row t is query t's."""
    _, cache = model_forward(p, tokens, num_heads)
    return cache[2][4]


def token_accuracy(p, tokens, targets, weights, num_heads):
    """The share of the counted positions (weight 1) where the most likely token is the target."""
    logits, _ = model_forward(p, tokens, num_heads)
    right = np.argmax(logits, axis=-1) == targets  # (B, T)
    return float(np.sum(right * weights) / np.sum(weights))


def adam_init(p):
    """Adam's state: the step count and a first and second moment, zero, for every parameter."""
    return {"t": 0, "m": {n: np.zeros_like(v) for n, v in p.items()},
            "v": {n: np.zeros_like(v) for n, v in p.items()}}
