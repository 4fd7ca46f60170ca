"""Held-out wrong answers, round 9, part A (2026-11-29, round 9): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='q01_softmax_one_plus_sum',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  items_out = items_in.copy()
  items_out = np.exp(items_in) / (1 + np.sum(np.exp(items_in)))
  return items_out''',
        cause='The denominator is 1 plus the sum of the exponentials (as in a logistic function with an extra zero logit), so the outputs sum to less than one; eq. 12.5 divides each exponential by the sum of the exponentials alone.',
    ),
    HeldOut(
        name='q01_loop_stale_query_variable',
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
    dot_product = key.T @ query
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
    x_prime = x_prime + attention[m] * all_values[m]

  all_x_prime.append(x_prime)
  all_attention.append(attention)''',
        cause="The dot products use `query`, the variable left over from the previous cell's loop (the last token's query), instead of all_queries[n], so every output attends with the last token's query; output n's scores are k_m^T q_n with its own query q_n (eq. 12.6).",
    ),
    HeldOut(
        name='q02_softmax_cols_sums_reshaped_to_column',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  exp_values = np.exp(data_in - np.max(data_in, axis=0))
  # make the column sums a column vector so that they broadcast
  softmax = exp_values / np.sum(exp_values, axis=0).reshape(-1, 1)
  return softmax''',
        cause="The column sums (one per column, shape (N_cols,)) are reshaped into a column vector (N_cols, 1), so they broadcast down the rows: row i is divided by column i's sum, which raises on non-square scores and gives wrong weights on square ones; each column must be divided by its own sum, np.sum(e, axis=0, keepdims=True), shape (1, N_cols).",
    ),
    HeldOut(
        name='q02_scaled_cosine_similarity',
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
  # scale each dot product so that the scores stay small
  norms = np.linalg.norm(K, axis=0)[:, np.newaxis] * np.linalg.norm(Q, axis=0)[np.newaxis, :]
  attention = softmax_cols(K.T @ Q / norms)
  X_prime = V @ attention
  return X_prime''',
        cause="The dot products are divided by the product of each key's and each query's norm (a cosine similarity), not by sqrt(D_q); eq. 12.9 divides K^T Q by the constant sqrt(D_q), the square root of the queries' size.",
    ),
    HeldOut(
        name='q03_pe_pair_index_rounded_up',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  for n in range(N):
    for d in range(D):
      i = (d + 1) // 2  # the pair this row belongs to
      angle = n / 10000 ** (2 * i / D)
      if d % 2 == 0:
        encoding[d, n] = np.sin(angle)
      else:
        encoding[d, n] = np.cos(angle)
  return encoding''',
        cause="The pair index is rounded up, i = (d + 1) // 2, so each cosine row 2i+1 takes the frequency of the next pair, 10000**(2(i+1)/D), instead of sharing its sine row's; rows 2i and 2i+1 both use n / 10000**(2i/D) with i = d // 2.",
    ),
    HeldOut(
        name='q03_checker_signed_difference_sum',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  equivariant = True
  f_X = f(X)
  for P in generate_permutation_matrices(X.shape[1]):
    difference = np.sum(f(X @ P) - f_X @ P)  # how far apart the two are
    if difference > tolerance:
      equivariant = False
  return equivariant''',
        cause='The checker adds up the signed differences f(X @ P) - f(X) @ P instead of taking their absolute values, and the entries of two outputs holding the same numbers (or differing by a fixed shift) cancel in the sum, so every function passes; compare entry by entry, max |f(X @ P) - f(X) @ P| <= tolerance for every P.',
    ),
    HeldOut(
        name='q04_mh_second_head_values_from_first',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  X_prime = np.zeros_like(X)
  # head 1
  V1 = omega_v1 @ X + beta_v1
  A1 = attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head1 = V1 @ A1
  # head 2
  V2 = omega_v1 @ X + beta_v1
  A2 = attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  head2 = V2 @ A2
  X_prime = omega_c @ np.vstack([head1, head2])
  return X_prime''',
        cause="Copy-paste slip: the second head's values are made with the first head's omega_v1 and beta_v1, so head 2 averages head 1's values with its own weights; each head has its own values, V_2 = omega_v2 @ X + beta_v2 (figure 12.6).",
    ),
    HeldOut(
        name='q04_general_stacks_into_input',
        assignment=A04,
        cell='multihead_general_def',
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # Replace this line
  X_prime = np.zeros_like(X)
  H = len(omegas_v)
  head_size = X.shape[0] // H
  stacked = X  # (D, N): the stacked heads have the same shape as X
  for h in range(H):
    values = omegas_v[h] @ X + betas_v[h]
    weights = attention_weights(X, omegas_q[h], omegas_k[h], betas_q[h], betas_k[h])
    stacked[h * head_size:(h + 1) * head_size, :] = values @ weights
  X_prime = omega_c @ stacked
  return X_prime''',
        cause="`stacked = X` does not copy: writing each head's rows into it overwrites the caller's X in place, so the later heads are computed from an input already partly replaced by earlier heads' outputs (and X is changed for the rest of the notebook); the heads must be computed from the unchanged X and stacked in a new array (np.vstack of the heads, or np.zeros_like(X)).",
    ),
    HeldOut(
        name='q05_split_stale_axis_after_transpose',
        assignment=A05,
        cell='transpose_qkv_def',
        source=r'''def transpose_qkv(X, num_heads):
    # Split the features into heads: X (B, T, D) -> (B*H, T, D/H); item b*H + h is head h of sequence b
    # TODO -- reshape to (B, T, H, D/H), move the heads before the tokens (B, H, T, D/H),
    # then merge the batch and head axes: (B*H, T, D/H)
    # Replace this line
    X_split = np.zeros((X.shape[0] * num_heads, X.shape[1], X.shape[2] // num_heads))
    X = X.reshape(X.shape[0], X.shape[1], num_heads, X.shape[2] // num_heads)  # (B, T, H, d)
    X = X.transpose(0, 2, 1, 3)  # (B, H, T, d)
    X_split = X.reshape(-1, X.shape[1], X.shape[3])  # (B*H, T, d)
    return X_split''',
        cause='After X is rebound to the transposed (B, H, T, d) array, X.shape[1] is the number of heads, not the number of tokens, so the final reshape to (-1, X.shape[1], X.shape[3]) cuts the data into blocks of H rows (right only when T == H); the last reshape must be to (B*H, T, d), i.e. X.shape[2] after the transpose.',
    ),
    HeldOut(
        name='q05_masked_empty_rows_left_zero',
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
    for b in range(scores.shape[0]):
        for t in range(scores.shape[1]):
            n = valid_lens[b] if valid_lens.ndim == 1 else valid_lens[b, t]
            if n > 0:  # a query with no valid key has nothing to attend to
                weights[b, t, :n] = softmax(scores[b, t, :n])
    return weights''',
        cause='A query whose valid length is 0 is skipped, so its weights stay all zero instead of summing to one; masking with -1e6 and taking the softmax over all the keys (as the TODO asks) gives such a fully masked row uniform weights, 1/Tk each.',
    ),
    HeldOut(
        name='q06_sa_softmax_axis_one',
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
        scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)  # (B, H, T, T)
        attn_weights = self.softmax(scores, axis=1)  # softmax along each row
        out = (attn_weights @ V).transpose(0, 2, 1, 3).reshape(B, T, D)  # (B, T, D)
        output = out @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause="The softmax is taken over axis=1, which in the (B, H, T, T) scores is the heads' axis (axis 1 is the last axis only for a 2-D matrix), so the weights of each query are normalised across heads, not across keys; the softmax must run over the keys, the last axis (axis=-1).",
    ),
    HeldOut(
        name='q06_pca_two_axes_always',
        assignment=A06,
        cell='pca_def',
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    components = np.zeros((n_components, X.shape[1]))
    Xc = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    components = Vt[:2]  # the first two principal axes, for the plane of the plot
    for i in range(len(components)):
        j = np.argmax(np.abs(components[i]))
        components[i] = components[i] * np.sign(components[i, j])
    return components''',
        cause='The function always returns the first two rows of Vt, whatever n_components is asked for (right only for the default 2); the principal axes are Vt[:n_components].',
    ),
]
