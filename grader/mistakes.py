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


# ---- Notebook 06: contextual embeddings (row convention)

def _vocab_06(i):
    return {word: n for n, word in enumerate(i["vocab_words"])}


def _rows_attention_06(i, scale, axis=-1):
    """Batched multi-head attention (row convention) with its dot products times `scale(d, D)`,
    normalised along `axis` of the (B, H, T, T) scores."""
    X, H = np.asarray(i["X"], dtype=float), int(i["H"])
    B, T, D = X.shape
    d = D // H
    split = lambda A: A.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
    Q, K, V = split(X @ i["W_q"]), split(X @ i["W_k"]), split(X @ i["W_v"])
    weights = np.apply_along_axis(ref.softmax, axis, Q @ K.transpose(0, 1, 3, 2) * scale(d, D))  # (B, H, T, T)
    return (weights @ V).transpose(0, 2, 1, 3).reshape(B, T, D) @ i["W_o"]  # (B, T, D)


def _pca_variant_06(i, centre=True, rows=True, signs=True):
    X = np.asarray(i["X"], dtype=float)
    _, _, Vt = np.linalg.svd(X - X.mean(axis=0) if centre else X, full_matrices=False)
    components = (Vt if rows else Vt.T)[:int(i["n_components"])]
    return ref.fix_signs(components) if signs else components


UNKNOWN_WORDS_DROPPED = Mistake(
    "unknown words dropped",
    "a word that is not in the vocabulary must become the id of <unk>, not vanish: every word of the "
    "sentence gets one id, so the ids keep the sentence's length. Use vocab.get(word, vocab[UNK])",
    lambda i: np.array([_vocab_06(i)[w] for w in i["sentence"].lower().split() if w in _vocab_06(i)], dtype=int))

NOT_LOWERCASED = Mistake(
    "not lower-cased",
    "the vocabulary holds lower-case words, so \"The\" or \"BANK\" became <unk>: lower-case the sentence "
    "(sentence.lower()) before you split it",
    lambda i: np.array([_vocab_06(i).get(w, _vocab_06(i)["<unk>"]) for w in i["sentence"].split()], dtype=int))

NEW_TABLE_EVERY_CALL = Mistake(
    "a new random embedding table on every call",
    "the function draws its own table with np.random each time it runs, so the same sentence gets other "
    "vectors on every call and every run: draw the table once, outside, and look the rows up in the "
    "embedding_matrix you are given",
    lambda i: np.random.RandomState(int(i["seed"])).standard_normal(np.shape(i["embedding_matrix"]))[
        ref.tokenize(i["text"], _vocab_06(i))][np.newaxis])

SCALED_BY_EMBED_DIM = Mistake(
    "scaled by sqrt(embed_dim), not sqrt(head_dim)",
    "each head's dot products are divided by the square root of the whole embedding size: a head's queries "
    "and keys have head_dim = embed_dim // num_heads features, so divide by np.sqrt(head_dim)",
    lambda i: _rows_attention_06(i, lambda d, D: 1.0 / np.sqrt(D)))

NOT_SCALED_06 = Mistake(
    "no scaling",
    "the dot products are not scaled: divide Q K^T by np.sqrt(head_dim) before the softmax (eq. 12.9)",
    lambda i: _rows_attention_06(i, lambda d, D: 1.0))

SOFTMAX_OVER_QUERIES = Mistake(
    "softmax over the queries",
    "the softmax ran along the queries' axis (axis=-2), so each key's column sums to one: in rows, "
    "scores[b, h, query, key], and each query's weights over the keys must sum to one: use axis=-1",
    lambda i: _rows_attention_06(i, lambda d, D: 1.0 / np.sqrt(d), axis=-2))

PCA_NOT_CENTRED = Mistake(
    "PCA without centring",
    "the SVD ran on the data as it is, so the first axis points at the data's mean, not along its spread: "
    "subtract the mean of each feature, X - X.mean(axis=0), before the SVD",
    lambda i: _pca_variant_06(i, centre=False))

PCA_SIGNS_NOT_FIXED = Mistake(
    "signs not fixed",
    "the axes are right up to their sign, which the SVD chooses as it likes: flip each component so that "
    "its largest-magnitude entry is positive",
    lambda i: _pca_variant_06(i, signs=False))

PCA_COLUMNS_OF_VT = Mistake(
    "columns of Vt, not rows",
    "np.linalg.svd returns V already transposed (U, S, Vt): the principal axes are the rows of Vt, "
    "Vt[:n_components], not its columns",
    lambda i: _pca_variant_06(i, rows=False))

CONTEXTUAL_ATTENTION = [SCALED_BY_EMBED_DIM, NOT_SCALED_06, SOFTMAX_OVER_QUERIES]
PCA_06 = [PCA_NOT_CENTRED, PCA_SIGNS_NOT_FIXED, PCA_COLUMNS_OF_VT]


# ---- Notebook 05: batched, masked multi-head attention (row convention, shapes (B, T, D))

def _masked_softmax_05(scores, valid_lens, fill=ref.MASK_VALUE, after=False):
    """masked_softmax with another fill value for the masked scores, or masking after the softmax."""
    scores = np.asarray(scores, dtype=float)
    if valid_lens is None:
        return ref.softmax_rows(scores)
    mask = ref.sequence_mask(valid_lens, scores.shape[1], scores.shape[2])  # (B, Tq, Tk)
    with np.errstate(invalid="ignore"):
        if after:
            return ref.softmax_rows(scores) * mask
        return ref.softmax_rows(np.where(mask, scores, fill))


def _lens_repeated(valid_lens, num_heads):
    return np.repeat(valid_lens, num_heads, axis=0)  # (B*H,) or (B*H, Tq)


def _lens_tiled(valid_lens, num_heads):
    return np.tile(valid_lens, num_heads)


def _split_no_transpose(X, num_heads):
    B, T, D = np.shape(X)
    return np.reshape(X, (B * num_heads, T, D // num_heads))


def _merge_no_transpose(X, num_heads):
    BH, T, d = np.shape(X)
    return np.reshape(X, (BH // num_heads, T, num_heads * d))


def _mha_05(i, masked_softmax=ref.masked_softmax, lens=_lens_repeated, split=ref.transpose_qkv,
            merge=ref.transpose_output):
    """MultiHeadAttention.forward on a probe's inputs, with one of its pieces swapped for a mistaken one."""
    H = i["num_heads"]
    Q = split(i["queries"] @ i["W_q"] + i["b_q"], H)  # (B*H, Tq, d)
    K = split(i["keys"] @ i["W_k"] + i["b_k"], H)  # (B*H, Tk, d)
    V = split(i["values"] @ i["W_v"] + i["b_v"], H)  # (B*H, Tk, d)
    valid_lens = None if i["valid_lens"] is None else lens(np.asarray(i["valid_lens"]), H)
    weights = masked_softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]), valid_lens)  # (B*H, Tq, Tk)
    return merge(weights @ V, H) @ i["W_o"] + i["b_o"]  # (B, Tq, D)


MASK_ZERO = Mistake(
    "masked with 0",
    "the masked scores were set to 0, and exp(0) = 1 still gives those keys weight: set them to a large "
    "negative number such as -1e6 before the softmax",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], fill=0.0))

MASK_AFTER_SOFTMAX = Mistake(
    "masked after the softmax",
    "the weights of the masked keys were zeroed after the softmax, so the rest no longer sum to one: "
    "mask the scores (set them to -1e6) before the softmax",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], after=True))

MASK_NEG_INF = Mistake(
    "masked with -inf",
    "a query with no valid key (valid length 0) has every score at -inf, and the softmax of a row of -inf "
    "is nan (-inf minus -inf): mask with a large finite negative number such as -1e6, which gives that "
    "query uniform weights",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], fill=-np.inf))

SPLIT_NO_TRANSPOSE = Mistake(
    "heads split with a reshape and no transpose",
    "reshaping (B, T, D) straight to (B*H, T, d) cuts the rows of different tokens into one head: "
    "reshape to (B, T, H, d), transpose to (B, H, T, d), then reshape to (B*H, T, d)",
    lambda i: _split_no_transpose(i["X"], i["num_heads"]))

MERGE_NO_TRANSPOSE = Mistake(
    "heads merged with a reshape and no transpose",
    "reshaping (B*H, T, d) straight to (B, T, H*d) puts the features of different tokens side by side: "
    "reshape to (B, H, T, d), transpose to (B, T, H, d), then reshape to (B, T, H*d)",
    lambda i: _merge_no_transpose(i["X"], i["num_heads"]))

LENS_TILED = Mistake(
    "valid_lens tiled, not repeated",
    "np.tile(valid_lens, num_heads) gives [l0, l1, ..., l0, l1, ...], but after transpose_qkv the rows go "
    "sequence by sequence, every head of sequence 0 first: repeat each length in place, "
    "np.repeat(valid_lens, num_heads, axis=0)",
    lambda i: _mha_05(i, lens=_lens_tiled))

MHA_05 = [
    Mistake(MASK_ZERO.name, MASK_ZERO.message,
            lambda i: _mha_05(i, masked_softmax=lambda s, l: _masked_softmax_05(s, l, fill=0.0))),
    Mistake(MASK_AFTER_SOFTMAX.name, MASK_AFTER_SOFTMAX.message,
            lambda i: _mha_05(i, masked_softmax=lambda s, l: _masked_softmax_05(s, l, after=True))),
    Mistake(MASK_NEG_INF.name, MASK_NEG_INF.message,
            lambda i: _mha_05(i, masked_softmax=lambda s, l: _masked_softmax_05(s, l, fill=-np.inf))),
    LENS_TILED,
    Mistake(SPLIT_NO_TRANSPOSE.name, SPLIT_NO_TRANSPOSE.message, lambda i: _mha_05(i, split=_split_no_transpose)),
    Mistake(MERGE_NO_TRANSPOSE.name, MERGE_NO_TRANSPOSE.message, lambda i: _mha_05(i, merge=_merge_no_transpose)),
]


HEAD_SCALED_BY_E = Mistake(
    "scaled by sqrt(E), not sqrt(E/N)",
    "each head's dot products are sums over its E/N features: divide them by np.sqrt(split_dim), the "
    "head's size, not by np.sqrt(E)",
    lambda i: [ref.multihead_shared_kv(i["q"], i["k"], i["v"], i["N"], i["proj"], scale=1 / np.sqrt(i["N"]))])


def _init_05(i, std=None, uniform=False):
    rng = np.random.default_rng(i["seed"])
    if uniform:
        return rng.random((i["fan_in"], i["fan_out"]))
    return rng.normal(0.0, std(i["fan_in"], i["fan_out"]), size=(i["fan_in"], i["fan_out"]))


INIT_05 = [
    Mistake("weights from a uniform draw in [0, 1)",
            "like seed 001's np.random.rand, every weight is positive with mean 0.5, so x @ W grows with "
            "fan_in and the softmax saturates: draw rng.normal with mean 0 and std 1/sqrt(fan_in)",
            lambda i: _init_05(i, uniform=True)),
    Mistake("scaled by fan_out",
            "the std must be 1/sqrt(fan_in), the number of inputs each output of x @ W sums over (the rows "
            "of W), not 1/sqrt(fan_out)",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1 / np.sqrt(n_out))),
    Mistake("not scaled",
            "the weights have std 1, so x @ W is sqrt(fan_in) times larger than x: use std 1/np.sqrt(fan_in)",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1.0)),
    Mistake("std 1/fan_in",
            "1/fan_in is the variance you want, not the std: use scale=1/np.sqrt(fan_in)",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1 / n_in)),
]


# ---- Notebook 03: Permutation equivariance
from . import cases as _cases  # noqa: E402 (the test functions the checkers are tried on)


def _listed_03(matrices):
    """What the probe reads back from a list of matrices: the distinct ones, sorted, and how many there were."""
    return [ref.distinct_matrices(matrices), np.array(float(len(matrices)))]


PERMUTATIONS_ROTATIONS_ONLY = Mistake(
    "only the n rotations",
    "the list holds the n cyclic shifts of the identity's columns (np.roll), but n columns can be put in n! "
    "orders: itertools.permutations(range(n)) lists every one",
    lambda i: _listed_03([np.roll(np.eye(int(i["n"])), s, axis=1) for s in range(int(i["n"]))]))

PERMUTATIONS_IDENTITY_LEFT_OUT = Mistake(
    "the identity left out",
    "the identity is a permutation too (it leaves every column where it is): there are n! matrices, "
    "the identity among them",
    lambda i: _listed_03(ref.permutation_matrices(int(i["n"]))[1:]))

PERMUTATIONS_TWICE = Mistake(
    "every permutation twice",
    "every permutation matrix is there, but twice (reordering the rows of the identity gives the same "
    "matrices as reordering its columns): return each one once, n! in all",
    lambda i: _listed_03(ref.permutation_matrices(int(i["n"])) * 2))

PERMUTATION_MATRICES = [PERMUTATIONS_ROTATIONS_ONLY, PERMUTATIONS_IDENTITY_LEFT_OUT, PERMUTATIONS_TWICE]

# Three misconceptions about checking equivariance; the verdict also names the function it went wrong on.
_CHECKER_SAYS_03 = {
    _cases.EQUIVARIANT: (
        "rejects an equivariant function", 0.0,
        "that function is permutation equivariant, yet your checker said False: compare f(X @ P) with "
        "f(X) @ P (not P @ f(X)), with P of size N x N taken from X itself, and allow for rounding "
        "(a tolerance, not ==)"),
    _cases.CHANGES_COLUMNS: (
        "accepts a function that changes the columns", 1.0,
        "that function is not equivariant, yet your checker said True: f(X @ P) and f(X) @ P hold "
        "different numbers. Return False as soon as one P makes them differ by more than the tolerance"),
    _cases.REORDERS_COLUMNS: (
        "accepts a function that reorders the columns", 1.0,
        "that function is not equivariant, yet your checker said True: f(X @ P) holds the same columns as "
        "f(X) @ P, but in another order. Compare the two column by column, not as sets of columns, and "
        "for all N! permutations P"),
}


def _checker_said_03(which, said):
    """A checker's verdict `said` (1 = equivariant) on test function `which`, and on no other."""
    def compute(i):
        if int(i["which"]) != which:
            raise LookupError("another test function")
        return np.array(said)
    return compute


PERMUTATION_CHECKER = [
    Mistake(_CHECKER_SAYS_03[kind][0], f"f(X) = {name}: {_CHECKER_SAYS_03[kind][2]}",
            _checker_said_03(which, _CHECKER_SAYS_03[kind][1]))
    for which, (name, kind, _) in enumerate(_cases.PERMUTATION_TEST_FUNCTIONS)]
