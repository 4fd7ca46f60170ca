"""Held-out wrong answers, round 2 (2026-11-28): written from the release notebooks alone, by two people who
had read neither grader/ nor round 1's answers (only round 1's entry names, to write other mistakes), against
a grader that round 1 had already shaped. Graded by `python -m tests.heldout.grade OUT --round 2`; judged in
tests/heldout/judged.md. Frozen: do not edit to suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name="r01_qkv_value_key_bias",
        assignment=A01,
        cell="qkv_loop",
        source='''# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  query = omega_q @ x + beta_q
  key = omega_k @ x + beta_k
  value = omega_v @ x + beta_k

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)
''',
        cause="The values are given the keys' bias beta_k (a copy-paste slip): each projection has its own bias, so a value is omega_v @ x + beta_v (eq. 12.2).",
    ),
    HeldOut(
        name="r01_softmax_exp_of_sum",
        assignment=A01,
        cell="softmax_def",
        source='''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  items_out = np.exp(items_in) / np.exp(np.sum(items_in))
  return items_out
''',
        cause='The denominator is the exponential of the sum of the inputs, not the sum of their exponentials: divide np.exp(items_in) by np.sum(np.exp(items_in)), so that the outputs sum to one (eq. 12.5).',
    ),
    HeldOut(
        name="r01_loop_mean_not_sum",
        assignment=A01,
        cell="attention_loop",
        source='''# Create empty lists for the outputs and their attention weights
all_x_prime = []
all_attention = []

# For each output
for n in range(N):
  # Create a list for the dot products of query n with all keys
  all_km_qn = []
  # Compute the dot products
  for key in all_keys:
    # TODO -- compute the appropriate dot product
    dot_product = key.T @ all_queries[n]
    # Store dot product
    all_km_qn.append(dot_product)

  # Compute the attention weights of output n
  attention = softmax(all_km_qn)
  # Print result (should be positive and sum to one)
  print("Attentions for output ", n)
  print(np.round(np.ravel(attention), 8))  # 8 decimals: a weight of 1e-13 shows as 0

  # TODO: Compute a weighted sum of all of the values according to the attention
  # (equation 12.3)
  x_prime = np.mean([attention[m] * all_values[m] for m in range(N)], axis=0)

  all_x_prime.append(x_prime)
  all_attention.append(attention)
''',
        cause='The weighted values are averaged with np.mean, which divides their sum by N a second time: the attention weights already sum to one, so the output is their plain sum, sum over m of attention[m] * all_values[m] (eq. 12.3).',
    ),
    HeldOut(
        name="r01_matrix_inputs_as_keys",
        assignment=A01,
        cell="self_attention_def",
        source='''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  # 2. Compute dot products
  dots = X.T @ Q
  # 3. Apply softmax to calculate attentions
  attention = softmax_cols(dots)
  # 4. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause='The queries are compared with the raw inputs X instead of the keys: the dot products must be K.T @ Q, with K = omega_k @ X + beta_k (eq. 12.8).',
    ),
    HeldOut(
        name="r02_softmax_sum_no_axis",
        assignment=A02,
        cell="softmax_cols_def",
        source='''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  exp_values = np.exp(data_in - np.max(data_in, axis=0, keepdims=True))
  softmax = exp_values / np.sum(exp_values)
  return softmax
''',
        cause='The maximum is taken per column, but np.sum without axis=0 adds up the exponentials of the whole matrix, so the columns no longer each sum to one: divide by np.sum(exp_values, axis=0, keepdims=True).',
    ),
    HeldOut(
        name="r02_softmax_loop_rows_count",
        assignment=A02,
        cell="softmax_cols_def",
        source='''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  softmax = np.zeros(data_in.shape)
  for j in range(data_in.shape[0]):
    column = data_in[:, j]
    exp_column = np.exp(column - np.max(column))
    softmax[:, j] = exp_column / np.sum(exp_column)
  return softmax
''',
        cause='The loop over the columns runs over range(data_in.shape[0]), the number of rows: on a matrix with more rows than columns it indexes a column that does not exist (IndexError), and on one with fewer rows it leaves columns unset: loop over range(data_in.shape[1]), or do it without a loop with axis=0.',
    ),
    HeldOut(
        name="r02_scaled_floor_division",
        assignment=A02,
        cell="scaled_attention_def",
        source='''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  # 2. Compute dot products
  dots = K.T @ Q
  # 3. Scale the dot products as in equation 12.9
  scaled = dots // np.sqrt(Q.shape[0])
  # 4. Apply softmax to calculate attentions
  attention = softmax_cols(scaled)
  # 5. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause='The scaling uses floor division //, which rounds every scaled dot product down to a whole number: use true division, K.T @ Q / np.sqrt(D_q) (eq. 12.9).',
    ),
    HeldOut(
        name="r02_scaled_weights_inputs",
        assignment=A02,
        cell="scaled_attention_def",
        source='''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  # 2. Compute dot products
  dots = K.T @ Q
  # 3. Scale the dot products as in equation 12.9
  dots = dots / np.sqrt(Q.shape[0])
  # 4. Apply softmax to calculate attentions
  attention = softmax_cols(dots)
  # 5. Weight values by attentions
  X_prime = X @ attention
  return X_prime
''',
        cause='The attention weights average the inputs X instead of the values: compute V = omega_v @ X + beta_v and return V @ attention (eq. 12.9).',
    ),
    HeldOut(
        name="r03_perm_shared_buffer",
        assignment=A03,
        cell="permutation_matrices_def",
        source='''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  permutation_matrices = []
  P = np.zeros((n, n))
  for order in itertools.permutations(range(n)):
    P[:, :] = 0
    for j, m in enumerate(order):
      P[m, j] = 1
    permutation_matrices.append(P)
  return permutation_matrices
''',
        cause='The same array P is filled again for every order and appended each time, so all n! entries of the list are one object holding the last permutation: make a new matrix inside the loop (np.zeros((n, n)) there, or np.eye(n)[:, list(order)]).',
    ),
    HeldOut(
        name="r03_pe_missing_factor_two",
        assignment=A03,
        cell="position_encoding_def",
        source='''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  encoding = np.zeros((D, N))
  positions = np.arange(N)
  for d in range(D):
    i = d // 2
    angle = positions / 10000 ** (i / D)
    if d % 2 == 0:
      encoding[d] = np.sin(angle)
    else:
      encoding[d] = np.cos(angle)
  return encoding
''',
        cause='The exponent is i/D instead of 2i/D: i counts pairs of rows, so the frequency of rows 2i and 2i+1 is 1/10000**(2*i/D), and without the factor 2 the lower rows turn too fast.',
    ),
    HeldOut(
        name="r03_pe_reshape_not_transpose",
        assignment=A03,
        cell="position_encoding_def",
        source='''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  encoding = np.zeros((D, N))
  n_sin = (D + 1) // 2  # rows 0, 2, 4, ...
  n_cos = D // 2        # rows 1, 3, 5, ...
  i = np.arange(n_sin)
  angles = np.arange(N)[:, None] / 10000 ** (2 * i / D)  # (N, n_sin): one row per position
  encoding[0::2] = np.sin(angles).reshape(n_sin, N)
  encoding[1::2] = np.cos(angles[:, :n_cos]).reshape(n_cos, N)
  return encoding
''',
        cause='The angles are built as an (N, D/2) array, one row per position, and turned into (D/2, N) with reshape, which re-reads the numbers in memory order and scrambles positions and frequencies: use the transpose, angles.T, to put each frequency in its own row.',
    ),
    HeldOut(
        name="r03_checker_rows_for_N",
        assignment=A03,
        cell="checker_def",
        source='''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  N = X.shape[0]
  equivariant = True
  for P in generate_permutation_matrices(N):
    if np.max(np.abs(f(X @ P) - f(X) @ P)) > tolerance:
      equivariant = False
  return equivariant
''',
        cause='N is taken from X.shape[0], the size D of each token, not the number of tokens: the tokens are the columns of X, so the permutation matrices must be X.shape[1] x X.shape[1] (here X @ P fails because P is D x D).',
    ),
    HeldOut(
        name="r04_weights_bias_unscaled",
        assignment=A04,
        cell="attention_weights_def",
        source='''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  d = omega_q.shape[0]
  # scale the queries, so that the dot products come out scaled
  Q = omega_q @ X / np.sqrt(d) + beta_q
  K = omega_k @ X + beta_k
  attention = softmax_cols(K.T @ Q)
  return attention
''',
        cause='Only omega_q @ X is divided by sqrt(D/H) and the query bias is added after it, so the part of the dot products that comes from beta_q is not scaled: scale the whole query (or the dot products), K.T @ (omega_q @ X + beta_q) / np.sqrt(D/H).',
    ),
    HeldOut(
        name="r04_mh_heads_side_by_side",
        assignment=A04,
        cell="multihead_def",
        source='''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  head1 = (omega_v1 @ X + beta_v1) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = (omega_v2 @ X + beta_v2) @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  stacked = np.hstack([head1, head2])
  X_prime = omega_c @ stacked
  return X_prime
''',
        cause='The heads are put side by side with np.hstack, giving a (D/H) x 2N matrix that omega_c (D x D) cannot multiply: stack them one on top of the other with np.vstack, a D x N matrix whose columns are still the tokens.',
    ),
    HeldOut(
        name="r04_general_block_offset",
        assignment=A04,
        cell="multihead_general_def",
        source='''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  X_prime = np.zeros((omega_c.shape[0], X.shape[1]))
  for h in range(len(omegas_v)):
    d = omegas_v[h].shape[0]
    head = (omegas_v[h] @ X + betas_v[h]) @ attention_weights(X, omegas_q[h], omegas_k[h], betas_q[h], betas_k[h])
    # the columns of omega_c that meet this head's rows
    X_prime = X_prime + omega_c[:, h:h + d] @ head
  return X_prime
''',
        cause='Head h is multiplied by columns h to h+d of omega_c, but its rows in the stacked matrix are h*d to (h+1)*d: slice omega_c[:, h*d:(h+1)*d] (or stack the heads with np.vstack and multiply by omega_c once).',
    ),
    HeldOut(
        name="r04_general_zip_q_k_swapped",
        assignment=A04,
        cell="multihead_general_def",
        source='''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  heads = []
  for omega_v, omega_k, omega_q, beta_v, beta_k, beta_q in zip(omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k):
    V = omega_v @ X + beta_v
    heads.append(V @ attention_weights(X, omega_q, omega_k, beta_q, beta_k))
  X_prime = omega_c @ np.vstack(heads)
  return X_prime
''',
        cause="The loop variables unpack zip(omegas_v, omegas_q, omegas_k, ...) in the order v, k, q, so every head's queries are made with its key weights and its keys with its query weights: name the loop variables in the same order as the lists passed to zip.",
    ),
    HeldOut(
        name="r05_masked_lens_on_query_axis",
        assignment=A05,
        cell="masked_softmax_def",
        source='''def masked_softmax(scores, valid_lens):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk), the keys at or past each valid length masked.
    # valid_lens: None (no mask), (B,) one length per sequence, or (B, Tq) one length per query.
    if valid_lens is None:
        return softmax(scores)
    # TODO -- make a mask (B, Tq, Tk), True where key j is below the valid length of its query,
    # set the masked scores to -1e6 with np.where, then take the softmax over the keys
    if valid_lens.ndim == 1:
        lens = valid_lens[np.newaxis, :, np.newaxis]  # one length per sequence
    else:
        lens = valid_lens[:, :, np.newaxis]  # one length per query
    mask = np.arange(scores.shape[-1]) < lens
    weights = softmax(np.where(mask, scores, -1e6))
    return weights
''',
        cause='A (B,) valid_lens is expanded to shape (1, B, 1), which lines the lengths up with the queries axis, so query t of every sequence gets length valid_lens[t]: one length per sequence must be shaped (B, 1, 1), valid_lens[:, None, None].',
    ),
    HeldOut(
        name="r05_merge_global_H",
        assignment=A05,
        cell="transpose_output_def",
        source='''def transpose_output(X, num_heads):
    # Undo transpose_qkv: X (B*H, T, d) -> (B, T, H*d), the heads' features side by side
    # TODO -- reshape to (B, H, T, d), move the heads after the tokens (B, T, H, d),
    # then merge the head and feature axes: (B, T, H*d)
    X = X.reshape(X.shape[0] // H, H, X.shape[1], X.shape[2])
    X = X.transpose(0, 2, 1, 3)
    X_merged = X.reshape(X.shape[0], X.shape[1], -1)
    return X_merged
''',
        cause="The function splits by the notebook's global H (4 heads) instead of its argument num_heads, so with any other number of heads the batch and feature sizes come out wrong: use num_heads everywhere inside the function.",
    ),
    HeldOut(
        name="r05_mha_scale_by_num_keys",
        assignment=A05,
        cell="mha_class",
        source='''class MultiHeadAttention:
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
        Q = transpose_qkv(queries @ self.W_q + self.b_q, self.num_heads)  # (B*H, Tq, d)
        K = transpose_qkv(keys @ self.W_k + self.b_k, self.num_heads)  # (B*H, Tk, d)
        V = transpose_qkv(values @ self.W_v + self.b_v, self.num_heads)  # (B*H, Tk, d)
        if valid_lens is not None:
            valid_lens = np.repeat(valid_lens, self.num_heads, axis=0)
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(K.shape[1])
        self.attention_weights = masked_softmax(scores, valid_lens)
        output = transpose_output(self.attention_weights @ V, self.num_heads) @ self.W_o + self.b_o
        return output
''',
        cause="The dot products are divided by np.sqrt(K.shape[1]), the number of keys Tk, not the head's size: K is (B*H, Tk, d), so the size to scale by is its last axis, np.sqrt(K.shape[-1]) (eq. 12.9).",
    ),
    HeldOut(
        name="r05_padding_mask_2d",
        assignment=A05,
        cell="boolean_masks_def",
        source='''def key_padding_mask(valid_lens, num_keys):
    # True where key j of sequence b may be attended, j < valid_lens[b]: (B,) -> (B, 1, Tk)
    # TODO -- compare np.arange(num_keys) with valid_lens shaped (B, 1, 1): broadcasting, no loop
    mask = np.arange(num_keys) < valid_lens[:, np.newaxis]
    return mask


def causal_mask(num_queries, num_keys):
    # True where query t may attend to key j, that is j <= t: (Tq, Tk), the same for every sequence
    # TODO -- keep the entries on and below the diagonal of a (Tq, Tk) array of True (np.tril)
    mask = np.tril(np.ones((num_queries, num_keys), dtype=bool))
    return mask


print(key_padding_mask(np.array([2, 3]), 4).astype(int))  # (2, 1, 4)
print(causal_mask(2, 4).astype(int))  # (2, 4)
''',
        cause="The lengths are shaped (B, 1), so the padding mask comes out (B, Tk) with no queries axis; against scores (B, Tq, Tk) it then broadcasts as if it were a (Tq, Tk) mask, sequence b's row applied to query b: shape the lengths (B, 1, 1) so that the mask is (B, 1, Tk).",
    ),
    HeldOut(
        name='r06_embed_batch_axis_second',
        assignment=A06,
        cell='embeddings_def',
        source='''def text_to_word_embeddings(text, vocab, embedding_matrix):
    """The embeddings of the words of a text, looked up in the table: (1, T, D)."""
    # TODO -- token ids of the text (your tokenize), their rows of embedding_matrix,
    #         and a batch axis in front (np.newaxis): shape (1, T, D).
    #         Never draw a new table here: look up the one you are given.
    token_ids = tokenize(text, vocab)  # (T,)
    word_embeddings = embedding_matrix[token_ids][:, np.newaxis]  # add the batch axis
    return word_embeddings
''',
        cause='The batch axis was inserted after the token axis (embedding_matrix[token_ids][:, np.newaxis]), giving shape (T, 1, D), not (1, T, D): put the new axis in front, embedding_matrix[token_ids][np.newaxis].',
    ),
    HeldOut(
        name='r06_sa_heads_merged_without_transpose',
        assignment=A06,
        cell='self_attention_class',
        source='''class SelfAttention:
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
        Q = embeddings @ self.q_proj  # (B, T, D)
        K = embeddings @ self.k_proj  # (B, T, D)
        V = embeddings @ self.v_proj  # (B, T, D)
        Q = Q.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        K = K.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        V = V.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)  # (B, H, T, T)
        attn_weights = self.softmax(scores, axis=-1)
        heads = attn_weights @ V  # (B, H, T, d)
        heads = heads.reshape(B, T, D)  # heads side by side again
        output = heads @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output
''',
        cause="The heads' outputs, (B, H, T, d), were reshaped straight to (B, T, D) without first transposing back to (B, T, H, d), so the features of different tokens and heads are scrambled together: transpose(0, 2, 1, 3) before the reshape.",
    ),
    HeldOut(
        name='r06_pca_scaled_by_singular_values',
        assignment=A06,
        cell='pca_def',
        source='''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    Xc = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    # each axis weighted by how much spread it carries
    components = S[:n_components, np.newaxis] * Vt[:n_components]
    for i in range(n_components):
        biggest = np.argmax(np.abs(components[i]))
        if components[i, biggest] < 0:
            components[i] = -components[i]
    return components
''',
        cause='The axes were multiplied by their singular values, so they are no longer unit vectors: the principal axes are the rows of Vt themselves, Vt[:n_components], with only their signs fixed.',
    ),
    HeldOut(
        name='r07_smb_matrix_products_mix_columns',
        assignment=A07,
        cell='softmax_backward_def',
        source='''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # diag(a) @ g is A * dA; a a^T g for all the columns at once is A @ (A^T @ dA)
  dS = A * dA - A @ (A.T @ dA)
  return dS
''',
        cause="a a^T g must be formed column by column, A * np.sum(A * dA, axis=0, keepdims=True), but A @ (A.T @ dA) mixes every column's weights with every other column's gradient, so each column gets other softmaxes' terms.",
    ),
    HeldOut(
        name='r07_ab_dX_weights_not_transposed',
        assignment=A07,
        cell='attention_backward_def',
        source='''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  D_q = omega_q.shape[0]
  c = 1 / np.sqrt(D_q)
  Q = omega_q @ X + beta_q  # (D, N)
  K = omega_k @ X + beta_k  # (D, N)
  V = omega_v @ X + beta_v  # (D, N)
  A = softmax_cols(c * K.T @ Q)  # (N, N)
  # 1. X' = V A
  dV = dX_prime @ A.T  # (D, N)
  dA = V.T @ dX_prime  # (N, N)
  # 2. the softmax
  dS = softmax_backward(A, dA)  # (N, N)
  # 3. S = c K^T Q
  dQ = c * K @ dS  # (D, N)
  dK = c * Q @ dS.T  # (D, N)
  # 4. the parameters
  d_omega_q = dQ @ X.T
  d_omega_k = dK @ X.T
  d_omega_v = dV @ X.T
  d_beta_q = np.sum(dQ, axis=1, keepdims=True)
  d_beta_k = np.sum(dK, axis=1, keepdims=True)
  d_beta_v = np.sum(dV, axis=1, keepdims=True)
  # 5. X made the queries, the keys and the values
  dX = omega_q @ dQ + omega_k @ dK + omega_v @ dV
  gradients = {"dX": dX, "d_omega_v": d_omega_v, "d_omega_q": d_omega_q,
               "d_omega_k": d_omega_k, "d_beta_v": d_beta_v,
               "d_beta_q": d_beta_q, "d_beta_k": d_beta_k}
  return gradients
''',
        cause='Backpropagating through Q = omega_q X gives dX = omega_q.T @ dQ (and likewise for the keys and values): the three weight matrices were used untransposed.',
    ),
    HeldOut(
        name='r07_mha_grad_heads_split_without_transpose',
        assignment=A07,
        cell='mha_backward_def',
        source='''def mha_backward(x, params, num_heads, dout):
  # TODO -- the forward pass with a cache, then backwards: W_o and b_o, split the heads' gradient, dV and dA,
  # dS (the softmax's backward along the last axis, times 1/sqrt(d)), dQ and dK, merge them, then the
  # projections' gradients (summed over the batch and the tokens) and dx (three paths)
  cache = {}
  mha_forward(x, params, num_heads, cache)
  Q, K, V, A, heads = cache["Q"], cache["K"], cache["V"], cache["A"], cache["heads"]
  B, T, D = x.shape
  d = D // num_heads
  grads = {}
  # output projection
  grads["W_o"] = np.einsum("btd,bte->de", heads, dout)  # (D, D)
  grads["b_o"] = dout.sum(axis=(0, 1))  # (D,)
  dheads = dout @ params["W_o"].T  # (B, T, D)
  dheads = dheads.reshape(B, num_heads, T, d)  # back to (B, H, T, d)
  # weights times values
  dV = A.transpose(0, 1, 3, 2) @ dheads  # (B, H, T, d)
  dA = dheads @ V.transpose(0, 1, 3, 2)  # (B, H, T, T)
  # softmax along the keys, and the scale
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = merge_heads(dS @ K)  # (B, T, D)
  dK = merge_heads(dS.transpose(0, 1, 3, 2) @ Q)  # (B, T, D)
  dV = merge_heads(dV)  # (B, T, D)
  # the three projections
  grads["W_q"] = np.einsum("btd,bte->de", x, dQ)
  grads["W_k"] = np.einsum("btd,bte->de", x, dK)
  grads["W_v"] = np.einsum("btd,bte->de", x, dV)
  grads["b_q"] = dQ.sum(axis=(0, 1))
  grads["b_k"] = dK.sum(axis=(0, 1))
  grads["b_v"] = dV.sum(axis=(0, 1))
  dx = dQ @ params["W_q"].T + dK @ params["W_k"].T + dV @ params["W_v"].T
  return dx, grads
''',
        cause='The gradient of the merged heads, (B, T, D), was reshaped directly to (B, H, T, d), which is not how the heads were split: reshape to (B, T, H, d) and transpose to (B, H, T, d), that is use split_heads.',
    ),
    HeldOut(
        name='r08_ln_variance_not_centred',
        assignment=A08,
        cell='layer_norm_def',
        source='''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    mean = np.mean(x, axis=-1, keepdims=True)  # (B, T, 1)
    var = np.mean(x ** 2, axis=-1, keepdims=True)  # (B, T, 1): the mean of the squares
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = gamma * x_hat + beta
    return out
''',
        cause='The variance was computed as the mean of x**2 rather than the mean of the squared deviations (x - mean)**2, so every token whose mean is not zero is divided by too large a number: use np.var(x, axis=-1, keepdims=True).',
    ),
    HeldOut(
        name='r08_block_mask_upper_triangle',
        assignment=A08,
        cell='block_def',
        source='''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    # TODO -- make the causal mask (T, T); then, pre-norm:
    #   x = x + attention(layer_norm_1(x)), then x = x + mlp(layer_norm_2(x))
    # or, post-norm:
    #   x = layer_norm_1(x + attention(x)), then x = layer_norm_2(x + mlp(x))
    T = x.shape[1]
    mask = np.triu(np.ones((T, T), dtype=bool))  # the future is masked
    p = params
    if post_norm:
        x = layer_norm(x + multi_head_attention(x, p, num_heads, mask), p["gamma1"], p["beta1"])
        out = layer_norm(x + mlp(x, p["W1"], p["b1"], p["W2"], p["b2"]), p["gamma2"], p["beta2"])
    else:
        x = x + multi_head_attention(layer_norm(x, p["gamma1"], p["beta1"]), p, num_heads, mask)
        out = x + mlp(layer_norm(x, p["gamma2"], p["beta2"]), p["W1"], p["b1"], p["W2"], p["b2"])
    return out
''',
        cause='The mask was built with np.triu, which lets each token attend to itself and the tokens after it and hides the earlier ones: the causal mask is the lower triangle, causal_mask(T, T) (np.tril).',
    ),
    HeldOut(
        name='r08_flops_heads_full_width',
        assignment=A08,
        cell='counts_def',
        source='''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    attention = 4 * D * D + 4 * D  # W_q, W_k, W_v, W_o and their biases
    mlp_params = D * D_ff + D_ff + D_ff * D + D  # W1, b1, W2, b2
    norms = 2 * 2 * D  # gamma and beta of both LayerNorms
    count = attention + mlp_params + norms
    return count


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    projections = 4 * T * D * D  # x @ W_q, x @ W_k, x @ W_v, and @ W_o
    scores = H * T * D * T  # Q @ K.T for every head: (T, D) @ (D, T)
    weighted = H * T * T * D  # weights @ V for every head: (T, T) @ (T, D)
    mlp_flops = T * D * D_ff + T * D_ff * D  # x @ W1 and hidden @ W2
    flops = projections + scores + weighted + mlp_flops
    return flops
''',
        cause="Each head's scores and weighted sums work on d = D / H features, not D, so all the heads together cost 2 T^2 D multiply-adds, not H times that.",
    ),
    HeldOut(
        name='r09_ce_max_over_positions',
        assignment=A09,
        cell='cross_entropy_def',
        source='''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    # TODO -- log_p = shifted - log(sum(exp(shifted))) with shifted = logits - max over the last axis;
    # loss = -(sum of weights * log_p at the targets) / sum(weights);
    # dlogits = (softmax - one-hot of the targets) * weights / sum(weights), the weights over the last axis
    shifted = logits - np.max(logits, axis=1, keepdims=True)  # subtract the largest logit
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))  # (B, T, V)
    count = np.sum(weights)
    log_p_target = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    loss = -np.sum(weights * log_p_target) / count
    probs = np.exp(log_p)  # (B, T, V)
    one_hot = np.eye(logits.shape[-1])[targets]  # (B, T, V)
    dlogits = (probs - one_hot) * weights[..., None] / count
    return loss, dlogits
''',
        cause='The maximum was taken over axis 1, the positions, not over the last axis, the vocabulary, so each logit of a position had a different number subtracted and the log-softmax is wrong: use np.max(logits, axis=-1, keepdims=True).',
    ),
    HeldOut(
        name='r09_adam_v_corrected_with_beta1',
        assignment=A09,
        cell='adam_step_def',
        source='''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    correction = 1 - beta1 ** t
    m_hat = new_m / correction
    v_hat = new_v / correction
    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v
''',
        cause="The second moment's bias correction used beta1: v_hat must be v divided by 1 - beta2**t (only m_hat uses 1 - beta1**t).",
    ),
    HeldOut(
        name='r09_train_updates_a_copy',
        assignment=A09,
        cell='train_step_def',
        source='''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    params = {name: value.copy() for name, value in params.items()}  # never change the caller's arrays
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss
''',
        cause="train_step copied params into a new dict and updated the copy, so the caller's parameters never change and the model never learns: train_step is meant to update the params dict it is given, in place (assign the new arrays into it).",
    ),
    HeldOut(
        name='r10_count_pairs_overwrites_count',
        assignment=A10,
        cell='count_pairs_def',
        source='''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  counts = {}
  for word, freq in corpus.items():
    for k in range(len(word) - 1):
      pair = (word[k], word[k + 1])
      counts[pair] = freq
  return counts
''',
        cause="Each occurrence overwrote the pair's count with the word's frequency (counts[pair] = freq) instead of adding to it, so a pair keeps only the frequency of the last word it was seen in: counts[pair] = counts.get(pair, 0) + freq.",
    ),
    HeldOut(
        name='r10_learn_least_frequent_pair',
        assignment=A10,
        cell='learn_merges_def',
        source='''def learn_merges(corpus, num_merges):
  """The pairs merged, in the order learned: up to num_merges of them."""
  # TODO -- repeat num_merges times: count the pairs, stop if there are none, take the most frequent
  # (ties: the smallest pair), remember it and merge it in the corpus
  merges = []
  for _ in range(num_merges):
    counts = count_pairs(corpus)
    if not counts:
      break
    best = min(counts, key=lambda p: (counts[p], p))  # most frequent, ties: the smallest pair
    merges.append(best)
    corpus = merge_pair(corpus, best)
  return merges
''',
        cause='The key (counts[p], p) has no minus sign, so min picks the least frequent pair: use min(counts, key=lambda p: (-counts[p], p)).',
    ),
    HeldOut(
        name='r10_encode_merges_not_chained',
        assignment=A10,
        cell='encode_def',
        source='''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  ids = []
  for word in text.split(" "):
    symbols = tuple(word) + (EOW,)
    new_symbols = symbols
    for pair in merges:
      new_symbols = list(merge_pair({symbols: 1}, pair))[0]
    ids += [vocab.get(s, vocab[UNK]) for s in new_symbols]
  return ids
''',
        cause="Every merge was applied to the word's original characters and its result was not fed into the next merge, so only the last merge counts: assign the merged word back to symbols before applying the next merge.",
    ),
    HeldOut(
        name='r11_sample_normaliser_without_temperature',
        assignment=A11,
        cell='sample_def',
        source='''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  # TODO -- n_new times: probs = softmax(logits / temperature), one draw rng.choice(len(probs), p=probs), appended
  ids = list(prompt)
  for _ in range(n_new):
    logits = np.asarray(next_logits(ids))
    shifted = logits - np.max(logits)
    probs = np.exp(shifted / temperature) / np.sum(np.exp(shifted))  # softmax with the temperature
    ids.append(int(rng.choice(len(probs), p=probs)))
  return ids
''',
        cause='Only the numerator was divided by the temperature, not the sum in the denominator, so the probabilities do not sum to 1 and rng.choice raises: divide the logits by the temperature before the whole softmax.',
    ),
    HeldOut(
        name='r11_top_p_indices_ascending',
        assignment=A11,
        cell='top_p_def',
        source='''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  sorted_probs = np.sort(probs)[::-1]  # largest first
  order = np.argsort(probs, kind="stable")  # the ids in the same order
  cumulative = np.cumsum(sorted_probs)
  n_keep = int(np.sum(cumulative < p)) + 1  # up to and including the token that reaches p
  n_keep = min(n_keep, len(probs))
  keep = order[:n_keep]
  result = np.zeros_like(probs)
  result[keep] = probs[keep] / np.sum(probs[keep])
  return result
''',
        cause='The probabilities were sorted largest first (np.sort(probs)[::-1]) but the ids came from np.argsort(probs), smallest first, so the least likely tokens were kept: take the ids from np.argsort(-probs, kind="stable") and sort the probabilities with the same order.',
    ),
    HeldOut(
        name='r11_beam_norm_by_n_new',
        assignment=A11,
        cell='beam_search_def',
        source='''def log_softmax(x):
  """log(softmax(x)), computed without the softmax, so that a probability of 1e-400 is -921, not log(0)."""
  shifted = np.asarray(x, dtype=float) - np.max(x)
  return shifted - np.log(np.sum(np.exp(shifted)))

def beam_search(next_logits, prompt, n_new, beam_width, end, length_norm=False):
  """The ids of the best sequence beam_width beams find in n_new steps, scored by summed log-probabilities."""
  prompt = list(prompt)
  beams = [(prompt, 0.0)]  # (ids, the sum of the new tokens' log-probabilities)
  # TODO -- n_new times: the candidates (finished beams as they are, the others extended by every token), sorted
  # by score (stable), the first beam_width kept; then the best beam's ids, its score divided by its new tokens'
  # number when length_norm
  for step in range(n_new):
    candidates = []
    for ids, score in beams:
      if len(ids) > len(prompt) and ids[-1] == end:
        candidates.append((ids, score))  # finished: carried over as it is
        continue
      log_probs = log_softmax(next_logits(ids))
      for token in range(len(log_probs)):
        candidates.append((ids + [token], score + log_probs[token]))
    scores = np.array([score for _, score in candidates])
    order = np.argsort(-scores, kind="stable")
    beams = [candidates[i] for i in order[:beam_width]]
  final = np.array([score for _, score in beams])
  if length_norm:
    final = final / n_new  # the average log-probability per new token
  best = beams[int(np.argmax(final))][0]
  return best
''',
        cause="With length_norm every beam's score was divided by n_new, the same number for all beams, so the normalisation changes nothing: divide each beam's score by its own number of new tokens (a beam that finished early has fewer).",
    ),
]
