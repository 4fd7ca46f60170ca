"""Held-out wrong answers, round 8, part A (2026-11-29, later): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='u01_loop_outer_product',
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
    dot_product = key @ all_queries[n].T
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
        cause="The dot product is written key @ query.T, the outer product of two (D, 1) columns, a D x D matrix, instead of the inner product key.T @ query, a single number (eq. 12.5's k_m^T q_n); the softmax and the weighted sum then run over matrices and x_prime comes out D x D per token.",
    ),
    HeldOut(
        name='u01_matrix_softmax_skipped',
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
  attention = K.T @ Q
  X_prime = V @ attention
  return X_prime''',
        cause="Step 3 is left out: the raw dot products K^T Q are used as the weights, so the values are mixed by unnormalised scores; each column of K^T Q must go through softmax_cols first (eq. 12.8, X' = V Softmax[K^T Q]).",
    ),
    HeldOut(
        name='u02_softmax_cols_log_probabilities',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # log-sum-exp trick: subtract each column's maximum so that np.exp never overflows
  shifted = data_in - np.max(data_in, axis=0, keepdims=True)
  softmax = shifted - np.log(np.sum(np.exp(shifted), axis=0, keepdims=True))
  return softmax''',
        cause="The log-sum-exp trick is applied but the last exponential is forgotten: it returns the log-softmax, shifted - log(sum(exp(shifted))) (all entries negative, columns do not sum to one), instead of exp(shifted) / sum(exp(shifted)) per column with shifted = data_in minus the column's maximum.",
    ),
    HeldOut(
        name='u02_scaled_query_key_biases_swapped',
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
  Q = omega_q @ X + beta_k
  K = omega_k @ X + beta_q
  V = omega_v @ X + beta_v
  D_q = Q.shape[0]
  attention = softmax_cols(K.T @ Q / np.sqrt(D_q))
  X_prime = V @ attention
  return X_prime''',
        cause='The biases of the queries and keys are swapped (Q = Omega_q X + beta_k, K = Omega_k X + beta_q); the key bias cancels in the softmax but the query bias does not, so the scores are wrong: Q = Omega_q X + beta_q 1^T and K = Omega_k X + beta_k 1^T (eqs. 12.2-12.4), then Softmax[K^T Q / sqrt(D_q)] (eq. 12.9).',
    ),
    HeldOut(
        name='u03_pe_exponent_parenthesis_misplaced',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  for n in range(N):
    for d in range(D):
      i = d // 2
      angle = n / 10000 ** (2 * i) / D
      if d % 2 == 0:
        encoding[d, n] = np.sin(angle)
      else:
        encoding[d, n] = np.cos(angle)
  return encoding''',
        cause="The closing parenthesis of the exponent is misplaced: the angle is n / 10000**(2i) / D (the 1/D divides the angle, and the exponent is 2i, so every pair of rows after the first is nearly constant) instead of n / 10000**(2i/D), the sinusoidal encoding's angle for rows 2i (sine) and 2i+1 (cosine).",
    ),
    HeldOut(
        name='u03_checker_all_before_compare',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  f_X = f(X)
  differences = []
  for P in generate_permutation_matrices(X.shape[1]):
    differences.append(np.max(np.abs(f(X @ P) - f_X @ P)))
  equivariant = bool(all(differences) <= tolerance)
  return equivariant''',
        cause='The comparison is applied to all(differences) instead of to each difference: all(...) is False as soon as one difference is exactly 0 (the identity permutation always gives 0), and False <= tolerance is True, so every function is judged equivariant; it must be all(d <= tolerance for d in differences), i.e. max(differences) <= tolerance over every P.',
    ),
    HeldOut(
        name='u04_weights_half_power_precedence',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  d = Q.shape[0]
  attention = softmax_cols(K.T @ Q / d ** 1/2)
  return attention''',
        cause="The square root is written d ** 1/2, which Python reads as (d ** 1) / 2 = d / 2, so the scores are divided by half the head size (right only when d = 4) instead of by sqrt(D/H), the square root of the head's query size (eq. 12.9, np.sqrt(Q.shape[0])).",
    ),
    HeldOut(
        name='u04_mh_heads_averaged',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  X_prime = np.zeros_like(X)
  head1 = (omega_v1 @ X + beta_v1) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = (omega_v2 @ X + beta_v2) @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  # average the two heads' contributions
  X_prime = omega_c @ np.vstack([head1, head2]) / 2
  return X_prime''',
        cause="The result is divided by the number of heads, as if multi-head attention averaged its heads; the heads are stacked and mixed by Omega_c with nothing else (figure 12.6: X' = Omega_c [Sa_1[X]; Sa_2[X]]), so every entry comes out half the right size.",
    ),
    HeldOut(
        name='u05_masked_lens_always_one_per_sequence',
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
    lens = np.asarray(valid_lens)[:, None, None]  # one length per sequence
    mask = np.arange(scores.shape[-1]) < lens  # True for the keys below the length
    weights = softmax(np.where(mask, scores, -1e6))
    return weights''',
        cause='Only the 1-D form of valid_lens is handled: valid_lens[:, None, None] is right for (B,) lengths but turns (B, Tq) lengths into a (B, 1, 1, Tq) array that does not broadcast against the keys (it raises, or masks the wrong entries); 2-D lengths, one per query, must be shaped (B, Tq, 1) before comparing with np.arange(Tk).',
    ),
    HeldOut(
        name='u05_init_shape_fan_out_first',
        assignment=A05,
        cell='init_weight_def',
        source=r'''def init_weight(fan_in, fan_out, rng):
    # A weight for X @ W, shape (fan_in, fan_out): mean 0, standard deviation 1/sqrt(fan_in)
    # TODO -- draw it with rng.normal (rng is a np.random.Generator)
    # Replace this line
    W = np.zeros((fan_in, fan_out))
    W = rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_out, fan_in))
    return W''',
        cause='The weight is drawn with size (fan_out, fan_in), the column-convention shape, instead of (fan_in, fan_out) for X @ W; it goes unnoticed for the square weights of MultiHeadAttention but any fan_in != fan_out gives the wrong shape (std 1/sqrt(fan_in) is right).',
    ),
    HeldOut(
        name='u06_sa_first_sequence_only',
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
        x = embeddings[0]  # (T, D): the sentence
        Q = (x @ self.q_proj).reshape(T, H, d).transpose(1, 0, 2)  # (H, T, d)
        K = (x @ self.k_proj).reshape(T, H, d).transpose(1, 0, 2)  # (H, T, d)
        V = (x @ self.v_proj).reshape(T, H, d).transpose(1, 0, 2)  # (H, T, d)
        weights = self.softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d), axis=-1)  # (H, T, T)
        heads = weights @ V  # (H, T, d)
        output = (heads.transpose(1, 0, 2).reshape(T, D) @ self.out_proj)[np.newaxis]  # (1, T, D)
        attn_weights = weights[np.newaxis]  # (1, H, T, T)
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause='forward works on embeddings[0] alone (written for the (1, T, D) output of text_to_word_embeddings), so only the first sequence of a batch is attended and the result is (1, T, D) with weights (1, H, T, T); every sequence b must be projected, split into heads and attended, giving (B, T, D) and (B, H, T, T).',
    ),
    HeldOut(
        name='u06_pca_returns_projected_points',
        assignment=A06,
        cell='pca_def',
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    components = np.zeros((n_components, X.shape[1]))
    Xc = X - np.mean(X, axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    axes = Vt[:n_components]
    largest = np.argmax(np.abs(axes), axis=1)
    signs = np.sign(axes[np.arange(n_components), largest])
    axes = axes * signs[:, np.newaxis]
    components = Xc @ axes.T  # the points in the new coordinates
    return components''',
        cause='It returns the centred points projected on the axes, Xc @ axes.T with shape (N, k), instead of the principal axes themselves, the first k rows of Vt (sign-fixed), shape (k, D).',
    ),
]
