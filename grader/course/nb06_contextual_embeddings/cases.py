"""Notebook 06's inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time.
"""
import numpy as np


UNK = "<unk>"
# The notebook's vocabulary: <unk> first, then the words of its sentences.
VOCAB_06 = [UNK, "the", "cat", "sat", "on", "mat", "we", "walked", "along", "river", "bank", "paid", "money", "into"]
SENTENCES_06 = ["we walked along the river bank", "we paid money into the bank"]
TOKENIZE_EXAMPLE_06 = "The river Thames burst its bank"
# Words the fresh sentences and vocabularies are drawn from (lower case; fresh sentences capitalise some).
WORDS_06 = ("a", "boat", "bank", "river", "money", "the", "we", "sat", "by", "green", "old", "stone", "bridge",
            "water", "fish", "paid", "into", "walked", "along", "light", "over", "town", "she", "saw", "deep",
            "near", "quiet", "road", "house", "cold")


def book_06():
    """Notebook 06: its vocabulary, sentences, embedding table (seed 0) and attention weights (seed 1)."""
    D, H = 8, 2
    vocab = {word: n for n, word in enumerate(VOCAB_06)}
    embedding_matrix = np.random.default_rng(0).normal(size=(len(vocab), D))  # (V, D)
    rng = np.random.default_rng(1)  # as SelfAttention(D, num_heads=2, seed=1) draws them
    W_q, W_k, W_v, W_o = (rng.normal(size=(D, D)) / np.sqrt(D) for _ in range(4))
    ids = np.stack([[vocab.get(w, 0) for w in s.lower().split()] for s in SENTENCES_06])  # (2, T)
    return dict(D=D, H=H, vocab_words=list(VOCAB_06), vocab=vocab, sentences=list(SENTENCES_06),
                embedding_matrix=embedding_matrix, ids=ids, X=embedding_matrix[ids],
                W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o)


def fresh_vocab_06(rng):
    """A fresh vocabulary: 8 to 14 words of WORDS_06 in a random order, with <unk> among them, never first
    (every vocabulary of the notebook has <unk> at 0, so a tokenizer that assumes 0 shows here)."""
    words = [str(w) for w in rng.choice(WORDS_06, size=int(rng.integers(8, 15)), replace=False)]
    words.insert(int(rng.integers(1, len(words) + 1)), UNK)
    return words


# The notebook's second tokenize example: <unk> is id 2, and the sentence has capitals in odd places,
# punctuation ("river," and "bank." are words the vocabulary does not know), a run of spaces and a tab.
OTHER_VOCAB_06 = ["river", "boat", UNK, "the", "bank", "we", "sat", "by", "water"]
OTHER_SENTENCE_06 = "We sat by the RIVER,  near the\tBoat bank."
# The notebook's second embeddings example: the same vocabulary, known words only, a table of 9 x 5 (seed 6).
OTHER_TEXT_06 = "the boat by the river bank"


def other_table_06():
    return np.random.default_rng(6).normal(size=(len(OTHER_VOCAB_06), 5))  # (V, D=5)


def _odd_case(rng, word):
    """A word with capitals in it: Capitalised, UPPER, or capitals in odd places (bAnK)."""
    kind = int(rng.integers(3))
    if kind == 0 or len(word) == 1:
        return word.capitalize()
    if kind == 1:
        return word.upper()
    return "".join(c.upper() if n % 2 else c for n, c in enumerate(word))


def fresh_sentence_06(rng, vocab_words, T, unknown=True, capitals=True, messy=False):
    """T words: known and (if `unknown`) unknown ones; (if `capitals`) the first and one known word capitalised.

    `messy`: as the notebook's tokenize must take any text: one known word with punctuation stuck to it
    ("bank." is not a word of the vocabulary), a tab between two words and a run of spaces between two
    others (T >= 3), capitals in odd places.
    """
    known = [w for w in vocab_words if w != UNK]
    others = [w for w in WORDS_06 if w not in vocab_words] + ["thames", "lorry", "harbour"]
    while True:
        words = [str(rng.choice(known if not unknown or rng.random() < 0.6 else others)) for _ in range(T)]
        is_known = [w in known for w in words]
        enough = sum(is_known) >= (2 if messy else 1)  # messy: one known word to punctuate, one to capitalise
        if all(is_known) if not unknown else (enough and not all(is_known)):
            break
    if capitals:
        where = [n for n in range(T) if is_known[n]]
        k = int(rng.choice(where))
        words[k] = _odd_case(rng, words[k]) if messy else words[k].upper() if rng.random() < 0.5 else words[k].capitalize()
        if messy:
            p = int(rng.choice([n for n in where if n != k]))
            words[p] = words[p] + str(rng.choice([".", ",", "!", "?", ";", ":"]))
        words[0] = words[0][:1].upper() + words[0][1:]
    if not messy:
        return " ".join(words)
    gaps = [" "] * (T - 1)
    tab, run = rng.choice(T - 1, size=2, replace=False)
    gaps[tab], gaps[run] = "\t", " " * int(rng.integers(2, 5))
    return words[0] + "".join(gap + word for gap, word in zip(gaps, words[1:]))


def pca_data_06(rng, N, D):
    """N points in D dimensions with unequal spreads along random axes, far from the origin."""
    axes, _ = np.linalg.qr(rng.normal(size=(D, D)))  # (D, D) orthonormal
    spreads = np.sort(rng.uniform(0.3, 3.0, size=D))[::-1]  # distinct, largest first
    return (rng.normal(size=(N, D)) * spreads) @ axes.T + rng.uniform(2.0, 5.0, size=D) * rng.choice([-1, 1], size=D)
