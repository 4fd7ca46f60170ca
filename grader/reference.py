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


# ---- Notebook 06: contextual embeddings (row convention: a token is a row, shapes (B, T, D))

def tokenize(sentence, vocab, unk="<unk>"):
    """Token ids of a sentence: lower-cased, split on whitespace, a word not in `vocab` -> vocab[unk]."""
    return np.array([vocab.get(word, vocab[unk]) for word in sentence.lower().split()], dtype=int)  # (T,)


def word_embeddings(token_ids, embedding_matrix):
    """The rows of the embedding table for the token ids, with a batch axis in front: (1, T, D)."""
    return np.asarray(embedding_matrix, dtype=np.float64)[np.asarray(token_ids, dtype=int)][np.newaxis]


def multihead_self_attention_rows(X, W_q, W_k, W_v, W_o, num_heads):
    """Multi-head scaled self-attention in the row convention, no biases, no mask: X (B, T, D) -> (B, T, D)."""
    return multi_head_attention(X, X, X, None, num_heads, W_q, W_k, W_v, W_o)


def attention_weights_rows(X, W_q, W_k, num_heads):
    """The weights of `multihead_self_attention_rows`: (B, H, T, T), [b, h, query, key], rows sum to 1."""
    X = np.asarray(X, dtype=np.float64)
    Q = transpose_qkv(X @ W_q, num_heads)  # (B*H, T, d)
    K = transpose_qkv(X @ W_k, num_heads)  # (B*H, T, d)
    weights = softmax_rows(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1]))  # (B*H, T, T)
    return weights.reshape(X.shape[0], num_heads, X.shape[1], X.shape[1])


def principal_components(X, n_components):
    """The first principal axes of the rows of X (N, D), by SVD of the centred data: (n_components, D).

    Each axis's sign is fixed so that its largest-magnitude entry is positive:
    the SVD may return either sign, and this makes the answer unique.
    """
    X = np.asarray(X, dtype=np.float64)
    _, _, Vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)  # Vt: (min(N, D), D)
    return fix_signs(Vt[:n_components])


def fix_signs(components):
    """Flip each row so that its largest-magnitude entry is positive."""
    biggest = np.argmax(np.abs(components), axis=1)  # (k,)
    return components * np.sign(components[np.arange(len(components)), biggest])[:, np.newaxis]


# ---- Notebook 05: batched, masked multi-head attention (row convention: a token is a row, shapes (B, T, D))

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


def multihead_shared_kv(q, k, v, num_heads, proj, scale=1.0):
    """Seed 002's multi-head attention: q (B, C, E) against keys and values (C_k, E) shared by the batch,
    no input projections, heads side by side, then proj (E, E) -> (B, C, E). `scale` multiplies q."""
    B, E = np.shape(q)[0], np.shape(q)[-1]
    k, v = (np.broadcast_to(x, (B,) + np.shape(x)) for x in (k, v))  # (B, C_k, E)
    eye = np.eye(E)
    return multi_head_attention(np.asarray(q) * scale, k, v, None, num_heads, eye, eye, eye, proj)  # (B, C, E)


def causal_valid_lens(batch_size, num_steps):
    """The causal mask as valid lengths: query t sees keys 0..t, a length of t + 1. -> (B, T)."""
    return np.tile(np.arange(1, num_steps + 1), (batch_size, 1))


def key_padding_mask(valid_lens, num_keys):
    """The padding mask as booleans, True where a key may be attended (key j < valid_lens[b]): (B,) -> (B, 1, Tk).

    The axis of length 1 broadcasts over the queries of scores (B, Tq, Tk)."""
    return np.arange(num_keys) < np.asarray(valid_lens)[:, None, None]  # (B, 1, Tk)


def causal_mask(num_queries, num_keys):
    """The causal mask as booleans: query t may attend to keys 0..t, True on and below the diagonal. -> (Tq, Tk)."""
    return np.tril(np.ones((num_queries, num_keys), dtype=bool))  # (Tq, Tk)


def masked_softmax_bool(scores, mask):
    """Softmax over the keys of scores (B, Tq, Tk) where `mask` (broadcastable to it) is True.

    The other scores become MASK_VALUE first, exactly as in `masked_softmax`, so a query whose mask is all
    False gets uniform weights 1/Tk; with mask = key_padding_mask(valid_lens, Tk) it is masked_softmax."""
    scores = np.asarray(scores, dtype=np.float64)
    return softmax_rows(np.where(mask, scores, MASK_VALUE))  # (B, Tq, Tk)


def init_weight(fan_in, fan_out, rng):
    """A weight for x @ W, (fan_in, fan_out): normal, std 1/sqrt(fan_in), so x @ W keeps the scale of x."""
    return rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))


# ---- Notebook 03: Permutation equivariance (problem 12.3)

def permutation_matrices(n):
    """All n! permutation matrices of size n x n, in itertools order: X @ P puts column order[j] of X in place j."""
    import itertools
    identity = np.eye(n)
    return [identity[:, list(order)] for order in itertools.permutations(range(n))]  # n! x (n, n)


def distinct_matrices(matrices):
    """The distinct matrices of a list, each once and sorted: the list compared as a set, whatever its order."""
    return np.unique(np.array(matrices, dtype=np.float64), axis=0)  # (k, n, n)


def equivariance_violation(f, X):
    """The largest |f(X P) - f(X) P| over every permutation matrix P: zero (up to rounding) iff f is equivariant."""
    f_X = f(X)  # (D', N)
    return max(np.max(np.abs(f(X @ P) - f_X @ P)) for P in permutation_matrices(X.shape[1]))


def is_permutation_equivariant(f, X, tolerance=1e-6):
    """Whether f(X P) == f(X) P, within `tolerance`, for every N x N permutation matrix P."""
    return bool(equivariance_violation(f, X) <= tolerance)


def same_columns_for_every_permutation(f, X, tolerance=1e-4):
    """Seed 003's weaker check: f(X P) holds the same set of columns, in any order, for every P."""
    def same_set(A, B):
        if A.shape != B.shape:
            return False
        close = np.array([[np.allclose(a, b, atol=tolerance) for b in B.T] for a in A.T])  # (N, N)
        return bool(close.any(axis=1).all() and close.any(axis=0).all())
    outputs = [f(X @ P) for P in permutation_matrices(X.shape[1])]
    return all(same_set(outputs[0], B) for B in outputs[1:])


def position_encoding(D, N):
    """Sinusoidal position encodings, one column per position, (D, N): rows 2i and 2i+1 hold
    sin and cos of n / 10000^(2i/D) (Vaswani et al., 2017, in the book's column convention)."""
    positions = np.arange(N)[np.newaxis, :]  # (1, N)
    rows = np.arange(D)[:, np.newaxis]  # (D, 1)
    angles = positions / 10000.0 ** (2 * (rows // 2) / D)  # (D, N)
    return np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))  # (D, N)


# ====================================================================== notebook 07: backpropagation through attention

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
    attention backward pass, the tiny transformer's (grader/tiny_transformer.py)."""
    from . import tiny_transformer
    x = np.asarray(x, dtype=np.float64)
    params = {name: np.asarray(params[name], dtype=np.float64) for name in MHA_GRADIENTS}
    _, cache = tiny_transformer.attention_forward(x, params, int(num_heads))
    dx, grads = tiny_transformer.attention_backward(np.asarray(dout, dtype=np.float64), cache)
    return dx, {name: grads[name] for name in MHA_GRADIENTS}


def mha_loss(x, params, num_heads, dout):
    """The loss whose gradients `mha_backward` returns: L = sum(output * dout), so dL/d(output) = dout."""
    from . import tiny_transformer
    out, _ = tiny_transformer.attention_forward(np.asarray(x, dtype=np.float64), params, int(num_heads))
    return float(np.sum(out * dout))


# ====================================================================== notebook 08: the transformer block


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


# ====================================================================== notebook 09: a tiny transformer, trained
from . import tiny_transformer as tiny  # the model notebook 09 gives: one module, copied into it by the build

ADAM = dict(beta1=0.9, beta2=0.999, eps=1e-8)   # Adam's defaults (Kingma and Ba, 2015, Algorithm 1)


def cross_entropy(logits, targets, weights):
    """(loss, dlogits): the mean of -log p(target) over the positions of weight 1, and its gradient
    (softmax - one-hot) * weight / (sum of the weights), for logits (B, T, V)."""
    shifted = logits - np.max(logits, axis=-1, keepdims=True)  # (B, T, V)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))  # (B, T, V)
    count = np.sum(weights)
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    loss = -np.sum(weights * picked) / count
    dlogits = np.exp(log_p)  # (B, T, V): the softmax
    np.put_along_axis(dlogits, targets[..., None], np.take_along_axis(dlogits, targets[..., None], -1) - 1, -1)
    return loss, dlogits * (weights / count)[..., None]


def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """One Adam step for one array: (new param, new m, new v); t counts steps from 1."""
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = m / (1 - beta1 ** t)  # bias correction: m and v start at 0
    v_hat = v / (1 - beta2 ** t)
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


def train_step(params, adam_state, tokens, targets, weights, lr, num_heads,
               loss_fn=cross_entropy, step_fn=adam_step):
    """One step of training: forward, loss, backward, then Adam on every parameter. Updates params and
    adam_state (t, m, v) in place and returns the loss before the step."""
    logits, cache = tiny.model_forward(params, tokens, num_heads)
    loss, dlogits = loss_fn(logits, targets, weights)
    grads = tiny.model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = step_fn(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss


def train_step_result(i, loss_fn=cross_entropy, step_fn=adam_step):
    """What notebook 09's train_step probe reports for the inputs i: [loss, t, params..., m..., v...] after
    one step, in the order of i["names"]."""
    names = i["names"]
    params = {n: np.array(a, dtype=float) for n, a in zip(names, i["params"])}
    state = {"t": i["t"], "m": {n: np.array(a, dtype=float) for n, a in zip(names, i["m"])},
             "v": {n: np.array(a, dtype=float) for n, a in zip(names, i["v"])}}
    loss = train_step(params, state, i["tokens"], i["targets"], i["weights"], i["lr"], i["num_heads"],
                      loss_fn, step_fn)
    return ([loss, state["t"]] + [params[n] for n in names] + [state["m"][n] for n in names]
            + [state["v"][n] for n in names])


def train(seed=None, steps=None, step=train_step):
    """The model trained as notebook 09 trains it: (params, the loss at each step)."""
    cfg = dict(tiny.TRAINING, **({} if seed is None else {"seed": seed}), **({} if steps is None else {"steps": steps}))
    rng = np.random.default_rng(cfg["seed"])
    params = tiny.init_model(rng, D=cfg["D"], D_ff=cfg["D_ff"])
    state = tiny.adam_init(params)
    losses = []
    for _ in range(cfg["steps"]):
        tokens, targets, weights = tiny.reversal_batch(rng, cfg["batch_size"])
        losses.append(step(params, state, tokens, targets, weights, cfg["lr"], cfg["num_heads"]))
    return params, losses


def trained_parameters():
    """The course's trained model, as the list of its parameters in tiny.PARAMETERS order (one right answer
    to notebook 09's last part, for the tests); trained once per process."""
    global _TRAINED
    if _TRAINED is None:
        params, _ = train()
        _TRAINED = [params[n] for n in tiny.PARAMETERS]
    return _TRAINED


_TRAINED = None
FULL_MARKS_ACCURACY = 0.95   # notebook 09's trained model: full marks from this token accuracy on fresh sequences,
HALF_MARKS_ACCURACY = 0.60   # half marks from this one, none below (a model that guesses a digit gets 0.10)


def judge_trained(i, value):
    """(share of the marks, what to say) for a trained model's parameters `value`, by the token accuracy of the
    course's model_forward with them on the fresh sequences of i. Two steps, not a slope: a score that does
    not move with the sequences drawn."""
    n = len(i["tokens"])
    if not isinstance(value, list) or len(value) != len(tiny.PARAMETERS):
        return 0.0, f"params should hold the model's {len(tiny.PARAMETERS)} arrays, as init_model made them"
    params = dict(zip(tiny.PARAMETERS, value))
    shapes = {n_: np.shape(a) for n_, a in params.items()}
    cfg = tiny.TRAINING  # the shapes init_model gives with the notebook's sizes: nothing is trained to know them
    want = {n_: np.shape(a) for n_, a in tiny.init_model(np.random.default_rng(0), D=cfg["D"], D_ff=cfg["D_ff"]).items()}
    if shapes != want:
        wrong = next(n_ for n_ in tiny.PARAMETERS if shapes[n_] != want[n_])
        return 0.0, (f"params[{wrong!r}] has shape {shapes[wrong]}, not {want[wrong]}: train the model init_model "
                     "made, with the notebook's sizes")
    if not all(np.all(np.isfinite(a)) for a in value):
        return 0.0, ("the trained parameters hold nan or inf, so the training diverged: look at the loss curve "
                     "and at the checks of adam_step and train_step")
    accuracy = tiny.token_accuracy(params, i["tokens"], i["targets"], i["weights"], tiny.TRAINING["num_heads"])
    said = f"token accuracy {accuracy:.1%} on {n} fresh sequences drawn at grading time"
    if accuracy >= FULL_MARKS_ACCURACY:
        return 1.0, said
    share = 0.5 if accuracy >= HALF_MARKS_ACCURACY else 0.0
    return share, (said + f"; full marks need {FULL_MARKS_ACCURACY:.0%}, half marks {HALF_MARKS_ACCURACY:.0%}. "
                   "Does your loss curve fall? The checks of cross_entropy, adam_step and train_step say where to look")
