"""Notebook 06's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np
import string

from . import reference as ref
from ..shared import reference as shared_ref
from ...engine.protocol import Mistake


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
    weights = np.apply_along_axis(shared_ref.softmax, axis, Q @ K.transpose(0, 1, 3, 2) * scale(d, D))  # (B, H, T, T)
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
