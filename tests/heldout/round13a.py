"""Held-out wrong answers, round 13, part A (2026-11-29, round 13): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='c01_softmax_negated_exponent',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  items_out = items_in.copy()
  z = np.array(items_in)
  items_out = np.exp(-z) / np.sum(np.exp(-z))
  return items_out''',
        cause='The exponent is negated, exp(-z) (the Boltzmann form), which gives the largest weight to the smallest dot product; eq. 12.5 is exp(z_n) / sum_m exp(z_m).',
    ),
    HeldOut(
        name='c01_loop_values_vstack_reshaped',
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
  values_matrix = np.vstack(all_values).reshape(D, N)
  x_prime = values_matrix @ np.ravel(attention).reshape(N, 1)

  all_x_prime.append(x_prime)
  all_attention.append(attention)''',
        cause='The values were stacked with np.vstack (one long N*D column) and reshaped to (D, N), which fills the rows in token order and scrambles the tokens and features; the value matrix must have value m as column m (np.hstack(all_values)) before it is multiplied by the weights (eq. 12.3).',
    ),
    HeldOut(
        name='c03_perm_reorders_previous_matrix',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = [np.eye(n)]
  permutation_matrices = []
  P = np.eye(n)
  for order in itertools.permutations(range(n)):
    P = P[:, list(order)]
    permutation_matrices.append(P)
  return permutation_matrices''',
        cause='Each order is applied to the previous matrix instead of to the identity, so the list holds running products of permutations (some repeated, some missing); each matrix must be np.eye(n)[:, order], built from the identity every time.',
    ),
    HeldOut(
        name='c03_pe_angles_written_into_int_grid',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  encoding = np.array([[n for n in range(N)] for d in range(D)])
  for d in range(D):
    i = d // 2
    angle = encoding[d] / 10000 ** (2 * i / D)
    if d % 2 == 0:
      encoding[d] = np.sin(angle)
    else:
      encoding[d] = np.cos(angle)
  return encoding''',
        cause='The encoding is computed in place in an integer array of positions (built from Python ints), so every sine and cosine written back is truncated towards zero (to -1, 0 or 1); the encoding needs a float array, e.g. np.zeros((D, N)) or positions as floats.',
    ),
    HeldOut(
        name='c04_mh_both_heads_mixed_by_first_block',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  X_prime = np.zeros_like(X)
  head1 = (omega_v1 @ X + beta_v1) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = (omega_v2 @ X + beta_v2) @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  # omega_c @ [head1; head2] = omega_c[:, first block] @ head1 + omega_c[:, second block] @ head2
  X_prime = omega_c[:, :H_D] @ head1 + omega_c[:, :H_D] @ head2
  return X_prime''',
        cause='Omega_c is split into column blocks, one per head, but both heads are multiplied by the first block (copy-paste); the second head needs omega_c[:, H_D:], so that the sum equals omega_c @ vstack([head1, head2]) (figure 12.6).',
    ),
    HeldOut(
        name='c05_loop_scores_divided_by_head_size',
        assignment=A05,
        cell='loop_heads',
        source=r'''split_dim = E // H
heads = []

for i in range(H):
    # TODO -- head i: take its slice of the features of q, k and v (split_dim of them), its dot products
    # scaled by the square root of the head's size, their softmax over the keys, and the weighted sum
    # of the values: local_head, (B, C, E / H)
    # Replace this line
    local_head = np.zeros_like(q[:, :, :split_dim])
    q_head = q[:, :, i * split_dim:(i + 1) * split_dim]
    k_head = k[:, i * split_dim:(i + 1) * split_dim]
    v_head = v[:, i * split_dim:(i + 1) * split_dim]
    head_scores = q_head @ k_head.T / split_dim
    local_head = softmax(head_scores) @ v_head
    heads.append(local_head)

raw_multi_head_output = np.concatenate(heads, axis=-1)  # (B, C, E)
attention = raw_multi_head_output @ proj  # (B, C, E)
print("proj(concat) -> attention", attention.shape)''',
        cause="The head's dot products are divided by the head's size split_dim, not by its square root, which flattens the weights; scaled dot-product attention divides by sqrt(E / H) (eq. 12.9).",
    ),
    HeldOut(
        name='c06_sa_single_head_only',
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
        Q = embeddings @ self.q_proj
        K = embeddings @ self.k_proj
        V = embeddings @ self.v_proj
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d)
        attn_weights = self.softmax(scores, axis=-1)
        output = (attn_weights @ V) @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause='The heads are never split: one attention over all D features is computed (scaled by the head size d), which is right only for num_heads = 1; the queries, keys and values must be reshaped to (B, H, T, d), attended per head and merged back before out_proj.',
    ),
    HeldOut(
        name='c02_softmax_cols_shift_subtracted_backwards',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # shift by the largest score of each column so that np.exp never overflows
  exp_values = np.exp(np.max(data_in, axis=0, keepdims=True) - data_in)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax''',
        cause='The shift is subtracted the wrong way round, exp(max - z) instead of exp(z - max), which negates the scores: the smallest score gets the largest weight; the stable softmax is exp(z - max) / sum(exp(z - max)) over each column.',
    ),
    HeldOut(
        name='c02_scaled_input_divided_in_place',
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
  # scale so that the dot products do not get too large
  X /= np.sqrt(X.shape[0])
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  attention = softmax_cols(K.T @ Q)
  X_prime = V @ attention
  return X_prime''',
        cause="The input X is divided by sqrt(D) (in place, so the caller's X shrinks on every call) instead of the dot products: the queries, keys and values all change and the scores are not K^T Q / sqrt(D_q); eq. 12.9 divides only the scores K^T Q by sqrt(D_q), leaving X alone.",
    ),
    HeldOut(
        name='c04_general_heads_list_reset_each_head',
        assignment=A04,
        cell='multihead_general_def',
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # Replace this line
  X_prime = np.zeros_like(X)
  for omega_v, omega_q, omega_k, beta_v, beta_q, beta_k in zip(omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k):
    heads = []
    heads.append((omega_v @ X + beta_v) @ attention_weights(X, omega_q, omega_k, beta_q, beta_k))
  X_prime = omega_c @ np.vstack(heads)
  return X_prime''',
        cause='The list of heads is emptied at the start of every iteration, so only the last head is left and omega_c (D x D) is multiplied by a D/H x N matrix (a shape error); the list must be created once, before the loop, so that all H heads are stacked.',
    ),
    HeldOut(
        name='c05_padding_mask_keys_counted_from_one',
        assignment=A05,
        cell='boolean_masks_def',
        source=r'''def key_padding_mask(valid_lens, num_keys):
    # True where key j of sequence b may be attended, j < valid_lens[b]: (B,) -> (B, 1, Tk)
    # TODO -- compare np.arange(num_keys) with valid_lens shaped (B, 1, 1): broadcasting, no loop
    # Replace this line
    mask = np.zeros((len(valid_lens), 1, num_keys), dtype=bool)
    mask = np.arange(1, num_keys + 1) < np.asarray(valid_lens)[:, None, None]
    return mask


def causal_mask(num_queries, num_keys):
    # True where query t may attend to key j, that is j <= t: (Tq, Tk), the same for every sequence
    # TODO -- keep the entries on and below the diagonal of a (Tq, Tk) array of True (np.tril)
    # Replace this line
    mask = np.zeros((num_queries, num_keys), dtype=bool)
    mask = np.tril(np.ones((num_queries, num_keys), dtype=bool))
    return mask


print(key_padding_mask(np.array([2, 3]), 4).astype(int))  # (2, 1, 4)
print(causal_mask(2, 4).astype(int))  # (2, 4)''',
        cause='The keys are numbered from 1 (np.arange(1, num_keys + 1)), so key j is compared as j + 1 < valid_len and the last valid key of every sequence is masked; keys are numbered from 0: np.arange(num_keys) < valid_lens.',
    ),
    HeldOut(
        name='c06_embed_reshaped_with_global_D',
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
    word_embeddings = embedding_matrix[token_ids].reshape(1, -1, D)
    return word_embeddings''',
        cause="The batch axis is added by reshaping to (1, -1, D) with the notebook's global D = 8, which is right only for a table of 8 features: for a table of another width the rows are cut and regrouped (or the reshape fails); use the table's own width, embedding_matrix.shape[1], or [np.newaxis].",
    ),
]
