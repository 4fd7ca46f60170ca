"""Held-out wrong answers, round 15, part A (2026-11-30, round 15): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='l01_qkv_bias_accumulated_in_place',
        assignment=A01,
        cell='qkv_loop',
        source=r'''# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  # Replace these three lines
  query = np.ones_like(x)
  key = np.ones_like(x)
  value = np.ones_like(x)
  query = beta_q
  query += omega_q @ x
  key = beta_k
  key += omega_k @ x
  value = beta_v
  value += omega_v @ x

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)''',
        cause="query = beta_q makes query a second name for the bias array, so query += omega_q @ x adds into beta_q (and beta_k, beta_v) in place: each token's query, key and value are the bias vector itself, which piles up Omega x over all tokens (and the three list entries are one array); build a new array, query = omega_q @ x + beta_q (eqs. 12.2 and 12.4).",
    ),
    HeldOut(
        name='l01_loop_previous_query',
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
    dot_product = key.T @ all_queries[n - 1]
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
        cause="Off by one: output n compares the keys with all_queries[n - 1], the previous token's query (wrapping round to the last one for n = 0), so the outputs come out in a shifted order; a_mn = softmax_m[k_m^T q_n] uses query n itself (eq. 12.5).",
    ),
    HeldOut(
        name='l02_softmax_cols_sort_without_axis',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # the largest entry of each column: sort, then take the last row
  largest = np.sort(data_in)[-1]
  exp_values = np.exp(data_in - largest)
  softmax = exp_values / np.sum(exp_values, axis=0)
  return softmax''',
        cause="np.sort(data_in) sorts along the last axis (each row), so row -1 of it is not each column's maximum but the sorted last row of the scores; subtracting it still overflows (and underflows to 0/0) on large scores: subtract np.max(data_in, axis=0, keepdims=True), each column's own maximum.",
    ),
    HeldOut(
        name='l02_scaled_keys_compared_with_keys',
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
  D_q = Q.shape[0]
  attention = softmax_cols(K.T @ K / np.sqrt(D_q))
  X_prime = V @ attention
  return X_prime''',
        cause='The dot products are K.T @ K, every key with every key, so the queries are never used; eq. 12.9 compares keys with queries, softmax_cols(K.T @ Q / sqrt(D_q)).',
    ),
    HeldOut(
        name='l03_perm_buffer_not_cleared',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = [np.eye(n)]
  permutation_matrices = []
  P = np.zeros((n, n))
  for order in itertools.permutations(range(n)):
    for j in range(n):
      P[order[j], j] = 1
    permutation_matrices.append(P.copy())
  return permutation_matrices''',
        cause='One matrix P is filled for every order but never reset to zeros, so each appended copy keeps the ones of all earlier orders: only the first (the identity) is a permutation matrix; start every order from np.zeros((n, n)) (or take np.eye(n)[:, order]).',
    ),
    HeldOut(
        name='l04_mh_second_head_keys_from_first',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  X_prime = np.zeros_like(X)
  head1 = (omega_v1 @ X + beta_v1) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = (omega_v2 @ X + beta_v2) @ attention_weights(X, omega_q2, omega_k1, beta_q2, beta_k1)
  X_prime = omega_c @ np.vstack([head1, head2])
  return X_prime''',
        cause="Copy-paste slip: head 2's attention weights are computed with head 1's keys (omega_k1, beta_k1) and head 2's queries; each head uses its own parameters, attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2) (figure 12.6).",
    ),
    HeldOut(
        name='l04_general_loops_over_global_H',
        assignment=A04,
        cell='multihead_general_def',
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # Replace this line
  X_prime = np.zeros_like(X)
  heads = []
  for h in range(H):
    A = attention_weights(X, omegas_q[h], omegas_k[h], betas_q[h], betas_k[h])
    heads.append((omegas_v[h] @ X + betas_v[h]) @ A)
  X_prime = omega_c @ np.vstack(heads)
  return X_prime''',
        cause="The loop runs over range(H) with the notebook's global H = 2, not over the heads it was given, so with 3 heads the third head is dropped (and omega_c no longer fits the stacked heads); loop over all len(omegas_v) heads, e.g. zip the lists.",
    ),
    HeldOut(
        name='l06_sa_queries_from_key_projection',
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
        Q = embeddings @ self.k_proj
        K = embeddings @ self.k_proj
        V = embeddings @ self.v_proj
        Q = Q.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        K = K.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        V = V.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)
        attn_weights = self.softmax(scores, axis=-1)
        heads = attn_weights @ V
        output = heads.transpose(0, 2, 1, 3).reshape(B, T, D) @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause='Copy-paste slip: the queries are made with self.k_proj, so Q equals K and the scores are symmetric; the queries are embeddings @ self.q_proj.',
    ),
    HeldOut(
        name='l03_checker_verdict_inverted',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  f_X = f(X)
  differences = [np.max(np.abs(f(X @ P) - f_X @ P)) for P in generate_permutation_matrices(X.shape[1])]
  equivariant = bool(max(differences) > tolerance)
  return equivariant''',
        cause='The comparison is turned round: it returns True when the largest difference exceeds the tolerance, so every verdict is flipped (equivariant functions are reported as not equivariant and the others as equivariant); f is equivariant when max |f(X @ P) - f(X) @ P| <= tolerance for every permutation matrix P.',
    ),
    HeldOut(
        name='l05_bool_mask_converted_to_lengths',
        assignment=A05,
        cell='masked_softmax_bool_def',
        source=r'''def masked_softmax_bool(scores, mask):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk) where mask is True. mask broadcasts against
    # scores: (B, 1, Tk) from key_padding_mask, (Tq, Tk) from causal_mask, or (B, Tq, Tk)
    # TODO -- set the scores where mask is False to -1e6 with np.where, then take the softmax over the keys
    # Replace this line
    weights = np.zeros_like(scores)
    # reuse masked_softmax: a key may be attended where the mask is True, so count them
    weights = masked_softmax(scores, np.sum(mask, axis=-1))
    return weights''',
        cause='It turns the mask into lengths with mask.sum(axis=-1) and calls masked_softmax, which is right for a key-padding mask (B, 1, Tk) but not for a causal mask (Tq, Tk): its row counts (Tq,) are read as one length per sequence, so every query of sequence b sees b+1 keys; apply the mask itself, softmax(np.where(mask, scores, -1e6)).',
    ),
    HeldOut(
        name='l05_mha_merged_with_batch_size_as_heads',
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
        B = queries.shape[0]
        Q = transpose_qkv(queries @ self.W_q + self.b_q, self.num_heads)
        K = transpose_qkv(keys @ self.W_k + self.b_k, self.num_heads)
        V = transpose_qkv(values @ self.W_v + self.b_v, self.num_heads)
        if valid_lens is not None:
            valid_lens = np.repeat(valid_lens, self.num_heads, axis=0)
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
        self.attention_weights = masked_softmax(scores, valid_lens)
        heads_out = self.attention_weights @ V
        output = transpose_output(heads_out, B) @ self.W_o + self.b_o
        return output''',
        cause="Wrong variable: the heads are merged with transpose_output(heads_out, B), the batch size, instead of self.num_heads; it is right only when the batch size equals the number of heads (the small example, 2 and 2) and otherwise gives the wrong shape (Leo's example: 2 sequences, 5 heads); merge with transpose_output(heads_out, self.num_heads).",
    ),
    HeldOut(
        name='l06_tokenize_unk_as_new_last_id',
        assignment=A06,
        cell='tokenize_def',
        source=r'''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    # Replace this line (for now every word is unknown)
    token_ids = [vocab[UNK] for _ in sentence.split()]
    words = sentence.lower().split()
    token_ids = [vocab.get(word, len(vocab)) for word in words]
    return np.array(token_ids, dtype=int)  # (T,)''',
        cause='Unknown words get the id len(vocab), a new id past the end of the vocabulary (and of the embedding table), instead of the id of <unk> already in the vocabulary; use vocab.get(word, vocab[UNK]).',
    ),
]
