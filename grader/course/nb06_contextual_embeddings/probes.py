"""Notebook 06, contextual embeddings (row convention): its probes and the values its checks show."""
import numpy as np

from . import cases, mistakes, readings, reference as ref, views
from ..shared import steps as shared_steps, views as shared_views
from ...engine.protocol import Case, Kept, Probe, kernel_source

N_FRESH = 3
FRESH_T = (3, 4, 5, 7, 8)            # the notebook's sentences have 6 words
FRESH_HEADS = ((4, 2), (6, 3), (6, 2), (10, 2), (12, 4), (9, 3))  # (D, H), several heads; the notebook has (8, 2)

# A probe cannot pass a dict: the call builds the vocabulary from its list of words, <unk> first.
VOCAB = "{w: n for n, w in enumerate(vocab_words)}"


def _vocab(i):
    return {word: n for n, word in enumerate(i["vocab_words"])}


def _tokenize_cases(rng):
    # Both of the notebook's examples: the second (punctuation, a tab, <unk> at 2) shows the mistakes that the
    # first, the book's vocabulary and single spaces, cannot.
    book = [Case("book", {"sentence": cases.TOKENIZE_EXAMPLE_06, "vocab_words": list(cases.VOCAB_06)}),
            Case("book", {"sentence": cases.OTHER_SENTENCE_06, "vocab_words": list(cases.OTHER_VOCAB_06)},
                 about="the notebook's second sentence")]
    fresh = []
    for T in rng.choice(FRESH_T, size=N_FRESH):
        while True:  # every fresh sentence tells each catalogued mistake apart from the others and the answer
            words = cases.fresh_vocab_06(rng)
            inputs = {"sentence": cases.fresh_sentence_06(rng, words, int(T), messy=True), "vocab_words": words}
            if _all_apart(inputs, PROBES["test_tokenize"]):
                break
        fresh.append(Case("fresh", inputs, about=f"a sentence of {T} words, a vocabulary of {len(words)} "
                                                 f"with <unk> at {words.index(cases.UNK)}"))
    return book + fresh


def _all_apart(inputs, probe):
    """Whether the reference and each mistake of `probe` give results that differ pairwise on these inputs."""
    results = [probe.reference(inputs)] + [m.compute(inputs) for m in probe.mistakes]
    results = [np.asarray(r, dtype=float) for r in results]
    return all(a.shape != b.shape or not np.allclose(a, b)
               for n, a in enumerate(results) for b in results[n + 1:])


def _embedding_cases(rng):
    book = cases.book_06()
    out = [Case("book", {"text": book["sentences"][0], "vocab_words": book["vocab_words"],
                         "embedding_matrix": book["embedding_matrix"], "seed": 6})]
    for T in rng.choice(FRESH_T, size=N_FRESH):
        words = cases.fresh_vocab_06(rng)
        D = int(rng.choice((3, 5, 6, 10)))
        # any text tokenize takes (capitals, unknown words, punctuation, a tab, a run of spaces): the TODO looks the
        # words up with the student's tokenize, and a wrong tokenize is swapped for the course's (`uses`)
        out.append(Case("fresh", {"text": cases.fresh_sentence_06(rng, words, int(T), messy=True),
                                  "vocab_words": words, "embedding_matrix": rng.normal(size=(len(words), D)),
                                  "seed": int(rng.integers(2**31))},
                        about=f"{T} words, a table of {len(words)} x {D}"))
    return out


def _attention_inputs(X, W_q, W_k, W_v, W_o, H, seed=0, own_weights=False):
    """own_weights: the class draws its own weights from `seed` (they are W_q, ...); else the probe sets W_q, ..."""
    return {"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o, "H": int(H),
            "seed": int(seed), "own_weights": int(own_weights)}


def _seeded_weights(D, seed):
    """The weights SelfAttention(D, H, seed) draws in the notebook's __init__: q, k, v, out, each (D, D)."""
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(D, D)) / np.sqrt(D) for _ in range(4)]


def _book_attention():
    """The notebook's check: SelfAttention(D, num_heads=2, seed=1) on the two sentences, its own weights."""
    book = cases.book_06()
    return _attention_inputs(book["X"], *_seeded_weights(book["D"], 1), book["H"], seed=1, own_weights=True)


def _other_attention():
    """The notebook's second check: SelfAttention(6, num_heads=3, seed=4) on one sentence of 5 tokens."""
    X = np.random.default_rng(5).normal(size=(1, 5, 6))  # (B, T, D)
    return _attention_inputs(X, *_seeded_weights(6, 4), 3, seed=4, own_weights=True)


def _attention_weights(i):
    """The weights forward keeps in self.attn_weights: (B, H, T, T), each query's row over the keys."""
    B, T, _ = np.shape(i["X"])
    steps = shared_steps.rows_attention(i["X"], i["X"], i["X"], None, i["H"], i["W_q"], i["W_k"], i["W_v"], i["W_o"])
    weights = next(s.value for s in steps if s.name == "attention weights")  # (B*H, T, T), sequence by sequence
    return weights.reshape(B, i["H"], T, T)


def _attention_cases(rng):
    # The book's case is the notebook's check, weights drawn from the seed by the student's __init__;
    # on the fresh cases the probe sets the weights, so they mark forward alone.
    out = [Case("book", _book_attention())]
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
        operations=("loop",),
        axes=("words",),
        call=f"__import__('numpy').asarray(tokenize(sentence, {VOCAB}))",
        cases=_tokenize_cases,
        reference=lambda i: ref.tokenize(i["sentence"], _vocab(i)),
        mistakes=mistakes.TOKENIZE_06,
        exact_shape=True,  # (T,): one id per word
        kernel_reference=kernel_source("tokenize", ref.tokenize),
        readings=(readings.tokenized,),  # its ids read word by word: its steps are strings, which no trace keeps
    ),
    # The global seed is set first so that a function drawing its own table with np.random
    # draws a table the grader can draw too, and the verdict can say so.
    "test_text_to_word_embeddings": Probe(
        what="text_to_word_embeddings",
        operations=(),
        views=(views.TABLE_ROWS,),
        axes=("batch items", "words", "features"),
        call=f"(__import__('numpy').random.seed(seed), text_to_word_embeddings(text, {VOCAB}, embedding_matrix))[1]",
        uses={"tokenize": "test_tokenize"},  # a tokenize wrong in its own part costs marks there only
        cases=_embedding_cases,
        reference=lambda i: ref.word_embeddings(ref.tokenize(i["text"], _vocab(i)), i["embedding_matrix"]),
        steps=lambda i: shared_steps.word_embeddings(ref.tokenize(i["text"], _vocab(i)), i["embedding_matrix"]),
        mistakes=[mistakes.NEW_TABLE_EVERY_CALL, mistakes.NO_BATCH_AXIS],
        exact_shape=True,  # (1, T, D): the batch axis is part of the answer
    ),
    # The book's case builds the class with the notebook's seed and keeps the weights its __init__ draws;
    # the fresh cases build it without one and overwrite the weights, so they mark forward alone.
    "test_self_attention": Probe(
        what="SelfAttention",
        axes=("sequences", "words", "features"), views=(shared_views.HEADS_ROWS, shared_views.WEIGHTS_ROWS),
        # [forward's output, the weights forward keeps]: the notebook's heatmap reads them from the class
        call="(lambda m: [(own_weights or (setattr(m, 'q_proj', W_q), setattr(m, 'k_proj', W_k), "
             "setattr(m, 'v_proj', W_v), setattr(m, 'out_proj', W_o)), m.forward(X))[-1], "
             "getattr(m, 'attn_weights', None)])"
             "(SelfAttention(X.shape[-1], H, seed=seed) if own_weights else SelfAttention(X.shape[-1], H))",
        kept=(Kept("self.attn_weights", "the attention weights", _attention_weights),),
        cases=_attention_cases,
        reference=lambda i: ref.multihead_self_attention_rows(i["X"], i["W_q"], i["W_k"], i["W_v"], i["W_o"], i["H"]),
        steps=lambda i: shared_steps.rows_attention(i["X"], i["X"], i["X"], None, i["H"], i["W_q"], i["W_k"], i["W_v"],
                                                    i["W_o"]),
        mistakes=mistakes.CONTEXTUAL_ATTENTION,
        exact_shape=True,  # (B, T, D), B=1 included
    ),
    "test_pca": Probe(
        what="pca",
        operations=(),
        axes=("components", "features"),
        call="pca(X, n_components)",
        cases=_pca_cases,
        reference=lambda i: ref.principal_components(i["X"], i["n_components"]),
        steps=lambda i: shared_steps.principal_components(i["X"], i["n_components"]),
        mistakes=mistakes.PCA_06,
        exact_shape=True,  # (n_components, D), n_components=1 included
    ),
}


# ---------------------------------------------------------------- generated cells

def _differing(probe, i):
    """{what a check says: the mistake's value} for the mistakes of `probe` that are wrong on inputs i."""
    true = np.asarray(probe.reference(i), dtype=float)
    out = {}
    for m in probe.mistakes:
        try:
            value = np.asarray(m.compute(i), dtype=float)
        except Exception:  # a mistake that raises shows itself
            continue
        if value.shape != true.shape or not np.allclose(value, true):
            out[m.said] = value
    return out


def _ctx_tokenize():
    probe = PROBES["test_tokenize"]
    i = {"sentence": cases.TOKENIZE_EXAMPLE_06, "vocab_words": list(cases.VOCAB_06)}
    other = {"sentence": cases.OTHER_SENTENCE_06, "vocab_words": list(cases.OTHER_VOCAB_06)}
    return {"tokenize_example": i["sentence"],
            "tokenize_example_true": probe.reference(i),
            "tokenize_mistakes": _differing(probe, i),
            "other_words": " ".join(other["vocab_words"]),
            "other_sentence": other["sentence"],
            "other_sentence_true": probe.reference(other),
            "other_sentence_mistakes": _differing(probe, other)}


def _ctx_embeddings():
    probe = PROBES["test_text_to_word_embeddings"]
    book = cases.book_06()
    i = {"text": book["sentences"][0], "vocab_words": book["vocab_words"],
         "embedding_matrix": book["embedding_matrix"], "seed": 6}
    other = {"text": cases.OTHER_TEXT_06, "vocab_words": list(cases.OTHER_VOCAB_06),
             "embedding_matrix": cases.other_table_06(), "seed": 6}
    return {"embeddings_example_true": probe.reference(i),
            "NEW_TABLE": mistakes.NEW_TABLE_EVERY_CALL.said,
            "embeddings_mistakes": {mistakes.NO_BATCH_AXIS.said: mistakes.NO_BATCH_AXIS.compute(i)},
            "other_text": other["text"],
            "other_table": other["embedding_matrix"],
            "other_embeddings_true": probe.reference(other),
            "other_embeddings_mistakes": {mistakes.NO_BATCH_AXIS.said: mistakes.NO_BATCH_AXIS.compute(other)}}


def _ctx_attention():
    probe = PROBES["test_self_attention"]
    book = cases.book_06()
    i, other = _book_attention(), _other_attention()
    shown = (mistakes.SCALED_BY_EMBED_DIM, mistakes.SOFTMAX_OVER_QUERIES)
    return {"bank_ids_true": book["ids"],
            "contextual_true": probe.reference(i),
            "attention_mistakes": {m.said: m.compute(i) for m in shown},
            "other_X": other["X"],
            "other_contextual_true": probe.reference(other),
            "other_attention_mistakes": {m.said: m.compute(other) for m in shown},
            "SEED_IGNORED": mistakes.SEED_IGNORED.said}


def _other_pca():
    """The notebook's second pca example: 10 points in 4 dimensions, one component."""
    return {"X": cases.pca_data_06(np.random.default_rng(3), 10, 4), "n_components": 1}


def _ctx_pca():
    probe = PROBES["test_pca"]
    i, other = {"X": _pca_example(), "n_components": 2}, _other_pca()
    return {"pca_example": i["X"],
            "pca_example_true": probe.reference(i),
            "pca_mistakes": _differing(probe, i),
            "other_points": other["X"],
            "other_pca_true": probe.reference(other),
            "other_pca_mistakes": _differing(probe, other)}


VALUES = {
    "ctx_tokenize": _ctx_tokenize,
    "ctx_embeddings": _ctx_embeddings,
    "ctx_attention": _ctx_attention,
    "ctx_pca": _ctx_pca,
}
