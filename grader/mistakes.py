"""The catalogue of named mistakes: each a wrong answer we can compute, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference
pieces on the same inputs and finding the student's result equal to it.
"""
import numpy as np

from . import reference as ref
from .engine.protocol import Mistake


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

QK_WEIGHTS_SWAPPED = Mistake(
    "query and key weights swapped",
    "the queries were made with omega_k and beta_k, and the keys with omega_q and beta_q: a query is "
    "omega_q @ x + beta_q and a key is omega_k @ x + beta_k (eq. 12.4)",
    lambda i: [[w @ x + b for x in i["all_x"]] for w, b in
               ((i["omega_k"], i["beta_k"]), (i["omega_q"], i["beta_q"]), (i["omega_v"], i["beta_v"]))])

KEYS_WEIGHTED = Mistake(
    "weighted sum of the keys",
    "each output is a weighted sum of the values, not of the keys: add up attention[m] * all_values[m] "
    "over m (eq. 12.3)",
    lambda i: [ref.attention_loop(i["all_queries"], i["all_keys"], i["all_keys"])])


def _attention_parts(i):
    """V, Q, K (each (D, N)) and the attention weights A (N, N) of the book's self-attention."""
    V, Q, K = ref.queries_keys_values(i["X"], *_parameters(i))
    return V, Q, K, ref.softmax_cols(K.T @ Q)


KEYS_VALUES_SWAPPED = Mistake(
    "keys and values swapped",
    "the keys were made with omega_v and the values with omega_k: the queries are compared with "
    "K = omega_k @ X + beta_k, and the weights average the values V = omega_v @ X + beta_v",
    lambda i: (lambda V, Q, K, A: K @ ref.softmax_cols(V.T @ Q))(*_attention_parts(i)))

OUTPUT_TRANSPOSED = Mistake(
    "output transposed",
    "the result is X' transposed, one row per token: in the book's convention a token is a column, so "
    "return V @ A, a D x N matrix like X, without the final .T",
    lambda i: (lambda V, Q, K, A: (V @ A).T)(*_attention_parts(i)))

WEIGHTS_RETURNED = Mistake(
    "attention weights returned instead of the outputs",
    "the function returns the N x N attention weights: the outputs are the values weighted by them, "
    "X' = V @ A, one column per token (eq. 12.8)",
    lambda i: _attention_parts(i)[3])

WEIGHTS_ON_THE_WRONG_SIDE = Mistake(
    "attention weights on the wrong side",
    "the weights multiply the values from the left (A @ V.T, the row convention's order): in the book's "
    "convention column n of X' is the values' columns weighted by column n of A, so X' = V @ A",
    lambda i: (lambda V, Q, K, A: A @ V.T)(*_attention_parts(i)))

SOFTMAX_NOT_NORMALISED = Mistake(
    "softmax not normalised",
    "the outputs do not sum to one: divide each exponential by the sum of all of them",
    lambda i: np.exp(np.asarray(i["items_in"], dtype=float)))

SELF_ATTENTION = [SOFTMAX_ROWS, BIAS_LEFT_OUT, QT_K, KEYS_VALUES_SWAPPED, OUTPUT_TRANSPOSED, WEIGHTS_RETURNED,
                  WEIGHTS_ON_THE_WRONG_SIDE]


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

def _numerator_shift_only(a):
    a = np.asarray(a, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return np.exp(a - np.max(a, axis=0, keepdims=True)) / np.sum(np.exp(a), axis=0, keepdims=True)


def _global_max_softmax_cols(a):
    a = np.asarray(a, dtype=float)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(a - np.max(a))
        return e / np.sum(e, axis=0, keepdims=True)


SOFTMAX_SHIFT_NUMERATOR_ONLY = Mistake(
    "maximum subtracted in the numerator only",
    "the column's maximum comes off the exponents on top but not in the sum below, where np.exp still "
    "overflows: compute e = np.exp(data_in - max) once, then divide e by its own column sums",
    lambda i: _numerator_shift_only(i["data_in"]))

SOFTMAX_GLOBAL_MAX = Mistake(
    "one maximum for the whole matrix",
    "np.max(data_in) without an axis takes the largest score of the whole matrix, so a column whose scores "
    "are far below it underflows to 0 / 0: subtract each column's own maximum, np.max(data_in, axis=0, "
    "keepdims=True)",
    lambda i: _global_max_softmax_cols(i["data_in"]))

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
    "your function divides the dot products by sqrt(4), the book's query size, whatever the size of its "
    "arguments (the notebook's global D, or a fixed number): use np.sqrt(omega_q.shape[0]) (or Q.shape[0]) "
    "inside the function",
    lambda i: _scaled(i, lambda Q: 1.0 / np.sqrt(4)))

SCALED_AFTER_SOFTMAX = Mistake(
    "scaled after the softmax",
    "the attention weights were divided by sqrt(D_q) after the softmax, so their columns no longer sum to "
    "one: divide the dot products K.T @ Q before the softmax (eq. 12.9)",
    lambda i: _scaled(i, lambda Q: 1.0) / np.sqrt(np.shape(i["omega_q"])[0]))

SCALED_BY_TOKENS = Mistake(
    "divided by sqrt(N), the number of tokens",
    "the dot products were divided by the square root of the number of tokens (X.shape[1]): eq. 12.9 "
    "divides by the square root of the queries' size, D_q = Q.shape[0]",
    lambda i: _scaled(i, lambda Q: 1.0 / np.sqrt(Q.shape[1])))

SCALED_ATTENTION = [NO_SCALING, DIVIDED_BY_D, GLOBAL_D, SOFTMAX_ROWS, SCALED_AFTER_SOFTMAX, SCALED_BY_TOKENS]

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


def _multihead(i, scale=lambda Q, X: 1 / np.sqrt(Q.shape[0]), project=True, order=lambda heads: heads,
               weights_of=lambda h: h, n_heads=None):
    """Multi-head attention from lists of per-head parameters, with a chosen scale, with or without omega_c,
    the heads stacked in `order(heads)`, head h weighted by head `weights_of(h)`'s attention, and only the
    first `n_heads` heads (all when None)."""
    X = i["X"]
    weights = [_head_weights({"X": X, "omega_q": oq, "omega_k": ok, "beta_q": bq, "beta_k": bk}, scale)
               for oq, ok, bq, bk in zip(i["omegas_q"], i["omegas_k"], i["betas_q"], i["betas_k"])]  # H x (N, N)
    heads = [(ov @ X + bv) @ weights[weights_of(h)]
             for h, (ov, bv) in enumerate(zip(i["omegas_v"], i["betas_v"]))][:n_heads]  # H x (D/H, N)
    stacked = np.vstack(order(heads))  # (D, N)
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

HEAD_DIVIDED_BY_SIZE = Mistake(
    "divided by D/H, not sqrt(D/H)",
    "each head's dot products were divided by the head's size itself: divide by its square root, "
    "np.sqrt(omega_q.shape[0])",
    lambda i: _head_weights(i, lambda Q, X: 1 / Q.shape[0]))

HEAD_SOFTMAX_ROWS = Mistake(
    SOFTMAX_ROWS.name, SOFTMAX_ROWS.message,
    lambda i: ref.softmax_cols(_head_scores(i, lambda Q, X: 1 / np.sqrt(Q.shape[0])).T).T)

HEAD_WEIGHTS = [HEAD_NO_SCALING, SQRT_D_NOT_HEAD, HEAD_DIVIDED_BY_SIZE, HEAD_SOFTMAX_ROWS]

OMEGA_C_LEFT_OUT = Mistake(
    "output projection left out",
    "the stacked heads must be mixed by omega_c: X' = omega_c @ (heads stacked), as in figure 12.6",
    _on_lists(lambda i: _multihead(i, project=False)))

HEADS_IN_REVERSE = Mistake(
    "heads stacked in reverse order",
    "the heads are stacked last one first: put head 1 on top, then head 2 and so on (np.vstack([head1, "
    "head2])), because omega_c's columns are matched to the stacked rows in that order",
    _on_lists(lambda i: _multihead(i, order=lambda heads: heads[::-1])))

ONE_HEADS_WEIGHTS = Mistake(
    "head 1's attention weights used for every head",
    "every head is weighted by the first head's attention: each head has its own queries and keys, so "
    "compute each head's weights from its own omega_q, omega_k, beta_q and beta_k",
    _on_lists(lambda i: _multihead(i, weights_of=lambda h: 0)))

TWO_HEADS_HARD_CODED = Mistake(
    "two heads hard-coded",
    "the function uses two heads whatever it is given (range(2), or head 1 and head 2 by name), so with "
    "three or four heads the stacked outputs no longer fit omega_c: loop over every head, "
    "for h in range(len(omegas_v)) or zip(omegas_v, omegas_q, ...)",
    lambda i: _multihead(i, n_heads=2))  # on more heads omega_c @ (2 heads stacked) raises, as the student's code does

MULTIHEAD = [
    OMEGA_C_LEFT_OUT,
    Mistake(NO_SCALING.name, NO_SCALING.message, _on_lists(lambda i: _multihead(i, scale=lambda Q, X: 1.0))),
    Mistake(SQRT_D_NOT_HEAD.name, SQRT_D_NOT_HEAD.message,
            _on_lists(lambda i: _multihead(i, scale=lambda Q, X: 1 / np.sqrt(X.shape[0])))),
    Mistake(HEAD_DIVIDED_BY_SIZE.name, HEAD_DIVIDED_BY_SIZE.message,
            _on_lists(lambda i: _multihead(i, scale=lambda Q, X: 1 / Q.shape[0]))),
    HEADS_IN_REVERSE,
    ONE_HEADS_WEIGHTS,
    COLUMN_SHAPES,
]

MULTIHEAD_GENERAL = MULTIHEAD + [TWO_HEADS_HARD_CODED]  # the general version can be written for two heads only


# ---- Notebook 06: contextual embeddings (row convention)
import string  # noqa: E402 (what counts as punctuation, for the tokenizer that strips it)


def _vocab_06(i):
    return {word: n for n, word in enumerate(i["vocab_words"])}


def _rows_attention_06(i, scale, axis=-1, project=True):
    """Batched multi-head attention (row convention) with its dot products times `scale(d, D)`,
    normalised along `axis` of the (B, H, T, T) scores, with or without the output projection."""
    X, H = np.asarray(i["X"], dtype=float), int(i["H"])
    B, T, D = X.shape
    d = D // H
    split = lambda A: A.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
    Q, K, V = split(X @ i["W_q"]), split(X @ i["W_k"]), split(X @ i["W_v"])
    weights = np.apply_along_axis(ref.softmax, axis, Q @ K.transpose(0, 1, 3, 2) * scale(d, D))  # (B, H, T, T)
    merged = (weights @ V).transpose(0, 2, 1, 3).reshape(B, T, D)  # (B, T, D)
    return merged @ i["W_o"] if project else merged


def _pca_variant_06(i, centre=True, rows=True, signs=True, prepare=None):
    """pca with one step done another way; `prepare` replaces the centring (X (N, D) -> the data to decompose)."""
    X = np.asarray(i["X"], dtype=float)
    if prepare is None:
        prepare = (lambda X: X - X.mean(axis=0)) if centre else (lambda X: X)
    _, _, Vt = np.linalg.svd(prepare(X), full_matrices=False)
    components = (Vt if rows else Vt.T)[:int(i["n_components"])]
    return ref.fix_signs(components) if signs else components


def _pca_columns_of_u_06(i):
    X = np.asarray(i["X"], dtype=float)
    U, _, _ = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)  # U: (N, min(N, D))
    return ref.fix_signs(U[:, :int(i["n_components"])].T)  # (k, N): one number per point


def _pca_eigh_ascending_06(i):
    X = np.asarray(i["X"], dtype=float)
    Xc = X - X.mean(axis=0)  # (N, D)
    _, vectors = np.linalg.eigh(Xc.T @ Xc / (len(X) - 1))  # columns, smallest eigenvalue first
    return ref.fix_signs(vectors[:, :int(i["n_components"])].T)  # (k, D): the directions of least spread


def _tokenize_06(i, lower=True, split=str.split, word=lambda w: w, unk=None, drop=False):
    """tokenize with one step done another way: `split` the text, `word` each piece, unknown words -> `unk`."""
    vocab = _vocab_06(i)
    text = i["sentence"].lower() if lower else i["sentence"]
    words = [word(w) for w in split(text)]
    unk_id = vocab["<unk>"] if unk is None else unk
    return np.array([vocab.get(w, unk_id) for w in words if not drop or w in vocab], dtype=int)


UNKNOWN_WORDS_DROPPED = Mistake(
    "unknown words dropped",
    "a word that is not in the vocabulary must become the id of <unk>, not vanish: every word of the "
    "sentence gets one id, so the ids keep the sentence's length. Use vocab.get(word, vocab[UNK])",
    lambda i: _tokenize_06(i, drop=True))

NOT_LOWERCASED = Mistake(
    "not lower-cased",
    "the vocabulary holds lower-case words, so \"The\" or \"BANK\" became <unk>: lower-case the sentence "
    "(sentence.lower()) before you split it",
    lambda i: _tokenize_06(i, lower=False))

SPLIT_ON_SINGLE_SPACES = Mistake(
    "split on single spaces",
    "split(\" \") cuts at single spaces only, so a tab leaves two words stuck together and a run of spaces "
    "gives empty words: call split() with no argument, which splits on any run of whitespace",
    lambda i: _tokenize_06(i, split=lambda text: text.split(" ")))

PUNCTUATION_STRIPPED = Mistake(
    "punctuation stripped",
    "this tokenizer keeps punctuation as part of its word, so \"bank.\" is not the vocabulary's \"bank\" "
    "and becomes <unk>: lower-case the sentence and split it with split(), and change nothing else",
    lambda i: _tokenize_06(i, word=lambda w: w.strip(string.punctuation)))

UNK_ID_HARD_CODED = Mistake(
    "<unk> id hard-coded as 0",
    "unknown words got id 0, but <unk> is not at 0 in every vocabulary (elsewhere 0 is a real word): "
    "look its id up, vocab.get(word, vocab[UNK])",
    lambda i: _tokenize_06(i, unk=0))

NO_BATCH_AXIS = Mistake(
    "batch axis missing",
    "the result has shape (T, D), but SelfAttention takes a batch: put a batch axis in front, "
    "embedding_matrix[token_ids][np.newaxis], to get (1, T, D)",
    lambda i: ref.word_embeddings(ref.tokenize(i["text"], _vocab_06(i)), i["embedding_matrix"])[0])

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

def _seed_ignored_06(i):
    """A class that takes no seed raises on the case built with one (its weights are the grader's elsewhere)."""
    if i["own_weights"]:
        raise TypeError("SelfAttention() got an unexpected keyword argument 'seed'")
    return ref.multihead_self_attention_rows(i["X"], i["W_q"], i["W_k"], i["W_v"], i["W_o"], i["H"])


SEED_IGNORED = Mistake(
    "seed ignored",
    "SelfAttention(embed_dim, num_heads, seed) must take the seed and draw its weights from "
    "np.random.default_rng(seed), as the notebook's __init__ does: keep that __init__, so that the same "
    "seed gives the same weights on every run",
    _seed_ignored_06,
    raises="unexpected keyword argument 'seed'")

PCA_COLUMNS_OF_U = Mistake(
    "columns of U, not rows of Vt",
    "an axis has one number per feature (D of them), and those are the rows of Vt; the columns of U hold one "
    "number per point: take Vt[:n_components]",
    _pca_columns_of_u_06)

PCA_SMALLEST_FIRST = Mistake(
    "eigh's order: smallest spread first",
    "np.linalg.eigh returns the eigenvalues in ascending order, so its first eigenvectors are the directions "
    "of least spread: take its columns from the last one backwards, or use the SVD, whose Vt starts with "
    "the largest",
    _pca_eigh_ascending_06)

PCA_ROWS_CENTRED = Mistake(
    "rows centred, not columns",
    "X - X.mean(axis=1) subtracts each point's own average; PCA subtracts each feature's mean over all the "
    "points: X - X.mean(axis=0)",
    lambda i: _pca_variant_06(i, prepare=lambda X: X - X.mean(axis=1, keepdims=True)))

PCA_STANDARDISED = Mistake(
    "standardised, not centred",
    "dividing each feature by its standard deviation changes the very spreads PCA looks for: only subtract "
    "the mean, X - X.mean(axis=0)",
    lambda i: _pca_variant_06(i, prepare=lambda X: (X - X.mean(axis=0)) / X.std(axis=0)))

TOKENIZE_06 = [UNKNOWN_WORDS_DROPPED, NOT_LOWERCASED, SPLIT_ON_SINGLE_SPACES, PUNCTUATION_STRIPPED,
               UNK_ID_HARD_CODED]
OUT_PROJ_LEFT_OUT_06 = Mistake(
    "out_proj left out",
    "the heads are put side by side but not mixed: multiply the merged (B, T, D) heads by self.out_proj, "
    "so that every output feature can draw on every head",
    lambda i: _rows_attention_06(i, lambda d, D: 1.0 / np.sqrt(d), project=False))

CONTEXTUAL_ATTENTION = [SCALED_BY_EMBED_DIM, NOT_SCALED_06, SOFTMAX_OVER_QUERIES, SEED_IGNORED, OUT_PROJ_LEFT_OUT_06]
PCA_06 = [PCA_NOT_CENTRED, PCA_SIGNS_NOT_FIXED, PCA_COLUMNS_OF_VT, PCA_COLUMNS_OF_U, PCA_SMALLEST_FIRST,
          PCA_ROWS_CENTRED, PCA_STANDARDISED]


# ---- Notebook 05: batched, masked multi-head attention (row convention, shapes (B, T, D))

def _mask_05(valid_lens, num_queries, num_keys, inclusive=False, over_queries=False):
    """The mask (B, Tq, Tk) a masked_softmax makes: the right one, or one of its mistaken variants.

    inclusive: key j kept when j <= valid length (off by one); over_queries: the positions compared
    with the lengths are the queries', so whole queries are masked instead of padding keys.
    """
    lens = np.asarray(valid_lens)
    lens = lens[:, None, None] if lens.ndim == 1 else lens[:, :, None]  # (B, 1, 1) or (B, Tq, 1)
    positions = np.arange(num_queries)[:, None] if over_queries else np.arange(num_keys)  # (Tq, 1) or (Tk,)
    mask = positions <= lens if inclusive else positions < lens
    return np.broadcast_to(mask, (len(lens), num_queries, num_keys))


def _softmax_along(a, axis):
    """Softmax along one axis of a (B, Tq, Tk) array: -1 is right (the keys), 1 the queries, 0 the batch."""
    return np.moveaxis(ref.softmax_rows(np.moveaxis(a, axis, -1)), -1, axis)


def _masked_softmax_05(scores, valid_lens, fill=ref.MASK_VALUE, after=False, inclusive=False, over_queries=False,
                       axis=-1):
    """masked_softmax with one mistake: another fill value, masking after the softmax, another mask, another axis."""
    scores = np.asarray(scores, dtype=float)
    if valid_lens is None:  # the notebook's own first lines: the softmax over the keys
        return ref.softmax_rows(scores)
    mask = _mask_05(valid_lens, scores.shape[1], scores.shape[2], inclusive, over_queries)  # (B, Tq, Tk)
    with np.errstate(invalid="ignore"):
        if after:
            return ref.softmax_rows(scores) * mask
        return _softmax_along(np.where(mask, scores, fill), axis)


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


FIXED_HEADS_05 = 5  # the notebook's global num_heads (seed 001's case)


def _mha_05(i, masked_softmax=ref.masked_softmax, lens=_lens_repeated, split=ref.transpose_qkv,
            merge=ref.transpose_output, weights="qkv", num_heads=None, root=lambda d, D: np.sqrt(d),
            masked=True, project=True):
    """MultiHeadAttention.forward on a probe's inputs, with one of its pieces swapped for a mistaken one.

    weights: which projection makes the queries, keys and values ("qvk": keys from W_v, values from W_k);
    num_heads: a head count fixed in the code; root(d, D): what the dot products are divided by;
    masked: whether valid_lens reaches masked_softmax; project: whether W_o and b_o are applied.
    """
    H = i["num_heads"] if num_heads is None else num_heads
    (W_q, b_q), (W_k, b_k), (W_v, b_v) = ((i[f"W_{c}"], i[f"b_{c}"]) for c in weights)
    Q = split(i["queries"] @ W_q + b_q, H)  # (B*H, Tq, d)
    K = split(i["keys"] @ W_k + b_k, H)  # (B*H, Tk, d)
    V = split(i["values"] @ W_v + b_v, H)  # (B*H, Tk, d)
    valid_lens = None if i["valid_lens"] is None or not masked else lens(np.asarray(i["valid_lens"]), H)
    scores = Q @ np.swapaxes(K, -1, -2) / root(Q.shape[-1], i["queries"].shape[-1])  # (B*H, Tq, Tk)
    heads = merge(masked_softmax(scores, valid_lens) @ V, H)  # (B, Tq, D)
    return heads @ i["W_o"] + i["b_o"] if project else heads  # (B, Tq, D)


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

MASK_OFF_BY_ONE = Mistake(
    "mask off by one",
    "each query sees one key too many: a valid length of 3 means keys 0, 1 and 2, so keep key j when "
    "j < valid_len (compare with <, not <=)",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], inclusive=True))

MASK_OVER_QUERIES = Mistake(
    "mask over the queries",
    "the mask compares the valid lengths with the positions of the queries (axis 1), so whole queries were "
    "masked and the padding keys were not: compare them with the key positions, np.arange(scores.shape[-1])",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], over_queries=True))

SOFTMAX_AXIS_1 = Mistake(
    "softmax over axis 1 (the queries)",
    "in scores (B, Tq, Tk) axis 1 holds the queries, so each key's weights sum to one instead of each "
    "query's: take the softmax over the keys, the last axis (axis=-1)",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], axis=1))

SOFTMAX_AXIS_0 = Mistake(
    "softmax over axis 0 (the batch)",
    "the softmax ran across the sequences of the batch (axis 0), mixing scores of different sequences: "
    "each query's weights must sum to one over its keys, the last axis (axis=-1)",
    lambda i: _masked_softmax_05(i["scores"], i["valid_lens"], axis=0))

MASKED_SOFTMAX_05 = [MASK_ZERO, MASK_AFTER_SOFTMAX, MASK_NEG_INF, MASK_OFF_BY_ONE, MASK_OVER_QUERIES,
                     SOFTMAX_AXIS_1, SOFTMAX_AXIS_0]
_MASKED_SOFTMAX_VARIANTS_05 = {  # each masked_softmax mistake, as MultiHeadAttention meets it
    MASK_ZERO.name: dict(fill=0.0), MASK_AFTER_SOFTMAX.name: dict(after=True), MASK_NEG_INF.name: dict(fill=-np.inf),
    MASK_OFF_BY_ONE.name: dict(inclusive=True), MASK_OVER_QUERIES.name: dict(over_queries=True),
    SOFTMAX_AXIS_1.name: dict(axis=1), SOFTMAX_AXIS_0.name: dict(axis=0)}

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

def _mha_with_masked_softmax_05(mistake):
    """A masked_softmax mistake, as MultiHeadAttention.forward gives it (it calls masked_softmax)."""
    variant = _MASKED_SOFTMAX_VARIANTS_05[mistake.name]
    return Mistake(mistake.name, mistake.message,
                   lambda i: _mha_05(i, masked_softmax=lambda s, l: _masked_softmax_05(s, l, **variant)))


KEYS_VALUES_SWAPPED = Mistake(
    "keys and values swapped",
    "the keys were made with W_v and the values with W_k: keys @ self.W_k + self.b_k are the keys, "
    "values @ self.W_v + self.b_v the values",
    lambda i: _mha_05(i, weights="qvk"))

QUERIES_FROM_W_K = Mistake(
    "queries from W_k",
    "the queries were projected with W_k: use queries @ self.W_q + self.b_q, so that queries and keys "
    "are made by different weights",
    lambda i: _mha_05(i, weights="kkv"))

W_O_LEFT_OUT = Mistake(
    "output projection W_o left out",
    "the heads were merged but not mixed: finish with transpose_output(...) @ self.W_o + self.b_o (step 4)",
    lambda i: _mha_05(i, project=False))

FIXED_HEAD_COUNT = Mistake(
    "a fixed number of heads",
    f"forward split the features into {FIXED_HEADS_05} heads (the notebook's num_heads), not into the number "
    "the class was built with: use self.num_heads everywhere in forward",
    lambda i: _mha_05(i, num_heads=FIXED_HEADS_05))

SCALED_BY_NUM_HIDDENS = Mistake(
    "scaled by sqrt(num_hiddens), not sqrt(head size)",
    "each head's dot products are sums over its own d = num_hiddens / num_heads features: divide them by "
    "np.sqrt(Q.shape[-1]), the head's size, not by np.sqrt(num_hiddens)",
    lambda i: _mha_05(i, root=lambda d, D: np.sqrt(D)))

VALID_LENS_IGNORED = Mistake(
    "valid_lens ignored",
    "no key was masked, so the padding got weight: repeat valid_lens once per head "
    "(np.repeat(valid_lens, self.num_heads, axis=0)) and pass it to masked_softmax",
    lambda i: _mha_05(i, masked=False))

MHA_05 = [_mha_with_masked_softmax_05(m) for m in MASKED_SOFTMAX_05] + [
    LENS_TILED,
    Mistake(SPLIT_NO_TRANSPOSE.name, SPLIT_NO_TRANSPOSE.message, lambda i: _mha_05(i, split=_split_no_transpose)),
    Mistake(MERGE_NO_TRANSPOSE.name, MERGE_NO_TRANSPOSE.message, lambda i: _mha_05(i, merge=_merge_no_transpose)),
    KEYS_VALUES_SWAPPED, QUERIES_FROM_W_K, W_O_LEFT_OUT, FIXED_HEAD_COUNT, SCALED_BY_NUM_HIDDENS, VALID_LENS_IGNORED,
]


HEAD_SCALED_BY_E = Mistake(
    "scaled by sqrt(E), not sqrt(E/H)",
    "each head's dot products are sums over its E/H features: divide them by np.sqrt(split_dim), the "
    "head's size, not by np.sqrt(E)",
    lambda i: [ref.multihead_shared_kv(i["q"], i["k"], i["v"], i["H"], i["proj"], scale=1 / np.sqrt(i["H"]))])


def _init_05(i, std=None, uniform=False, global_rng=False, transposed=False):
    """init_weight with one mistake. global_rng: drawn from np.random, which the probe seeds with the case's
    seed before the call (np.random.rand for a uniform draw, np.random.normal otherwise), not from rng."""
    fan_in, fan_out = i["fan_in"], i["fan_out"]
    rng = np.random.RandomState(i["seed"]) if global_rng else np.random.default_rng(i["seed"])
    shape = (fan_out, fan_in) if transposed else (fan_in, fan_out)
    if uniform:
        return rng.random_sample(shape) if global_rng else rng.random(shape)
    return rng.normal(0.0, std(fan_in, fan_out), size=shape)


INIT_05 = [
    Mistake("weights from a uniform draw in [0, 1)",
            "every weight is positive with mean 0.5 (as with np.random.rand), so x @ W grows with "
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
    Mistake("weights from np.random.rand",
            "np.random.rand ignores the generator rng you are given, and its weights are all positive with "
            "mean 0.5: draw them with rng.normal, mean 0 and std 1/np.sqrt(fan_in)",
            lambda i: _init_05(i, uniform=True, global_rng=True)),
    Mistake("drawn from np.random, not rng",
            "the weights have the right distribution but come from np.random's own generator, so the rng you "
            "are given cannot reproduce them: call rng.normal(...) instead of np.random.normal or np.random.randn",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1 / np.sqrt(n_in), global_rng=True)),
    Mistake("Glorot (Xavier) std",
            "sqrt(2 / (fan_in + fan_out)) is Glorot's std; this course keeps x @ W at the scale of x, which "
            "needs std 1/np.sqrt(fan_in)",
            lambda i: _init_05(i, std=lambda n_in, n_out: np.sqrt(2 / (n_in + n_out)))),
    Mistake("weight shape transposed",
            "the weight has shape (fan_out, fan_in), the book's Omega shape; in the row convention x @ W needs "
            "W of shape (fan_in, fan_out)",
            lambda i: _init_05(i, std=lambda n_in, n_out: 1 / np.sqrt(n_in), transposed=True)),
]


# ---- Notebook 05, section 8: boolean masks (True = the key may be attended)

def _boolean_masks_05(i, inverted=False, inclusive=False, triu=False):
    """[key_padding_mask, causal_mask] on a probe's inputs, one of them made with one mistake."""
    lens, Tq, Tk = np.asarray(i["valid_lens"]), i["num_queries"], i["num_keys"]
    positions = np.arange(Tk)  # (Tk,)
    padding = positions <= lens[:, None, None] if inclusive else positions < lens[:, None, None]  # (B, 1, Tk)
    ones = np.ones((Tq, Tk), dtype=bool)
    return [~padding if inverted else padding, np.triu(ones) if triu else np.tril(ones)]


def _masked_softmax_bool_05(i, fill=ref.MASK_VALUE, after=False, inverted=False, added=False):
    """masked_softmax_bool with one mistake: another fill value, masking after the softmax, True taken as
    "masked", or the fill added to the masked scores instead of put in their place."""
    scores, mask = np.asarray(i["scores"], dtype=float), np.asarray(i["mask"], dtype=bool)
    keep = ~mask if inverted else mask
    with np.errstate(invalid="ignore"):
        if after:
            return ref.softmax_rows(scores) * keep  # (B, Tq, Tk)
        if added:
            return ref.softmax_rows(scores + np.where(keep, 0.0, fill))
        return ref.softmax_rows(np.where(keep, scores, fill))


PADDING_MASK_INVERTED = Mistake(
    "padding mask inverted (True = ignore)",
    "your key_padding_mask is True at the padding keys, the convention of PyTorch's nn.MultiheadAttention "
    "key_padding_mask (True = ignore that key); here True means a key may be attended: "
    "np.arange(num_keys) < valid_lens[:, None, None]",
    lambda i: _boolean_masks_05(i, inverted=True))

PADDING_MASK_OFF_BY_ONE = Mistake(
    "padding mask off by one",
    "each sequence keeps one key too many: a valid length of 3 means keys 0, 1 and 2, so compare with <, "
    "not <=",
    lambda i: _boolean_masks_05(i, inclusive=True))

CAUSAL_MASK_TRIU = Mistake(
    "causal mask from np.triu",
    "np.triu keeps the keys on and above the diagonal, so each query sees itself and the future: "
    "np.tril keeps keys 0..t for query t",
    lambda i: _boolean_masks_05(i, triu=True))

BOOLEAN_MASKS_05 = [PADDING_MASK_INVERTED, PADDING_MASK_OFF_BY_ONE, CAUSAL_MASK_TRIU]

BOOL_MASK_ZERO = Mistake(
    MASK_ZERO.name,
    "the scores where the mask is False were set to 0, and exp(0) = 1 still gives those keys weight: "
    "use np.where(mask, scores, -1e6) before the softmax",
    lambda i: _masked_softmax_bool_05(i, fill=0.0))

BOOL_MASK_AFTER_SOFTMAX = Mistake(
    MASK_AFTER_SOFTMAX.name,
    "the weights were multiplied by the mask after the softmax, so the rest no longer sum to one: "
    "mask the scores with np.where(mask, scores, -1e6) before the softmax",
    lambda i: _masked_softmax_bool_05(i, after=True))

BOOL_MASK_NEG_INF = Mistake(
    MASK_NEG_INF.name,
    "a query whose mask is all False has every score at -inf, and the softmax of that row is nan: fill "
    "with -1e6, which gives that query uniform weights, this course's convention",
    lambda i: _masked_softmax_bool_05(i, fill=-np.inf))

BOOL_MASK_INVERTED = Mistake(
    "mask inverted (True taken as masked)",
    "your softmax masks the keys where the mask is True, as PyTorch's key_padding_mask would; here True "
    "means a key may be attended: keep the scores where mask is True, np.where(mask, scores, -1e6)",
    lambda i: _masked_softmax_bool_05(i, inverted=True))

BOOL_MASK_ADDED = Mistake(
    "-1e6 added, not put in place",
    "adding -1e6 to the masked scores shifts a query with no valid key by the same amount everywhere, so "
    "it gets the softmax of its raw scores, not uniform weights: replace them, np.where(mask, scores, -1e6)",
    lambda i: _masked_softmax_bool_05(i, added=True))

MASKED_SOFTMAX_BOOL_05 = [BOOL_MASK_ZERO, BOOL_MASK_AFTER_SOFTMAX, BOOL_MASK_NEG_INF, BOOL_MASK_INVERTED,
                          BOOL_MASK_ADDED]


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

# Four ways a checker goes wrong, each a checker the grader runs on every test function: its verdict
# (1 = equivariant) is the student's on every case when the student's checker works that way.
def _checker_like(decide):
    """The verdicts of a checker that decides as `decide(f, X)`."""
    return lambda i: np.array(float(decide(_cases.permutation_test_function(i), i["X"])))


def _rotations_only(f, X, tolerance=1e-6):
    """The right comparison, tried only on the N cyclic shifts of the columns (a generator that misses the rest)."""
    N = X.shape[1]
    return all(np.max(np.abs(f(X @ P) - f(X) @ P)) <= tolerance for P in (np.roll(np.eye(N), s, axis=1) for s in range(N)))


CHECKER_ACCEPTS_ALL = Mistake(
    "accepts every function",
    "your checker said True for every function, also for those that are not equivariant (X + Pi, X with "
    "its columns sorted): return False as soon as one P makes f(X @ P) and f(X) @ P differ by more than "
    "the tolerance",
    _checker_like(lambda f, X: True))

CHECKER_REJECTS_ALL = Mistake(
    "rejects an equivariant function",
    "your checker said False for every function, also for equivariant ones such as W @ X: compare f(X @ P) "
    "with f(X) @ P (not P @ f(X)), with P of size N x N taken from X itself, and allow for rounding "
    "(a tolerance, not ==)",
    _checker_like(lambda f, X: False))

CHECKER_SAME_SET = Mistake(
    "accepts a function that reorders the columns",
    "your checker said True for X with its columns sorted, which is not equivariant: f(X @ P) holds the "
    "same columns as f(X) @ P, but in another order. Compare the two column by column, not as sets of "
    "columns, and for all N! permutations P",
    _checker_like(ref.same_columns_for_every_permutation))

CHECKER_ROTATIONS_ONLY = Mistake(
    "tries only the rotations",
    "your checker said True for f(X) = X with its columns rolled by one, which is not equivariant: it "
    "tried only the N cyclic shifts of the columns, and those commute with the roll. Try all N! "
    "permutations: does generate_permutation_matrices list them all?",
    _checker_like(_rotations_only))

PERMUTATION_CHECKER = [CHECKER_ACCEPTS_ALL, CHECKER_REJECTS_ALL, CHECKER_SAME_SET, CHECKER_ROTATIONS_ONLY]


# Ways the sinusoidal position encoding goes wrong. Each is the encoding computed that way, (D, N).
def _encoding_like(i, positions_from=0, exponent=lambda rows, D: 2 * (rows // 2) / D, divide=True,
                   sin_rows=lambda rows: rows % 2 == 0, frequency_rows=lambda rows, D: rows):
    """A sinusoidal encoding: the angle of row d, position n is n / 10000**exponent(row), sin or cos by row."""
    D, N = int(i["D"]), int(i["N"])
    positions = np.arange(positions_from, positions_from + N)[np.newaxis, :]  # (1, N)
    rows = np.arange(D)[:, np.newaxis]  # (D, 1)
    scale = 10000.0 ** exponent(frequency_rows(rows, D), D)  # (D, 1)
    angles = positions / scale if divide else positions * scale  # (D, N)
    return np.where(sin_rows(rows), np.sin(angles), np.cos(angles))  # (D, N)


def _halves(rows, D):
    """Row d of a half-and-half layout as the row of the interleaved one with the same frequency."""
    top = (D + 1) // 2  # the sines fill rows 0..top-1, the cosines the rest
    return np.where(rows < top, 2 * rows, 2 * (rows - top) + 1)


ENCODING_SIN_COS_SWAPPED = Mistake(
    "sine and cosine swapped",
    "the even rows hold cosines and the odd rows sines: row 2i is sin(n / 10000**(2i/D)) and row 2i+1 is "
    "the cosine of the same angle",
    lambda i: _encoding_like(i, sin_rows=lambda rows: rows % 2 == 1))

ENCODING_FREQUENCY_PER_ROW = Mistake(
    "a frequency per row, not per pair of rows",
    "the exponent uses the row index d itself, so no two rows share a frequency: rows 2i and 2i+1 share "
    "one, 10000**(2i/D), so use 2 * (d // 2) / D",
    lambda i: _encoding_like(i, exponent=lambda rows, D: rows / D))

ENCODING_EXPONENT_DOUBLED = Mistake(
    "exponent 2d/D instead of 2i/D",
    "the exponent is twice the row index over D, so the frequencies fall twice as fast as they should: "
    "i counts pairs of rows, so rows 2i and 2i+1 both use 10000**(2i/D), that is 2 * (d // 2) / D",
    lambda i: _encoding_like(i, exponent=lambda rows, D: 2 * rows / D))

ENCODING_HALVES = Mistake(
    "sines in the top half, cosines in the bottom",
    "that layout is a position encoding too, but the one asked for here interleaves them: row 2i holds "
    "the sine and row 2i+1 the cosine of the same angle",
    lambda i: _encoding_like(i, sin_rows=lambda rows: rows < (int(i["D"]) + 1) // 2,
                             frequency_rows=_halves))

ENCODING_MULTIPLIED = Mistake(
    "positions multiplied by 10000**(2i/D)",
    "the angle is the position divided by 10000**(2i/D), so that the lower rows turn ever more slowly: "
    "n / 10000**(2i/D), not n * 10000**(2i/D)",
    lambda i: _encoding_like(i, divide=False))

ENCODING_FROM_ONE = Mistake(
    "positions counted from 1",
    "the first token is in position 0, so column 0 is sin(0), cos(0), ...: take the positions from "
    "np.arange(N)",
    lambda i: _encoding_like(i, positions_from=1))

POSITION_ENCODING = [ENCODING_SIN_COS_SWAPPED, ENCODING_FREQUENCY_PER_ROW, ENCODING_EXPONENT_DOUBLED,
                     ENCODING_HALVES, ENCODING_MULTIPLIED, ENCODING_FROM_ONE]


# ====================================================================== notebook 07: backpropagation through attention

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
    V, Q, K = ref.queries_keys_values(X, ov, oq, ok, bv, bq, bk)
    c = 1.0 / np.sqrt(Q.shape[0])
    A = ref.softmax_cols(K.T @ Q * c)  # (N, N)
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
    from . import cases
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
    from . import tiny_transformer as tiny
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


# ====================================================================== notebook 08: the transformer block

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


# ====================================================================== notebook 09: a tiny transformer, trained

def _cross_entropy_09(i, count="weights", one_hot=True, averaged=True, shift=True):
    """[loss, dlogits] of i's logits computed that way: `count` "weights" (the sum of the weights), "all"
    (B T, the weights still applied) or "ignored" (every position counted, weights unused); without `shift`,
    log p = logits - log(sum(exp(logits))), which overflows for logits above about 709."""
    logits, targets = i["logits"], i["targets"]
    weights = np.ones(targets.shape) if count == "ignored" else i["weights"]
    n = np.sum(weights) if count == "weights" else targets.size
    with np.errstate(all="ignore"):
        z = logits - np.max(logits, axis=-1, keepdims=True) if shift else logits  # (B, T, V)
        log_p = z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))  # (B, T, V)
        picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
        loss = -np.sum(weights * picked) / n
        d = np.exp(log_p) - (np.eye(logits.shape[-1])[targets] if one_hot else 0.0)  # (B, T, V)
        d = d * weights[..., None] / (n if averaged else 1.0)
    return [loss, d]


CE_COUNTED_ALL = Mistake(
    "divided by every position",
    "the sum was divided by the number of positions, B T; the mean is over the counted positions only, so "
    "divide the loss and the gradient by np.sum(weights)",
    lambda i: _cross_entropy_09(i, count="all"))

CE_WEIGHTS_IGNORED = Mistake(
    "weights not used",
    "every position was counted, the first half's unpredictable digits too: multiply each position's loss by "
    "its weight and divide by np.sum(weights), and weight the gradient the same way",
    lambda i: _cross_entropy_09(i, count="ignored"))

CE_NO_ONE_HOT = Mistake(
    "one-hot not subtracted",
    "your gradient is the softmax alone; the gradient of -log p(target) is softmax - one_hot(target): subtract "
    "1 at each position's target",
    lambda i: _cross_entropy_09(i, one_hot=False))

CE_NOT_AVERAGED = Mistake(
    "gradient not divided by the count",
    "the loss is a mean, so its gradient is divided by np.sum(weights) too",
    lambda i: _cross_entropy_09(i, averaged=False))

CE_NO_MAX = Mistake(
    "maximum not subtracted",
    "np.exp overflowed on large logits: subtract each position's largest logit first (the softmax does not "
    "change), or compute log p as logits - max - log(sum(exp(logits - max)))",
    lambda i: _cross_entropy_09(i, shift=False))

CROSS_ENTROPY_09 = [CE_COUNTED_ALL, CE_WEIGHTS_IGNORED, CE_NO_ONE_HOT, CE_NOT_AVERAGED, CE_NO_MAX]


def _adam_09(i, correct=True, eps_inside=False, square=True, sign=-1.0, swapped=False):
    """[param, m, v] after one Adam step on i, computed that way."""
    b1, b2, g = i["beta1"], i["beta2"], i["grad"]
    if swapped:
        m, v = b1 * g + (1 - b1) * i["m"], b2 * (g ** 2 if square else g) + (1 - b2) * i["v"]
    else:
        m, v = b1 * i["m"] + (1 - b1) * g, b2 * i["v"] + (1 - b2) * (g ** 2 if square else g)
    m_hat, v_hat = (m / (1 - b1 ** i["t"]), v / (1 - b2 ** i["t"])) if correct else (m, v)
    with np.errstate(invalid="ignore"):
        denominator = np.sqrt(v_hat + i["eps"]) if eps_inside else np.sqrt(v_hat) + i["eps"]
    return [i["param"] + sign * i["lr"] * m_hat / denominator, m, v]


ADAM_NO_CORRECTION = Mistake(
    "no bias correction",
    "m and v start at zero, so early on they are too small: divide them by 1 - beta1**t and 1 - beta2**t "
    "before the update (m and v themselves are stored as they are)",
    lambda i: _adam_09(i, correct=False))

ADAM_EPS_INSIDE = Mistake(
    "eps inside the square root",
    "you divided by np.sqrt(v_hat + eps); Adam divides by np.sqrt(v_hat) + eps, which matters where the "
    "gradient is tiny",
    lambda i: _adam_09(i, eps_inside=True))

ADAM_V_NOT_SQUARED = Mistake(
    "v averages the gradient, not its square",
    "v is the moving average of grad ** 2 (the second moment), so that np.sqrt(v) has the gradient's size",
    lambda i: _adam_09(i, square=False))

ADAM_ASCENT = Mistake(
    "step added",
    "the update went uphill: subtract lr * m_hat / (np.sqrt(v_hat) + eps) from the parameter",
    lambda i: _adam_09(i, sign=1.0))

ADAM_BETAS_SWAPPED = Mistake(
    "beta and 1 - beta swapped",
    "the moving averages keep beta of the old value and add 1 - beta of the new: m = beta1 * m + (1 - beta1) * "
    "grad, and likewise v with beta2",
    lambda i: _adam_09(i, swapped=True))

ADAM_09 = [ADAM_NO_CORRECTION, ADAM_EPS_INSIDE, ADAM_V_NOT_SQUARED, ADAM_ASCENT, ADAM_BETAS_SWAPPED]


def _train_step_09(i, t_shift=1, t_stored=True, moments_stored=True, loss_after=False, sgd=False):
    """train_step's report [loss, t, params..., m..., v...] on i, made that way: the update uses step
    t + t_shift, the state keeps t + 1 (or t), the new moments (or the old ones), and the loss is the one
    before the update (or after); `sgd` moves each parameter by lr * grad and keeps no moments."""
    names = i["names"]
    step_t = i["t"] + t_shift  # the t the update uses
    params = {n: np.array(a, dtype=float) for n, a in zip(names, i["params"])}
    logits, cache = ref.tiny.model_forward(params, i["tokens"], i["num_heads"])
    loss, dlogits = ref.cross_entropy(logits, i["targets"], i["weights"])
    grads = ref.tiny.model_backward(dlogits, cache)
    m, v = dict(zip(names, i["m"])), dict(zip(names, i["v"]))
    new_m, new_v = dict(m), dict(v)
    for n in names:
        if sgd:
            params[n] = params[n] - i["lr"] * grads[n]
        else:
            with np.errstate(all="ignore"):
                params[n], new_m[n], new_v[n] = ref.adam_step(params[n], grads[n], m[n], v[n], step_t, i["lr"])
    if not moments_stored or sgd:
        new_m, new_v = m, v
    if loss_after:
        loss = ref.cross_entropy(ref.tiny.model_forward(params, i["tokens"], i["num_heads"])[0], i["targets"],
                                 i["weights"])[0]
    t = i["t"] + 1 if t_stored else i["t"]
    return [loss, t] + [params[n] for n in names] + [new_m[n] for n in names] + [new_v[n] for n in names]


TRAIN_T_NOT_COUNTED = Mistake(
    "step not counted",
    "adam_state['t'] was never increased, so every step used the same t: add 1 to it before the update, "
    "and pass the new t to adam_step",
    lambda i: _train_step_09(i, t_shift=0, t_stored=False))

TRAIN_T_COUNTED_AFTER = Mistake(
    "step counted after the update",
    "the update used the old t (0 on the first step, where the bias correction divides by zero): add 1 to "
    "adam_state['t'] first, then update with the new t",
    lambda i: _train_step_09(i, t_shift=0))

TRAIN_MOMENTS_NOT_STORED = Mistake(
    "moments not stored",
    "adam_step returns the new m and v too: store them in adam_state['m'][name] and adam_state['v'][name], "
    "or the next step starts again from the old ones",
    lambda i: _train_step_09(i, moments_stored=False))

TRAIN_LOSS_AFTER = Mistake(
    "loss after the update",
    "return the loss the forward pass gave, before the parameters changed: that is the loss the gradients "
    "belong to",
    lambda i: _train_step_09(i, loss_after=True))

TRAIN_SGD = Mistake(
    "plain gradient descent",
    "the parameters moved by lr * grad; update each one with your adam_step, and keep its m and v in adam_state",
    lambda i: _train_step_09(i, sgd=True))

TRAIN_STEP_09 = [TRAIN_T_NOT_COUNTED, TRAIN_T_COUNTED_AFTER, TRAIN_MOMENTS_NOT_STORED, TRAIN_LOSS_AFTER, TRAIN_SGD]
