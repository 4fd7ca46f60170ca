"""The catalogue of named mistakes: each a wrong answer we can compute, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference
pieces on the same inputs and finding the student's result equal to it.
"""
import numpy as np

from . import reference as ref
from .protocol import Mistake


def _softmax_rows(a):
    return ref.softmax_cols(a.T).T


def _parameters(i):
    return (i["omega_v"], i["omega_q"], i["omega_k"], i["beta_v"], i["beta_q"], i["beta_k"])


def _attention_variant(i, scores=lambda K, Q: K.T @ Q, normalise=ref.softmax_cols, bias=True):
    ov, oq, ok, bv, bq, bk = _parameters(i)
    if not bias:
        bv, bq, bk = 0 * bv, 0 * bq, 0 * bk
    V, Q, K = ref.queries_keys_values(i["X"], ov, oq, ok, bv, bq, bk)
    return V @ normalise(scores(K, Q))  # (D, N)


SOFTMAX_ROWS = Mistake(
    "softmax over rows",
    "the softmax ran along each row, so the columns do not sum to one: use axis=0, one column per query",
    lambda i: _attention_variant(i, normalise=_softmax_rows))

BIAS_LEFT_OUT = Mistake(
    "bias left out",
    "the queries, keys or values have no bias: they are omega @ x + beta (eqs. 12.2 and 12.4)",
    lambda i: _attention_variant(i, bias=False))

QT_K = Mistake(
    "Q.T @ K instead of K.T @ Q",
    "the dot products are transposed: entry [m, n] must be key m with query n, K.T @ Q (eq. 12.8)",
    lambda i: _attention_variant(i, scores=lambda K, Q: Q.T @ K))

QKV_BIAS_LEFT_OUT = Mistake(
    BIAS_LEFT_OUT.name, BIAS_LEFT_OUT.message,
    lambda i: [[w @ x for x in i["all_x"]] for w in (i["omega_q"], i["omega_k"], i["omega_v"])])

SOFTMAX_NOT_NORMALISED = Mistake(
    "softmax not normalised",
    "the outputs do not sum to one: divide each exponential by the sum of all of them",
    lambda i: np.exp(np.asarray(i["items_in"], dtype=float)))

SELF_ATTENTION = [SOFTMAX_ROWS, BIAS_LEFT_OUT, QT_K]


# ---- Notebooks 02 and 04: scaled dot-product attention, multi-head attention (book 12.1-12.2)

def _scaled(i, scale, normalise=ref.softmax_cols, bias=True):
    """The book's attention with its dot products multiplied by `scale(queries)`."""
    ov, oq, ok, bv, bq, bk = _parameters(i)
    if not bias:
        bv, bq, bk = 0 * bv, 0 * bq, 0 * bk
    V, Q, K = ref.queries_keys_values(i["X"], ov, oq, ok, bv, bq, bk)
    return V @ normalise((K.T @ Q) * scale(Q))  # (D_v, N)


def _naive_softmax_cols(a):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(a, dtype=float))
        return e / np.sum(e, axis=0)


SOFTMAX_OVERFLOWS = Mistake(
    "softmax overflows",
    "np.exp of a large number is inf, and inf / inf is nan: subtract each column's maximum before "
    "exponentiating (it changes nothing else)",
    lambda i: _naive_softmax_cols(i["data_in"]))

SOFTMAX_COLS_ROWS = Mistake(
    SOFTMAX_ROWS.name, SOFTMAX_ROWS.message, lambda i: ref.softmax_cols(np.asarray(i["data_in"]).T).T)

NO_SCALING = Mistake(
    "no scaling",
    "the dot products are not scaled: divide them by sqrt(D_q), the square root of the queries' size (eq. 12.9)",
    lambda i: _scaled(i, lambda Q: 1.0))

DIVIDED_BY_D = Mistake(
    "divided by D, not sqrt(D)",
    "the dot products are divided by the queries' size itself: divide by its square root, np.sqrt(D_q)",
    lambda i: _scaled(i, lambda Q: 1.0 / Q.shape[0]))

GLOBAL_D = Mistake(
    "the notebook's global D",
    "your function scales by the global variable D (4, the book's size), not by the size of its own "
    "arguments: use np.sqrt(omega_q.shape[0]) (or Q.shape[0]) inside the function",
    lambda i: _scaled(i, lambda Q: 1.0 / np.sqrt(4)))

SCALED_ATTENTION = [NO_SCALING, DIVIDED_BY_D, GLOBAL_D, SOFTMAX_ROWS]

COLUMN_SHAPES = Mistake(
    "shapes that do not multiply",
    "a matrix product got shapes that do not fit. In the book's convention a token is a column: weights "
    "are (D_out, D_in) and act from the left, omega @ X; the row convention X @ omega is for weights "
    "stored transposed. Heads are stacked one on top of the other (np.vstack), then omega_c @ ...",
    raises="matmul")


def _head_scores(i, scale):
    """One head's dot products K^T Q (N, N), multiplied by `scale(Q, X)`."""
    Q = i["omega_q"] @ i["X"] + i["beta_q"]  # (D/H, N)
    K = i["omega_k"] @ i["X"] + i["beta_k"]  # (D/H, N)
    return (K.T @ Q) * scale(Q, i["X"])  # (N, N)


def _head_weights(i, scale):
    return ref.softmax_cols(_head_scores(i, scale))  # (N, N): columns sum to 1


def _multihead(i, scale=lambda Q, X: 1 / np.sqrt(Q.shape[0]), project=True):
    """Multi-head attention from lists of per-head parameters, with a chosen scale, with or without omega_c."""
    X = i["X"]
    heads = []
    for ov, oq, ok, bv, bq, bk in zip(i["omegas_v"], i["omegas_q"], i["omegas_k"], i["betas_v"], i["betas_q"], i["betas_k"]):
        A = _head_weights({"X": X, "omega_q": oq, "omega_k": ok, "beta_q": bq, "beta_k": bk}, scale)
        heads.append((ov @ X + bv) @ A)  # (D/H, N)
    stacked = np.vstack(heads)  # (D, N)
    return i["omega_c"] @ stacked if project else stacked


def plural(name):
    """The general version's name for a list of per-head parameters: omega_v -> omegas_v."""
    return name.replace("omega_", "omegas_").replace("beta_", "betas_")


def two_heads(i):
    """The book's 14 arguments as the lists of the general version."""
    names = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    out = {plural(n): [i[f"{n}1"], i[f"{n}2"]] for n in names}
    out.update(X=i["X"], omega_c=i["omega_c"])
    return out


def _on_lists(compute):
    """A mistake computed from per-head lists, for inputs given either way."""
    return lambda i: compute(i if "omegas_v" in i else two_heads(i))


HEAD_NO_SCALING = Mistake(NO_SCALING.name, NO_SCALING.message, lambda i: _head_weights(i, lambda Q, X: 1.0))

SQRT_D_NOT_HEAD = Mistake(
    "sqrt(D) instead of sqrt(D/H)",
    "each head's dot products are between queries of size D/H, so scale by np.sqrt(D/H), the head's own "
    "size (omega_q.shape[0]), not by np.sqrt(D)",
    lambda i: _head_weights(i, lambda Q, X: 1 / np.sqrt(X.shape[0])))

HEAD_SOFTMAX_ROWS = Mistake(
    SOFTMAX_ROWS.name, SOFTMAX_ROWS.message,
    lambda i: ref.softmax_cols(_head_scores(i, lambda Q, X: 1 / np.sqrt(Q.shape[0])).T).T)

HEAD_WEIGHTS = [HEAD_NO_SCALING, SQRT_D_NOT_HEAD, HEAD_SOFTMAX_ROWS]

OMEGA_C_LEFT_OUT = Mistake(
    "output projection left out",
    "the stacked heads must be mixed by omega_c: X' = omega_c @ (heads stacked), as in figure 12.6",
    _on_lists(lambda i: _multihead(i, project=False)))

MULTIHEAD = [
    OMEGA_C_LEFT_OUT,
    Mistake(NO_SCALING.name, NO_SCALING.message, _on_lists(lambda i: _multihead(i, scale=lambda Q, X: 1.0))),
    Mistake(SQRT_D_NOT_HEAD.name, SQRT_D_NOT_HEAD.message,
            _on_lists(lambda i: _multihead(i, scale=lambda Q, X: 1 / np.sqrt(X.shape[0])))),
    COLUMN_SHAPES,
]
