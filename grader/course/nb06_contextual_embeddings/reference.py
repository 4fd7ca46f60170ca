"""Notebook 06's reference implementations: where the expected values of its graded functions come from
(float64 throughout).
"""
import numpy as np

from ..shared.reference import multi_head_attention, softmax_rows, transpose_qkv


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
