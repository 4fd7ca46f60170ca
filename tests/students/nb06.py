"""Sample students of notebook 06 (contextual embeddings): the answer key, the blog post's code (seed 004), one mistake each."""
from tests.students import MANUAL, Student

A06 = "06_contextual_embeddings"
FULL_06 = {"test_tokenize": 2, "test_text_to_word_embeddings": 1, "test_self_attention": 3, "test_pca": 2,
           "bank_meaning": MANUAL}


def _06(**changed):
    return dict(FULL_06, **changed)


# Seed 004 (the blog post), its code where the notebook asks for it. Its tokenisation lines as written,
# inside the notebook's tokenize: unknown words are dropped.
SEED_004_TOKENIZE = """\
def tokenize(sentence, vocab):
    tokens = sentence.lower().split()  # Tokenize the input text into words (lowercase and split by spaces).
    # Convert the tokens into their corresponding indices using the vocab dictionary.
    token_indices = [vocab[token] for token in tokens if token in vocab]
    return np.array(token_indices, dtype=int)"""

# Its text_to_word_embeddings as written, given the notebook's third argument (the table) in place of
# embedding_dim: it still draws a new random table on every call.
SEED_004_EMBEDDINGS = """\
def text_to_word_embeddings(text, vocab, embedding_matrix):
    \"\"\"
    Converts text to word embeddings.

    Returns:
        np.ndarray: Word embeddings of shape (1, seq_len, embedding_dim).
    \"\"\"
    tokens = text.lower().split()  # Tokenize the input text into words (lowercase and split by spaces).
    seq_len = len(tokens)  # Calculate the length of the sequence (number of tokens).
    embedding_dim = embedding_matrix.shape[1]

    # Initialize a random embedding matrix of shape (vocab_size, embedding_dim).
    embedding_matrix = np.random.randn(len(vocab), embedding_dim).astype(np.float32)

    # Convert the tokens into their corresponding indices using the vocab dictionary.
    token_indices = [vocab[token] for token in tokens if token in vocab]

    # Use the token indices to get the corresponding word embeddings from the embedding matrix.
    word_embeddings = embedding_matrix[token_indices]  # Shape: (seq_len, embedding_dim)

    # Add a batch dimension to the embeddings to make the shape (1, seq_len, embedding_dim).
    return word_embeddings[np.newaxis, :, :]"""

# Its SelfAttention class exactly as written: no seed, weights from np.random.randn, no attn_weights.
SEED_004_CLASS = """\
import numpy as np

class SelfAttention:
    def __init__(self, embed_dim, num_heads=1):
        \"\"\"
        Initializes the SelfAttention module.

        Args:
            embed_dim (int): Dimensionality of the input/output embeddings.
            num_heads (int): Number of attention heads.
        \"\"\"
        assert embed_dim % num_heads == 0, "embed_dim must be divisible by num_heads"

        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads

        # Initialize weight matrices for Q, K, V, and output projection
        self.q_proj = np.random.randn(embed_dim, embed_dim).astype(np.float32)  # Query projection matrix
        self.k_proj = np.random.randn(embed_dim, embed_dim).astype(np.float32)  # Key projection matrix
        self.v_proj = np.random.randn(embed_dim, embed_dim).astype(np.float32)  # Value projection matrix
        self.out_proj = np.random.randn(embed_dim, embed_dim).astype(np.float32)  # Output projection matrix

    def softmax(self, x, axis=-1):
        \"\"\"Compute softmax along the specified axis.\"\"\"
        exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))  # Numerical stability trick
        return exp_x / np.sum(exp_x, axis=axis, keepdims=True)  # Softmax normalization

    def forward(self, embeddings):
        \"\"\"
        Forward pass for self-attention.

        Args:
            embeddings (np.ndarray): Input tensor of shape (batch_size, seq_len, embed_dim).

        Returns:
            np.ndarray: Contextual embeddings of shape (batch_size, seq_len, embed_dim).
        \"\"\"
        batch_size, seq_len, _ = embeddings.shape

        # Compute Q, K, V by applying the projection matrices to the input embeddings
        Q = np.dot(embeddings, self.q_proj)  # (batch_size, seq_len, embed_dim)
        K = np.dot(embeddings, self.k_proj)  # (batch_size, seq_len, embed_dim)
        V = np.dot(embeddings, self.v_proj)  # (batch_size, seq_len, embed_dim)

        # Reshape Q, K, V for multi-head attention and transpose for batch-wise operations
        Q = Q.reshape(batch_size, seq_len, self.num_heads, self.head_dim).transpose(0, 2, 1, 3)
        K = K.reshape(batch_size, seq_len, self.num_heads, self.head_dim).transpose(0, 2, 1, 3)
        V = V.reshape(batch_size, seq_len, self.num_heads, self.head_dim).transpose(0, 2, 1, 3)

        # Scaled dot-product attention
        scores = np.matmul(Q, K.transpose(0, 1, 3, 2)) / np.sqrt(self.head_dim)  # (batch_size, num_heads, seq_len, seq_len)
        attn_weights = self.softmax(scores, axis=-1)  # (batch_size, num_heads, seq_len, seq_len)

        # Compute the attention output by multiplying attention weights with V
        attn_output = np.matmul(attn_weights, V)  # (batch_size, num_heads, seq_len, head_dim)

        # Concatenate heads and reshape back to (batch_size, seq_len, embed_dim)
        attn_output = attn_output.transpose(0, 2, 1, 3).reshape(batch_size, seq_len, self.embed_dim)

        # Final linear projection to get the final output embeddings
        output = np.dot(attn_output, self.out_proj)  # (batch_size, seq_len, embed_dim)

        return output"""

STUDENTS = {
    "correct": Student(A06, FULL_06),
    "untouched": Student(A06, {"test_tokenize": 0, "test_text_to_word_embeddings": 0, "test_self_attention": 0,
                               "test_pca": 0, "bank_meaning": 0}, untouched=True),
    # The blog post's PCA is scikit-learn's, which the course does not ship: the answer key's stands in.
    # Its class takes no seed: the notebook's check and the book's case build SelfAttention(D, 2, seed=1), which
    # raises, so it loses the book's third; its forward is right on the fresh inputs, where the grader sets the weights,
    # but keeps no weights in self.attn_weights (the notebook's heatmap reads them): half of those two thirds.
    "seed004": Student(
        A06, _06(test_tokenize=0, test_text_to_word_embeddings=0, test_self_attention=1),
        cells={"tokenize_def": SEED_004_TOKENIZE, "embeddings_def": SEED_004_EMBEDDINGS,
               "self_attention_class": SEED_004_CLASS},
        # (its lookup drops unknown words, as its tokenize does: on fresh texts, which hold some, that shows first)
        diagnoses={"test_tokenize": "unknown words dropped",
                   "test_text_to_word_embeddings": " words where ",
                   "test_self_attention": ("seed ignored", "`self.attn_weights` is None after the call")}),
    "not_lowercased": Student(
        A06, _06(test_tokenize=0),
        edits={"tokenize_def": [("sentence.lower().split()", "sentence.split()")]},
        diagnoses={"test_tokenize": "not lower-cased"}),
    "pca_not_centred": Student(
        A06, _06(test_pca=0),
        edits={"pca_def": [("Xc = X - np.mean(X, axis=0)", "Xc = X")]},
        diagnoses={"test_pca": "PCA without centring"}),
    # (and a lookup that draws its own table: seed004's lookup drops unknown words too, which the fresh texts show first)
    "scaled_by_embed_dim_new_table": Student(
        A06, _06(test_self_attention=0, test_text_to_word_embeddings=0),
        edits={"self_attention_class": [("/ np.sqrt(d)", "/ np.sqrt(D)")],
               "embeddings_def": [("embedding_matrix[token_ids][np.newaxis]",
                                   "np.random.standard_normal(embedding_matrix.shape)[token_ids][np.newaxis]")]},
        diagnoses={"test_self_attention": "scaled by sqrt(embed_dim), not sqrt(head_dim)",
                   "test_text_to_word_embeddings": "a new random embedding table on every call"}),
}

def _raw_signs_follow_the_convention():
    import numpy as np
    from grader.course.nb06_contextual_embeddings import reference as ref06
    from grader.course.nb06_contextual_embeddings.probes import _pca_example
    X = _pca_example()
    _, _, Vt = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    return bool(np.allclose(ref06.fix_signs(Vt[:2]), Vt[:2]))


# Further mistakes, two to a student where the parts are independent of each other.
STUDENTS.update({
    "queries_softmax_vt_columns": Student(
        A06, _06(test_self_attention=0, test_pca=0),
        edits={"self_attention_class": [("attn_weights = self.softmax(scores, axis=-1)",
                                         "attn_weights = self.softmax(scores, axis=-2)")],
               "pca_def": [("components = Vt[:n_components]", "components = Vt.T[:n_components]")]},
        diagnoses={"test_self_attention": "softmax over the queries", "test_pca": "columns of Vt, not rows"}),
    # Wrong on every fresh input (the grader draws them so); right on the notebook's example only if
    # the raw SVD of that example happens to follow the sign convention already.
    "signs_not_fixed": Student(
        A06, _06(test_pca=round(2 / 3, 2) if _raw_signs_follow_the_convention() else 0),
        edits={"pca_def": [("components = components * signs[:, np.newaxis]  # (k, D)", "pass  # signs left as the SVD gives them")]},
        diagnoses={"test_pca": "signs not fixed"}),
})


# The tokenizer's mistakes are right on the notebook's first sentence (single spaces, no punctuation, <unk> at 0),
# half of the book's third (2/6 of a point); its second sentence and the fresh ones show them. Each shares a
# student with a mistake of pca, which is independent of it.
STUDENTS.update({
    "single_spaces_rows_centred": Student(
        A06, _06(test_tokenize=0.33, test_pca=0),
        edits={"tokenize_def": [("sentence.lower().split()", 'sentence.lower().split(" ")')],
               "pca_def": [("Xc = X - np.mean(X, axis=0)", "Xc = X - np.mean(X, axis=1, keepdims=True)")]},
        diagnoses={"test_tokenize": "split on single spaces", "test_pca": "rows centred, not columns"}),
    "punctuation_stripped_standardised": Student(
        A06, _06(test_tokenize=0.33, test_pca=0),
        edits={"tokenize_def": [("tokens = sentence.lower().split()",
                                 'tokens = [word.strip(".,;:!?") for word in sentence.lower().split()]')],
               "pca_def": [("Xc = X - np.mean(X, axis=0)", "Xc = (X - np.mean(X, axis=0)) / np.std(X, axis=0)")]},
        diagnoses={"test_tokenize": "punctuation stripped", "test_pca": "standardised, not centred"}),
    "unk_zero_eigh_ascending": Student(
        A06, _06(test_tokenize=0.33, test_pca=0),
        edits={"tokenize_def": [("vocab.get(token, vocab[UNK])", "vocab.get(token, 0)")],
               "pca_def": [("_, _, Vt = np.linalg.svd(Xc, full_matrices=False)",
                            "_, vectors = np.linalg.eigh(Xc.T @ Xc / (len(X) - 1)); Vt = vectors.T")]},
        diagnoses={"test_tokenize": "<unk> id hard-coded as 0", "test_pca": "eigh's order: smallest spread first"}),
    # No batch axis: the notebook's later cells that stack the sentences fail too, ungraded.
    "no_batch_axis_u_columns": Student(
        A06, _06(test_text_to_word_embeddings=0, test_pca=0),
        edits={"embeddings_def": [("embedding_matrix[token_ids][np.newaxis]", "embedding_matrix[token_ids]")],
               "pca_def": [("_, _, Vt = np.linalg.svd(Xc, full_matrices=False)",
                            "U, _, _ = np.linalg.svd(Xc, full_matrices=False)"),
                           ("components = Vt[:n_components]", "components = U[:, :n_components].T")]},
        diagnoses={"test_text_to_word_embeddings": "batch axis missing", "test_pca": "columns of U, not rows of Vt"}),
})

# Right axes, but the caller's data centred in place (X -= ...): the verdict and the check both catch it.
STUDENTS["pca_in_place"] = Student(
    A06, _06(test_pca=round(2 * 2 / 3, 2)),
    edits={"pca_def": [("Xc = X - np.mean(X, axis=0)", "X -= np.mean(X, axis=0)\n    Xc = X")]},
    diagnoses={"test_pca": "changed its argument"})

STUDENTS["out_proj_left_out"] = Student(
    A06, _06(test_self_attention=0),
    edits={"self_attention_class": [("output = merged @ self.out_proj  # (B, T, D)", "output = merged  # (B, T, D)")]},
    diagnoses={"test_self_attention": "out_proj left out"})
