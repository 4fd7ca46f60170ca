"""Held-out wrong answers, round 5 (2026-11-28), notebooks 01-06: written from the release notebooks alone by one
person who had read neither grader/ nor the earlier rounds' answers (only the list of their entry names, to write
other mistakes), in the twenty-third session. Graded with round5_late.py by `python -m tests.heldout.grade OUT
--round 5`; judged in tests/heldout/judged.md. Frozen: do not edit to suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='v01_qkv_key_from_query',
        assignment=A01,
        cell='qkv_loop',
        source=r'''# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  query = beta_q + omega_q @ x
  key = beta_k + omega_k @ query
  value = beta_v + omega_v @ x

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)
''',
        cause='The keys are computed from the query (omega_k @ query) instead of from the input x, so the keys are projected twice and the outputs are wrong; each key must be beta_k + omega_k @ x (eq. 12.4).',
    ),
    HeldOut(
        name='v01_softmax_sigmoid',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  exp_items = np.exp(items_in)
  items_out = exp_items / (1 + exp_items)
  return items_out
''',
        cause='The softmax divides each exponential by 1 + itself (a logistic sigmoid, element by element) instead of by the sum of all the exponentials, so the outputs do not sum to one; divide by np.sum(np.exp(items_in)) (eq. 12.5).',
    ),
    HeldOut(
        name='v01_matrix_values_from_globals',
        assignment=A01,
        cell='self_attention_def',
        source=r'''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  Q = beta_q + omega_q @ X
  K = beta_k + omega_k @ X
  V = np.hstack(all_values)
  # 2. Compute dot products
  dots = K.T @ Q
  # 3. Apply softmax to calculate attentions
  attention = softmax_cols(dots)
  # 4. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause="The values are taken from the notebook's global all_values (the loop's results) instead of being computed from the function's arguments, so the function is right only on the book's inputs and gives the wrong size and numbers on any other input; compute V = beta_v + omega_v @ X inside the function.",
    ),
    HeldOut(
        name='v02_softmax_rounded',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  shifted = data_in - np.max(data_in, axis=0, keepdims=True)
  exp_values = np.exp(shifted)
  softmax = np.round(exp_values / np.sum(exp_values, axis=0, keepdims=True), 3)
  return softmax
''',
        cause='The weights are rounded to 3 decimals (np.round) before they are returned, so they are off by up to 5e-4 and the columns no longer sum exactly to one; return the unrounded softmax and round only when printing.',
    ),
    HeldOut(
        name='v02_scaled_key_weights_copy_pasted',
        assignment=A02,
        cell='scaled_attention_def',
        source=r'''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_q @ X + beta_k
  V = omega_v @ X + beta_v
  # 2. Compute dot products
  dots = K.T @ Q
  # 3. Scale the dot products as in equation 12.9
  scaled = dots / np.sqrt(Q.shape[0])
  # 4. Apply softmax to calculate attentions
  attention = softmax_cols(scaled)
  # 5. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause='The keys are made with the query weights omega_q (a copy-paste slip) instead of omega_k, so the scores compare the queries with the wrong keys; the keys are omega_k @ X + beta_k.',
    ),
    HeldOut(
        name='v02_scaled_by_query_size_attribute',
        assignment=A02,
        cell='scaled_attention_def',
        source=r'''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  # 2. Compute dot products
  dots = K.T @ Q
  # 3. Scale the dot products as in equation 12.9
  scaled = dots / np.sqrt(Q.size)
  # 4. Apply softmax to calculate attentions
  attention = softmax_cols(scaled)
  # 5. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause='The dot products are divided by the square root of Q.size, the number of entries of Q (D_q times N), instead of the square root of D_q, the size of one query; use np.sqrt(Q.shape[0]).',
    ),
    HeldOut(
        name='v03_perm_random_draws',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  rng = np.random.default_rng(0)
  permutation_matrices = [np.eye(n)[:, rng.permutation(n)] for _ in range(int(np.prod(np.arange(1, n + 1))))]
  return permutation_matrices
''',
        cause='It draws n! random shuffles of the columns instead of listing every order, so some permutations come out twice and others are missing; build one matrix for each tuple of itertools.permutations(range(n)).',
    ),
    HeldOut(
        name='v03_pe_exponent_over_positions',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  encoding = np.zeros((D, N))
  positions = np.arange(N)
  for d in range(D):
    i = d // 2
    angle = positions / 10000 ** (2 * i / N)
    if d % 2 == 0:
      encoding[d] = np.sin(angle)
    else:
      encoding[d] = np.cos(angle)
  return encoding
''',
        cause='The exponent divides 2i by the number of positions N instead of the number of features D, so the frequencies fall at the wrong rate; the angle is n / 10000**(2i/D).',
    ),
    HeldOut(
        name='v03_checker_any_nontrivial_permutation',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  f_X = f(X)
  for P in generate_permutation_matrices(X.shape[1]):
    if np.array_equal(P, np.eye(X.shape[1])):
      continue  # the identity proves nothing
    if np.max(np.abs(f(X @ P) - f_X @ P)) <= tolerance:
      return True
  return False
''',
        cause='The checker skips the identity and returns True as soon as one other permutation matches (any instead of all), so functions such as reversing or rolling the columns, which commute with a few permutations, are declared equivariant; it must return False on the first permutation that does not match and True only when every one matches.',
    ),
    HeldOut(
        name='v04_weights_scores_transposed',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  attention = softmax_cols(Q.T @ K / np.sqrt(Q.shape[0]))
  return attention
''',
        cause='The scores are Q.T @ K instead of K.T @ Q, so column n holds key n against every query and the softmax normalises over the queries instead of the keys; compute K.T @ Q (entry [m, n] = key m with query n) before softmax_cols.',
    ),
    HeldOut(
        name='v04_mh_weights_transposed_in_sum',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  V1 = omega_v1 @ X + beta_v1
  V2 = omega_v2 @ X + beta_v2
  head1 = V1 @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1).T
  head2 = V2 @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2).T
  X_prime = omega_c @ np.vstack([head1, head2])
  return X_prime
''',
        cause="Each head multiplies its values by the transposed attention matrix, so output n uses row n of the weights (which does not sum to one) instead of column n; each head's output is V_h @ A_h with no transpose.",
    ),
    HeldOut(
        name='v04_general_values_copied_from_queries',
        assignment=A04,
        cell='multihead_general_def',
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  heads = []
  for h in range(len(omegas_v)):
    V = omegas_q[h] @ X + betas_q[h]
    A = attention_weights(X, omegas_q[h], omegas_k[h], betas_q[h], betas_k[h])
    heads.append(V @ A)
  X_prime = omega_c @ np.vstack(heads)
  return X_prime
''',
        cause="Each head's values are made with the query weights and biases (omegas_q[h], betas_q[h], a copy-paste of the query line) instead of omegas_v[h] and betas_v[h], so the heads average the wrong vectors.",
    ),
    HeldOut(
        name='v05_masked_lens_tiled_over_queries',
        assignment=A05,
        cell='masked_softmax_def',
        source=r'''def masked_softmax(scores, valid_lens):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk), the keys at or past each valid length masked.
    # valid_lens: None (no mask), (B,) one length per sequence, or (B, Tq) one length per query.
    if valid_lens is None:
        return softmax(scores)
    # TODO -- make a mask (B, Tq, Tk), True where key j is below the valid length of its query,
    # set the masked scores to -1e6 with np.where, then take the softmax over the keys
    B, Tq, Tk = scores.shape
    lens = np.asarray(valid_lens)
    if lens.ndim == 1:
        lens = np.tile(lens, (Tq, 1)).reshape(B, Tq)
    mask = np.arange(Tk)[None, None, :] < lens[:, :, None]
    weights = softmax(np.where(mask, scores, -1e6))
    return weights
''',
        cause="One length per sequence is spread over the queries with np.tile(...).reshape(B, Tq), which lays the lengths out query by query, so the queries of a sequence get the other sequences' lengths; each sequence's length must be repeated along its own queries, lens[:, None] broadcast to (B, Tq) (or np.repeat).",
    ),
    HeldOut(
        name='v05_init_he_std',
        assignment=A05,
        cell='init_weight_def',
        source=r'''def init_weight(fan_in, fan_out, rng):
    # A weight for X @ W, shape (fan_in, fan_out): mean 0, standard deviation 1/sqrt(fan_in)
    # TODO -- draw it with rng.normal (rng is a np.random.Generator)
    W = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))
    return W
''',
        cause='The weights use He initialisation, standard deviation sqrt(2/fan_in), which is sqrt(2) times too large; draw with standard deviation 1/sqrt(fan_in) as the notebook asks.',
    ),
    HeldOut(
        name='v05_mha_value_bias_from_keys',
        assignment=A05,
        cell='mha_class',
        source=r'''class MultiHeadAttention:
    # Multi-head attention (d2l 11.5) in the row convention: queries (B, Tq, D), keys and values (B, Tk, D)

    def __init__(self, num_hiddens, num_heads, bias=False, seed=0):
        assert num_hiddens % num_heads == 0, "num_heads must divide num_hiddens"
        self.num_hiddens = num_hiddens
        self.num_heads = num_heads
        rng = np.random.default_rng(seed)
        # Weights act from the right, X @ W + b: each is (num_hiddens, num_hiddens)
        self.W_q = init_weight(num_hiddens, num_hiddens, rng)
        self.W_k = init_weight(num_hiddens, num_hiddens, rng)
        self.W_v = init_weight(num_hiddens, num_hiddens, rng)
        self.W_o = init_weight(num_hiddens, num_hiddens, rng)
        # Biases start at zero; with bias=False they stay zero (nothing would learn them)
        self.bias = bias
        self.b_q = np.zeros(num_hiddens)
        self.b_k = np.zeros(num_hiddens)
        self.b_v = np.zeros(num_hiddens)
        self.b_o = np.zeros(num_hiddens)
        self.attention_weights = None

    def forward(self, queries, keys, values, valid_lens):
        # -> (B, Tq, num_hiddens). valid_lens: None, (B,) or (B, Tq), as for masked_softmax
        # TODO -- multi-head attention, steps 1-4 above; keep the weights (B*H, Tq, Tk)
        # in self.attention_weights
        H = self.num_heads
        Q = transpose_qkv(queries @ self.W_q + self.b_q, H)
        K = transpose_qkv(keys @ self.W_k + self.b_k, H)
        V = transpose_qkv(values @ self.W_v + self.b_k, H)
        if valid_lens is not None:
            valid_lens = np.repeat(valid_lens, H, axis=0)
        d = Q.shape[-1]
        scores = Q @ np.swapaxes(K, 1, 2) / np.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        heads = self.attention_weights @ V
        output = transpose_output(heads, H) @ self.W_o + self.b_o
        return output
''',
        cause='The values get the key bias b_k (a copy-paste of the key line) instead of b_v, so with biases every output is shifted by the wrong vector; use values @ self.W_v + self.b_v.',
    ),
    HeldOut(
        name='v06_tokenize_punctuation_as_tokens',
        assignment=A06,
        cell='tokenize_def',
        source=r'''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    for mark in ".,;:!?":
        sentence = sentence.replace(mark, " " + mark)
    token_ids = [vocab.get(word, vocab[UNK]) for word in sentence.lower().split()]
    return np.array(token_ids, dtype=int)  # (T,)
''',
        cause='It splits punctuation off into tokens of its own, so "bank." becomes "bank" plus an extra <unk> token and the sentence gets more ids than words; the rule is to split only on whitespace and keep punctuation inside its word ("bank." is one unknown word).',
    ),
    HeldOut(
        name='v06_sa_split_heads_by_reshape',
        assignment=A06,
        cell='self_attention_class',
        source=r'''class SelfAttention:
    # Multi-head scaled dot-product self-attention, row convention: (B, T, D) -> (B, T, D)

    def __init__(self, embed_dim, num_heads=1, seed=0):
        assert embed_dim % num_heads == 0, "embed_dim must be divisible by num_heads"
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        # Drawn once, from a seed; divided by sqrt(D) so that the dot products stay of order one
        rng = np.random.default_rng(seed)
        self.q_proj = rng.normal(size=(embed_dim, embed_dim)) / np.sqrt(embed_dim)  # (D, D)
        self.k_proj = rng.normal(size=(embed_dim, embed_dim)) / np.sqrt(embed_dim)  # (D, D)
        self.v_proj = rng.normal(size=(embed_dim, embed_dim)) / np.sqrt(embed_dim)  # (D, D)
        self.out_proj = rng.normal(size=(embed_dim, embed_dim)) / np.sqrt(embed_dim)  # (D, D)
        self.attn_weights = None  # (B, H, T, T), set by forward

    def softmax(self, x, axis=-1):
        # Subtracting the maximum changes nothing but keeps np.exp from overflowing
        exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return exp_x / np.sum(exp_x, axis=axis, keepdims=True)

    def forward(self, embeddings):
        """Contextual embeddings: (B, T, D) -> (B, T, D); keeps the weights in self.attn_weights."""
        B, T, D = embeddings.shape
        H, d = self.num_heads, self.head_dim
        # TODO -- 1. queries, keys and values: embeddings @ self.q_proj (and k_proj, v_proj)   (B, T, D)
        #         2. split each into H heads: reshape to (B, T, H, d), transpose to (B, H, T, d)
        #         3. attn_weights: softmax over the keys (the last axis) of Q K^T / sqrt(d)   (B, H, T, T)
        #         4. weights times values (B, H, T, d); heads side by side again (B, T, D); @ self.out_proj
        Q = embeddings @ self.q_proj
        K = embeddings @ self.k_proj
        V = embeddings @ self.v_proj
        Q = Q.reshape(B, H, T, d)
        K = K.reshape(B, H, T, d)
        V = V.reshape(B, H, T, d)
        scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)
        attn_weights = self.softmax(scores, axis=-1)
        heads = attn_weights @ V
        merged = heads.transpose(0, 2, 1, 3).reshape(B, T, D)
        output = merged @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output
''',
        cause='The heads are split by reshaping (B, T, D) straight to (B, H, T, d) with no transpose, so each "head" holds pieces of different tokens\' features; reshape to (B, T, H, d) and then transpose to (B, H, T, d).',
    ),
    HeldOut(
        name='v06_pca_cov_rows_as_variables',
        assignment=A06,
        cell='pca_def',
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    Xc = X - X.mean(axis=0, keepdims=True)
    covariance = np.cov(Xc)
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    order = np.argsort(eigenvalues)[::-1]
    components = eigenvectors[:, order[:n_components]].T
    biggest = components[np.arange(n_components), np.argmax(np.abs(components), axis=1)]
    components = components * np.sign(biggest)[:, np.newaxis]
    return components
''',
        cause='np.cov(Xc) treats each row (each point) as a variable, so the eigenvectors are N-long vectors over the points and the result has shape (n_components, N) instead of (n_components, D); use the rows of Vt from the SVD of the centred data (or np.cov(Xc, rowvar=False)).',
    ),
]
