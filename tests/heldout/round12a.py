"""Held-out wrong answers, round 12, part A (2026-11-29, round 12): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='j01_loop_first_value_scaled_in_place',
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
  x_prime = all_values[0]
  x_prime *= attention[0]
  for m in range(1, N):
    x_prime += attention[m] * all_values[m]

  all_x_prime.append(x_prime)
  all_attention.append(attention)
''',
        cause="The weighted sum starts from x_prime = all_values[0] and scales it with *=, which multiplies the caller's value vector in place (and the += that follows keeps adding into it), so all_values[0] is overwritten on every output n and later outputs use corrupted values; eq. 12.3 needs a fresh accumulator, x_prime = sum over m of attention[m] * all_values[m], leaving the values untouched.",
    ),
    HeldOut(
        name='j01_matrix_value_bias_added_twice',
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
  dots = K.T @ Q
  attention = softmax_cols(dots)
  X_prime = V @ attention + beta_v
  return X_prime
''',
        cause='The value bias is added twice: once in V = omega_v @ X + beta_v and again to the output, V @ attention + beta_v; the output is just V @ Softmax[K^T Q] (eqs. 12.6-12.8), with beta_v only inside V.',
    ),
    HeldOut(
        name='j02_softmax_cols_running_max_sum_not_rescaled',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # one pass down the rows, keeping each column's running maximum and running sum of exponentials
  running_max = data_in[0].astype(float)
  running_sum = np.ones(data_in.shape[1:])
  for row in data_in[1:]:
    new_max = np.maximum(running_max, row)
    running_sum = running_sum + np.exp(row - new_max)
    running_max = new_max
  softmax = np.exp(data_in - running_max) / running_sum
  return softmax
''',
        cause="A one-pass (online) softmax down the rows that forgets to rescale the running sum when the running maximum grows: the sum must become running_sum * exp(old_max - new_max) + exp(row - new_max); without that factor a column whose maximum is not in its first row gets a wrong denominator, so it is right only when each column's largest entry comes first (the plain fix is exp(data_in - column max) / its column sum).",
    ),
    HeldOut(
        name='j02_scaled_value_bias_from_query',
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
  V = omega_v @ X + beta_q
  D_q = Q.shape[0]
  attention = softmax_cols(K.T @ Q / np.sqrt(D_q))
  X_prime = V @ attention
  return X_prime
''',
        cause='The values are built with the query bias, V = omega_v @ X + beta_q, instead of their own, V = omega_v @ X + beta_v (eq. 12.2); the scaled weights Softmax[K^T Q / sqrt(D_q)] are right but they average the wrong values.',
    ),
    HeldOut(
        name='j03_perm_insertion_skips_last_slot',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = [np.eye(n)]
  # build the orders one token at a time: insert token k at every place of each order of 0..k-1
  orders = [[0]]
  for k in range(1, n):
    new_orders = []
    for order in orders:
      for place in range(len(order)):
        new_orders.append(order[:place] + [k] + order[place:])
    orders = new_orders
  permutation_matrices = [np.eye(n)[:, order] for order in orders]
  return permutation_matrices
''',
        cause="The orders are built by inserting token k into every place of each shorter order, but range(len(order)) leaves out the place after the last element (it needs range(len(order) + 1)), so only (n-1)! of the n! permutation matrices are produced (2 of 6 for n = 3); every order of the identity's columns, e.g. itertools.permutations(range(n)), is needed.",
    ),
    HeldOut(
        name='j03_pe_base_1000',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  for d in range(D):
    i = d // 2
    for n in range(N):
      angle = n / 1000 ** (2 * i / D)
      if d % 2 == 0:
        encoding[d, n] = np.sin(angle)
      else:
        encoding[d, n] = np.cos(angle)
  return encoding
''',
        cause='The wavelength base is 1000 instead of 10000: the angles are n / 1000**(2i/D), so every row past the first pair turns at the wrong frequency; the encoding is sin(n / 10000**(2i/D)) in row 2i and cos of the same angle in row 2i+1.',
    ),
    HeldOut(
        name='j04_mh_np_append_flattens',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  X_prime = np.zeros_like(X)
  head1 = (omega_v1 @ X + beta_v1) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = (omega_v2 @ X + beta_v2) @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  stacked = np.append(head1, head2)
  X_prime = omega_c @ stacked
  return X_prime
''',
        cause='np.append(head1, head2) without an axis flattens both heads into one 1-D vector of D*N numbers, so omega_c @ stacked fails (shapes do not match); the heads must be stacked as rows, np.vstack([head1, head2]) (D x N), before mixing with omega_c (figure 12.6).',
    ),
    HeldOut(
        name='j04_general_zip_betas_misordered',
        assignment=A04,
        cell='multihead_general_def',
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # Replace this line
  X_prime = np.zeros_like(X)
  heads = []
  for omega_v, omega_q, omega_k, beta_v, beta_q, beta_k in zip(omegas_v, omegas_q, omegas_k, betas_q, betas_k, betas_v):
    values = omega_v @ X + beta_v
    heads.append(values @ attention_weights(X, omega_q, omega_k, beta_q, beta_k))
  X_prime = omega_c @ np.vstack(heads)
  return X_prime
''',
        cause="The biases are zipped in the wrong order (betas_q, betas_k, betas_v bound to beta_v, beta_q, beta_k), so each head's values get the query bias, its queries the key bias and its keys the value bias; each head must use its own beta_v, beta_q and beta_k in V_h = omega_vh X + beta_vh, Q_h = omega_qh X + beta_qh, K_h = omega_kh X + beta_kh.",
    ),
    HeldOut(
        name='j05_mha_lens_not_repeated_per_head',
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
        # Replace this line
        output = np.zeros_like(queries)
        Q = transpose_qkv(queries @ self.W_q + self.b_q, self.num_heads)
        K = transpose_qkv(keys @ self.W_k + self.b_k, self.num_heads)
        V = transpose_qkv(values @ self.W_v + self.b_v, self.num_heads)
        d = Q.shape[-1]
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        out = self.attention_weights @ V
        output = transpose_output(out, self.num_heads) @ self.W_o + self.b_o
        return output
''',
        cause='valid_lens is passed to masked_softmax as it is, (B,) or (B, Tq), while the scores have B*H items (heads folded into the batch axis), so the lengths no longer line up with the items (it only works for a batch of one, and raises otherwise); each length must be repeated once per head, np.repeat(valid_lens, num_heads, axis=0), before masking.',
    ),
    HeldOut(
        name='j05_merge_batch_of_one',
        assignment=A05,
        cell='transpose_output_def',
        source=r'''def transpose_output(X, num_heads):
    # Undo transpose_qkv: X (B*H, T, d) -> (B, T, H*d), the heads' features side by side
    # TODO -- reshape to (B, H, T, d), move the heads after the tokens (B, T, H, d),
    # then merge the head and feature axes: (B, T, H*d)
    # Replace this line
    X_merged = np.zeros((X.shape[0] // num_heads, X.shape[1], X.shape[2] * num_heads))
    # heads (H, T, d) -> tokens first (T, H, d) -> (T, H*d), and the batch axis back in front
    T = X.shape[1]
    X_merged = X.transpose(1, 0, 2).reshape(T, -1)[np.newaxis]
    return X_merged
''',
        cause='transpose_output treats the first axis as the heads of a single sequence, X.transpose(1, 0, 2).reshape(T, -1)[np.newaxis], so it is right only for batch size 1; with B sequences it returns (1, T, B*H*d) and mixes sequences; reshape to (B, H, T, d), transpose to (B, T, H, d), then reshape to (B, T, H*d).',
    ),
    HeldOut(
        name='j06_sa_out_proj_skipped',
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
        Q = (embeddings @ self.q_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        K = (embeddings @ self.k_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        V = (embeddings @ self.v_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)
        attn_weights = self.softmax(scores, axis=-1)
        context = attn_weights @ V
        output = context.transpose(0, 2, 1, 3).reshape(B, T, D)
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output
''',
        cause='The output projection is left out: the merged heads (B, T, D) are returned as they are; step 4 ends with merged @ self.out_proj.',
    ),
    HeldOut(
        name='j06_embed_take_without_axis',
        assignment=A06,
        cell='embeddings_def',
        source=r'''def text_to_word_embeddings(text, vocab, embedding_matrix):
    """The embeddings of the words of a text, looked up in the table: (1, T, D)."""
    # TODO -- token ids of the text (your tokenize), their rows of embedding_matrix,
    #         and a batch axis in front (np.newaxis): shape (1, T, D).
    #         Never draw a new table here: look up the one you are given.
    # Replace this line
    word_embeddings = np.zeros((1, 1, embedding_matrix.shape[1]))
    token_ids = tokenize(text, vocab)
    word_embeddings = np.take(embedding_matrix, token_ids)[np.newaxis]
    return word_embeddings
''',
        cause='np.take(embedding_matrix, token_ids) without axis indexes the flattened table, returning single numbers (shape (T,), then (1, T)) instead of rows; the lookup is embedding_matrix[token_ids] (np.take(..., axis=0)), giving (1, T, D) with the batch axis.',
    ),
]
