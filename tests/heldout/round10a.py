"""Held-out wrong answers, round 10, part A (2026-11-29, round 10): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='k01_loop_key_dotted_with_key_n',
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
    dot_product = key.T @ all_keys[n]
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
        cause='The dot product for output n uses key n in place of query n (k_m^T k_n); equation 12.6 needs the similarity of each key with the query, a[x_m, x_n] = softmax_m[k_m^T q_n].',
    ),
    HeldOut(
        name='k01_matrix_query_bias_from_values',
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
  Q = omega_q @ X + beta_v  # (D, N)
  K = omega_k @ X + beta_k  # (D, N)
  V = omega_v @ X + beta_v  # (D, N)
  attention = softmax_cols(K.T @ Q)  # (N, N): column n is query n's weights over the keys
  X_prime = V @ attention  # (D, N)
  return X_prime''',
        cause='The queries get the value bias beta_v in place of beta_q (a copy-paste slip in the argument list); equation 12.2 has Q = beta_q 1^T + Omega_q X.',
    ),
    HeldOut(
        name='k03_pe_sin_cos_swapped',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  positions = np.arange(N)[np.newaxis, :]  # (1, N)
  rows = np.arange(D)[:, np.newaxis]  # (D, 1)
  angles = positions / 10000.0 ** (2 * (rows // 2) / D)  # (D, N): rows 2i and 2i+1 share a frequency
  encoding = np.where(rows % 2 == 0, np.cos(angles), np.sin(angles))  # (D, N): sines in the even rows
  return encoding''',
        cause='Sine and cosine are swapped: the even rows 2i hold cos and the odd rows sin; the encoding has sin(n / 10000^(2i/D)) in row 2i and cos in row 2i+1 (so column 0 is 0, 1, 0, 1, ...).',
    ),
    HeldOut(
        name='k04_mh_omega_c_forgotten',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  X_prime = np.zeros_like(X)
  head1 = (omega_v1 @ X + beta_v1) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)  # (D/H, N)
  head2 = (omega_v2 @ X + beta_v2) @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)  # (D/H, N)
  X_prime = np.vstack([head1, head2])  # (D, N): heads stacked
  return X_prime''',
        cause="The two heads are stacked but never mixed by omega_c: figure 12.6 multiplies the stacked heads by Omega_c, X' = Omega_c [Sa_1[X]; Sa_2[X]], and the shape (D, N) hides the missing step.",
    ),
    HeldOut(
        name='k05_masked_minus_inf_fill',
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
        lens = valid_lens[:, None, None]  # (B, 1, 1): the same length for every query of a sequence
    else:
        lens = valid_lens[:, :, None]  # (B, Tq, 1): one length per query
    mask = np.arange(scores.shape[-1]) < lens  # (B, Tq, Tk)
    weights = softmax(np.where(mask, scores, -np.inf))  # (B, Tq, Tk)
    return weights''',
        cause='Masked scores are set to -inf instead of -1e6: a fully masked row (an empty sequence, valid length 0) becomes exp(-inf - (-inf)) = nan everywhere instead of uniform weights 1/Tk, and the nan spreads into the output.',
    ),
    HeldOut(
        name='k06_tokenize_unk_assumed_zero',
        assignment=A06,
        cell='tokenize_def',
        source=r'''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    # Replace this line (for now every word is unknown)
    token_ids = [vocab[UNK] for _ in sentence.split()]
    tokens = sentence.lower().split()  # T words
    token_ids = [vocab.get(token, 0) for token in tokens]  # T ids: unknown words get 0
    return np.array(token_ids, dtype=int)  # (T,)''',
        cause='An unknown word gets id 0 instead of vocab[UNK]; that is right only when <unk> happens to be id 0, otherwise unknown words become whatever word holds id 0.',
    ),
    HeldOut(
        name='k06_sa_softmax_over_query_axis',
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
        Q = embeddings @ self.q_proj  # (B, T, D)
        K = embeddings @ self.k_proj  # (B, T, D)
        V = embeddings @ self.v_proj  # (B, T, D)
        Q = Q.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        K = K.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        V = V.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)  # (B, H, T, T): [query, key]
        attn_weights = self.softmax(scores, axis=-2)  # (B, H, T, T): normalised over the columns, as in the book
        heads = attn_weights @ V  # (B, H, T, d)
        merged = heads.transpose(0, 2, 1, 3).reshape(B, T, D)  # (B, T, D)
        output = merged @ self.out_proj  # (B, T, D)
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause="The softmax is taken over the query axis (axis -2, the book's column habit) rather than the key axis: scores here are [query, key], so each query's weights over the keys (axis -1) must sum to one.",
    ),
    HeldOut(
        name='k02_scaled_query_bias_missing',
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
  Q = omega_q @ X  # (D_q, N)
  K = omega_k @ X + beta_k  # (D_q, N)
  V = omega_v @ X + beta_v  # (D_v, N)
  D_q = Q.shape[0]  # from the arguments, never the notebook's global D
  attention = softmax_cols(K.T @ Q / np.sqrt(D_q))  # (N, N): column n sums to 1
  X_prime = V @ attention  # (D_v, N)
  return X_prime''',
        cause='The query bias beta_q is left out; equation 12.2 has Q = beta_q 1^T + Omega_q X (the key bias would not matter, the query bias does).',
    ),
    HeldOut(
        name='k04_weights_scaled_by_half_model_width',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  Q = omega_q @ X + beta_q  # (D/H, N)
  K = omega_k @ X + beta_k  # (D/H, N)
  attention = softmax_cols(K.T @ Q / np.sqrt(X.shape[0] / 2))  # (N, N): scaled by the head size D/2
  return attention''',
        cause="The head size is taken as half the model width, sqrt(D/2), which is right only for the book's two heads; each head must be scaled by sqrt of its own query size D/H = Q.shape[0] (equation 12.9 per head).",
    ),
    HeldOut(
        name='k05_mha_repeat_lens_flattens_2d',
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
        Q = transpose_qkv(queries @ self.W_q + self.b_q, self.num_heads)  # (B*H, Tq, d)
        K = transpose_qkv(keys @ self.W_k + self.b_k, self.num_heads)  # (B*H, Tk, d)
        V = transpose_qkv(values @ self.W_v + self.b_v, self.num_heads)  # (B*H, Tk, d)
        if valid_lens is not None:
            # each length once per head, in place: [l0, l0, ..., l1, l1, ...]
            valid_lens = np.repeat(valid_lens, self.num_heads)  # (B*H,)
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])  # (B*H, Tq, Tk)
        self.attention_weights = masked_softmax(scores, valid_lens)  # (B*H, Tq, Tk)
        heads_out = self.attention_weights @ V  # (B*H, Tq, d)
        output = transpose_output(heads_out, self.num_heads) @ self.W_o + self.b_o  # (B, Tq, D)
        return output''',
        cause='np.repeat without axis=0 flattens the lengths, which is right for one length per sequence (B,) but turns per-query lengths (B, Tq) into a flat (B*Tq*H,) array; they must be repeated along the batch axis only, giving (B*H, Tq).',
    ),
    HeldOut(
        name='k02_softmax_cols_result_left_transposed',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # The largest entry of each column becomes 0: np.exp never sees a large number
  rows = data_in.T  # one row per column, so the softmax runs along axis 1
  exp_values = np.exp(rows - np.max(rows, axis=1, keepdims=True))
  softmax = exp_values / np.sum(exp_values, axis=1, keepdims=True)
  return softmax''',
        cause='The columns are transposed into rows and soft-maxed along axis 1, but the result is never transposed back, so it comes out with shape (columns, rows): the transpose of the column softmax (for square scores it has the right shape but its rows, not its columns, sum to one); return softmax.T.',
    ),
    HeldOut(
        name='k03_checker_permutes_accumulated_input',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  f_X = f(X)  # (D, N): the output for the tokens in their original order
  # The largest entry-wise difference for each P: all of them must be rounding errors
  differences = []
  for P in generate_permutation_matrices(X.shape[1]):
    X = X @ P  # permute the tokens
    differences.append(np.max(np.abs(f(X) - f_X @ P)))
  equivariant = bool(max(differences) <= tolerance)
  return equivariant''',
        cause='X is overwritten with X @ P inside the loop, so the permutations pile up (X P1 P2 ... Pk) while f(X) is compared with f(X) Pk only; an equivariant f then fails. Each P must be applied to the original X: compare f(X P) with f(X) P.',
    ),
]
