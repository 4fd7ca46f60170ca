"""Held-out wrong answers, round 4 (2026-11-28): written from the release notebooks alone, by two people who
had read neither grader/ nor the earlier rounds' answers (only their entry names, to write other mistakes), against
a grader that rounds 1 to 3 had already shaped. Graded by `python -m tests.heldout.grade OUT --round 4`; judged in
tests/heldout/judged.md. Frozen: do not edit to suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name="t01_qkv_elementwise_product",
        assignment=A01,
        cell="qkv_loop",
        source=r'''# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  # Replace these three lines
  query = omega_q * x + beta_q
  key = omega_k * x + beta_k
  value = omega_v * x + beta_v

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)''',
        cause='In NumPy `*` multiplies entry by entry: omega_q * x broadcasts the (D, 1) column x across the D x D matrix and gives a D x D array, not the matrix-vector product Omega_q x of eqs. 12.2 and 12.4. Use `omega_q @ x + beta_q` (and the same for keys and values) so that each query, key and value is a (D, 1) column.',
    ),
    HeldOut(
        name="t01_softmax_sum_inside_loop",
        assignment=A01,
        cell="softmax_def",
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  items_out = items_in.copy()
  for m in range(len(items_out)):
    items_out[m] = np.exp(items_out[m])
  for m in range(len(items_out)):
    items_out[m] = items_out[m] / np.sum(items_out)
  return items_out''',
        cause='The denominator np.sum(items_out) is recomputed inside the second loop, after the earlier entries have already been divided, so every entry is divided by a different, shrinking sum and the outputs do not sum to one. Equation 12.5 divides every exponential by the same sum of all of them: compute that sum once, before the loop (or simply np.exp(z) / np.sum(np.exp(z))).',
    ),
    HeldOut(
        name="t01_loop_sum_without_axis",
        assignment=A01,
        cell="attention_loop",
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
  x_prime = np.sum(attention * np.array(all_values))

  all_x_prime.append(x_prime)
  all_attention.append(attention)''',
        cause='np.sum with no axis adds up everything: over the N weighted values and also over their D features, so x_prime is a single number instead of a (D, 1) column. The weighted sum of eq. 12.3 runs over the inputs m only: sum over axis 0 (np.sum(..., axis=0)), or accumulate attention[m] * all_values[m] in a loop over m.',
    ),
    HeldOut(
        name="t01_matrix_ones_from_global_N",
        assignment=A01,
        cell="self_attention_def",
        source=r'''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Apply softmax to calculate attentions
  # 4. Weight values by attentions
  # Replace this line
  ones = np.ones((1, N))
  Q = beta_q @ ones + omega_q @ X
  K = beta_k @ ones + omega_k @ X
  V = beta_v @ ones + omega_v @ X
  X_prime = V @ softmax_cols(K.T @ Q)
  return X_prime''',
        cause="The row of ones in beta 1^T is built from the notebook's global N, not from X. Both examples in the notebook have N = 3 tokens, so they pass, but on inputs with another number of tokens the biases get the wrong number of columns and the sums fail. Take the number of tokens from the argument: np.ones((1, X.shape[1])), or let broadcasting add beta as it is.",
    ),
    HeldOut(
        name="t02_softmax_shift_in_place",
        assignment=A02,
        cell="softmax_cols_def",
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  data_in -= np.max(data_in, axis=0, keepdims=True)
  exp_values = np.exp(data_in)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax''',
        cause="The weights are right, but `data_in -= ...` subtracts the column maxima inside the caller's own array: after one call the scores the caller passed in have been overwritten. Write the shift into a new array, np.exp(data_in - np.max(data_in, axis=0, keepdims=True)), and leave the argument as it was.",
    ),
    HeldOut(
        name="t02_softmax_logsumexp_unshifted",
        assignment=A02,
        cell="softmax_cols_def",
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  log_denominator = np.log(np.sum(np.exp(data_in), axis=0, keepdims=True))
  softmax = np.exp(data_in - log_denominator)
  return softmax''',
        cause="Working in log space does not avoid the overflow on its own: the log-sum-exp still calls np.exp on the raw scores, which is inf for scores near 1000, so log_denominator is inf and every weight of that column becomes exp(-inf) = 0. The log-sum-exp trick needs the column maximum too: subtract it before exponentiating, as the notebook's identity shows.",
    ),
    HeldOut(
        name="t02_scale_query_before_bias",
        assignment=A02,
        cell="scaled_attention_def",
        source=r'''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Scale the dot products as in equation 12.9
  # 4. Apply softmax to calculate attentions
  # 5. Weight values by attentions
  # Replace this line
  D_q = omega_q.shape[0]
  Q = omega_q @ X / np.sqrt(D_q) + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  X_prime = V @ softmax_cols(K.T @ Q)
  return X_prime''',
        cause='The 1/sqrt(D_q) of eq. 12.9 was folded into the queries, but only the omega_q @ X part was divided: beta_q is added after the division, so K^T Q is not the scores divided by sqrt(D_q). Scale the whole dot product, K.T @ Q / np.sqrt(D_q) (or divide the whole query, bias included).',
    ),
    HeldOut(
        name="t03_perm_rotations_and_mirrors",
        assignment=A03,
        cell="permutation_matrices_def",
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = []
  for shift in range(n):
    rotated = np.roll(np.eye(n), shift, axis=1)
    permutation_matrices.append(rotated)
    permutation_matrices.append(rotated[:, ::-1])
  return permutation_matrices''',
        cause="The rotations of the identity's columns and their mirror images give only 2n orders. For n = 3 that happens to be all 3! = 6, so the check passes, but for n = 4 it is 8 of the 24 permutation matrices (and for n = 2 each matrix appears twice). List every order with itertools.permutations(range(n)).",
    ),
    HeldOut(
        name="t03_pe_positions_as_rows",
        assignment=A03,
        cell="position_encoding_def",
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((N, D))
  for position in range(N):
    for i in range(0, D, 2):
      encoding[position, i] = np.sin(position / 10000 ** (i / D))
      if i + 1 < D:
        encoding[position, i + 1] = np.cos(position / 10000 ** (i / D))
  return encoding''',
        cause="The values are right but the layout is the paper's (one position per row, N x D). In the book's convention Pi is D x N: row 2i / 2i+1 is a feature and column n is the position n, so that column n can be added to token n of X. Build it as (D, N), or return encoding.T.",
    ),
    HeldOut(
        name="t03_checker_inverse_permutation",
        assignment=A03,
        cell="checker_def",
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = True
  for P in generate_permutation_matrices(X.shape[1]):
    if np.max(np.abs(f(X @ P) - f(X) @ P.T)) > tolerance:
      equivariant = False
  return equivariant''',
        cause='f(X) @ P.T applies the inverse shuffle, not the same one. Equivariance is f(XP) = f(X) P with the same P on both sides; P.T equals P only for the identity and single swaps, so for the cyclic permutations even self-attention and W @ X fail and the checker rejects them. Compare f(X @ P) with f(X) @ P.',
    ),
    HeldOut(
        name="t04_weights_scaled_after_softmax",
        assignment=A04,
        cell="attention_weights_def",
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  attention = softmax_cols(K.T @ Q) / np.sqrt(Q.shape[0])
  return attention''',
        cause='The division by sqrt(D/H) is applied to the weights after the softmax instead of to the dot products inside it. The weights are then exactly as saturated as without scaling, and each column sums to 1/sqrt(D/H) instead of 1. Scale the scores: softmax_cols(K.T @ Q / np.sqrt(D/H)).',
    ),
    HeldOut(
        name="t04_mh_weights_argument_order",
        assignment=A04,
        cell="multihead_def",
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  A1 = attention_weights(X, omega_v1, omega_q1, beta_v1, beta_q1)
  A2 = attention_weights(X, omega_v2, omega_q2, beta_v2, beta_q2)
  head1 = (omega_v1 @ X + beta_v1) @ A1
  head2 = (omega_v2 @ X + beta_v2) @ A2
  X_prime = omega_c @ np.vstack([head1, head2])
  return X_prime''',
        cause="attention_weights takes (X, omega_q, omega_k, beta_q, beta_k), but it was called with the first parameters in this function's order (v, q, k). So each head's queries were made with omega_v and beta_v and its keys with omega_q and beta_q. Pass attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1), and the same for head 2. Keywords make the order explicit.",
    ),
    HeldOut(
        name="t04_general_heads_prepended",
        assignment=A04,
        cell="multihead_general_def",
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # Replace this line
  heads = []
  for h in range(len(omegas_v)):
    A = attention_weights(X, omegas_q[h], omegas_k[h], betas_q[h], betas_k[h])
    heads.insert(0, (omegas_v[h] @ X + betas_v[h]) @ A)
  X_prime = omega_c @ np.vstack(heads)
  return X_prime''',
        cause="heads.insert(0, ...) puts each new head on top of the list, so the stacked matrix has the last head in the first D/H rows. Omega_c's first D/H columns belong to head 1, so every head gets mixed with another head's columns. Append the heads in order (heads.append), so that head 1 is on top as in figure 12.6.",
    ),
    HeldOut(
        name="t05_masked_added_not_replaced",
        assignment=A05,
        cell="masked_softmax_def",
        source=r'''def masked_softmax(scores, valid_lens):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk), the keys at or past each valid length masked.
    # valid_lens: None (no mask), (B,) one length per sequence, or (B, Tq) one length per query.
    if valid_lens is None:
        return softmax(scores)
    # TODO -- make a mask (B, Tq, Tk), True where key j is below the valid length of its query,
    # set the masked scores to -1e6 with np.where, then take the softmax over the keys
    # Replace this line
    B, Tq, Tk = scores.shape
    lens = np.asarray(valid_lens)
    if lens.ndim == 1:
        lens = np.repeat(lens[:, None], Tq, axis=1)
    mask = np.arange(Tk) < lens[:, :, None]
    weights = softmax(scores + np.where(mask, 0.0, -1e6))
    return weights''',
        cause='-1e6 is added to the masked scores instead of replacing them. For a query that has at least one valid key this makes no difference, but a query with no valid key (valid length 0) keeps the differences between its scores: they are all shifted by the same -1e6, so it gets softmax(scores) rather than the uniform 1/Tk the convention asks for. Put -1e6 in their place: np.where(mask, scores, -1e6).',
    ),
    HeldOut(
        name="t05_loop_softmax_axis_one",
        assignment=A05,
        cell="loop_heads",
        source=r'''split_dim = E // H
heads = []

for i in range(H):
    # TODO -- head i: take its slice of the features of q, k and v (split_dim of them), its dot products
    # scaled by the square root of the head's size, their softmax over the keys, and the weighted sum
    # of the values: local_head, (B, C, E / H)
    # Replace this line
    cols = slice(i * split_dim, (i + 1) * split_dim)
    scores = q[:, :, cols] @ k[:, cols].T / np.sqrt(split_dim)  # (B, C, C)
    weights = np.exp(scores - np.max(scores, axis=1, keepdims=True))
    weights = weights / np.sum(weights, axis=1, keepdims=True)
    local_head = weights @ v[:, cols]
    heads.append(local_head)

raw_multi_head_output = np.concatenate(heads, axis=-1)  # (B, C, E)
attention = raw_multi_head_output @ proj  # (B, C, E)
print("proj(concat) -> attention", attention.shape)''',
        cause="The hand-written softmax normalises over axis=1, which for the 3-D scores (B, C, C) is the query axis, not the keys. (axis=1 is the last axis only for a 2-D array.) So each key's column sums to one instead of each query's row. Normalise over the keys, the last axis: axis=-1 (or use the notebook's softmax).",
    ),
    HeldOut(
        name="t05_merge_features_interleaved",
        assignment=A05,
        cell="transpose_output_def",
        source=r'''def transpose_output(X, num_heads):
    # Undo transpose_qkv: X (B*H, T, d) -> (B, T, H*d), the heads' features side by side
    # TODO -- reshape to (B, H, T, d), move the heads after the tokens (B, T, H, d),
    # then merge the head and feature axes: (B, T, H*d)
    # Replace this line
    BH, T, d = X.shape
    X_merged = X.reshape(BH // num_heads, num_heads, T, d).transpose(0, 2, 3, 1).reshape(BH // num_heads, T, num_heads * d)
    return X_merged''',
        cause="transpose(0, 2, 3, 1) gives (B, T, d, H), so after the final reshape the features are interleaved: feature j of every head sits together, head by head, instead of each head's d features side by side. Move the heads just after the tokens, transpose(0, 2, 1, 3) -> (B, T, H, d), then merge H and d, which undoes transpose_qkv.",
    ),
    HeldOut(
        name="t05_init_uniform_bound",
        assignment=A05,
        cell="init_weight_def",
        source=r'''def init_weight(fan_in, fan_out, rng):
    # A weight for X @ W, shape (fan_in, fan_out): mean 0, standard deviation 1/sqrt(fan_in)
    # TODO -- draw it with rng.normal (rng is a np.random.Generator)
    # Replace this line
    bound = 1 / np.sqrt(fan_in)
    W = rng.uniform(-bound, bound, size=(fan_in, fan_out))
    return W''',
        cause="A uniform draw on [-1/sqrt(fan_in), 1/sqrt(fan_in)] (PyTorch's nn.Linear default) has mean 0, but its standard deviation is 1/sqrt(3 fan_in), not 1/sqrt(fan_in), and it is not the normal draw asked for. Use rng.normal(0, 1 / np.sqrt(fan_in), size=(fan_in, fan_out)).",
    ),
    HeldOut(
        name="t05_mha_output_bias_before_projection",
        assignment=A05,
        cell="mha_class",
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
        H = self.num_heads
        Q = transpose_qkv(queries @ self.W_q + self.b_q, H)
        K = transpose_qkv(keys @ self.W_k + self.b_k, H)
        V = transpose_qkv(values @ self.W_v + self.b_v, H)
        if valid_lens is not None:
            valid_lens = np.repeat(valid_lens, H, axis=0)
        d = Q.shape[-1]
        self.attention_weights = masked_softmax(Q @ np.swapaxes(K, 1, 2) / np.sqrt(d), valid_lens)
        output = (transpose_output(self.attention_weights @ V, H) + self.b_o) @ self.W_o
        return output''',
        cause="The output bias is added before the output projection, so it gets multiplied by W_o: (concat + b_o) @ W_o. Step 4 is concat @ W_o + b_o, the bias added after the projection like every other bias. This only shows when b_o is not zero (bias=True), so Leo's example passes and the small example with biases does not.",
    ),
    HeldOut(
        name="t06_tokenize_lower_discarded",
        assignment=A06,
        cell="tokenize_def",
        source=r'''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    # Replace this line (for now every word is unknown)
    sentence.lower()
    token_ids = [vocab.get(word, vocab[UNK]) for word in sentence.split()]
    return np.array(token_ids, dtype=int)  # (T,)''',
        cause='sentence.lower() returns a new string and leaves sentence unchanged, because Python strings are immutable. Its result is thrown away, so "The", "RIVER" and "Boat" are looked up with their capitals and become <unk>. Use the result: sentence.lower().split().',
    ),
    HeldOut(
        name="t06_embed_batch_axis_second",
        assignment=A06,
        cell="embeddings_def",
        source=r'''def text_to_word_embeddings(text, vocab, embedding_matrix):
    """The embeddings of the words of a text, looked up in the table: (1, T, D)."""
    # TODO -- token ids of the text (your tokenize), their rows of embedding_matrix,
    #         and a batch axis in front (np.newaxis): shape (1, T, D).
    #         Never draw a new table here: look up the one you are given.
    # Replace this line
    token_ids = tokenize(text, vocab)
    word_embeddings = embedding_matrix[token_ids][:, np.newaxis]
    return word_embeddings''',
        cause="[:, np.newaxis] inserts the new axis after the token axis, which gives shape (T, 1, D): T batches of one token each. The rows themselves are right. The batch axis goes in front, embedding_matrix[token_ids][np.newaxis] -> (1, T, D), so that the sentence's tokens can attend to each other.",
    ),
    HeldOut(
        name="t06_sa_merge_without_transpose",
        assignment=A06,
        cell="self_attention_class",
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
        Q = (embeddings @ self.q_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        K = (embeddings @ self.k_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        V = (embeddings @ self.v_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        attn_weights = self.softmax(Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d), axis=-1)
        output = (attn_weights @ V).reshape(B, T, D) @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause="The heads are merged with a plain reshape of (B, H, T, d) to (B, T, D). A reshape reads the numbers in memory order, where all of head 0's tokens come before head 1's, so output row t is built from pieces of other tokens. Undo the split in two steps: transpose(0, 2, 1, 3) back to (B, T, H, d), then reshape to (B, T, D). With one head the two agree, so it only shows with H > 1.",
    ),
    HeldOut(
        name="t06_pca_sign_from_signed_argmax",
        assignment=A06,
        cell="pca_def",
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    Xc = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    components = Vt[:n_components]
    largest = np.argmax(components, axis=1)
    components = components * np.sign(components[np.arange(n_components), largest])[:, None]
    return components''',
        cause="np.argmax(components, axis=1) finds each axis's most positive entry, not its largest-magnitude one. That entry is positive whenever any entry is, so the axis is almost never flipped and the signs stay as the SVD chose them. Take the argmax of np.abs(components), then flip by the sign of that entry.",
    ),
    HeldOut(
        name="t07_smb_matrix_product_mixes_columns",
        assignment=A07,
        cell="softmax_backward_def",
        source=r'''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # Replace this line
  dS = np.zeros_like(dA)
  # YOUR CODE HERE
  # diag(a) g is the elementwise product; a a^T g for all the columns at once is A A^T dA
  dS = A * dA - A @ A.T @ dA
  return dS
''',
        cause="The term a a^T g belongs to each column on its own: column n needs A[:, n] times the single number A[:, n] . dA[:, n]. A @ A.T @ dA sums the outer products of every column's weights, so each column of dS mixes in the other queries' weights; the per-column dot product is np.sum(A * dA, axis=0, keepdims=True), and dS = A * (dA - that).",
    ),
    HeldOut(
        name="t07_ab_dx_weights_not_transposed",
        assignment=A07,
        cell="attention_backward_def",
        source=r'''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  # Replace this line
  gradients = {"dX": np.zeros_like(X), "d_omega_v": np.zeros_like(omega_v), "d_omega_q": np.zeros_like(omega_q),
               "d_omega_k": np.zeros_like(omega_k), "d_beta_v": np.zeros_like(beta_v),
               "d_beta_q": np.zeros_like(beta_q), "d_beta_k": np.zeros_like(beta_k)}
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  c = 1 / np.sqrt(Q.shape[0])
  A = softmax_cols(c * K.T @ Q)
  # 1. X' = V A
  dV = dX_prime @ A.T
  dA = V.T @ dX_prime
  # 2. the softmax
  dS = softmax_backward(A, dA)
  # 3. S = c K^T Q
  dQ = c * K @ dS
  dK = c * Q @ dS.T
  # 4. the parameters
  gradients["d_omega_q"] = dQ @ X.T
  gradients["d_omega_k"] = dK @ X.T
  gradients["d_omega_v"] = dV @ X.T
  gradients["d_beta_q"] = np.sum(dQ, axis=1, keepdims=True)
  gradients["d_beta_k"] = np.sum(dK, axis=1, keepdims=True)
  gradients["d_beta_v"] = np.sum(dV, axis=1, keepdims=True)
  # 5. X made Q, K and V: the three paths back
  gradients["dX"] = omega_q @ dQ + omega_k @ dK + omega_v @ dV
  return gradients
''',
        cause="Step 5 uses the rule for Y = B C with B = Omega and C = X: dL/dX = Omega^T (dL/dY). Multiplying dQ, dK and dV by omega_q, omega_k, omega_v untransposed gives the wrong dX (the shapes only agree because the weights are square); it should be omega_q.T @ dQ + omega_k.T @ dK + omega_v.T @ dV.",
    ),
    HeldOut(
        name="t07_gc_norm_ratio",
        assignment=A07,
        cell="gradient_check_def",
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  # Replace this line
  relative_error = 0.0
  # YOUR CODE HERE
  numeric = np.zeros(X.shape)
  for index in np.ndindex(X.shape):
    X_plus = X.copy()
    X_minus = X.copy()
    X_plus[index] += eps
    X_minus[index] -= eps
    numeric[index] = (f(X_plus) - f(X_minus)) / (2 * eps)
  # relative error: the size of the difference over the sizes of the two gradients
  relative_error = np.linalg.norm(dX - numeric) / max(np.linalg.norm(dX) + np.linalg.norm(numeric), 1e-12)
  return relative_error
''',
        cause="The central differences are right, but the relative error is not the one asked for: it uses Euclidean norms, ||analytic - numeric|| / (||analytic|| + ||numeric||), where the formula takes the largest entrywise difference over the largest entrywise sum, np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12).",
    ),
    HeldOut(
        name="t07_mha_merge_by_reshape",
        assignment=A07,
        cell="mha_backward_def",
        source=r'''def mha_backward(x, params, num_heads, dout):
  # TODO -- the forward pass with a cache, then backwards: W_o and b_o, split the heads' gradient, dV and dA,
  # dS (the softmax's backward along the last axis, times 1/sqrt(d)), dQ and dK, merge them, then the
  # projections' gradients (summed over the batch and the tokens) and dx (three paths)
  # Replace these lines
  dx = np.zeros_like(x)
  grads = {name: np.zeros_like(value) for name, value in params.items()}
  # YOUR CODE HERE
  B, T, D = x.shape
  cache = {}
  mha_forward(x, params, num_heads, cache)
  Q, K, V, A, heads = cache["Q"], cache["K"], cache["V"], cache["A"], cache["heads"]
  d = Q.shape[-1]
  grads["W_o"] = np.einsum("btd,bte->de", heads, dout)
  grads["b_o"] = dout.sum(axis=(0, 1))
  d_heads = split_heads(dout @ params["W_o"].T, num_heads)  # (B, H, T, d)
  dV = A.transpose(0, 1, 3, 2) @ d_heads
  dA = d_heads @ V.transpose(0, 1, 3, 2)
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = dS @ K
  dK = dS.transpose(0, 1, 3, 2) @ Q
  # merge the heads back to (B, T, D)
  dQ = dQ.reshape(B, T, D)
  dK = dK.reshape(B, T, D)
  dV = dV.reshape(B, T, D)
  for name, d_proj in (("q", dQ), ("k", dK), ("v", dV)):
    grads["W_" + name] = np.einsum("btd,bte->de", x, d_proj)
    grads["b_" + name] = d_proj.sum(axis=(0, 1))
    dx = dx + d_proj @ params["W_" + name].T
  return dx, grads
''',
        cause="dQ, dK and dV are (B, H, T, d) and were merged with a plain reshape to (B, T, D). A reshape keeps the memory order, heads before tokens, so it scrambles which token and feature each number belongs to; merging must move the heads axis next to the features first, as merge_heads does: X.transpose(0, 2, 1, 3).reshape(B, T, D).",
    ),
    HeldOut(
        name="t08_ln_variance_not_centred",
        assignment=A08,
        cell="layer_norm_def",
        source=r'''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    out = np.zeros_like(x)
    # YOUR CODE HERE
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.mean(x ** 2, axis=-1, keepdims=True)  # sigma^2: the mean of the squares
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = gamma * x_hat + beta
    return out
''',
        cause="The variance is the mean of the squared deviations from the mean, (x_i - mu)^2, but this takes the mean of x_i^2 itself, which is sigma^2 + mu^2: every token whose mean is not zero is divided by too much. Compute var = np.mean((x - mean) ** 2, axis=-1, keepdims=True) (or np.var(x, axis=-1, keepdims=True)).",
    ),
    HeldOut(
        name="t08_mlp_relu_on_output",
        assignment=A08,
        cell="mlp_def",
        source=r'''def mlp(x, W1, b1, W2, b2):
    # The position-wise MLP: x (B, T, D) -> hidden (B, T, D_ff) -> (B, T, D), each token alone
    # TODO -- ReLU(x @ W1 + b1) @ W2 + b2, with np.maximum(0, ...) as the ReLU
    # Replace this line
    out = np.zeros((x.shape[0], x.shape[1], W2.shape[1]))
    # YOUR CODE HERE
    hidden = np.maximum(0, x @ W1 + b1)  # (B, T, D_ff)
    out = np.maximum(0, hidden @ W2 + b2)  # each layer followed by its ReLU
    return out
''',
        cause="A ReLU was put after the second layer as well, so every negative output of the MLP is set to 0. The ReLU goes between the two layers only (after the first bias); the second layer is linear: np.maximum(0, x @ W1 + b1) @ W2 + b2.",
    ),
    HeldOut(
        name="t08_block_mlp_reads_attention_output",
        assignment=A08,
        cell="block_def",
        source=r'''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    # TODO -- make the causal mask (T, T); then, pre-norm:
    #   x = x + attention(layer_norm_1(x)), then x = x + mlp(layer_norm_2(x))
    # or, post-norm:
    #   x = layer_norm_1(x + attention(x)), then x = layer_norm_2(x + mlp(x))
    # Replace this line
    out = np.zeros_like(x)
    # YOUR CODE HERE
    T = x.shape[1]
    mask = causal_mask(T, T)
    p = params
    if post_norm:
        h = layer_norm(x + multi_head_attention(x, p, num_heads, mask), p["gamma1"], p["beta1"])
        out = layer_norm(h + mlp(h, p["W1"], p["b1"], p["W2"], p["b2"]), p["gamma2"], p["beta2"])
    else:
        attn = multi_head_attention(layer_norm(x, p["gamma1"], p["beta1"]), p, num_heads, mask)
        h = x + attn
        out = h + mlp(layer_norm(attn, p["gamma2"], p["beta2"]), p["W1"], p["b1"], p["W2"], p["b2"])
    return out
''',
        cause="In the pre-norm block the second LayerNorm is given the attention sublayer's output alone, not the residual stream x + attention(...): the MLP never sees the token's own input. The second line is x = x + mlp(layer_norm_2(x)) with x the sum just made, so pass layer_norm(h, ...) to the MLP.",
    ),
    HeldOut(
        name="t08_flops_masked_scores_skipped",
        assignment=A08,
        cell="counts_def",
        source=r'''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    # Replace this line
    count = 0
    # YOUR CODE HERE
    attention = 4 * D * D + 4 * D  # W_q, W_k, W_v, W_o and their biases
    feed_forward = D * D_ff + D_ff + D_ff * D + D  # W1, b1, W2, b2
    norms = 2 * 2 * D  # gamma and beta of both LayerNorms
    count = attention + feed_forward + norms
    return count


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    # Replace this line
    flops = 0
    # YOUR CODE HERE
    d = D // H
    projections = 4 * T * D * D  # x @ W_q, x @ W_k, x @ W_v and the output projection
    visible = T * (T + 1) // 2  # with the causal mask, query t meets keys 0..t only
    scores = H * visible * d  # Q @ K.T, every head
    weighted = H * visible * d  # weights @ V, every head
    mlp_products = T * D * D_ff + T * D_ff * D
    flops = projections + scores + weighted + mlp_products
    return flops
''',
        cause="block_flops counts only the T(T+1)/2 scores the causal mask keeps, for Q @ K.T and for weights @ V. The code computes all T x T scores before masking and multiplies the full weight matrix by V, and the TODO says to count them all: each of the two products costs H * T * T * d = T^2 D.",
    ),
    HeldOut(
        name="t09_ce_shift_by_global_max",
        assignment=A09,
        cell="cross_entropy_def",
        source=r'''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    # TODO -- log_p = shifted - log(sum(exp(shifted))) with shifted = logits - max over the last axis;
    # loss = -(sum of weights * log_p at the targets) / sum(weights);
    # dlogits = (softmax - one-hot of the targets) * weights / sum(weights), the weights over the last axis
    # Replace this line
    loss, dlogits = 0.0, np.zeros_like(logits)
    # YOUR CODE HERE
    shifted = logits - np.max(logits)  # the largest logit subtracted first, so np.exp cannot overflow
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    log_p_target = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    loss = -np.sum(weights * log_p_target) / np.sum(weights)
    probs = np.exp(log_p)
    one_hot = np.eye(logits.shape[-1])[targets]  # (B, T, V)
    dlogits = (probs - one_hot) * (weights / np.sum(weights))[..., None]
    return loss, dlogits
''',
        cause="The shift subtracts the largest logit of the whole array, not of each position: np.max(logits) without axis=-1, keepdims=True. The result is the same while the logits are small, but with large logits a position whose logits are all far below the global maximum has every exp underflow to 0, and log(0) = -inf turns its log-probabilities and the loss into inf or nan. Shift each position by its own maximum.",
    ),
    HeldOut(
        name="t09_adam_v_corrected_with_beta1",
        assignment=A09,
        cell="adam_step_def",
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    # Replace this line
    new_param, new_m, new_v = param, m, v
    # YOUR CODE HERE
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    correction = 1 - beta1 ** t  # the bias correction
    m_hat = new_m / correction
    v_hat = new_v / correction
    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v
''',
        cause="Both moments are corrected with 1 - beta1**t, but each moving average needs its own: m_hat = m / (1 - beta1**t) and v_hat = v / (1 - beta2**t). With beta1 in place of beta2, v_hat is far too small in the early steps (1 - 0.9**t against 1 - 0.999**t), so in the early steps each entry moves by up to about ten times lr instead of about lr.",
    ),
    HeldOut(
        name="t09_adam_eps_outside_denominator",
        assignment=A09,
        cell="adam_step_def",
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    # Replace this line
    new_param, new_m, new_v = param, m, v
    # YOUR CODE HERE
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = new_m / (1 - beta1 ** t)
    v_hat = new_v / (1 - beta2 ** t)
    new_param = param - lr * m_hat / np.sqrt(v_hat) + eps
    return new_param, new_m, new_v
''',
        cause="Operator precedence: param - lr * m_hat / np.sqrt(v_hat) + eps adds eps to the parameter instead of to the denominator. The step loses its guard for entries whose v_hat is tiny (they move by far more than lr, and a zero gradient gives 0/0 = nan), and every entry drifts by eps. Write param - lr * m_hat / (np.sqrt(v_hat) + eps).",
    ),
    HeldOut(
        name="t09_train_t_counted_after_update",
        assignment=A09,
        cell="train_step_def",
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    # YOUR CODE HERE
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    t = adam_state["t"]
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], t, lr)
    adam_state["t"] = t + 1  # one more step done
    return loss
''',
        cause="The step count is increased after the updates, so adam_step is called with the old count: t = 0 on the first step, where the bias correction 1 - beta**0 is 0 and m / 0 makes every parameter inf or nan (later steps are corrected with t - 1). Add 1 to adam_state['t'] first, then call adam_step with the new count, as step 4 says.",
    ),
    HeldOut(
        name="t10_merge_pair_splice_then_skip_two",
        assignment=A10,
        cell="merge_pair_def",
        source=r'''def merge_pair(corpus, pair):
  """A new corpus with every occurrence of pair merged into one symbol, left to right, without overlaps."""
  # TODO -- walk each word from the left; where word[k], word[k + 1] is the pair, put one merged symbol and move on by two
  # Replace this line
  merged = dict(corpus)
  # YOUR CODE HERE
  merged = {}
  for word, freq in corpus.items():
    symbols = list(word)
    k = 0
    while k < len(symbols) - 1:
      if symbols[k] == pair[0] and symbols[k + 1] == pair[1]:
        symbols[k:k + 2] = [pair[0] + pair[1]]  # the two symbols become one
        k += 2
      else:
        k += 1
    merged[tuple(symbols)] = freq
  return merged
''',
        cause="The merge is done in place, symbols[k:k + 2] = [merged], which already shortens the list, and then k moves on by two as for a new list: the symbol right after the merged one is never compared. Two occurrences side by side, as in ('a', 'b', 'a', 'b') or ('a', 'a', 'a', 'a'), are then merged only once. After an in-place merge move on by one (or build a new list and move on by two).",
    ),
    HeldOut(
        name="t10_learn_one_merge_too_many",
        assignment=A10,
        cell="learn_merges_def",
        source=r'''def learn_merges(corpus, num_merges):
  """The pairs merged, in the order learned: up to num_merges of them."""
  # TODO -- repeat num_merges times: count the pairs, stop if there are none, take the most frequent
  # (ties: the smallest pair), remember it and merge it in the corpus
  # Replace this line
  merges = []
  # YOUR CODE HERE
  while len(merges) <= num_merges:
    counts = count_pairs(corpus)
    if not counts:  # every word is one symbol
      break
    best = min(counts, key=lambda p: (-counts[p], p))
    merges.append(best)
    corpus = merge_pair(corpus, best)
  return merges
''',
        cause="The loop condition len(merges) <= num_merges is still true when num_merges merges have been learned, so it learns one more: num_merges + 1 pairs whenever the corpus has room for them. Loop while len(merges) < num_merges, or for _ in range(num_merges).",
    ),
    HeldOut(
        name="t10_encode_marker_spelled_out",
        assignment=A10,
        cell="encode_def",
        source=r'''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  # Replace this line
  ids = []
  # YOUR CODE HERE
  for word in text.split(" "):
    symbols = list(word + EOW)  # the characters, then the end-of-word marker
    for a, b in merges:
      k, out = 0, []
      while k < len(symbols):
        if k + 1 < len(symbols) and symbols[k] == a and symbols[k + 1] == b:
          out.append(a + b)
          k += 2
        else:
          out.append(symbols[k])
          k += 1
      symbols = out
    ids += [vocab.get(s, vocab[UNK]) for s in symbols]
  return ids
''',
        cause="list(word + EOW) spells the marker out as four characters, '<', '/', 'w', '>', instead of adding the one symbol '</w>'. No merge that ends a word can then apply, and the four characters, never seen in training, become <unk> ids. The symbols are list(word) + [EOW].",
    ),
    HeldOut(
        name="t10_decode_cut_before_replace",
        assignment=A10,
        cell="decode_def",
        source=r'''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  # Replace this line
  text = ""
  # YOUR CODE HERE
  joined = "".join(tokens[i] for i in ids)
  text = joined[:-1].replace(EOW, " ")  # the last character, then every marker a space
  return text
''',
        cause="The last character is dropped before the markers are replaced, so it cuts the '>' off the final '</w>' and the text ends in '</w' instead of losing its final space. Replace EOW by a space first, then drop the last character: joined.replace(EOW, ' ')[:-1].",
    ),
    HeldOut(
        name="t11_sample_logits_divided_in_place",
        assignment=A11,
        cell="sample_def",
        source=r'''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  # TODO -- n_new times: probs = softmax(logits / temperature), one draw rng.choice(len(probs), p=probs), appended
  # Replace this line
  ids = list(prompt)
  # YOUR CODE HERE
  for _ in range(n_new):
    logits = next_logits(ids)
    logits /= temperature  # the temperature
    probs = softmax(logits)
    ids.append(int(rng.choice(len(probs), p=probs)))
  return ids
''',
        cause="logits /= temperature divides in place the array next_logits returned, and the bigram model returns a row of its own table (a view), so every step rescales the model itself: a word seen twice is divided twice, and later calls (the second temperature, the other decoders) run on a changed model. Make a new array: probs = softmax(logits / temperature).",
    ),
    HeldOut(
        name="t11_top_k_softmax_of_kept_probs",
        assignment=A11,
        cell="top_k_def",
        source=r'''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  # Replace this line
  result = np.zeros_like(probs)
  # YOUR CODE HERE
  keep = np.argsort(-probs, kind="stable")[:k]
  result[keep] = softmax(probs[keep])  # renormalise the kept ones so they sum to 1
  return result
''',
        cause="The kept probabilities are renormalised with a softmax, which exponentiates them again: softmax(probs[keep]) sums to 1 but flattens the distribution towards uniform (probabilities between 0 and 1 differ little once exponentiated). Renormalising means dividing by their sum: result[keep] = probs[keep] / probs[keep].sum().",
    ),
    HeldOut(
        name="t11_beam_finished_padded_with_end",
        assignment=A11,
        cell="beam_search_def",
        source=r'''def log_softmax(x):
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
  # Replace this line
  best = prompt
  # YOUR CODE HERE
  for step in range(n_new):
    candidates = []
    for ids, score in beams:
      if len(ids) > len(prompt) and ids[-1] == end:
        # finished: it stays as it is (no log-probability added), padded with the end token like the others
        candidates.append((ids + [end], score))
      else:
        log_probs = log_softmax(next_logits(ids))
        for token in range(len(log_probs)):
          candidates.append((ids + [token], score + log_probs[token]))
    scores = np.array([score for _, score in candidates])
    order = np.argsort(-scores, kind="stable")[:beam_width]
    beams = [candidates[i] for i in order]
  if length_norm:
    final = [score / (len(ids) - len(prompt)) for ids, score in beams]
  else:
    final = [score for _, score in beams]
  best = beams[int(np.argmax(final))][0]
  return best
''',
        cause="A finished beam is carried over with an end token appended at every later step. Its score is kept, but it comes back with extra end tokens, and with length_norm it is divided by the padded length, n_new, instead of by the new tokens it really has, which makes a beam that finished early look better than it is. Carry a finished beam over as it is: candidates.append((ids, score)).",
    ),
    HeldOut(
        name="t11_kv_position_counted_from_one",
        assignment=A11,
        cell="decode_step_def",
        source=r'''def decode_step(params, token, K_cache, V_cache, num_heads):
  """(logits (V,), K, V): one new token, given only it and its sequence's cache (H, t, d), t tokens so far."""
  p = params
  # TODO -- position t = K_cache.shape[1]; x; LayerNorm 1; q, k, v (H, 1, d); append k, v; attend (no mask);
  # W_o and b_o, the residual, LayerNorm 2, the MLP, the residual, the final LayerNorm, W_out and b_out
  # Replace these lines
  logits = np.zeros(p["W_out"].shape[1])
  K, V = K_cache, V_cache
  # YOUR CODE HERE
  H = num_heads
  D = p["W_q"].shape[0]
  d = D // H
  t = K_cache.shape[1] + 1  # t tokens cached, so this is token number t + 1
  x = p["tok_emb"][token] + p["pos_emb"][t]  # (D,)
  h1 = layer_norm_forward(x, p["gamma1"], p["beta1"])[0]
  q = (h1 @ p["W_q"] + p["b_q"]).reshape(H, 1, d)
  k = (h1 @ p["W_k"] + p["b_k"]).reshape(H, 1, d)
  v = (h1 @ p["W_v"] + p["b_v"]).reshape(H, 1, d)
  K = np.concatenate([K_cache, k], axis=1)  # (H, t + 1, d)
  V = np.concatenate([V_cache, v], axis=1)
  weights = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))  # (H, 1, t + 1)
  heads = (weights @ V).reshape(D)  # (D,): the heads side by side
  x = x + heads @ p["W_o"] + p["b_o"]
  h2 = layer_norm_forward(x, p["gamma2"], p["beta2"])[0]
  x = x + mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])[0]
  hf = layer_norm_forward(x, p["gamma_f"], p["beta_f"])[0]
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="Positions count from 0: with t = K_cache.shape[1] tokens already cached, the new token is at position t, and model_forward gives the first token pos_emb[0]. Adding 1 gives every token the next position's embedding, so no logit matches the full forward pass (and a sequence as long as pos_emb reads past its end). Use x = tok_emb[token] + pos_emb[K_cache.shape[1]].",
    ),
]
