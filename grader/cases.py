"""Inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time."""
import numpy as np

# Fresh sizes avoid the book's own (D=4, N=3), so an answer that leans on the
# notebook's globals or on the book's printed numbers cannot pass by chance, and
# D=2 (where dividing by D equals dividing by the book's sqrt(4)). N=4 is left out
# too (dividing by sqrt(N) would equal the book's sqrt(D)), and N never equals D
# (fresh_12_1 sees to it): a result transposed, or scaled by the number of tokens,
# then differs from the right one in shape or in value.
FRESH_D = (3, 5, 6, 7)
FRESH_N = (5, 6, 7)
PARAMETERS = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


def book_12_1():
    """Book notebook 12.1: N=3 tokens of size D=4 (seed 3), then the parameters (seed 0)."""
    N, D = 3, 4
    np.random.seed(3)
    all_x = [np.random.normal(size=(D, 1)) for _ in range(N)]
    np.random.seed(0)
    omega_q = np.random.normal(size=(D, D))
    omega_k = np.random.normal(size=(D, D))
    omega_v = np.random.normal(size=(D, D))
    beta_q = np.random.normal(size=(D, 1))
    beta_k = np.random.normal(size=(D, 1))
    beta_v = np.random.normal(size=(D, 1))
    return dict(N=N, D=D, all_x=all_x, X=np.hstack(all_x),
                omega_v=omega_v, omega_q=omega_q, omega_k=omega_k,
                beta_v=beta_v, beta_q=beta_q, beta_k=beta_k)


def fresh_12_1(rng, D=None, N=None):
    """Inputs like the book's, of another size, drawn from `rng`.

    Weights have standard deviation 1/sqrt(D), not the book's 1: the attention is
    then far from saturated, so a softmax over the wrong axis or a wrong scale
    changes the result visibly instead of hiding behind weights of 0 and 1.
    """
    if N is None:
        D = int(rng.choice(FRESH_D)) if D is None else D
        N = int(rng.choice([n for n in FRESH_N if n != D]))
    elif D is None:
        D = int(rng.choice([d for d in FRESH_D if d != N]))
    X = rng.normal(size=(D, N))
    params = {name: rng.normal(scale=1 / np.sqrt(D), size=(D, D)) if name.startswith("omega")
              else rng.normal(scale=0.5, size=(D, 1)) for name in PARAMETERS}
    return dict(N=N, D=D, all_x=[X[:, [n]] for n in range(N)], X=X, **params)


def other_12_1():
    """The notebooks' second example (D=5, N=3): a fixed draw of other sizes, for the checks a student sees."""
    return fresh_12_1(np.random.default_rng(2024), D=5, N=3)


def only(inputs, names):
    """The entries of `inputs` that a probe passes on."""
    return {name: inputs[name] for name in names}


def book_12_2():
    """Book notebook 12.2: N=6 tokens of size D=8 (seed 3), two heads of size 4 (seed 0)."""
    N, D, H = 6, 8, 2
    np.random.seed(3)
    X = np.random.normal(size=(D, N))
    H_D = D // H
    np.random.seed(0)
    out = dict(N=N, D=D, H=H, X=X)
    for h in (1, 2):
        for name, size in (("omega_q", (H_D, D)), ("omega_k", (H_D, D)), ("omega_v", (H_D, D)),
                           ("beta_q", (H_D, 1)), ("beta_k", (H_D, 1)), ("beta_v", (H_D, 1))):
            out[f"{name}{h}"] = np.random.normal(size=size)
    out["omega_c"] = np.random.normal(size=(D, D))
    return out


# ---- Notebook 06: contextual embeddings

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


# ---- Notebook 05: batched, masked multi-head attention (row convention, shapes (B, T, D))

def book_05():
    """Seed 001's cross-attention: 2 sequences, 4 queries against 6 key-value pairs, 100 hiddens, 5 heads.

    Inputs from np.random.rand as in the seed, valid_lens [3, 2], no biases; the weights
    are drawn N(0, 1/100) (the seed's np.random.rand weights saturate, section 7). Seed 5.
    """
    num_hiddens, num_heads, batch_size, num_queries, num_kvpairs = 100, 5, 2, 4, 6
    np.random.seed(5)
    X = np.random.rand(batch_size, num_queries, num_hiddens)
    Y = np.random.rand(batch_size, num_kvpairs, num_hiddens)
    out = dict(queries=X, keys=Y, values=Y, valid_lens=np.array([3, 2]),
               num_hiddens=num_hiddens, num_heads=num_heads)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        out[name] = np.random.normal(0, 1 / np.sqrt(num_hiddens), size=(num_hiddens, num_hiddens))
    for name in ("b_q", "b_k", "b_v", "b_o"):
        out[name] = np.zeros(num_hiddens)
    return out


MASKS_05 = ("lengths", "empty", "causal", "causal padded")


def fresh_05(rng, mask="lengths", self_attention=True, bias=True):
    """MultiHeadAttention inputs of another size (2-4 heads of size 5 or 10, B=2 or 3, 4-7 tokens).

    num_hiddens is a multiple of 5, so code that uses the notebook's 5 heads whatever num_heads is
    computes (and is recognised) instead of failing to reshape; the head count is never 5, and never
    the head size.

    mask "lengths": valid_lens (B,), all different, in 1..Tk-1; "empty": one sequence of
    length 0 (no valid key), the others all different in 2..Tk-1; "causal": (B, T), query t sees keys 0..t;
    "causal padded": (B, T), min(t + 1, L_b) with L_b all different.
    """
    H, d, B = int(rng.choice((2, 3, 4))), int(rng.choice((5, 10))), int(rng.choice((2, 3)))
    D = H * d
    self_attention = self_attention or mask.startswith("causal")
    Tq = int(rng.integers(4, 8))
    Tk = Tq if self_attention else int(rng.choice([t for t in range(4, 8) if t != Tq]))
    lens = rng.choice(np.arange(1, Tk), size=B, replace=False)  # (B,) all different
    if mask == "empty":
        # the others at least 2: with lengths of 0 and 1 only, every weight is fixed whatever the scores
        lens = np.insert(rng.choice(np.arange(2, Tk), size=B - 1, replace=False), rng.integers(B), 0)
    elif mask == "causal":
        lens = _causal_lens(B, Tq)
    elif mask == "causal padded":
        lens = np.minimum(_causal_lens(B, Tq), lens[:, None])  # (B, T)
    queries = rng.normal(size=(B, Tq, D))
    keys = queries if self_attention else rng.normal(size=(B, Tk, D))
    out = dict(queries=queries, keys=keys, values=keys if self_attention else rng.normal(size=(B, Tk, D)),
               valid_lens=np.asarray(lens), num_hiddens=D, num_heads=H)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        out[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    for name in ("b_q", "b_k", "b_v", "b_o"):
        out[name] = rng.normal(0, 0.5, size=D) if bias else np.zeros(D)
    return out


def small_05():
    """The checks' second example, of other sizes than seed 001's: 2 sequences, 3 queries against 4 keys,
    10 hiddens in 2 heads (5 would divide 10 too, so a head count fixed at the notebook's 5 shows), valid
    lengths [2, 3], biases; drawn once from seed 50."""
    rng = np.random.default_rng(50)
    B, Tq, Tk, D = 2, 3, 4, 10
    out = dict(queries=rng.normal(size=(B, Tq, D)), keys=rng.normal(size=(B, Tk, D)),
               values=rng.normal(size=(B, Tk, D)), valid_lens=np.array([2, 3]), num_hiddens=D, num_heads=2)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        out[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    for name in ("b_q", "b_k", "b_v", "b_o"):
        out[name] = rng.normal(0, 0.5, size=D)
    return out


def _causal_lens(batch_size, num_steps):
    from .reference import causal_valid_lens
    return causal_valid_lens(batch_size, num_steps)


def book_05_softmax():
    """d2l's masked_softmax example: scores (2, 2, 4) from np.random.rand (seed 1), lengths [2, 3] and [[1, 3], [2, 4]]."""
    np.random.seed(1)
    scores = np.random.rand(2, 2, 4)
    return [dict(scores=scores, valid_lens=np.array([2, 3])),
            dict(scores=scores, valid_lens=np.array([[1, 3], [2, 4]]))]


def fresh_05_softmax(rng, per_query=False):
    """Scores (B, Tq, Tk) of another size with lengths (B,) or (B, Tq): one of them 0, the others in 1..Tk-1."""
    B, Tq, Tk = int(rng.integers(2, 5)), int(rng.integers(2, 6)), int(rng.integers(5, 9))
    lens = rng.integers(1, Tk, size=(B, Tq) if per_query else B)
    lens.flat[rng.integers(lens.size)] = 0  # a query (or a sequence) with no valid key
    return dict(scores=rng.normal(scale=2.0, size=(B, Tq, Tk)), valid_lens=lens)


def book_05_loop():
    """The tutorial-style loop over heads: q (B=3, C=11, E=8), keys and values (C, E) shared by the batch, H=4 heads,
    proj (E, E); all from np.random.rand as in the seed (seed 2)."""
    np.random.seed(2)
    B, C, E = 3, 11, 8
    q = np.random.rand(B, C, E)
    k = np.random.rand(C, E)
    v = np.random.rand(C, E)
    H = 4
    proj = np.random.rand(E, E)
    return dict(q=q, k=k, v=v, H=H, E=E, proj=proj)


def fresh_05_loop(rng):
    """The loop's inputs of another size: 2-3 heads of size 2, 3 or 5, B=2 or 4, 3-7 queries and 3-7 keys."""
    H, d, B = int(rng.choice((2, 3))), int(rng.choice((2, 3, 5))), int(rng.choice((2, 4)))
    E, C, C_k = H * d, int(rng.integers(3, 8)), int(rng.integers(3, 8))
    return dict(q=rng.normal(size=(B, C, E)), k=rng.normal(size=(C_k, E)), v=rng.normal(size=(C_k, E)),
                H=H, E=E, proj=rng.normal(0, 1 / np.sqrt(E), size=(E, E)))


def book_05_masks():
    """The boolean masks of d2l's masked_softmax example: lengths [2, 3] of 4 keys, 2 queries."""
    return dict(valid_lens=np.array([2, 3]), num_queries=2, num_keys=4)


def _lengths_with_ends(rng, B, Tk):
    """B valid lengths in 0..Tk, among them 0 (a sequence with no valid key) and Tk (one with no padding)."""
    lens = rng.integers(1, Tk, size=B)  # (B,)
    ends = rng.choice(B, size=2, replace=False)
    lens[ends] = (0, Tk)
    return lens


def fresh_05_masks(rng, shape="wide"):
    """Inputs of key_padding_mask and causal_mask of another size: 3-4 sequences, 2-7 queries and keys,
    fewer queries than keys ("wide"), more ("tall") or as many ("square"); lengths with 0 and Tk among them."""
    B = int(rng.integers(3, 5))
    Tq, Tk = (int(n) for n in np.sort(rng.choice(np.arange(2, 8), size=2, replace=False)))  # Tq < Tk
    if shape == "tall":
        Tq, Tk = Tk, Tq
    elif shape == "square":
        Tk = Tq
    return dict(valid_lens=_lengths_with_ends(rng, B, Tk), num_queries=Tq, num_keys=Tk)


def book_05_bool_softmax():
    """d2l's scores (2, 2, 4) with the padding mask of lengths [3, 0] (the second sequence has no valid key),
    and with the causal mask (2, 4)."""
    from .reference import causal_mask, key_padding_mask
    scores = book_05_softmax()[0]["scores"]
    return [dict(scores=scores, mask=key_padding_mask(np.array([3, 0]), 4)),
            dict(scores=scores, mask=causal_mask(2, 4))]


def fresh_05_bool_softmax(rng, kind="padding"):
    """Scores (B, Tq, Tk) of another size and a boolean mask: "padding" (B, 1, Tk) with lengths 0 and Tk among
    them; "causal tall" or "causal wide" (Tq, Tk), more queries than keys or fewer; "both" (B, Tq, Tk), padding
    and causal together (&)."""
    from .reference import causal_mask, key_padding_mask
    B = int(rng.integers(2, 5))
    Tq, Tk = (int(n) for n in np.sort(rng.choice(np.arange(2, 8), size=2, replace=False)))  # Tq < Tk
    if kind == "causal tall":
        Tq, Tk = Tk, Tq
    lens = _lengths_with_ends(rng, B, Tk)
    mask = {"padding": key_padding_mask(lens, Tk), "causal tall": causal_mask(Tq, Tk),
            "causal wide": causal_mask(Tq, Tk), "both": key_padding_mask(lens, Tk) & causal_mask(Tq, Tk)}[kind]
    return dict(scores=rng.normal(scale=2.0, size=(B, Tq, Tk)), mask=mask)


# ---- Notebook 03: Permutation equivariance
# The functions of X (D x N) that the students' equivariance checkers are tried on. Each is the source
# of a lambda, so the same text runs in the student's kernel (inside the probe's call) and in the grader.
# A source may use np, softmax_down (a softmax down each column), the book's parameter names, and the
# case's W (D, D), b (D, 1), M (N, N) and Pi (D, N).
EQUIVARIANT, CHANGES_COLUMNS, REORDERS_COLUMNS = "equivariant", "changes the columns", "reorders the columns"
_ATTEND_03 = ("(omega_v @ {X} + beta_v) @ softmax_down((omega_k @ {X} + beta_k).T @ (omega_q @ {X} + beta_q)"
              " / np.sqrt(omega_q.shape[0]))")
PERMUTATION_TEST_FUNCTIONS = [  # (name a student reads, kind, source)
    ("scaled self-attention", EQUIVARIANT, "lambda X: " + _ATTEND_03.format(X="X")),
    ("W @ X", EQUIVARIANT, "lambda X: W @ X"),
    ("X minus its average token", EQUIVARIANT, "lambda X: X - X.mean(axis=1, keepdims=True)"),
    ("tanh(W @ X + b)", EQUIVARIANT, "lambda X: np.tanh(W @ X + b)"),
    ("X + Pi", CHANGES_COLUMNS, "lambda X: X + Pi"),
    ("X @ M", CHANGES_COLUMNS, "lambda X: X @ M"),
    ("scaled self-attention of X + Pi", CHANGES_COLUMNS, "lambda X: " + _ATTEND_03.format(X="(X + Pi)")),
    ("X with its columns sorted", REORDERS_COLUMNS, "lambda X: X[:, np.argsort(X[0])]"),
    ("X with its columns reversed", REORDERS_COLUMNS, "lambda X: X[:, ::-1]"),
    ("X with its columns rolled by one", REORDERS_COLUMNS, "lambda X: np.roll(X, 1, axis=1)"),
]
PERMUTATION_INPUTS_03 = ("X", "W", "b", "M", "Pi") + PARAMETERS


def _needs_03(which):
    """The inputs test function `which` uses: X, and the names its source mentions."""
    import re
    source = PERMUTATION_TEST_FUNCTIONS[which][2]
    return [n for n in PERMUTATION_INPUTS_03 if n == "X" or re.search(rf"\b{n}\b", source)]


def book_03(which):
    """The book's X and parameters (notebook 12.1) for test function `which`, with the notebook's W = omega_v,
    b = beta_v, M = the running sum over tokens, and Pi = the sinusoidal position encoding."""
    from . import reference as ref
    i = book_12_1()
    D, N = i["D"], i["N"]
    i.update(W=i["omega_v"], b=i["beta_v"], M=np.triu(np.ones((N, N))), Pi=ref.position_encoding(D, N))
    return dict(only(i, _needs_03(which)), which=which)


def fresh_03(rng, which):
    """Fresh inputs for test function `which`: X (D x N) of another size than the book's, N of 3 or 4 (with two
    tokens, reversing or rolling them commutes with every permutation), fresh weights, and Pi drawn at
    random (as a learned position encoding starts)."""
    i = fresh_12_1(rng, N=int(rng.choice((3, 4))))
    D, N = i["D"], i["N"]
    i.update(W=rng.normal(size=(D, D)), b=rng.normal(size=(D, 1)), M=rng.normal(size=(N, N)),
             Pi=rng.normal(size=(D, N)))
    return dict(only(i, _needs_03(which)), which=which)


def permutation_test_function(inputs):
    """Test function inputs["which"], made from its source on these inputs (as the probe makes it in the kernel)."""
    from . import reference as ref
    space = dict(inputs, np=np, softmax_down=ref.softmax_cols)
    return eval(PERMUTATION_TEST_FUNCTIONS[int(inputs["which"])][2], space)


# ====================================================================== notebook 07: backpropagation through attention

def book_07():
    """Book notebook 12.1's X and parameters (D=4, N=3), and the upstream gradient dX_prime = dL/dX' that
    notebook 07 draws after them (seed 1): a fixed loss L = sum(X' * dX_prime)."""
    i = book_12_1()
    np.random.seed(1)
    i["dX_prime"] = np.random.normal(size=(i["D"], i["N"]))  # (D, N)
    return i


def fresh_07(rng, D=None, N=None):
    """Inputs like book_07's, of another size: fresh_12_1's, and an upstream gradient of X's shape."""
    i = fresh_12_1(rng, D=D, N=N)
    i["dX_prime"] = rng.normal(size=(i["D"], i["N"]))  # (D, N)
    return i


def other_07():
    """Notebook 07's second example (D=5, N=3), as notebooks 02-04 draw theirs, with its upstream gradient."""
    return fresh_07(np.random.default_rng(2024), D=5, N=3)


# The functions of X that students' gradient checks are tried on: sources of lambdas, as in notebook 03,
# so that the same text runs in the student's kernel and in the grader. A source may use np, softmax_down,
# the book's parameter names and the case's W (D, D) and G (D, N).
GRADIENT_CHECK_FUNCTIONS = [  # (name a student reads, source)
    ("the attention loss sum(X' * G)",
     "lambda X: np.sum((omega_v @ X + beta_v) @ softmax_down((omega_k @ X + beta_k).T @ (omega_q @ X + beta_q)"
     " / np.sqrt(omega_q.shape[0])) * G)"),
    ("sum(X ** 3)", "lambda X: np.sum(X ** 3)"),
    ("sum(exp(X) * G)", "lambda X: np.sum(np.exp(X) * G)"),
    ("sum(tanh(W @ X) * G)", "lambda X: np.sum(np.tanh(W @ X) * G)"),
]


def gradient_check_function(inputs):
    """Test function inputs["which"], made from its source on these inputs (as the probe makes it in the kernel)."""
    from . import reference as ref
    space = dict(inputs, np=np, softmax_down=ref.softmax_cols)
    return eval(GRADIENT_CHECK_FUNCTIONS[int(inputs["which"])][1], space)


def gradient_check_true_gradient(inputs):
    """The gradient of test function inputs["which"] at inputs["X"], by hand."""
    from . import reference as ref
    X, which = inputs["X"], int(inputs["which"])
    if which == 0:
        params = [inputs[n] for n in PARAMETERS]
        return ref.attention_backward(X, *params, inputs["G"])["dX"]
    if which == 1:
        return 3 * X ** 2
    if which == 2:
        return np.exp(X) * inputs["G"]
    return inputs["W"].T @ ((1 - np.tanh(inputs["W"] @ X) ** 2) * inputs["G"])


GRADIENT_CHECK_INPUTS = ("X", "W", "G") + PARAMETERS


def gradient_check_case(i, which, dX, eps):
    """The inputs of one gradient_check case: the function's own inputs, the gradient to check and eps."""
    import re
    source = GRADIENT_CHECK_FUNCTIONS[which][1]
    names = [n for n in GRADIENT_CHECK_INPUTS if n == "X" or re.search(rf"\b{n}\b", source)]
    return dict(only(i, names), which=which, dX=dX, eps=eps)


# Notebook 07's row-form part: causal multi-head self-attention of x (B, T, D), as notebook 08 gives it, backwards.
MHA_WEIGHTS = ("W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o")   # notebook 08's names
MHA_BOOK_SIZES = dict(B=2, T=4, H=2, d=3)   # the notebook's example: D = 6 in 2 heads of 3


def mha_07(rng, B, T, H, d):
    """x (B, T, D), D = H d, the eight weights (W_. (D, D) of std 1/sqrt(D), b_. (D,) of std 0.3), num_heads = H,
    and the upstream gradient dout = dL/d(output) (B, T, D): the loss is L = sum(output * dout)."""
    D = H * d
    out = dict(x=rng.normal(size=(B, T, D)), num_heads=H)
    for name in MHA_WEIGHTS[:4]:
        out[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    for name in MHA_WEIGHTS[4:]:
        out[name] = rng.normal(0, 0.3, size=D)
    out["dout"] = rng.normal(size=(B, T, D))  # (B, T, D)
    return out


def book_07_mha():
    """The notebook's example: 2 sequences of 4 tokens, D = 6 in 2 heads, drawn once from seed 700."""
    return mha_07(np.random.default_rng(700), **MHA_BOOK_SIZES)


def other_07_mha():
    """The notebook's second example, of other sizes: 3 sequences of 3 tokens, D = 8 in 4 heads (seed 701)."""
    return mha_07(np.random.default_rng(701), B=3, T=3, H=4, d=2)


def fresh_07_mha(rng):
    """Other sizes: never the example's D = 6 or T = 4; at least 2 heads (with one head, d = D and a scale of
    1/sqrt(D) would be right) and 2 sequences (with one, gradients not summed over the batch would be too)."""
    H, d = int(rng.choice((2, 3, 4))), int(rng.choice((2, 3, 4)))
    while H * d == MHA_BOOK_SIZES["H"] * MHA_BOOK_SIZES["d"]:
        H, d = int(rng.choice((2, 3, 4))), int(rng.choice((2, 3, 4)))
    B, T = int(rng.choice((2, 3))), int(rng.choice((2, 3, 5, 6)))
    return mha_07(rng, B, T, H, d)


def mha_params_07(i):
    """The weights of a case as the dict mha_backward takes."""
    return {name: i[name] for name in MHA_WEIGHTS}


# ====================================================================== notebook 08: the transformer block

def _quiet_token(rng, x):
    """x (B, T, D) with one token whose features are almost equal (spread 0.001 about a constant): its
    variance, about 1e-6, is below LayerNorm's eps, so where eps goes shows."""
    x = np.array(x, dtype=np.float64)
    B, T, D = x.shape
    b, t = int(rng.integers(B)), int(rng.integers(T))
    x[b, t] = rng.normal() + 0.001 * rng.normal(size=D)
    return x


def layer_norm_08(rng, B, T, D, eps=1e-5):
    """LayerNorm inputs: x (B, T, D) of scale 2 about an offset, one quiet token; gamma near 1, beta near 0."""
    x = _quiet_token(rng, 2.0 * rng.normal(size=(B, T, D)) + rng.normal())
    return dict(x=x, gamma=1.0 + 0.3 * rng.normal(size=D), beta=0.3 * rng.normal(size=D), eps=eps)


def book_08_layer_norm():
    """The notebook's example: 2 sequences of 4 tokens with 6 features, eps 1e-5, drawn once from seed 8."""
    return layer_norm_08(np.random.default_rng(8), 2, 4, 6)


def fresh_08_layer_norm(rng, eps=1e-5):
    B, T = int(rng.integers(2, 4)), int(rng.integers(3, 7))
    D = int(rng.choice([d for d in range(3, 11) if d not in (B, T)]))
    return layer_norm_08(rng, B, T, D, eps)


def mlp_08(rng, B, T, D, D_ff):
    """MLP inputs: x (B, T, D), W1 (D, D_ff), b1 (D_ff,), W2 (D_ff, D), b2 (D,); biases large enough that
    where the ReLU goes shows."""
    return dict(x=rng.normal(size=(B, T, D)), W1=rng.normal(0, 1 / np.sqrt(D), size=(D, D_ff)),
                b1=rng.normal(0, 0.5, size=D_ff), W2=rng.normal(0, 1 / np.sqrt(D_ff), size=(D_ff, D)),
                b2=rng.normal(0, 0.5, size=D))


def book_08_mlp():
    """The notebook's example: 2 sequences of 4 tokens with 4 features, D_ff = 16, drawn once from seed 80."""
    return mlp_08(np.random.default_rng(80), 2, 4, 4, 16)


def fresh_08_mlp(rng, square=False):
    """Other sizes; `square`: as many tokens as features (T = D), else T != D."""
    B, D = int(rng.integers(1, 4)), int(rng.integers(3, 9))
    T = D if square else int(rng.choice([t for t in range(2, 9) if t != D]))
    D_ff = int(rng.choice([n for n in range(2 * D, 4 * D + 1) if n not in (T, D)]))
    return mlp_08(rng, B, T, D, D_ff)


def block_08(rng, B, T, H, d, D_ff):
    """A block's inputs: x (B, T, D) and its 16 parameters (grader.reference.BLOCK_PARAMETERS), D = H d."""
    D = H * d
    out = dict(x=rng.normal(size=(B, T, D)), num_heads=H)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        out[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    for name in ("b_q", "b_k", "b_v", "b_o", "beta1", "beta2", "b2"):
        out[name] = rng.normal(0, 0.3, size=D)
    out["gamma1"], out["gamma2"] = 1.0 + 0.3 * rng.normal(size=D), 1.0 + 0.3 * rng.normal(size=D)
    out["W1"] = rng.normal(0, 1 / np.sqrt(D), size=(D, D_ff))
    out["b1"] = rng.normal(0, 0.3, size=D_ff)
    out["W2"] = rng.normal(0, 1 / np.sqrt(D_ff), size=(D_ff, D))
    return out


def book_08_block():
    """The notebook's example: 2 sequences of 5 tokens, D = 6 in 2 heads, D_ff = 24, drawn once from seed 800."""
    return block_08(np.random.default_rng(800), 2, 5, 2, 3, 24)


def fresh_08_block(rng):
    H, d = int(rng.choice((1, 2, 3))), int(rng.choice((2, 3, 4)))
    B, T = int(rng.integers(1, 4)), int(rng.integers(3, 8))
    return block_08(rng, B, T, H, d, int(rng.choice((2, 3, 4))) * H * d)


def block_params_08(i):
    """The parameters of a block case as the dict the notebook's functions take."""
    from .reference import BLOCK_PARAMETERS
    return {name: i[name] for name in BLOCK_PARAMETERS}


# ====================================================================== notebook 09: a tiny transformer, trained

def cross_entropy_09(rng, B, T, V, scale=2.0):
    """Logits (B, T, V) of size `scale`, integer targets (B, T), and weights (B, T) of 0 and 1: the first
    positions of each sequence 0 (as in the reversal task), at least one 1."""
    first = int(rng.integers(1, T))  # positions 0 .. first-1 are not counted
    weights = np.zeros((B, T))
    weights[:, first:] = 1.0
    return dict(logits=scale * rng.normal(size=(B, T, V)), targets=rng.integers(0, V, size=(B, T)),
                weights=weights)


def book_09_cross_entropy():
    """The notebook's example: 2 sequences of 4 positions over 5 tokens, drawn once from seed 9."""
    return cross_entropy_09(np.random.default_rng(9), 2, 4, 5)


def fresh_09_cross_entropy(rng, large=False):
    """Other sizes; `large`: logits of size 1000, where exp overflows unless the maximum is subtracted first."""
    B, T, V = int(rng.integers(2, 5)), int(rng.integers(3, 9)), int(rng.integers(3, 13))
    return cross_entropy_09(rng, B, T, V, scale=1000.0 if large else 3.0 * rng.random() + 0.5)


def adam_09(rng, shape, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """One parameter array with its gradient and moments, as after t - 1 steps; a few gradient entries and
    their moments are tiny (1e-6 of the rest), where eps's place in the update shows."""
    grad = rng.normal(size=shape)
    tiny = rng.random(shape) < 0.25
    tiny.flat[int(rng.integers(tiny.size))] = True  # at least one
    grad[tiny] *= 1e-6
    m = np.zeros(shape) if t == 1 else 0.5 * rng.normal(size=shape) * np.where(tiny, 1e-6, 1.0)
    v = np.zeros(shape) if t == 1 else rng.random(shape) * np.where(tiny, 1e-12, 1.0)
    return dict(param=0.1 * rng.normal(size=shape), grad=grad, m=m, v=v, t=t, lr=lr, beta1=beta1, beta2=beta2, eps=eps)


def book_09_adam():
    """The notebook's example: a (3, 4) parameter at step t = 3, drawn once from seed 90."""
    return adam_09(np.random.default_rng(90), (3, 4), t=3, lr=1e-2)


def fresh_09_adam(rng, kind):
    """kind "first": step 1 from zero moments; "late": a step between 50 and 5000; "hyper": other
    beta1, beta2, eps and lr, which the function must take from its arguments."""
    shape = tuple(int(n) for n in rng.integers(2, 7, size=int(rng.integers(1, 3))))
    if kind == "first":
        return adam_09(rng, shape, t=1, lr=float(rng.choice([1e-3, 3e-3, 1e-2])))
    if kind == "late":
        return adam_09(rng, shape, t=int(rng.integers(50, 501)), lr=float(rng.choice([1e-3, 3e-3, 1e-2])))
    return adam_09(rng, shape, t=int(rng.integers(2, 20)), lr=0.05, beta1=float(rng.choice([0.8, 0.85])),
                   beta2=float(rng.choice([0.98, 0.99])), eps=float(rng.choice([1e-6, 1e-4])))


def train_step_09(rng, D, H, D_ff, length, B, t):
    """A fresh model of width D (H heads, MLP width D_ff) for sequences of `length` digits, with Adam's
    moments as after t steps, and a batch of the reversal task."""
    from .tiny_transformer import PARAMETERS, init_model, reversal_batch
    params = init_model(rng, D=D, D_ff=D_ff, T=2 * length)
    params = {n: p + 0.05 * rng.normal(size=p.shape) for n, p in params.items()}  # not at the initial values
    tokens, targets, weights = reversal_batch(rng, B, length)
    names = list(PARAMETERS)
    m = [0.01 * rng.normal(size=params[n].shape) for n in names]
    v = [1e-4 * rng.random(size=params[n].shape) for n in names]
    return dict(names=names, params=[params[n] for n in names], m=m, v=v, t=t, tokens=tokens, targets=targets,
                weights=weights, lr=float(rng.choice([1e-3, 3e-3])), num_heads=H)


BOOK_09_STEP = dict(seed=99, D=8, D_ff=16, length=3, batch_size=2, lr=0.01, num_heads=2)


def book_09_train_step():
    """The notebook's example, which the notebook makes itself with the course's functions: a new model of
    width 8 in 2 heads (MLP width 16) for 3 digits, Adam's first step, a batch of 2 (BOOK_09_STEP)."""
    from .tiny_transformer import PARAMETERS, init_model, reversal_batch
    s = BOOK_09_STEP
    rng = np.random.default_rng(s["seed"])
    params = init_model(rng, D=s["D"], D_ff=s["D_ff"], T=2 * s["length"])
    tokens, targets, weights = reversal_batch(rng, s["batch_size"], s["length"])
    names = list(PARAMETERS)
    return dict(names=names, params=[params[n] for n in names], m=[np.zeros_like(params[n]) for n in names],
                v=[np.zeros_like(params[n]) for n in names], t=0, tokens=tokens, targets=targets, weights=weights,
                lr=s["lr"], num_heads=s["num_heads"])


def fresh_09_train_step(rng):
    H = int(rng.choice([1, 2, 4]))
    D = H * int(rng.choice([2, 3, 4]))
    while D == 8:
        H = int(rng.choice([1, 2, 4]))
        D = H * int(rng.choice([2, 3, 4]))
    return train_step_09(rng, D, H, int(rng.choice([2, 3])) * D, int(rng.integers(2, 6)), int(rng.integers(1, 4)),
                         int(rng.integers(0, 30)))


def trained_09(rng, n=500):
    """n fresh sequences of the reversal task, on which a trained model is judged."""
    from .tiny_transformer import reversal_batch
    tokens, targets, weights = reversal_batch(rng, n)
    return dict(tokens=tokens, targets=targets, weights=weights)
