"""The reference's named steps (Probe.steps): the intermediate values every right answer computes, in the
notebook's words, so a wrong answer can be told the first step it gets wrong (grader/engine/steps.py).

A step is declared only when every right answer computes it the same, up to a transpose, a reshape of
the same numbers, broadcasting or float32: the queries, the scores, the weights, a LayerNorm's mean. What a
student may rightly choose (the value a masked score gets, a shift before np.exp) is never a step, because
"no array of yours equals it" would then say nothing true about their mistake. Each builder takes a case's
inputs and returns [Step], the last being the part's result (or, for a part with several results, each of
them, with the steps they are computed from).
"""
import contextlib
import contextvars

import numpy as np

from . import reference as ref
from ...engine.protocol import Step

# Step values put in place of the reference's while the builders run (tests/test_steps.py): {name: value}.
# A step replaced changes every step computed from it, so a test can ask whether a step can be seen in the
# part's result at all on the inputs a case draws.
_REPLACED = contextvars.ContextVar("replaced", default={})


@contextlib.contextmanager
def replaced(values):
    """Within the block, the builders use `values` ({step name: array}) for those steps."""
    token = _REPLACED.set(dict(values))
    try:
        yield
    finally:
        _REPLACED.reset(token)


def _v(name, value):
    """A step's value: the reference's, or the one `replaced` puts in its place."""
    return _REPLACED.get().get(name, value)


def attention_12_1(i, scale=False, prefix="", names=("X", "omega_v", "omega_q", "omega_k", "beta_v", "beta_q",
                                                     "beta_k"), output=True):
    """Self-attention in the book's columns (eqs. 12.2-12.9): queries, keys, values, scores, (scaled scores),
    weights, output. `prefix` names a head ("head 2's ")."""
    X, ov, oq, ok, bv, bq, bk = (np.asarray(i[n], dtype=np.float64) for n in names)
    p = prefix
    Q, K, V = _v(f"{p}queries", oq @ X + bq), _v(f"{p}keys", ok @ X + bk), _v(f"{p}values", ov @ X + bv)  # (D_q, N), (D_q, N), (D_v, N)
    S = _v(f"{p}scores", K.T @ Q)  # (N, N): [key m, query n]
    steps = [Step(f"{p}queries", "omega_q @ X + beta_q", Q, ("features", "tokens"), ()),
             Step(f"{p}keys", "omega_k @ X + beta_k", K, ("features", "tokens"), ()),
             Step(f"{p}values", "omega_v @ X + beta_v", V, ("features", "tokens"), ()),
             Step(f"{p}scores", "K.T @ Q", S, ("keys", "queries"), (f"{p}queries", f"{p}keys"))]
    last = f"{p}scores"
    if scale:
        S = _v(f"{p}scaled scores", S / np.sqrt(Q.shape[0]))
        steps.append(Step(f"{p}scaled scores", "K.T @ Q / np.sqrt(D_q), D_q the queries' size", S,
                          ("keys", "queries"), (last,)))
        last = f"{p}scaled scores"
    A = _v(f"{p}attention weights", ref.softmax_cols(S))
    steps.append(Step(f"{p}attention weights", f"softmax_cols of the {last.removeprefix(p)}, down each column",
                      A, ("keys", "queries"), (last,)))
    if output:
        steps.append(Step(f"{p}output", "V @ the attention weights", _v(f"{p}output", V @ A), ("features", "tokens"),
                          (f"{p}values", f"{p}attention weights")))
    return steps


def multihead_12_1(X, heads, omega_c):
    """The book's multi-head self-attention: each head's steps, the heads stacked, then omega_c."""
    steps, outputs = [], []
    for h, head in enumerate(heads):
        names = ("X", "omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
        head_steps = attention_12_1(dict(zip(names, (X,) + tuple(head))), scale=True, prefix=f"head {h + 1}'s ")
        steps += head_steps
        outputs.append(head_steps[-1].value)
    stacked = _v("stacked heads", np.vstack(outputs))  # (D, N)
    steps.append(Step("stacked heads", "the heads' outputs one on top of the other (np.vstack)", stacked,
                      ("features", "tokens"), tuple(f"head {h + 1}'s output" for h in range(len(heads)))))
    steps.append(Step("output", "omega_c @ the stacked heads", np.asarray(omega_c) @ stacked, ("features", "tokens"),
                      ("stacked heads",)))
    return steps


def softmax_cols(data_in):
    """02's stable softmax down each column: the column maxima, the exponentials of the shifted scores, the
    column sums, the result. (Subtracting each column's maximum is what the part asks for.)"""
    x = np.asarray(data_in, dtype=np.float64)
    top = _v("column maxima", np.max(x, axis=0, keepdims=True))  # (1, M)
    shifted = _v("shifted scores", x - top)
    e = _v("exponentials", np.exp(shifted))  # (N, M)
    sums = _v("column sums", e.sum(axis=0, keepdims=True))
    return [Step("column maxima", "np.max(data_in, axis=0)", top, ("rows", "columns"), (), moves_result=False,
                 reduces=("data_in", "maximum", np.max, (0,))),
            Step("shifted scores", "data_in minus its column's maximum", shifted, ("rows", "columns")),
            Step("exponentials", "np.exp of the shifted scores", e, ("rows", "columns")),
            Step("column sums", "the exponentials summed down each column", sums, ("rows", "columns")),
            Step("softmax", "the exponentials divided by their column's sum", e / sums,
                 ("rows", "columns"), ("exponentials", "column sums"))]


def rows_attention(queries, keys, values, valid_lens, H, W_q, W_k, W_v, W_o, b_q=0.0, b_k=0.0, b_v=0.0, b_o=0.0):
    """Multi-head attention in the row convention (d2l 11.5; notebooks 05, 06, 08): the projections, the
    heads split, the scaled scores, the (masked) weights, each head's output, the heads merged, the output."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (queries, keys, values))
    Pq, Pk, Pv = (_v("projected queries", q @ W_q + b_q), _v("projected keys", k @ W_k + b_k),
                  _v("projected values", v @ W_v + b_v))  # (B, T, D)
    Q, K, V = (_v(f"{what} split into heads", ref.transpose_qkv(a, H))
               for what, a in (("queries", Pq), ("keys", Pk), ("values", Pv)))  # (B*H, T, d)
    S = _v("scaled scores", Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))  # (B*H, Tq, Tk)
    lens = None if valid_lens is None else np.repeat(valid_lens, H, axis=0)
    A = _v("attention weights", ref.masked_softmax(S, lens))  # (B*H, Tq, Tk)
    O = _v("heads' outputs", A @ V)  # (B*H, Tq, d)
    merged = _v("merged heads", ref.transpose_output(O, H))  # (B, Tq, D)
    axes, split = ("items", "tokens", "features"), ("(sequence, head) pairs", "tokens", "features")
    return [Step("projected queries", "queries @ W_q + b_q", Pq, axes, ()),
            Step("projected keys", "keys @ W_k + b_k", Pk, axes, ()),
            Step("projected values", "values @ W_v + b_v", Pv, axes, ()),
            Step("queries split into heads", "transpose_qkv of the projected queries, (B*H, T, d)", Q, split,
                 ("projected queries",)),
            Step("keys split into heads", "transpose_qkv of the projected keys", K, split, ("projected keys",)),
            Step("values split into heads", "transpose_qkv of the projected values", V, split, ("projected values",)),
            Step("scaled scores", "Q @ K^T / np.sqrt(d) for each head, d its queries' size", S,
                 ("(sequence, head) pairs", "queries", "keys"), ("queries split into heads", "keys split into heads")),
            Step("attention weights", "the softmax of the scaled scores over the keys" +
                 (", masked" if valid_lens is not None else ""), A, ("(sequence, head) pairs", "queries", "keys"), ("scaled scores",)),
            Step("heads' outputs", "the weights @ V for each head", O, split,
                 ("attention weights", "values split into heads")),
            Step("merged heads", "transpose_output of the heads' outputs, (B, T, D)", merged, axes, ("heads' outputs",)),
            Step("output", "the merged heads @ W_o + b_o", merged @ W_o + b_o, axes, ("merged heads",))]


def loop_heads(q, k_in, v_in, H, proj):
    """05's loop over heads (keys and values shared by the batch, no input projections): for each head, its
    scaled scores (its slice of q against its slice of k, over the square root of the head's size), their
    softmax over the keys, its output (B, C, E/H); then the heads side by side, the projection."""
    q = np.asarray(q, dtype=np.float64)
    B, E = q.shape[0], q.shape[-1]
    d = E // H
    axes, square = ("items", "tokens", "features"), ("items", "queries", "keys")
    steps, heads = [], []
    given = {"q": q, "k": np.asarray(k_in, dtype=np.float64), "v": np.asarray(v_in, dtype=np.float64)}
    for h in range(H):
        part, p = slice(h * d, (h + 1) * d), f"head {h + 1}'s "
        # Its slices of the inputs, as the inputs hold them (k and v are (C, E), shared by the batch)
        sliced = {n: _v(f"{p}{word}", x[..., part]) for n, x, word in
                  (("q", q, "queries"), ("k", given["k"], "keys"), ("v", given["v"], "values"))}
        kk, vv = (np.broadcast_to(sliced[n], (B,) + sliced[n].shape[-2:]) for n in ("k", "v"))
        S = _v(f"{p}scaled scores", sliced["q"] @ np.swapaxes(kk, -1, -2) / np.sqrt(d))  # (B, C, C_k)
        A = _v(f"{p}attention weights", ref.softmax_rows(S))  # (B, C, C_k)
        heads.append(_v(f"{p}output", A @ vv))  # (B, C, d)
        steps += [Step(f"{p}{word}", f"{n}[..., {h * d}:{(h + 1) * d}]", sliced[n], axes[-given[n].ndim:], (),
                       slices=(n, -1)) for n, word in (("q", "queries"), ("k", "keys"), ("v", "values"))]
        steps += [Step(f"{p}scaled scores", f"q_head @ k_head.T / np.sqrt(split_dim), head {h + 1}'s slices", S,
                       square, (f"{p}queries", f"{p}keys")),
                  Step(f"{p}attention weights", f"the softmax of head {h + 1}'s scaled scores over the keys", A, square),
                  Step(f"{p}output", f"head {h + 1}'s attention weights @ v_head", heads[h], axes,
                       (f"{p}attention weights", f"{p}values"))]
    side = _v("heads side by side", np.concatenate(heads, axis=-1))  # (B, C, E)
    return steps + [Step("heads side by side", "np.concatenate of the heads' outputs along the features", side, axes,
                         tuple(f"head {h + 1}'s output" for h in range(H))),
                    Step("output", "the heads side by side @ proj", side @ proj, axes, ("heads side by side",))]


def layer_norm(x, gamma, beta, eps):
    """LayerNorm over each token's features: the mean, the centred features, the variance, x_hat, the result."""
    x = np.asarray(x, dtype=np.float64)
    mean = _v("mean", x.mean(axis=-1, keepdims=True))  # (B, T, 1)
    centred = _v("centred features", x - mean)
    var = _v("variance", x.var(axis=-1, keepdims=True))  # (B, T, 1)
    x_hat = _v("normalised features x_hat", centred / np.sqrt(var + eps))  # (B, T, D)
    axes = ("items", "tokens", "features")
    # The input is the part's `x` (the probe's case holds it under that name)
    return [Step("mean", "each token's mean over its features", mean, axes, (), reduces=("x", "mean", np.mean, (-1,))),
            Step("centred features", "x minus its token's mean", centred, axes, ("mean",)),
            Step("variance", "each token's mean squared deviation (divided by D, not D - 1)", var, axes, (),
                 reduces=("x", "variance", np.var, (-1,))),
            Step("normalised features x_hat", "(x - mean) / np.sqrt(variance + eps)", x_hat, axes,
                 ("centred features", "variance")),
            Step("result", "gamma * x_hat + beta", gamma * x_hat + beta, axes, ("normalised features x_hat",))]


def mlp(x, W1, b1, W2, b2):
    """The position-wise MLP: the hidden pre-activations, the ReLU, the result."""
    h = _v("hidden pre-activations", np.asarray(x, dtype=np.float64) @ W1 + b1)  # (B, T, D_ff)
    r = _v("ReLU", np.maximum(0.0, h))
    axes = ("items", "tokens", "features")
    return [Step("hidden pre-activations", "x @ W1 + b1", h, axes, ()),
            Step("ReLU", "np.maximum(0, x @ W1 + b1)", r, axes,
                 entrywise=("hidden pre-activations", "np.maximum(0, h)")),
            Step("result", "the ReLU @ W2 + b2", r @ W2 + b2, axes)]


def transformer_block(x, params, num_heads, post_norm, norm, attention, feed_forward, mask=None):
    """A transformer block, pre-norm or post-norm: each sublayer's input, its output, each residual sum; and,
    when the block makes a `mask` (T, T) of its own, that mask first, with `attention(h, mask)`."""
    x = np.asarray(x, dtype=np.float64)
    axes = ("items", "tokens", "features")
    ln1 = lambda h: norm(h, params["gamma1"], params["beta1"])  # noqa: E731
    ln2 = lambda h: norm(h, params["gamma2"], params["beta2"])  # noqa: E731
    first, seen = [], ()
    if mask is not None:
        m = _v("causal mask", np.asarray(mask, dtype=np.float64))  # (T, T): 1 where query t sees key j
        first, seen = [Step("causal mask", "causal_mask(T, T)", m, ("queries", "keys"), ())], ("causal mask",)
        attend = lambda h: attention(h, m != 0)  # noqa: E731
    else:
        attend = attention
    if post_norm:
        a = _v("attention output", attend(x))
        s1 = _v("first residual sum", x + a)
        x1 = _v("first LayerNorm's output", ln1(s1))
        f = _v("MLP output", feed_forward(x1))
        s2 = _v("second residual sum", x1 + f)
        return first + [
            Step("attention output", "the attention of x", a, axes, seen),
            Step("first residual sum", "x + the attention output", s1, axes, ("attention output",)),
            Step("first LayerNorm's output", "LayerNorm 1 of the first residual sum", x1, axes),
            Step("MLP output", "the MLP of the first LayerNorm's output", f, axes),
            Step("second residual sum", "the first LayerNorm's output + the MLP output", s2, axes,
                 ("first LayerNorm's output", "MLP output")),
            Step("result", "LayerNorm 2 of the second residual sum", ln2(s2), axes)]
    n1 = _v("first LayerNorm's output", ln1(x))
    a = _v("attention output", attend(n1))
    x1 = _v("first residual sum", x + a)
    n2 = _v("second LayerNorm's output", ln2(x1))
    f = _v("MLP output", feed_forward(n2))
    return first + [
        Step("first LayerNorm's output", "LayerNorm 1 of x", n1, axes, ()),
        Step("attention output", "the attention of the first LayerNorm's output", a, axes,
             ("first LayerNorm's output",) + seen),
        Step("first residual sum", "x + the attention output", x1, axes, ("attention output",)),
        Step("second LayerNorm's output", "LayerNorm 2 of the first residual sum", n2, axes),
        Step("MLP output", "the MLP of the second LayerNorm's output", f, axes),
        Step("result", "the first residual sum + the MLP output", x1 + f, axes,
             ("first residual sum", "MLP output"))]


def attention_backward_12_1(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
    """07's backward pass through scaled self-attention in the book's columns: the forward pass's weights,
    then dV, dA, dS, dQ, dK, then the seven gradients it returns (in the probe's order)."""
    X, ov, oq, ok = (np.asarray(a, dtype=np.float64) for a in (X, omega_v, omega_q, omega_k))
    Q, K, V = oq @ X + beta_q, ok @ X + beta_k, ov @ X + beta_v
    c = 1.0 / np.sqrt(Q.shape[0])
    A = _v("attention weights", ref.softmax_cols(K.T @ Q * c))  # (N, N)
    dV, dA = _v("gradient of the values dV", dX_prime @ A.T), _v("gradient of the weights dA", V.T @ dX_prime)
    dS = _v("gradient of the scores dS", A * (dA - np.sum(A * dA, axis=0, keepdims=True)))
    dQ, dK = _v("gradient of the queries dQ", c * K @ dS), _v("gradient of the keys dK", c * Q @ dS.T)
    through_v, through_q, through_k = (_v(f"dX through the {w}", o.T @ d) for w, o, d in  # (D, N) each
                                       (("values", ov, dV), ("queries", oq, dQ), ("keys", ok, dK)))
    cols, square = ("features", "tokens"), ("keys", "queries")
    return [Step("attention weights", "the forward pass's softmax_cols(K.T @ Q / np.sqrt(D_q))", A, square, ()),
            Step("gradient of the values dV", "dX_prime @ A.T", dV, cols, ("attention weights",)),
            Step("gradient of the weights dA", "V.T @ dX_prime", dA, square, ()),
            Step("gradient of the scores dS", "softmax_backward(A, dA)", dS, square,
                 ("attention weights", "gradient of the weights dA")),
            Step("gradient of the queries dQ", "K @ dS / np.sqrt(D_q)", dQ, cols, ("gradient of the scores dS",)),
            Step("gradient of the keys dK", "Q @ dS.T / np.sqrt(D_q)", dK, cols, ("gradient of the scores dS",)),
            # dX's three paths, each a term every right answer adds (inline or not): one left out, or taken
            # twice, is then told by name ("the right dX minus dX through the values")
            Step("dX through the values", "omega_v.T @ dV", through_v, cols, ("gradient of the values dV",)),
            Step("dX through the queries", "omega_q.T @ dQ", through_q, cols, ("gradient of the queries dQ",)),
            Step("dX through the keys", "omega_k.T @ dK", through_k, cols, ("gradient of the keys dK",)),
            Step("dX", "omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK", through_v + through_q + through_k, cols,
                 ("dX through the values", "dX through the queries", "dX through the keys")),
            Step("d_omega_v", "dV @ X.T", dV @ X.T, (), ("gradient of the values dV",)),
            Step("d_omega_q", "dQ @ X.T", dQ @ X.T, (), ("gradient of the queries dQ",)),
            Step("d_omega_k", "dK @ X.T", dK @ X.T, (), ("gradient of the keys dK",)),
            # (dV summed over the tokens is dX_prime's sum for any weights whose columns sum to one: right, it shows
            # nothing of dV or the weights)
            Step("d_beta_v", "dV summed over the tokens", dV.sum(axis=1, keepdims=True), (),
                 ("gradient of the values dV",), shows_uses=False),
            Step("d_beta_q", "dQ summed over the tokens", dQ.sum(axis=1, keepdims=True), (), ("gradient of the queries dQ",)),
            Step("d_beta_k", "dK summed over the tokens", dK.sum(axis=1, keepdims=True), (), ("gradient of the keys dK",))]


def softmax_backward(A, dA):
    """07's softmax backward: A * dA, its column sums, the result."""
    A, dA = np.asarray(A, dtype=np.float64), np.asarray(dA, dtype=np.float64)
    product = _v("product A * dA", A * dA)
    s = _v("column sums", np.sum(product, axis=0, keepdims=True))  # (1, M)
    return [Step("product A * dA", "A * dA, entry by entry", product, ("rows", "columns"), ()),
            Step("column sums", "the sum of A * dA down each column", s, ("rows", "columns"),
                 reduces=("product A * dA", "sum of A * dA", np.sum, (0,))),
            Step("result", "A * (dA - the column sums)", A * (dA - s), ("rows", "columns"), ("column sums",))]


def cross_entropy(logits, targets, weights):
    """09's cross-entropy: the softmax probabilities and the gradient (the loss is one number: no step)."""
    logits = np.asarray(logits, dtype=np.float64)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = _v("log-probabilities", shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True)))  # (B, T, V)
    p = _v("probabilities", np.exp(log_p))  # (B, T, V)
    t = np.asarray(targets, dtype=int)
    onehot = np.zeros_like(p)
    np.put_along_axis(onehot, t[..., None], 1.0, axis=-1)
    w = np.asarray(weights, dtype=np.float64)
    axes = ("sequences", "positions", "vocabulary entries")
    delta = _v("probabilities minus the one-hot targets", p - onehot)
    return [Step("log-probabilities", "the logits minus their log-sum-exp over the vocabulary", log_p, axes, ()),
            Step("probabilities", "the softmax of the logits over the vocabulary", p, axes, ("log-probabilities",)),
            Step("probabilities minus the one-hot targets", "softmax - one-hot", delta, axes),
            Step("dlogits", "(softmax - one-hot) * weight / (sum of the weights)", delta * (w / w.sum())[..., None],
                 axes)]


def adam_step(param, grad, m, v, t, lr, beta1, beta2, eps):
    """09's Adam step: the new moments, their bias corrections, the new parameter (Kingma and Ba, Algorithm 1)."""
    m1 = _v("new m", beta1 * np.asarray(m, dtype=np.float64) + (1 - beta1) * grad)
    v1 = _v("new v", beta2 * np.asarray(v, dtype=np.float64) + (1 - beta2) * np.square(grad))
    m_hat, v_hat = _v("bias-corrected m_hat", m1 / (1 - beta1 ** t)), _v("bias-corrected v_hat", v1 / (1 - beta2 ** t))
    return [Step("new m", "beta1 * m + (1 - beta1) * grad", m1, (), ()),
            Step("new v", "beta2 * v + (1 - beta2) * grad**2", v1, (), ()),
            Step("bias-corrected m_hat", "m / (1 - beta1**t)", m_hat, (), ("new m",)),
            Step("bias-corrected v_hat", "v / (1 - beta2**t)", v_hat, (), ("new v",)),
            Step("new parameter", "param - lr * m_hat / (np.sqrt(v_hat) + eps)", param - lr * m_hat / (np.sqrt(v_hat) + eps),
                 (), ("bias-corrected m_hat", "bias-corrected v_hat"), shows_uses=False)]  # m_hat and v_hat scaled
            # together (by c and c**2) give the same step


def train_step(i, cross_entropy, adam):
    """09's train_step on the probe's inputs (the parameters and moments listed in i["names"]' order): the
    logits, the gradient of the loss with respect to them, every parameter's gradient, then every parameter's
    new value and new moments (its results). `cross_entropy` and `adam` are notebook 09's reference ones."""
    from . import tiny_transformer as tiny  # (09's model, given in its notebook)
    names = i["names"]
    params = {n: np.asarray(a, dtype=np.float64) for n, a in zip(names, i["params"])}
    logits, cache = tiny.model_forward(params, i["tokens"], i["num_heads"])
    logits = _v("logits", logits)  # (B, T, V)
    dlogits = _v("dlogits", cross_entropy(logits, i["targets"], i["weights"])[1])  # (B, T, V): the loss's gradient
    grads = tiny.model_backward(dlogits, cache)
    axes = ("sequences", "positions", "vocabulary")
    steps = [Step("logits", "model_forward(params, tokens, num_heads)", logits, axes, ()),
             Step("dlogits", "the gradient cross_entropy(logits, targets, weights) returns", dlogits, axes, ("logits",))]
    grads = {n: _v(f'grads["{n}"]', grads[n]) for n in names}
    steps += [Step(f'grads["{n}"]', f'model_backward(dlogits, cache)["{n}"]', grads[n], (),
                   ("dlogits",)) for n in names]
    t = i["t"] + 1  # counted once a step, before the updates
    new = {n: adam(params[n], grads[n], np.asarray(m, dtype=np.float64), np.asarray(v, dtype=np.float64), t, i["lr"])
           for n, m, v in zip(names, i["m"], i["v"])}
    for k, (what, formula) in enumerate((("params", "adam_step(...)'s new parameter"), ("m", "beta1 * m + (1 - beta1) * grad"),
                                         ("v", "beta2 * v + (1 - beta2) * grad**2"))):
        # m is the gradient's moving average; v squares it (a sign is lost) and the parameter's step divides
        # one by the other (a scale is lost): only m shows that the gradient it is made from is right
        steps += [Step(f'new {what}["{n}"]', formula + ", with t + 1 and lr", _v(f'new {what}["{n}"]', new[n][k]), (),
                       (f'grads["{n}"]',), shows_uses=what == "m") for n in names]
    return steps


def principal_components(X, n_components):
    """06's PCA: the centred data, then the principal axes (the signs the SVD leaves free fixed so that
    each axis's largest-magnitude entry is positive, as the notebook asks)."""
    X = np.asarray(X, dtype=np.float64)
    centred = _v("centred data", X - X.mean(axis=0))  # (N, D)
    axes = np.linalg.svd(centred, full_matrices=False)[2][:n_components]  # (k, D)
    biggest = np.argmax(np.abs(axes), axis=1)
    axes = axes * np.sign(axes[np.arange(len(axes)), biggest])[:, None]
    return [Step("centred data", "X minus each feature's mean over the rows", centred, ("rows", "features"), ()),
            Step("components", "the first rows of the SVD's Vt, each sign fixed", axes, ("components", "features"))]


def split_heads_rows(X, num_heads):
    """05's transpose_qkv: the heads split off (B, T, H, d), put before the tokens (B, H, T, d), the result."""
    X = np.asarray(X, dtype=np.float64)
    B, T, D = X.shape
    split = _v("heads split off", X.reshape(B, T, num_heads, D // num_heads))  # (B, T, H, d)
    moved = _v("heads before the tokens", split.transpose(0, 2, 1, 3))  # (B, H, T, d)
    axes = ("items", "tokens", "heads", "features")
    return [Step("heads split off", "X.reshape(B, T, H, d)", split, axes, ()),
            Step("heads before the tokens", ".transpose(0, 2, 1, 3), (B, H, T, d)", moved,
                 ("items", "heads", "tokens", "features")),
            Step("result", ".reshape(B * H, T, d)", moved.reshape(B * num_heads, T, D // num_heads),
                 ("(sequence, head) pairs", "tokens", "features"))]


def merge_heads_rows(X, num_heads):
    """05's transpose_output: (B*H, T, d) as (B, H, T, d), the tokens put before the heads (B, T, H, d), the result."""
    X = np.asarray(X, dtype=np.float64)
    BH, T, d = X.shape
    B = BH // num_heads
    split = _v("heads apart", X.reshape(B, num_heads, T, d))  # (B, H, T, d)
    moved = _v("tokens before the heads", split.transpose(0, 2, 1, 3))  # (B, T, H, d)
    return [Step("heads apart", "X.reshape(B, H, T, d)", split, ("items", "heads", "tokens", "features"), ()),
            Step("tokens before the heads", ".transpose(0, 2, 1, 3), (B, T, H, d)", moved,
                 ("items", "tokens", "heads", "features")),
            Step("result", ".reshape(B, T, H * d)", moved.reshape(B, T, num_heads * d), ("items", "tokens", "features"))]


def position_encoding(D, N):
    """03's sinusoidal encoding: the angles n / 10000^(2i/D) of rows 2i and 2i+1, then their sines and cosines."""
    rows, positions = np.arange(D)[:, None], np.arange(N)[None, :]
    angles = _v("angles", positions / 10000.0 ** (2 * (rows // 2) / D))  # (D, N)
    axes = ("features", "positions")
    return [Step("angles", "position n / 10000 ** (2i / D) for rows 2i and 2i + 1", angles, axes, ()),
            Step("result", "the sine of the angles in the even rows, their cosine in the odd rows",
                 np.where(rows % 2 == 0, np.sin(angles), np.cos(angles)), axes)]


def mha_backward_rows(x, p, num_heads, dout):
    """07's mha_backward (causal, rows, heads as (B, H, T, d)): the forward pass's weights, the gradient of the
    heads, dA, dV, dS, dQ, dK, then dx and the eight weights' gradients."""
    from . import tiny_transformer as tiny
    x, dout = np.asarray(x, dtype=np.float64), np.asarray(dout, dtype=np.float64)
    _, (x, Q, K, V, A, heads, _) = tiny.attention_forward(x, p, int(num_heads))
    d = Q.shape[-1]
    A = _v("attention weights", A)
    d_heads = _v("gradient of the heads", tiny.split_heads(dout @ p["W_o"].T, int(num_heads)))  # (B, H, T, d)
    dA = _v("gradient of the weights dA", d_heads @ V.transpose(0, 1, 3, 2))  # (B, H, T, T)
    dV = _v("gradient of the values dV", A.transpose(0, 1, 3, 2) @ d_heads)  # (B, H, T, d)
    dS = _v("gradient of the scores dS", A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d))
    dQ, dK = _v("gradient of the queries dQ", dS @ K), _v("gradient of the keys dK", dS.transpose(0, 1, 3, 2) @ Q)
    heads4, rows4 = ("items", "heads", "tokens", "features"), ("items", "heads", "queries", "keys")
    steps = [Step("attention weights", "the forward pass's softmax of the masked scaled scores", A, rows4, ()),
             Step("gradient of the heads", "dout @ W_o.T, split into heads", d_heads, heads4, ()),
             Step("gradient of the weights dA", "d_heads @ V^T", dA, rows4, ("gradient of the heads",)),
             Step("gradient of the values dV", "A^T @ d_heads", dV, heads4, ("attention weights", "gradient of the heads")),
             Step("gradient of the scores dS", "A * (dA - the sum of dA * A over the keys) / np.sqrt(d)", dS, rows4,
                  ("attention weights", "gradient of the weights dA")),
             Step("gradient of the queries dQ", "dS @ K", dQ, heads4, ("gradient of the scores dS",)),
             Step("gradient of the keys dK", "dS^T @ Q", dK, heads4, ("gradient of the scores dS",)),
             Step('grads["W_o"]', "the heads^T @ dout, summed over the batch", np.einsum("btd,bte->de", heads, dout),
                  (), ()),
             Step('grads["b_o"]', "dout summed over the batch and the tokens", dout.sum(axis=(0, 1)), (), ())]
    dx = np.zeros_like(x)
    for name, what, d_proj in (("q", "queries dQ", dQ), ("k", "keys dK", dK), ("v", "values dV", dV)):
        merged = tiny.merge_heads(d_proj)  # (B, T, D)
        steps.append(Step(f'grads["W_{name}"]', f"x^T @ the merged gradient of the {what.split()[0]}",
                          np.einsum("btd,bte->de", x, merged), (), (f"gradient of the {what}",)))
        # (the values' is d_heads summed for any weights whose rows sum to one: right, it shows nothing of them)
        steps.append(Step(f'grads["b_{name}"]', f"the merged gradient of the {what.split()[0]}, summed",
                          merged.sum(axis=(0, 1)), (), (f"gradient of the {what}",), shows_uses=name != "v"))
        # each path a term every right answer adds (inline or not): one left out is told by name
        path = _v(f"dx through the {what.split()[0]}", merged @ p["W_" + name].T)  # (B, T, D)
        steps.append(Step(f"dx through the {what.split()[0]}", f"the merged gradient of the {what.split()[0]} @ "
                          f"W_{name}.T", path, ("items", "tokens", "features"), (f"gradient of the {what}",)))
        dx = dx + path
    steps.append(Step("dx", "the three projections' gradients, each times its W transposed, added", dx,
                      ("items", "tokens", "features"), tuple(f"dx through the {w}" for w in ("queries", "keys", "values"))))
    return steps


def qkv_columns(i):
    """01's loop: the queries, keys and values of every token, as (D, N) matrices (a list of columns holds
    the same numbers)."""
    X = np.hstack(i["all_x"])  # (D, N)
    out = []
    for what, w, b in (("queries", "omega_q", "beta_q"), ("keys", "omega_k", "beta_k"), ("values", "omega_v", "beta_v")):
        out.append(Step(what, f"{w} @ x + {b} for each token x", _v(what, i[w] @ X + i[b]), ("features", "tokens"), ()))
    return out


def attention_columns(all_queries, all_keys, all_values):
    """01's loop of dot products and weighted sums: each query's weights over the keys, then the outputs."""
    Q, K, V = (np.hstack(a) for a in (all_queries, all_keys, all_values))  # (D, N) each
    steps = []
    for n in range(Q.shape[1]):
        weights = _v(f"query {n + 1}'s weights", ref.softmax(K.T @ Q[:, n]))  # (N,)
        steps.append(Step(f"query {n + 1}'s weights", f"softmax of the dot products of query {n + 1} with every key",
                          weights, ("keys",), ()))
    A = np.stack([s.value for s in steps], axis=1)  # (N keys, N queries)
    steps.append(Step("outputs", "for each query, its weights times the values, summed", V @ A, ("features", "tokens"),
                      tuple(s.name for s in steps)))
    return steps


def word_embeddings(token_ids, embedding_matrix):
    """06's embeddings: the token ids, then their rows of the table (with a batch axis in front)."""
    ids = _v("token ids", np.asarray(token_ids, dtype=float))
    table = np.asarray(embedding_matrix, dtype=np.float64)
    return [Step("token ids", "tokenize(text, vocab)", ids, ("words",), ()),
            Step("result", "the rows of embedding_matrix at the ids, (1, T, D)", table[ids.astype(int)][None],
                 ("sequences", "words", "features"))]
