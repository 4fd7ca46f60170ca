"""Held-out wrong answers, round 14, part A (2026-11-29, round 14): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='f01_loop_inputs_as_values',
        assignment=A01,
        cell='attention_loop',
        source=r'''# Create empty lists for the outputs and their attention weights
all_x_prime = []
all_attention = []

# For each output
for n in range(N):
  # Create a list for the dot products of query n with all keys
  all_km_qn = []
  # Compute the dot products
  for key in all_keys:
    # TODO -- compute the appropriate dot product
    # Replace this line
    dot_product = 1
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
  # Replace this line
  x_prime = np.zeros((D,1))
  for m in range(N):
    x_prime = x_prime + attention[m] * all_x[m]

  all_x_prime.append(x_prime)
  all_attention.append(attention)''',
        cause="The weighted sum adds up the inputs all_x[m] instead of the values: equation 12.3 is x'_n = sum_m a_mn v_m, so the loop must add attention[m] * all_values[m].",
    ),
    HeldOut(
        name='f01_matrix_output_in_rows',
        assignment=A01,
        cell='self_attention_def',
        source=r'''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Apply softmax to calculate attentions
  # 4. Weight values by attentions
  # Replace this line
  X_prime = np.zeros_like(X)
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  attention = softmax_cols(K.T @ Q)
  # one output token per row, weights times values
  X_prime = attention.T @ V.T
  return X_prime''',
        cause="The outputs are returned one token per row, attention.T @ V.T, an N x D matrix: the book keeps tokens in columns, X' = V Softmax[K^T Q] (eq. 12.8), a D x N matrix.",
    ),
    HeldOut(
        name='f02_softmax_cols_max_reshaped_to_column',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # the largest entry of each column, as a column vector so that it broadcasts
  column_max = np.max(data_in, axis=0).reshape(-1, 1)
  exp_values = np.exp(data_in - column_max)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax''',
        cause="The column maxima are reshaped into a column vector (N_q, 1), so they are subtracted along the rows: row m loses the maximum of column m, which is not a constant within a column and changes the softmax (and fails to broadcast unless the matrix is square); each column's maximum must be a row vector, np.max(data_in, axis=0, keepdims=True).",
    ),
    HeldOut(
        name='f02_scaled_by_sqrt_of_query_ndim',
        assignment=A02,
        cell='scaled_attention_def',
        source=r'''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Scale the dot products as in equation 12.9
  # 4. Apply softmax to calculate attentions
  # 5. Weight values by attentions
  # Replace this line
  X_prime = np.zeros_like(X)
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  D_q = Q.ndim  # the dimension of the queries
  attention = softmax_cols(K.T @ Q / np.sqrt(D_q))
  X_prime = V @ attention
  return X_prime''',
        cause="D_q is taken as Q.ndim, the number of array axes (always 2), so the dot products are divided by sqrt(2) whatever the query size; equation 12.9 divides by the square root of the queries' size, D_q = Q.shape[0].",
    ),
    HeldOut(
        name='f03_pe_loop_skips_position_zero',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  # position 0 is sin(0) = 0 everywhere, so start at position 1
  for n in range(1, N):
    for d in range(D):
      i = d // 2
      angle = n / 10000 ** (2 * i / D)
      if d % 2 == 0:
        encoding[d, n] = np.sin(angle)
      else:
        encoding[d, n] = np.cos(angle)
  return encoding''',
        cause='The loop starts at position 1 on the belief that position 0 is all zeros, so column 0 stays zero; but only the sine rows are 0 there, the cosine rows 2i+1 hold cos(0) = 1: the positions run n = 0, ..., N-1.',
    ),
    HeldOut(
        name='f03_perm_product_filtered_by_sum',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = [np.eye(n)]
  permutation_matrices = []
  # every choice of a column of the identity for each place; a reordering uses each column once,
  # so its column numbers add up to 0 + 1 + ... + (n - 1)
  for order in itertools.product(range(n), repeat=n):
    if sum(order) == n * (n - 1) // 2:
      permutation_matrices.append(np.eye(n)[:, list(order)])
  return permutation_matrices''',
        cause='Every n-tuple of column numbers whose sum is 0 + 1 + ... + (n-1) is kept, but a right sum does not make a reordering: (1, 1, 1) for n = 3 (and more for larger n) repeats a column, so non-permutation matrices join the n! true ones; keep only tuples with all n columns distinct, i.e. itertools.permutations(range(n)).',
    ),
    HeldOut(
        name='f04_weights_scaled_by_sqrt_of_head_count',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  # scale by sqrt(D / H): D from the input, H from the head's weights
  D_model = X.shape[0]
  H = omega_q.shape[0]
  attention = softmax_cols(K.T @ Q / np.sqrt(D_model / H))
  return attention''',
        cause="The number of heads is read as omega_q.shape[0], which is the head's size D/H, so sqrt(D / H) becomes sqrt(D / (D/H)) = sqrt(H); a head's dot products must be divided by the square root of its own query size, np.sqrt(omega_q.shape[0]) = sqrt(D/H) (eq. 12.9 per head).",
    ),
    HeldOut(
        name='f04_mh_value_biases_added_after_omega_c',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  X_prime = np.zeros_like(X)
  head1 = (omega_v1 @ X) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = (omega_v2 @ X) @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  # the value biases of the two heads, stacked like the heads, added at the end
  X_prime = omega_c @ np.vstack([head1, head2]) + np.vstack([beta_v1, beta_v2])
  return X_prime''',
        cause="The value biases are left out of each head and the stacked biases are added after the mixing, omega_c @ heads + beta; each head's values are V_h = omega_vh @ X + beta_vh before the weights and omega_c (figure 12.6), so the biases must pass through omega_c: omega_c @ vstack([V_1 A_1, V_2 A_2]).",
    ),
    HeldOut(
        name='f05_masked_1d_lens_without_query_axis',
        assignment=A05,
        cell='masked_softmax_def',
        source=r'''def masked_softmax(scores, valid_lens):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk), the keys at or past each valid length masked.
    # valid_lens: None (no mask), (B,) one length per sequence, or (B, Tq) one length per query.
    if valid_lens is None:
        return softmax(scores)
    # TODO -- make a mask (B, Tq, Tk), True where key j is below the valid length of its query,
    # set the masked scores to -1e6 with np.where, then take the softmax over the keys
    # Replace this line
    weights = np.zeros_like(scores)
    valid_lens = np.asarray(valid_lens)
    if valid_lens.ndim == 1:
        lens = valid_lens[:, None]  # (B, 1): one length per sequence
    else:
        lens = valid_lens[:, :, None]  # (B, Tq, 1): one length per query
    mask = np.arange(scores.shape[-1]) < lens
    weights = softmax(np.where(mask, scores, -1e6))
    return weights''',
        cause="With one length per sequence, valid_lens[:, None] makes a (B, Tk) mask that np.where broadcasts as (1, B, Tk), so query t of every sequence is masked with the length of sequence t (and it fails to broadcast unless B equals Tq or 1); the lengths need shape (B, 1, 1), valid_lens[:, None, None], so that each sequence's length applies to all its queries.",
    ),
    HeldOut(
        name='f05_init_std_power_precedence',
        assignment=A05,
        cell='init_weight_def',
        source=r'''def init_weight(fan_in, fan_out, rng):
    # A weight for X @ W, shape (fan_in, fan_out): mean 0, standard deviation 1/sqrt(fan_in)
    # TODO -- draw it with rng.normal (rng is a np.random.Generator)
    # Replace this line
    W = np.zeros((fan_in, fan_out))
    W = rng.normal(0.0, fan_in ** -1/2, size=(fan_in, fan_out))  # std fan_in to the power -1/2
    return W''',
        cause='The std is written fan_in ** -1/2, which Python reads as (fan_in ** -1) / 2 = 1 / (2 fan_in), not fan_in ** (-1/2); the weights must have std 1/sqrt(fan_in), e.g. fan_in ** -0.5 or 1 / np.sqrt(fan_in).',
    ),
    HeldOut(
        name='f06_sa_keeps_scores_as_weights',
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
        # Replace these two lines
        attn_weights = np.ones((B, H, T, T)) / T
        output = np.zeros_like(embeddings)
        Q = (embeddings @ self.q_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        K = (embeddings @ self.k_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        V = (embeddings @ self.v_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        attn_weights = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)  # (B, H, T, T)
        heads = self.softmax(attn_weights, axis=-1) @ V  # (B, H, T, d)
        output = heads.transpose(0, 2, 1, 3).reshape(B, T, D) @ self.out_proj  # (B, T, D)
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause='The softmax is applied inline to compute the output, but attn_weights keeps the scaled scores Q K^T / sqrt(d), so self.attn_weights holds raw scores (negative, rows not summing to one) instead of the weights; attn_weights must be the softmax over the keys of those scores, and the same array multiplies V.',
    ),
    HeldOut(
        name='f06_embed_scaled_by_sqrt_D',
        assignment=A06,
        cell='embeddings_def',
        source=r'''def text_to_word_embeddings(text, vocab, embedding_matrix):
    """The embeddings of the words of a text, looked up in the table: (1, T, D)."""
    # TODO -- token ids of the text (your tokenize), their rows of embedding_matrix,
    #         and a batch axis in front (np.newaxis): shape (1, T, D).
    #         Never draw a new table here: look up the one you are given.
    # Replace this line
    word_embeddings = np.zeros((1, 1, embedding_matrix.shape[1]))
    token_ids = tokenize(text, vocab)  # (T,)
    D = embedding_matrix.shape[1]
    # as in "Attention is all you need", the embeddings are multiplied by sqrt(D)
    word_embeddings = embedding_matrix[token_ids][np.newaxis] * np.sqrt(D)  # (1, T, D)
    return word_embeddings''',
        cause='The looked-up rows are multiplied by sqrt(D), the scaling of the Transformer paper, which this function does not ask for: the word embeddings are the rows of the table exactly as given, embedding_matrix[token_ids][np.newaxis], shape (1, T, D).',
    ),
]
