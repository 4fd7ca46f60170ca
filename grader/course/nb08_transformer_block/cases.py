"""Notebook 08's inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time.
"""
import numpy as np


def _quiet_token(rng, x):
    """x (B, T, D) with one token whose features are almost equal (spread 0.001 about a constant): its
    variance, about 1e-6, is below LayerNorm's eps, so where eps goes shows."""
    x = np.array(x, dtype=np.float64)
    B, T, D = x.shape
    b, t = int(rng.integers(B)), int(rng.integers(T))
    x[b, t] = rng.normal() + 0.001 * rng.normal(size=D)
    return x


def layer_norm_08(rng, B, T, D, eps=1e-5):
    """LayerNorm inputs: x (B, T, D) of scale 2 about an offset, one quiet token; gamma near 1, beta near 0."""
    x = _quiet_token(rng, 2.0 * rng.normal(size=(B, T, D)) + rng.normal())
    return dict(x=x, gamma=1.0 + 0.3 * rng.normal(size=D), beta=0.3 * rng.normal(size=D), eps=eps)


def book_08_layer_norm():
    """The notebook's example: 2 sequences of 4 tokens with 6 features, eps 1e-5, drawn once from seed 8."""
    return layer_norm_08(np.random.default_rng(8), 2, 4, 6)


def fresh_08_layer_norm(rng, eps=1e-5):
    B, T = int(rng.integers(2, 4)), int(rng.integers(3, 7))
    D = int(rng.choice([d for d in range(3, 11) if d not in (B, T)]))
    return layer_norm_08(rng, B, T, D, eps)


def mlp_08(rng, B, T, D, D_ff):
    """MLP inputs: x (B, T, D), W1 (D, D_ff), b1 (D_ff,), W2 (D_ff, D), b2 (D,); biases large enough that
    where the ReLU goes shows."""
    return dict(x=rng.normal(size=(B, T, D)), W1=rng.normal(0, 1 / np.sqrt(D), size=(D, D_ff)),
                b1=rng.normal(0, 0.5, size=D_ff), W2=rng.normal(0, 1 / np.sqrt(D_ff), size=(D_ff, D)),
                b2=rng.normal(0, 0.5, size=D))


def book_08_mlp():
    """The notebook's example: 2 sequences of 4 tokens with 4 features, D_ff = 16, drawn once from seed 80."""
    return mlp_08(np.random.default_rng(80), 2, 4, 4, 16)


def fresh_08_mlp(rng, square=False):
    """Other sizes; `square`: as many tokens as features (T = D), else T != D."""
    B, D = int(rng.integers(1, 4)), int(rng.integers(3, 9))
    T = D if square else int(rng.choice([t for t in range(2, 9) if t != D]))
    D_ff = int(rng.choice([n for n in range(2 * D, 4 * D + 1) if n not in (T, D)]))
    return mlp_08(rng, B, T, D, D_ff)


def block_08(rng, B, T, H, d, D_ff):
    """A block's inputs: x (B, T, D) and its 16 parameters (reference.BLOCK_PARAMETERS), D = H d."""
    D = H * d
    out = dict(x=rng.normal(size=(B, T, D)), num_heads=H)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        out[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    for name in ("b_q", "b_k", "b_v", "b_o", "beta1", "beta2", "b2"):
        out[name] = rng.normal(0, 0.3, size=D)
    out["gamma1"], out["gamma2"] = 1.0 + 0.3 * rng.normal(size=D), 1.0 + 0.3 * rng.normal(size=D)
    out["W1"] = rng.normal(0, 1 / np.sqrt(D), size=(D, D_ff))
    out["b1"] = rng.normal(0, 0.3, size=D_ff)
    out["W2"] = rng.normal(0, 1 / np.sqrt(D_ff), size=(D_ff, D))
    return out


def book_08_block():
    """The notebook's example: 2 sequences of 5 tokens, D = 6 in 2 heads, D_ff = 24, drawn once from seed 800."""
    return block_08(np.random.default_rng(800), 2, 5, 2, 3, 24)


def fresh_08_block(rng):
    H, d = int(rng.choice((1, 2, 3))), int(rng.choice((2, 3, 4)))
    while H * d < 3:  # a LayerNorm over 2 features gives nearly +-1 whatever they were: a forgotten mask hides
        H, d = int(rng.choice((1, 2, 3))), int(rng.choice((2, 3, 4)))
    B, T = int(rng.integers(1, 4)), int(rng.integers(3, 8))
    return block_08(rng, B, T, H, d, int(rng.choice((2, 3, 4))) * H * d)


def block_params_08(i):
    """The parameters of a block case as the dict the notebook's functions take."""
    from .reference import BLOCK_PARAMETERS
    return {name: i[name] for name in BLOCK_PARAMETERS}
