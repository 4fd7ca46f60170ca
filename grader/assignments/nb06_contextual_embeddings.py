"""Notebook 06, contextual embeddings (row convention): its probes and the values its checks show."""
import numpy as np

from .. import cases, mistakes, reference as ref
from ..protocol import Case, Probe

N_FRESH = 3
FRESH_T = (3, 4, 5, 7, 8)            # the notebook's sentences have 6 words
FRESH_HEADS = ((4, 2), (6, 3), (6, 2), (10, 2), (12, 4), (9, 3))  # (D, H), several heads; the notebook has (8, 2)

# A probe cannot pass a dict: the call builds the vocabulary from its list of words, <unk> first.
VOCAB = "{w: n for n, w in enumerate(vocab_words)}"


def _vocab(i):
    return {word: n for n, word in enumerate(i["vocab_words"])}


def _tokenize_cases(rng):
    book = Case("book", {"sentence": cases.TOKENIZE_EXAMPLE_06, "vocab_words": list(cases.VOCAB_06)})
    fresh = []
    for T in rng.choice(FRESH_T, size=N_FRESH):
        words = cases.fresh_vocab_06(rng)
        sentence = cases.fresh_sentence_06(rng, words, int(T))
        fresh.append(Case("fresh", {"sentence": sentence, "vocab_words": words},
                          about=f"a sentence of {T} words, a vocabulary of {len(words)}"))
    return [book] + fresh


def _embedding_cases(rng):
    book = cases.book_06()
    out = [Case("book", {"text": book["sentences"][0], "vocab_words": book["vocab_words"],
                         "embedding_matrix": book["embedding_matrix"], "seed": 6})]
    for T in rng.choice(FRESH_T, size=N_FRESH):
        words = cases.fresh_vocab_06(rng)
        D = int(rng.choice((3, 5, 6, 10)))
        out.append(Case("fresh", {"text": cases.fresh_sentence_06(rng, words, int(T), unknown=False, capitals=False),
                                  "vocab_words": words, "embedding_matrix": rng.normal(size=(len(words), D)),
                                  "seed": int(rng.integers(2**31))},
                        about=f"{T} words, a table of {len(words)} x {D}"))
    return out


def _attention_inputs(X, W_q, W_k, W_v, W_o, H):
    return {"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o, "H": int(H)}


def _attention_cases(rng):
    book = cases.book_06()
    out = [Case("book", _attention_inputs(*(book[n] for n in ("X", "W_q", "W_k", "W_v", "W_o", "H"))))]
    for k in rng.choice(len(FRESH_HEADS), size=N_FRESH, replace=False):
        D, H = FRESH_HEADS[k]
        B, T = int(rng.choice((1, 3))), int(rng.choice(FRESH_T))
        W = [rng.normal(size=(D, D)) / np.sqrt(D) for _ in range(4)]
        out.append(Case("fresh", _attention_inputs(rng.normal(size=(B, T, D)), *W, H),
                        about=f"B={B}, T={T}, D={D}, H={H}"))
    return out


def _pca_example():
    return cases.pca_data_06(np.random.default_rng(2), 8, 3)  # (N=8, D=3)


def _unfixed_signs_show(rng, N, D, k):
    """PCA data whose raw SVD breaks the sign convention in some component (this numpy's SVD is the
    kernel's too), so a pca that does not fix the signs is wrong on every fresh input, never by luck."""
    while True:
        X = cases.pca_data_06(rng, N, D)
        _, _, Vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
        if not np.allclose(ref.fix_signs(Vt[:k]), Vt[:k]):
            return X


def _pca_cases(rng):
    out = [Case("book", {"X": _pca_example(), "n_components": 2})]
    for _ in range(N_FRESH):
        N, D = int(rng.choice((5, 6, 10, 12, 20))), int(rng.choice((4, 5, 6)))
        k = int(rng.integers(1, min(N, D, 3) + 1))
        out.append(Case("fresh", {"X": _unfixed_signs_show(rng, N, D, k), "n_components": k},
                        about=f"N={N}, D={D}, n_components={k}"))
    return out


PROBES = {
    "test_tokenize": Probe(
        what="tokenize",
        call=f"__import__('numpy').asarray(tokenize(sentence, {VOCAB}))",
        cases=_tokenize_cases,
        reference=lambda i: ref.tokenize(i["sentence"], _vocab(i)),
        mistakes=[mistakes.UNKNOWN_WORDS_DROPPED, mistakes.NOT_LOWERCASED],
    ),
    # The global seed is set first so that a function drawing its own table with np.random
    # draws a table the grader can draw too, and the verdict can say so.
    "test_text_to_word_embeddings": Probe(
        what="text_to_word_embeddings",
        call=f"(__import__('numpy').random.seed(seed), text_to_word_embeddings(text, {VOCAB}, embedding_matrix))[1]",
        cases=_embedding_cases,
        reference=lambda i: ref.word_embeddings(ref.tokenize(i["text"], _vocab(i)), i["embedding_matrix"]),
        mistakes=[mistakes.NEW_TABLE_EVERY_CALL],
    ),
    # The class is built inline and its weights overwritten: only forward is marked.
    "test_self_attention": Probe(
        what="SelfAttention.forward",
        call="(lambda m: (setattr(m, 'q_proj', W_q), setattr(m, 'k_proj', W_k), setattr(m, 'v_proj', W_v), "
             "setattr(m, 'out_proj', W_o), m.forward(X))[-1])(SelfAttention(X.shape[-1], H))",
        cases=_attention_cases,
        reference=lambda i: ref.multihead_self_attention_rows(i["X"], i["W_q"], i["W_k"], i["W_v"], i["W_o"], i["H"]),
        mistakes=mistakes.CONTEXTUAL_ATTENTION,
    ),
    "test_pca": Probe(
        what="pca",
        call="pca(X, n_components)",
        cases=_pca_cases,
        reference=lambda i: ref.principal_components(i["X"], i["n_components"]),
        mistakes=mistakes.PCA_06,
    ),
}


# ---------------------------------------------------------------- generated cells

def _ctx_tokenize():
    i = {"sentence": cases.TOKENIZE_EXAMPLE_06, "vocab_words": list(cases.VOCAB_06)}
    return {"tokenize_example": i["sentence"],
            "tokenize_example_true": ref.tokenize(i["sentence"], _vocab(i)),
            "UNKNOWN_DROPPED": mistakes.UNKNOWN_WORDS_DROPPED.said,
            "tokenize_unknown_dropped": mistakes.UNKNOWN_WORDS_DROPPED.compute(i),
            "NOT_LOWERCASED": mistakes.NOT_LOWERCASED.said,
            "tokenize_not_lowercased": mistakes.NOT_LOWERCASED.compute(i)}


def _ctx_embeddings():
    book = cases.book_06()
    return {"embeddings_example_true": ref.word_embeddings(book["ids"][0], book["embedding_matrix"]),
            "NEW_TABLE": mistakes.NEW_TABLE_EVERY_CALL.said}


def _ctx_attention():
    book = cases.book_06()
    i = _attention_inputs(*(book[n] for n in ("X", "W_q", "W_k", "W_v", "W_o", "H")))
    return {"bank_ids_true": book["ids"],
            "contextual_true": ref.multihead_self_attention_rows(i["X"], i["W_q"], i["W_k"], i["W_v"], i["W_o"], i["H"]),
            "attention_mistakes": {m.said: m.compute(i) for m in (mistakes.SCALED_BY_EMBED_DIM,
                                                                  mistakes.SOFTMAX_OVER_QUERIES)}}


def _ctx_pca():
    i = {"X": _pca_example(), "n_components": 2}
    return {"pca_example": i["X"],
            "pca_example_true": ref.principal_components(i["X"], 2),
            "pca_mistakes": {m.said: m.compute(i) for m in mistakes.PCA_06}}


VALUES = {
    "ctx_tokenize": _ctx_tokenize,
    "ctx_embeddings": _ctx_embeddings,
    "ctx_attention": _ctx_attention,
    "ctx_pca": _ctx_pca,
}
