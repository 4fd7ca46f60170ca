"""Held-out wrong answers, round 11, part A (2026-11-29, round 11): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='m01_softmax_last_axis_keepdims',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  items_out = items_in.copy()
  # YOUR CODE HERE
  exp_items = np.exp(items_in)
  items_out = exp_items / np.sum(exp_items, axis=-1, keepdims=True)
  return items_out
''',
        cause='The softmax normalises over the last axis with keepdims: right for the 1-D example, but the loop passes a list of N (1,1) dot products, whose last axis has length one, so every weight becomes exp(z)/exp(z) = 1; equation 12.5 divides by the sum over all N items (np.sum with no axis here).',
    ),
    HeldOut(
        name='m01_loop_weight_index_n',
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
    # YOUR CODE HERE
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
  # YOUR CODE HERE
  for m in range(N):
    x_prime = x_prime + attention[n] * all_values[m]

  all_x_prime.append(x_prime)
  all_attention.append(attention)
''',
        cause="The weighted sum uses attention[n], the weight of output n's own position, for every value instead of attention[m]: x'_n must be sum over m of a_mn v_m (equation 12.3), each value with its own weight.",
    ),
    HeldOut(
        name='m02_softmax_cols_shift_as_quotient',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # YOUR CODE HERE
  # exp(x - max) = exp(x) / exp(max): take the largest score of each column out
  col_max = np.max(data_in, axis=0, keepdims=True)
  exp_values = np.exp(data_in) / np.exp(col_max)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax
''',
        cause='The maximum is taken out as a quotient, np.exp(data_in) / np.exp(max), which equals exp(data_in - max) on paper but still exponentiates the raw scores: on large scores both overflow to inf and inf / inf is nan; the subtraction must happen before np.exp, np.exp(data_in - max).',
    ),
    HeldOut(
        name='m02_scaled_by_last_axis_size',
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
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  d_k = Q.shape[-1]  # size of the queries
  scores = K.T @ Q / np.sqrt(d_k)
  attention = softmax_cols(scores)
  X_prime = V @ attention
  return X_prime
''',
        cause="The scale is taken from Q.shape[-1], the last axis as in row-convention code, which in the book's column convention is N, the number of tokens: equation 12.9 divides by the square root of the queries' size D_q = Q.shape[0].",
    ),
    HeldOut(
        name='m03_pe_row_index_as_i',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  # YOUR CODE HERE
  for i in range(D):
    for n in range(N):
      angle = n / 10000 ** (2 * i / D)
      if i % 2 == 0:
        encoding[i, n] = np.sin(angle)
      else:
        encoding[i, n] = np.cos(angle)
  return encoding
''',
        cause='The exponent uses the row index d itself as i, 10000**(2d/D), so each row gets its own frequency and the frequencies fall twice as fast; i counts pairs of rows, so rows 2i and 2i+1 share 10000**(2i/D), that is 2*(d//2)/D.',
    ),
    HeldOut(
        name='m03_checker_permutes_features',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  # YOUR CODE HERE
  equivariant = True
  f_X = f(X)
  for P in generate_permutation_matrices(X.shape[0]):
    if np.max(np.abs(f(P @ X) - P @ f_X)) > tolerance:
      equivariant = False
  return equivariant
''',
        cause='The checker permutes the features (rows) instead of the tokens (columns): it compares f(P @ X) with P @ f(X) for D x D permutations, whereas equivariance is f(X @ P) = f(X) @ P for every N x N permutation matrix P acting on the columns.',
    ),
    HeldOut(
        name='m04_weights_row_convention_qkt',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  d_k = Q.shape[0]
  # softmax(Q K^T / sqrt(d_k))
  attention = softmax_cols(Q @ K.T / np.sqrt(d_k))
  return attention
''',
        cause="The scores are written Q @ K.T as in row-convention code, which with the book's columns gives the D_q x D_q products of query and key features; the N x N dot products of every key with every query are K.T @ Q (eq. 12.8), scaled by sqrt(D_q) (eq. 12.9).",
    ),
    HeldOut(
        name='m04_mh_heads_interleaved_rows',
        assignment=A04,
        cell='multihead_def',
        source=r'''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # Replace this line
  X_prime = np.zeros_like(X)
  # YOUR CODE HERE
  V1 = omega_v1 @ X + beta_v1
  V2 = omega_v2 @ X + beta_v2
  head1 = V1 @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = V2 @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  # stack the two heads into one D x N matrix
  stacked = np.stack([head1, head2], axis=1).reshape(-1, X.shape[1])
  X_prime = omega_c @ stacked
  return X_prime
''',
        cause='The heads are stacked with np.stack(axis=1).reshape, which interleaves their rows (row 0 of head 1, row 0 of head 2, ...), so omega_c mixes the wrong rows; figure 12.6 stacks the heads one above the other, np.vstack([head1, head2]), before omega_c.',
    ),
    HeldOut(
        name='m05_init_global_numpy_rng',
        assignment=A05,
        cell='init_weight_def',
        source=r'''def init_weight(fan_in, fan_out, rng):
    # A weight for X @ W, shape (fan_in, fan_out): mean 0, standard deviation 1/sqrt(fan_in)
    # TODO -- draw it with rng.normal (rng is a np.random.Generator)
    # Replace this line
    W = np.zeros((fan_in, fan_out))
    # YOUR CODE HERE
    W = np.random.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))
    return W
''',
        cause="The weight is drawn with np.random.normal, NumPy's global generator, instead of the rng passed in: the distribution is right but the draw ignores the seed given, so the weights (and every MultiHeadAttention built from them) cannot be reproduced; use rng.normal(0, 1/sqrt(fan_in), (fan_in, fan_out)).",
    ),
    HeldOut(
        name='m05_masked_bool_scores_times_mask',
        assignment=A05,
        cell='masked_softmax_bool_def',
        source=r'''def masked_softmax_bool(scores, mask):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk) where mask is True. mask broadcasts against
    # scores: (B, 1, Tk) from key_padding_mask, (Tq, Tk) from causal_mask, or (B, Tq, Tk)
    # TODO -- set the scores where mask is False to -1e6 with np.where, then take the softmax over the keys
    # Replace this line
    weights = np.zeros_like(scores)
    # YOUR CODE HERE
    masked_scores = scores * mask  # the hidden keys get a score of 0
    weights = softmax(masked_scores)
    return weights
''',
        cause='The mask is applied by multiplying the scores by it, which sets hidden scores to 0 rather than removing them: exp(0) still gives those keys weight; the hidden scores must be replaced by -1e6 (np.where(mask, scores, -1e6)) before the softmax over the keys.',
    ),
    HeldOut(
        name='m06_tokenize_split_single_space',
        assignment=A06,
        cell='tokenize_def',
        source=r'''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    # Replace this line (for now every word is unknown)
    token_ids = [vocab[UNK] for _ in sentence.split()]
    # YOUR CODE HERE
    words = sentence.lower().split(" ")
    token_ids = []
    for word in words:
        if word in vocab:
            token_ids.append(vocab[word])
        else:
            token_ids.append(vocab[UNK])
    return np.array(token_ids, dtype=int)  # (T,)
''',
        cause='The sentence is split with split(" "), at single spaces only: a run of spaces gives empty words (each an <unk> id) and a tab or newline leaves two words stuck together; the brief\'s split() with no argument splits on any run of whitespace.',
    ),
    HeldOut(
        name='m06_pca_centred_per_row',
        assignment=A06,
        cell='pca_def',
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    components = np.zeros((n_components, X.shape[1]))
    # YOUR CODE HERE
    X_centred = X - X.mean(axis=1, keepdims=True)
    U, S, Vt = np.linalg.svd(X_centred, full_matrices=False)
    components = Vt[:n_components]
    for k in range(n_components):
        biggest = np.argmax(np.abs(components[k]))
        if components[k, biggest] < 0:
            components[k] = -components[k]
    return components
''',
        cause="The data are centred per row, X - X.mean(axis=1), subtracting each point's own average; PCA subtracts each feature's mean over all the points, X - X.mean(axis=0), before the SVD.",
    ),
]
