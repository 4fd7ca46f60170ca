"""Held-out wrong answers, round 3 (2026-11-28): written from the release notebooks alone, by two people who
had read neither grader/ nor the earlier rounds' answers (only their entry names, to write other mistakes), against
a grader that rounds 1 and 2 had already shaped. Graded by `python -m tests.heldout.grade OUT --round 3`; judged in
tests/heldout/judged.md. Frozen: do not edit to suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name="s01_qkv_bias_inside_product",
        assignment=A01,
        cell="qkv_loop",
        source='''# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  # Replace these three lines
  # YOUR CODE HERE
  query = omega_q @ (x + beta_q)
  key = omega_k @ (x + beta_k)
  value = omega_v @ (x + beta_v)

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)''',
        cause="You added the bias to the input before multiplying by the weights, computing Omega (x + beta) = Omega x + Omega beta; equations 12.2 and 12.4 add the bias after the product: q_n = beta_q + Omega_q x_n, and the same for the keys and values.",
    ),
    HeldOut(
        name="s01_softmax_l2_normalised",
        assignment=A01,
        cell="softmax_def",
        source='''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  # YOUR CODE HERE
  exponentials = np.exp(items_in)
  # normalise so the outputs have length one
  items_out = exponentials / np.linalg.norm(exponentials)
  return items_out''',
        cause="You divided the exponentials by their Euclidean length (np.linalg.norm), so their squares sum to one, not the weights themselves; equation 12.5 divides each exp[z_m] by the plain sum of all the exponentials, so that the outputs sum to one.",
    ),
    HeldOut(
        name="s01_loop_value_index_n",
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
    # Replace this line
    # YOUR CODE HERE
    dot_product = np.dot(key.T, all_queries[n]).item()
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
  # YOUR CODE HERE
  weights = np.ravel(attention)
  for m in range(N):
    x_prime = x_prime + weights[m] * all_values[n]

  all_x_prime.append(x_prime)
  all_attention.append(attention)''',
        cause="Inside the weighted sum every weight multiplies all_values[n], the value of the output's own token, so x'_n comes out as v_n (the weights sum to one); equation 12.3 sums a[x_m, x_n] v_m over m, so the loop over m must take all_values[m].",
    ),
    HeldOut(
        name="s01_matrix_scaled_early",
        assignment=A01,
        cell="self_attention_def",
        source='''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Apply softmax to calculate attentions
  # 4. Weight values by attentions
  # Replace this line
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  # dot products, divided by sqrt of the query size so the softmax does not saturate
  dot_products = K.T @ Q / np.sqrt(Q.shape[0])
  attention = softmax_cols(dot_products)
  X_prime = V @ attention
  return X_prime''',
        cause="You divided the dot products by sqrt(D_q): that is the scaled dot-product attention of equation 12.9 (notebook 02), but this function is the plain matrix form of equation 12.8, X' = V Softmax[K^T Q], with no scaling.",
    ),
    HeldOut(
        name="s02_softmax_shift_by_min",
        assignment=A02,
        cell="softmax_cols_def",
        source='''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  # YOUR CODE HERE
  # shift each column so its smallest entry is 0: the same constant for the whole column, so nothing changes
  shifted = data_in - np.min(data_in, axis=0, keepdims=True)
  exp_values = np.exp(shifted)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax''',
        cause="Subtracting each column's minimum does not change the softmax (equation 12.5), but it makes the largest exponent max - min, which still overflows np.exp to inf (and gives nan) as soon as a column's scores spread by more than about 709, e.g. +1000 and -1000 in one column; subtract each column's maximum, so every exponent is at most 0.",
    ),
    HeldOut(
        name="s02_softmax_nan_to_num",
        assignment=A02,
        cell="softmax_cols_def",
        source='''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  # YOUR CODE HERE
  exp_values = np.exp(data_in)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  # large inputs give inf / inf = nan: replace those so the result is always finite
  softmax = np.nan_to_num(softmax)
  return softmax''',
        cause="np.exp still overflows to inf on large scores and inf / inf is nan; np.nan_to_num then turns those nans into 0, so a column of large scores gets weights that are all zero and do not sum to one; subtract the column's maximum before np.exp instead, which leaves the softmax of equation 12.5 unchanged and cannot overflow.",
    ),
    HeldOut(
        name="s02_scaled_by_score_std",
        assignment=A02,
        cell="scaled_attention_def",
        source='''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Scale the dot products as in equation 12.9
  # 4. Apply softmax to calculate attentions
  # 5. Weight values by attentions
  # Replace this line
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  dot_products = K.T @ Q
  # the scaling is there to give the dot products a standard deviation of one
  scaled = dot_products / np.std(dot_products, axis=0, keepdims=True)
  attention = softmax_cols(scaled)
  X_prime = V @ attention
  return X_prime''',
        cause="You divided each column of dot products by its own measured standard deviation; equation 12.9 divides every dot product by the fixed constant sqrt(D_q), the square root of the size of the queries (the typical spread of a sum of D_q products), not by the spread of the actual scores.",
    ),
    HeldOut(
        name="s02_scaled_softmax_twice",
        assignment=A02,
        cell="scaled_attention_def",
        source='''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Scale the dot products as in equation 12.9
  # 4. Apply softmax to calculate attentions
  # 5. Weight values by attentions
  # Replace this line
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  D_q = Q.shape[0]
  scores = K.T @ Q / np.sqrt(D_q)
  attention = softmax_cols(scores)
  X_prime = V @ softmax_cols(attention)
  return X_prime''',
        cause="attention is already the softmax of the scaled scores; calling softmax_cols on it a second time squashes every column towards uniform weights; equation 12.9 has a single softmax: X' = V Softmax[K^T Q / sqrt(D_q)], so multiply V by attention itself.",
    ),
    HeldOut(
        name="s03_perm_product_not_permutations",
        assignment=A03,
        cell="permutation_matrices_def",
        source='''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  # YOUR CODE HERE
  identity = np.eye(n)
  permutation_matrices = []
  for order in itertools.product(range(n), repeat=n):
    permutation_matrices.append(identity[:, list(order)])
  return permutation_matrices''',
        cause="itertools.product(range(n), repeat=n) lists all n**n sequences of column indices, also those that repeat a column, so most of your matrices are not permutation matrices (27 for n = 3 instead of 3! = 6); the P in Sa[XP] = Sa[X]P only reorders the tokens, and itertools.permutations(range(n)) lists each order exactly once.",
    ),
    HeldOut(
        name="s03_pe_log10_in_exp",
        assignment=A03,
        cell="position_encoding_def",
        source='''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  # YOUR CODE HERE
  encoding = np.zeros((D, N))
  positions = np.arange(N)
  for d in range(0, D, 2):
    # 1 / 10000**(d/D), written as an exponential as in most implementations
    frequency = np.exp(-d * np.log10(10000.0) / D)
    encoding[d, :] = np.sin(positions * frequency)
    if d + 1 < D:
      encoding[d + 1, :] = np.cos(positions * frequency)
  return encoding''',
        cause="You wrote 1 / 10000**(2i/D) as exp(-2i log10(10000) / D), but that identity needs the natural logarithm: log10(10000) = 4 gives exp(-8i/D), so every pair of rows after the first turns far too fast; use np.log(10000) (the sinusoidal encoding of section 12.3.1).",
    ),
    HeldOut(
        name="s03_checker_exact_equality",
        assignment=A03,
        cell="checker_def",
        source='''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  # YOUR CODE HERE
  equivariant = True
  for P in generate_permutation_matrices(X.shape[1]):
    if not np.array_equal(f(X @ P), f(X) @ P):
      equivariant = False
      break
  return equivariant''',
        cause="np.array_equal demands bit-for-bit equality, but f(X @ P) and f(X) @ P add their terms in another order and differ by rounding (about 1e-16) even when f is equivariant, so scaled self-attention is rejected; test Sa[XP] = Sa[X]P entry by entry within the tolerance, np.max(np.abs(f(X @ P) - f(X) @ P)) <= tolerance.",
    ),
    HeldOut(
        name="s04_weights_global_head_size",
        assignment=A04,
        cell="attention_weights_def",
        source='''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  # each head has queries of size D/H
  attention = softmax_cols(K.T @ Q / np.sqrt(H_D))
  return attention''',
        cause="You scale by np.sqrt(H_D), the notebook's global head size (4), so a head of any other size is scaled wrongly (the 3-head example's heads have size 2, where this happens to divide by D/H itself); equation 12.9 applied to a head (section 12.3.3) divides by the square root of that head's own query size, Q.shape[0] or omega_q.shape[0], taken from the arguments.",
    ),
    HeldOut(
        name="s04_mh_omega_c_block_diagonal",
        assignment=A04,
        cell="multihead_def",
        source='''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  # YOUR CODE HERE
  V1 = omega_v1 @ X + beta_v1
  V2 = omega_v2 @ X + beta_v2
  head1 = V1 @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = V2 @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  d = head1.shape[0]
  # mix each head with its own block of omega_c, then stack
  X_prime = np.vstack([omega_c[:d, :d] @ head1, omega_c[d:, d:] @ head2])
  return X_prime''',
        cause="You mixed each head with its own diagonal block of omega_c only and ignored the off-diagonal blocks, so every output feature still comes from a single head; in section 12.3.3 (figure 12.6) the heads are stacked first and the whole D x D omega_c multiplies the stacked D x N matrix, so every output row combines every head.",
    ),
    HeldOut(
        name="s04_mh_softmax_across_heads",
        assignment=A04,
        cell="multihead_def",
        source='''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  # YOUR CODE HERE
  N = X.shape[1]
  Q1, K1, V1 = omega_q1 @ X + beta_q1, omega_k1 @ X + beta_k1, omega_v1 @ X + beta_v1
  Q2, K2, V2 = omega_q2 @ X + beta_q2, omega_k2 @ X + beta_k2, omega_v2 @ X + beta_v2
  scores1 = K1.T @ Q1 / np.sqrt(Q1.shape[0])
  scores2 = K2.T @ Q2 / np.sqrt(Q2.shape[0])
  # one softmax over the keys of both heads, so each query spreads its attention over both
  attention = softmax_cols(np.vstack([scores1, scores2]))  # (2N, N)
  head1 = V1 @ attention[:N]
  head2 = V2 @ attention[N:]
  X_prime = omega_c @ np.vstack([head1, head2])
  return X_prime''',
        cause="You took one softmax over the stacked scores of both heads, so each query's weights sum to one over the two heads together and each head gets only part of a distribution; each head has its own attention, the softmax down each column of its own N x N scores K_h^T Q_h / sqrt(D/H) (equation 12.9 for each head, section 12.3.3).",
    ),
    HeldOut(
        name="s04_general_shared_attention",
        assignment=A04,
        cell="multihead_general_def",
        source='''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # Replace this line
  # YOUR CODE HERE
  H = len(omegas_v)
  # all the heads' queries and keys together, (D, N) each
  Q = np.vstack(omegas_q) @ X + np.vstack(betas_q)
  K = np.vstack(omegas_k) @ X + np.vstack(betas_k)
  attention = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))  # (N, N)
  heads = []
  for h in range(H):
    V_h = omegas_v[h] @ X + betas_v[h]
    heads.append(V_h @ attention)
  X_prime = omega_c @ np.vstack(heads)
  return X_prime''',
        cause="You computed one attention matrix from all the heads' queries and keys stacked together (one big head of size D, scaled by sqrt(D)) and used it for every head, so the heads differ only in their values; in multi-head attention (section 12.3.3) head h computes its own weights Softmax[K_h^T Q_h / sqrt(D/H)] from its own omega_q, omega_k, beta_q and beta_k.",
    ),
    HeldOut(
        name="s05_loop_book_order_scores",
        assignment=A05,
        cell="loop_heads",
        source='''split_dim = E // H
heads = []

for i in range(H):
    # TODO -- head i: take its slice of the features of q, k and v (split_dim of them), its dot products
    # scaled by the square root of the head's size, their softmax over the keys, and the weighted sum
    # of the values: local_head, (B, C, E / H)
    # Replace this line
    # YOUR CODE HERE
    features = slice(i * split_dim, (i + 1) * split_dim)
    q_head = q[:, :, features]  # (B, C, split_dim)
    k_head = k[:, features]  # (C, split_dim)
    v_head = v[:, features]  # (C, split_dim)
    scores = k_head @ np.swapaxes(q_head, 1, 2) / np.sqrt(split_dim)  # K^T Q, as in the book
    weights = softmax(scores)
    local_head = weights @ v_head
    heads.append(local_head)

raw_multi_head_output = np.concatenate(heads, axis=-1)  # (B, C, E)
attention = raw_multi_head_output @ proj  # (B, C, E)
print("proj(concat) -> attention", attention.shape)''',
        cause="Copying the book's K^T Q into the row convention as k_head @ q_head^T gives scores indexed [key, query], so the softmax over the last axis normalises over the queries, and the product with the values then treats them as [query, key]; in rows equation 12.9 reads softmax(Q K^T / sqrt(d)) V, with scores q_head @ k_head.T, one row per query.",
    ),
    HeldOut(
        name="s05_split_features_strided",
        assignment=A05,
        cell="transpose_qkv_def",
        source='''def transpose_qkv(X, num_heads):
    # Split the features into heads: X (B, T, D) -> (B*H, T, D/H); item b*H + h is head h of sequence b
    # TODO -- reshape to (B, T, H, D/H), move the heads before the tokens (B, H, T, D/H),
    # then merge the batch and head axes: (B*H, T, D/H)
    # Replace this line
    # YOUR CODE HERE
    B, T, D = X.shape
    d = D // num_heads
    X_split = X.reshape(B, T, d, num_heads)  # (B, T, D/H, H)
    X_split = X_split.transpose(0, 3, 1, 2)  # (B, H, T, D/H)
    X_split = X_split.reshape(B * num_heads, T, d)
    return X_split''',
        cause="Reshaping (B, T, D) to (B, T, D/H, H) deals the features out to the heads in turn (head h gets features h, h + H, h + 2H, ...), so no head holds the contiguous block its weights produce; reshape to (B, T, H, D/H), so that head h owns features h*d to (h+1)*d - 1 (section 12.3.3), then transpose to (B, H, T, d) and merge B and H.",
    ),
    HeldOut(
        name="s05_causal_bottom_right",
        assignment=A05,
        cell="boolean_masks_def",
        source='''def key_padding_mask(valid_lens, num_keys):
    # True where key j of sequence b may be attended, j < valid_lens[b]: (B,) -> (B, 1, Tk)
    # TODO -- compare np.arange(num_keys) with valid_lens shaped (B, 1, 1): broadcasting, no loop
    # Replace this line
    # YOUR CODE HERE
    mask = np.arange(num_keys) < np.asarray(valid_lens).reshape(-1, 1, 1)
    return mask


def causal_mask(num_queries, num_keys):
    # True where query t may attend to key j, that is j <= t: (Tq, Tk), the same for every sequence
    # TODO -- keep the entries on and below the diagonal of a (Tq, Tk) array of True (np.tril)
    # Replace this line
    # YOUR CODE HERE
    # the last query lines up with the last key
    mask = np.tril(np.ones((num_queries, num_keys), dtype=bool), k=num_keys - num_queries)
    return mask


print(key_padding_mask(np.array([2, 3]), 4).astype(int))  # (2, 1, 4)
print(causal_mask(2, 4).astype(int))  # (2, 4)''',
        cause="np.tril with k = num_keys - num_queries lines the last query up with the last key (the convention of a decoder with cached keys), so when Tq and Tk differ query t sees keys up to t + Tk - Tq, or none at all; this notebook's causal mask lets query t see keys 0..t only, np.tril(np.ones((Tq, Tk), dtype=bool)), the masked self-attention of a decoder (section 12.7).",
    ),
    HeldOut(
        name="s05_mha_values_from_keys",
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
        # Replace this line
        # YOUR CODE HERE
        Q = transpose_qkv(queries @ self.W_q + self.b_q, self.num_heads)  # (B*H, Tq, d)
        K = transpose_qkv(keys @ self.W_k + self.b_k, self.num_heads)  # (B*H, Tk, d)
        V = transpose_qkv(keys @ self.W_v + self.b_v, self.num_heads)  # (B*H, Tk, d)
        if valid_lens is not None:
            valid_lens = np.repeat(valid_lens, self.num_heads, axis=0)
        d = Q.shape[-1]
        scores = Q @ np.swapaxes(K, 1, 2) / np.sqrt(d)  # (B*H, Tq, Tk)
        self.attention_weights = masked_softmax(scores, valid_lens)
        heads = self.attention_weights @ V  # (B*H, Tq, d)
        output = transpose_output(heads, self.num_heads) @ self.W_o + self.b_o
        return output''',
        cause="The values are projected from the keys argument (keys @ self.W_v) instead of the values argument; in self-attention, and in Leo's example, keys and values are the same array, so it only shows when they differ: V = values @ self.W_v + self.b_v (equation 12.2, beta_v + Omega_v x, in rows).",
    ),
    HeldOut(
        name="s06_tokenize_grows_vocab",
        assignment=A06,
        cell="tokenize_def",
        source='''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    # Replace this line (for now every word is unknown)
    # YOUR CODE HERE
    token_ids = []
    for word in sentence.lower().split():
        if word not in vocab:
            vocab[word] = len(vocab)  # a new word gets the next free id
        token_ids.append(vocab[word])
    return np.array(token_ids, dtype=int)  # (T,)''',
        cause="For a word the vocabulary does not know you add it to vocab with a new id, so it gets an id the embedding table has no row for, and the caller's vocabulary is changed behind its back; a fixed vocabulary (section 12.5.1) maps every unknown word to the <unk> token, vocab.get(word, vocab[UNK]), and leaves vocab as it was.",
    ),
    HeldOut(
        name="s06_sa_causal_mask_added",
        assignment=A06,
        cell="self_attention_class",
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
        # TODO -- 1. queries, keys and values: embeddings @ self.q_proj (and k_proj, v_proj)   (B, T, D)
        #         2. split each into H heads: reshape to (B, T, H, d), transpose to (B, H, T, d)
        #         3. attn_weights: softmax over the keys (the last axis) of Q K^T / sqrt(d)   (B, H, T, T)
        #         4. weights times values (B, H, T, d); heads side by side again (B, T, D); @ self.out_proj
        # Replace these two lines
        # YOUR CODE HERE
        Q = (embeddings @ self.q_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        K = (embeddings @ self.k_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        V = (embeddings @ self.v_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)  # (B, H, T, T)
        # a word must not look at the words after it
        future = np.triu(np.ones((T, T), dtype=bool), k=1)
        scores = np.where(future, -1e9, scores)
        attn_weights = self.softmax(scores, axis=-1)
        heads = attn_weights @ V  # (B, H, T, d)
        output = heads.transpose(0, 2, 1, 3).reshape(B, T, D) @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause="You added a causal mask, so each word attends only to itself and the words before it; that is the masked self-attention of a decoder (section 12.7), but this layer is plain scaled dot-product self-attention, equation 12.9, in which every word attends to every word of its sentence.",
    ),
    HeldOut(
        name="s06_pca_centres_in_place",
        assignment=A06,
        cell="pca_def",
        source='''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    # YOUR CODE HERE
    X -= X.mean(axis=0)
    U, S, Vt = np.linalg.svd(X, full_matrices=False)
    components = Vt[:n_components]
    largest = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(n_components), largest])
    components = components * signs[:, None]
    return components''',
        cause="X -= X.mean(axis=0) centres the caller's array in place, so the data passed to pca is overwritten (in the plot, centre is then computed from already-centred points); centre a new array, Xc = X - X.mean(axis=0), and take the SVD of that.",
    ),
    HeldOut(
        name="s07_smb_mean_not_sum",
        assignment=A07,
        cell="softmax_backward_def",
        source='''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # a^T g is the average of g weighted by a, one number per column
  weighted_average = np.mean(A * dA, axis=0, keepdims=True)  # (1, M)
  dS = A * (dA - weighted_average)
  return dS
''',
        cause="The coupling term a^T g is a sum over the column, sum_m a_m g_m, not a mean: np.mean divides it by N, so each column subtracts only 1/N of what the Jacobian diag(a) - a a^T requires. Use np.sum(A * dA, axis=0, keepdims=True) (the notebook's equation for (diag[a] - a a^T) g; Prince ch. 7's chain rule applied to eq. 12.9's softmax).",
    ),
    HeldOut(
        name="s07_ab_dv_missing_transpose",
        assignment=A07,
        cell="attention_backward_def",
        source='''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  D_q = omega_q.shape[0]
  Q = omega_q @ X + beta_q  # (D_q, N)
  K = omega_k @ X + beta_k  # (D_q, N)
  V = omega_v @ X + beta_v  # (D_v, N)
  A = softmax_cols(K.T @ Q / np.sqrt(D_q))  # (N, N)
  # 1. X' = V A
  dV = dX_prime @ A  # (D, N)
  dA = V.T @ dX_prime  # (N, N)
  # 2. the softmax, column by column
  dS = softmax_backward(A, dA)
  # 3. S = c K^T Q
  dQ = K @ dS / np.sqrt(D_q)
  dK = Q @ dS.T / np.sqrt(D_q)
  # 4. the parameters
  gradients = {"d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T, "d_omega_v": dV @ X.T,
               "d_beta_q": np.sum(dQ, axis=1, keepdims=True), "d_beta_k": np.sum(dK, axis=1, keepdims=True),
               "d_beta_v": np.sum(dV, axis=1, keepdims=True)}
  # 5. X made Q, K and V
  gradients["dX"] = omega_q.T @ dQ + omega_k.T @ dK + omega_v.T @ dV
  return gradients
''',
        cause="For X' = V A the rule Y = BC gives dL/dB = (dL/dY) C^T, so dV = dX_prime @ A.T; dX_prime @ A has the right shape only because A is square, and it sends each output's gradient to the wrong value column. Everything downstream of V (d_omega_v, d_beta_v and the value path of dX) inherits the error (the notebook's step 1 of the backward pass through eq. 12.9).",
    ),
    HeldOut(
        name="s07_gc_divided_by_eps",
        assignment=A07,
        cell="gradient_check_def",
        source='''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  numeric = np.zeros(X.shape)
  for index in np.ndindex(X.shape):
    X_plus = X.copy()
    X_plus[index] += eps
    X_minus = X.copy()
    X_minus[index] -= eps
    numeric[index] = (f(X_plus) - f(X_minus)) / eps
  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)
  return relative_error
''',
        cause="The central difference spans 2*eps, from X - eps e_i to X + eps e_i, so it must be divided by 2 * eps; dividing by eps doubles every numeric derivative, and a correct gradient then shows a relative error of about 1/3 instead of rounding-level (the notebook's central-difference formula in section 3).",
    ),
    HeldOut(
        name="s07_mha_dk_scores_not_transposed",
        assignment=A07,
        cell="mha_backward_def",
        source='''def mha_backward(x, params, num_heads, dout):
  # TODO -- the forward pass with a cache, then backwards: W_o and b_o, split the heads' gradient, dV and dA,
  # dS (the softmax's backward along the last axis, times 1/sqrt(d)), dQ and dK, merge them, then the
  # projections' gradients (summed over the batch and the tokens) and dx (three paths)
  cache = {}
  mha_forward(x, params, num_heads, cache)
  Q, K, V, A, heads = cache["Q"], cache["K"], cache["V"], cache["A"], cache["heads"]
  d = Q.shape[-1]
  grads = {}
  grads["W_o"] = np.einsum("btd,bte->de", heads, dout)
  grads["b_o"] = dout.sum(axis=(0, 1))
  d_heads = split_heads(dout @ params["W_o"].T, num_heads)  # (B, H, T, d)
  dV = A.transpose(0, 1, 3, 2) @ d_heads  # (B, H, T, d)
  dA = d_heads @ V.transpose(0, 1, 3, 2)  # (B, H, T, T)
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = dS @ K  # (B, H, T, d)
  dK = dS @ Q  # (B, H, T, d)
  dQ, dK, dV = merge_heads(dQ), merge_heads(dK), merge_heads(dV)
  for name, g in (("q", dQ), ("k", dK), ("v", dV)):
    grads["W_" + name] = np.einsum("btd,bte->de", x, g)
    grads["b_" + name] = g.sum(axis=(0, 1))
  dx = dQ @ params["W_q"].T + dK @ params["W_k"].T + dV @ params["W_v"].T
  return dx, grads
''',
        cause="With S = Q K^T / sqrt(d) in the row convention, entry [t, j] pairs query t with key j, so a key's gradient collects down the column of dS: dK = dS^T Q (dS.transpose(0, 1, 3, 2) @ Q), while dQ = dS K. Writing dS @ Q gives key j the gradient belonging to query j, which corrupts grads['W_k'], grads['b_k'] (no longer zero) and the key path of dx (the transposed form of the notebook's section 2 step 3).",
    ),
    HeldOut(
        name="s08_ln_normalises_input_in_place",
        assignment=A08,
        cell="layer_norm_def",
        source='''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    x -= mean
    x /= np.sqrt(var + eps)
    out = gamma * x + beta
    return out
''',
        cause="The values are right, but x -= mean and x /= ... overwrite the caller's array: after layer_norm(x, ...) the block's residual x + attention(...) adds to the normalised tokens instead of the original ones. Compute x_hat = (x - mean) / np.sqrt(var + eps) as a new array (LayerNorm in Prince section 12.4 is a function of x; it must not change x).",
    ),
    HeldOut(
        name="s08_mlp_np_max_not_maximum",
        assignment=A08,
        cell="mlp_def",
        source='''def mlp(x, W1, b1, W2, b2):
    # The position-wise MLP: x (B, T, D) -> hidden (B, T, D_ff) -> (B, T, D), each token alone
    # TODO -- ReLU(x @ W1 + b1) @ W2 + b2, with np.max(0, ...) as the ReLU
    hidden = np.max(x @ W1 + b1, 0)  # ReLU
    out = hidden @ W2 + b2
    return out
''',
        cause="np.max(z, 0) is not the ReLU: it takes the maximum of z along axis 0, collapsing the batch of sequences into one (T, D_ff) array, so the output has the wrong shape and mixes sequences. The ReLU is the elementwise np.maximum(0, z) (the MLP of Prince section 12.4 acts on each token alone).",
    ),
    HeldOut(
        name="s08_block_mask_true_means_hidden",
        assignment=A08,
        cell="block_def",
        source='''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    # TODO -- make the causal mask (T, T); then, pre-norm:
    #   x = x + attention(layer_norm_1(x)), then x = x + mlp(layer_norm_2(x))
    # or, post-norm:
    #   x = layer_norm_1(x + attention(x)), then x = layer_norm_2(x + mlp(x))
    T = x.shape[1]
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)  # True above the diagonal: the future tokens to hide
    p = params
    if post_norm:
        x = layer_norm(x + multi_head_attention(x, p, num_heads, mask), p["gamma1"], p["beta1"])
        x = layer_norm(x + mlp(x, p["W1"], p["b1"], p["W2"], p["b2"]), p["gamma2"], p["beta2"])
    else:
        x = x + multi_head_attention(layer_norm(x, p["gamma1"], p["beta1"]), p, num_heads, mask)
        x = x + mlp(layer_norm(x, p["gamma2"], p["beta2"]), p["W1"], p["b1"], p["W2"], p["b2"])
    out = x
    return out
''',
        cause="The mask follows PyTorch's nn.MultiheadAttention convention (True = may not attend), but this course's masked_softmax_bool keeps the scores where the mask is True: so every token attends only to the tokens after it, and the last token, with nothing allowed, spreads its weight uniformly. Pass causal_mask(T, T), True on and below the diagonal (the causal decoder block of Prince section 12.7).",
    ),
    HeldOut(
        name="s08_counts_projections_per_head",
        assignment=A08,
        cell="counts_def",
        source='''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    attention = 3 * H * D * D + D * D + 4 * D  # every head has its own W_q, W_k, W_v; one W_o; four biases
    mlp_count = D * D_ff + D_ff + D_ff * D + D
    norms = 4 * D
    count = attention + mlp_count + norms
    return count

def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    d = D // H
    projections = 4 * T * D * D
    scores = H * T * T * d
    weighted_sums = H * T * T * d
    mlp_products = 2 * T * D * D_ff
    flops = projections + scores + weighted_sums + mlp_products
    return flops
''',
        cause="The heads do not each have a (D, D) query, key and value matrix: the single W_q, W_k, W_v of shape (D, D) are split among the H heads, each taking D/H columns, so the attention holds 4 D^2 + 4 D parameters whatever H is (multi-head attention, Prince section 12.3.3: H heads of size D/H share out the projections). Counting 3 H D^2 multiplies the projections by the head count.",
    ),
    HeldOut(
        name="s09_ce_gradient_unweighted",
        assignment=A09,
        cell="cross_entropy_def",
        source='''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    # TODO -- log_p = shifted - log(sum(exp(shifted))) with shifted = logits - max over the last axis;
    # loss = -(sum of weights * log_p at the targets) / sum(weights);
    # dlogits = (softmax - one-hot of the targets) * weights / sum(weights), the weights over the last axis
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    count = np.sum(weights)
    loss = -np.sum(weights * picked) / count
    one_hot = np.zeros_like(logits)
    np.put_along_axis(one_hot, targets[..., None], 1.0, axis=-1)
    dlogits = (np.exp(log_p) - one_hot) / count
    return loss, dlogits
''',
        cause="The loss counts only the positions of weight 1, but the gradient was divided by their count without being multiplied by each position's weight, so the uncounted positions (the unpredictable first digits) also push on the logits. Each position's gradient is (softmax - onehot) * w_bt / sum(w) (the notebook's gradient formula; Prince ch. 5's categorical negative log-likelihood).",
    ),
    HeldOut(
        name="s09_ce_log_of_softmax",
        assignment=A09,
        cell="cross_entropy_def",
        source='''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    # TODO -- log_p = shifted - log(sum(exp(shifted))) with shifted = logits - max over the last axis;
    # loss = -(sum of weights * log_p at the targets) / sum(weights);
    # dlogits = (softmax - one-hot of the targets) * weights / sum(weights), the weights over the last axis
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    probs = np.exp(shifted) / np.sum(np.exp(shifted), axis=-1, keepdims=True)  # (B, T, V)
    p_target = np.take_along_axis(probs, targets[..., None], axis=-1)[..., 0]  # (B, T)
    loss = -np.sum(weights * np.log(p_target)) / np.sum(weights)
    one_hot = np.zeros_like(logits)
    np.put_along_axis(one_hot, targets[..., None], 1.0, axis=-1)
    dlogits = (probs - one_hot) * weights[..., None] / np.sum(weights)
    return loss, dlogits
''',
        cause="The shift keeps np.exp from overflowing, but taking np.log of the softmax afterwards still fails for large logits: a target probability below about 1e-308 underflows to 0 and log gives -inf (and 0 * -inf = nan at the uncounted positions). Compute log_p = shifted - log(sum(exp(shifted))) directly, as the notebook's section 2 says, and pick the target from log_p.",
    ),
    HeldOut(
        name="s09_adam_correction_from_t_plus_one",
        assignment=A09,
        cell="adam_step_def",
        source='''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = new_m / (1 - beta1 ** (t + 1))  # steps counted from 0
    v_hat = new_v / (1 - beta2 ** (t + 1))
    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v
''',
        cause="t already counts the steps from 1 (train_step adds 1 before calling), so the bias correction is 1 - beta**t; using t + 1 under-corrects m and v, most visibly in the first steps where 1 - beta2**t is tiny (Adam's bias correction, Prince section 6.4 / Kingma and Ba's Algorithm 1).",
    ),
    HeldOut(
        name="s09_train_params_rebound",
        assignment=A09,
        cell="train_step_def",
        source='''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    new_params = {}
    for name in params:
        new_params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    params = new_params
    return loss
''',
        cause="params = new_params only rebinds the local name: the caller's dict is never changed, so the model keeps its initial weights while Adam's moments and step count advance, and the loss never falls. Store each new array back into the dict the caller passed, params[name] = ... (the training loop of Prince ch. 6 updates the parameters themselves).",
    ),
    HeldOut(
        name="s10_count_pairs_once_per_word",
        assignment=A10,
        cell="count_pairs_def",
        source='''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  counts = {}
  for word, freq in corpus.items():
    for pair in set(zip(word[:-1], word[1:])):  # the pairs of this word
      counts[pair] = counts.get(pair, 0) + freq
  return counts
''',
        cause="Taking set() of a word's pairs counts a pair once per word even when it occurs several times in it: ('a','a','a','a','</w>') holds ('a','a') three times and 'abab' holds ('a','b') twice. Every position counts, overlapping ones too (the notebook's counting rule; the pair counts of BPE in Prince section 12.5.1 / figure 12.8).",
    ),
    HeldOut(
        name="s10_merge_pair_string_replace",
        assignment=A10,
        cell="merge_pair_def",
        source='''def merge_pair(corpus, pair):
  """A new corpus with every occurrence of pair merged into one symbol, left to right, without overlaps."""
  # TODO -- walk each word from the left; where word[k], word[k + 1] is the pair, put one merged symbol and move on by two
  merged = {}
  spaced = " ".join(pair)
  joined = pair[0] + pair[1]
  for word, freq in corpus.items():
    new_word = tuple(" ".join(word).replace(spaced, joined).split(" "))
    merged[new_word] = merged.get(new_word, 0) + freq
  return merged
''',
        cause="Replacing 'a b' in the space-joined word matches strings, not symbols: in 'ba a a </w>' the text 'a a' first occurs across the end of the symbol 'ba', giving ('baa', 'a', '</w>') instead of ('ba', 'aa', '</w>'). Compare whole symbols, word[k] == pair[0] and word[k + 1] == pair[1] (the notebook's merge rule; Sennrich et al.'s reference code needs regex boundaries for the same reason).",
    ),
    HeldOut(
        name="s10_learn_ties_largest_pair",
        assignment=A10,
        cell="learn_merges_def",
        source='''def learn_merges(corpus, num_merges):
  """The pairs merged, in the order learned: up to num_merges of them."""
  # TODO -- repeat num_merges times: count the pairs, stop if there are none, take the most frequent
  # (ties: the smallest pair), remember it and merge it in the corpus
  merges = []
  for _ in range(num_merges):
    counts = count_pairs(corpus)
    if not counts:
      break
    best = max(counts, key=lambda p: (counts[p], p))  # the most frequent; ties settled by the pair itself
    merges.append(best)
    corpus = merge_pair(corpus, best)
  return merges
''',
        cause="max over (count, pair) breaks ties towards the largest pair, but the rule is the smallest pair among the equally frequent ones, min(counts, key=lambda p: (-counts[p], p)); on a corpus with tied counts the merges come out in another order and another vocabulary (the notebook's tie rule for the learning loop of Prince figure 12.8).",
    ),
    HeldOut(
        name="s10_encode_split_any_whitespace",
        assignment=A10,
        cell="encode_def",
        source='''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  ids = []
  for word in text.split():
    symbols = list(word) + [EOW]
    for a, b in merges:
      out, k = [], 0
      while k < len(symbols):
        if k + 1 < len(symbols) and symbols[k] == a and symbols[k + 1] == b:
          out.append(a + b)
          k += 2
        else:
          out.append(symbols[k])
          k += 1
      symbols = out
    ids.extend(vocab.get(s, vocab[UNK]) for s in symbols)
  return ids
''',
        cause="text.split() with no argument splits at runs of any whitespace and drops empty words, so a double space (or a space at either end) loses its empty word and its '</w>' token, and decoding can no longer give the text back; the rule is text.split(' '), one word between every two single spaces (the notebook's rules for words).",
    ),
    HeldOut(
        name="s11_sample_multinomial_draw",
        assignment=A11,
        cell="sample_def",
        source='''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  # TODO -- n_new times: probs = softmax(logits / temperature), one draw rng.choice(len(probs), p=probs), appended
  ids = list(prompt)
  for _ in range(n_new):
    probs = softmax(np.asarray(next_logits(ids)) / temperature)
    draw = rng.multinomial(1, probs)  # one-hot: the token drawn
    ids.append(int(np.argmax(draw)))
  return ids
''',
        cause="rng.multinomial draws from the right distribution, but it consumes the generator differently from rng.choice(len(probs), p=probs) (a chain of binomial draws instead of one uniform), so the same seed gives other tokens; the rule asks for exactly one rng.choice per step so that sampling is reproducible (the notebook's sampling rule; temperature sampling as in Prince section 12.7).",
    ),
    HeldOut(
        name="s11_top_k_reversed_stable_sort",
        assignment=A11,
        cell="top_k_def",
        source='''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  keep = np.argsort(probs, kind="stable")[::-1][:k]  # largest first
  result = np.zeros_like(probs)
  result[keep] = probs[keep]
  result = result / np.sum(result)
  return result
''',
        cause="Reversing a stable ascending sort does give the largest first, but it also reverses the order of tied probabilities, so when tokens tie for the k-th place (mat and rug after 'the') the larger id is kept instead of the smaller. Sort the negated probabilities, np.argsort(-probs, kind='stable')[:k], which keeps ties in id order (the notebook's top-k tie rule).",
    ),
    HeldOut(
        name="s11_beam_norm_by_steps",
        assignment=A11,
        cell="beam_search_def",
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
        candidates.append((ids, score))
      else:
        logp = log_softmax(next_logits(ids))
        for token in range(len(logp)):
          candidates.append((ids + [token], score + logp[token]))
    scores = np.array([score for _, score in candidates])
    beams = [candidates[i] for i in np.argsort(-scores, kind="stable")[:beam_width]]
  final = np.array([score for _, score in beams])
  if length_norm:
    final = final / n_new  # the average log-probability per new token
  best = beams[int(np.argmax(final))][0]
  return best
''',
        cause="Length normalisation divides each beam's score by its own number of new tokens, len(ids) - len(prompt); a beam that met the end token early has fewer than n_new. Dividing every score by n_new divides them all by the same number, so the ranking, and the answer, are those of the unnormalised search, which still favours stopping early (the notebook's beam-search rules; the book's notebook 12.4 on length normalisation).",
    ),
    HeldOut(
        name="s11_kv_final_layer_norm_skipped",
        assignment=A11,
        cell="decode_step_def",
        source='''def decode_step(params, token, K_cache, V_cache, num_heads):
  """(logits (V,), K, V): one new token, given only it and its sequence's cache (H, t, d), t tokens so far."""
  p = params
  # TODO -- position t = K_cache.shape[1]; x; LayerNorm 1; q, k, v (H, 1, d); append k, v; attend (no mask);
  # W_o and b_o, the residual, LayerNorm 2, the MLP, the residual, the final LayerNorm, W_out and b_out
  t = K_cache.shape[1]
  D = p["W_q"].shape[0]
  d = D // num_heads
  x = p["tok_emb"][token] + p["pos_emb"][t]  # (D,)
  h, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])  # (D,)
  q = (h @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)  # (H, 1, d)
  k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)  # (H, t + 1, d)
  V = np.concatenate([V_cache, v], axis=1)
  weights = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))  # (H, 1, t + 1)
  heads = (weights @ V).reshape(D)  # (D,): head h's d features side by side
  x = x + heads @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x, p["gamma2"], p["beta2"])
  m, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  x = x + m
  logits = x @ p["W_out"] + p["b_out"]  # (V,)
  return logits, K, V
''',
        cause="The read-out skipped the final LayerNorm: model_forward computes logits = LayerNorm_f(x2) @ W_out + b_out with gamma_f and beta_f, so without it the cached step no longer equals the full forward pass. Apply layer_norm_forward(x, p['gamma_f'], p['beta_f']) before W_out (step 5 of the notebook's KV-cache recipe: finish exactly as model_forward does, the final LayerNorm included).",
    ),
]
