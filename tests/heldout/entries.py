"""Held-out wrong answers (issue 26): written from the release notebooks alone by someone who had not read grader/, to measure the grader's feedback on mistakes it was not built for. Frozen: do not edit to suit the grader."""
from dataclasses import dataclass


@dataclass(frozen=True)
class HeldOut:
    name: str          # short id, unique: "h01_scores_rows"
    assignment: str    # "01_self_attention"
    cell: str          # the grade_id of the TODO cell it replaces
    source: str        # the whole cell, as the student wrote it
    cause: str         # the true cause in one sentence, as a good tutor would tell the student


A01 = "01_self_attention"
A02 = "02_scaled_attention"
A03 = "03_permutation_equivariance"
A04 = "04_multihead_attention"
A05 = "05_batched_masked_attention"
A06 = "06_contextual_embeddings"
A07 = "07_attention_backprop"
A08 = "08_transformer_block"
A09 = "09_tiny_transformer"
A10 = "10_byte_pair_encoding"
A11 = "11_decoding"

ENTRIES = [
    # ------------------------------------------------------------------ 01 self-attention
    HeldOut(
        name="h01_qkv_omega_transposed",
        assignment=A01,
        cell="qkv_loop",
        source='''# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  # x is a column (D, 1): multiply it by the weights
  query = omega_q.T @ x + beta_q
  key = omega_k.T @ x + beta_k
  value = omega_v.T @ x + beta_v

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)
''',
        cause="The weight matrices are transposed: with tokens stored as columns a query is omega_q @ x + beta_q (eq. 12.2), "
              "and omega_q.T @ x applies the weights the wrong way round (the same goes for the keys and values).",
    ),
    HeldOut(
        name="h01_qkv_stale_index",
        assignment=A01,
        cell="qkv_loop",
        source='''# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  query = beta_q + omega_q @ all_x[n]
  key = beta_k + omega_k @ all_x[n]
  value = beta_v + omega_v @ all_x[n]

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)
''',
        cause="Inside `for x in all_x` the code reads all_x[n], but n is not this loop's variable: it is left over from "
              "the inputs cell (n = N - 1), so every token's query, key and value come from the last input; use x.",
    ),
    HeldOut(
        name="h01_softmax_sum_raw",
        assignment=A01,
        cell="softmax_def",
        source='''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # exponentiate, then divide by the total so that they sum to one
  items_out = np.exp(items_in) / np.sum(items_in)
  return items_out
''',
        cause="The denominator adds up the raw scores instead of their exponentials: divide np.exp(items_in) by "
              "np.sum(np.exp(items_in)), so that the outputs are positive and sum to one.",
    ),
    HeldOut(
        name="h01_softmax_loop_from_one",
        assignment=A01,
        cell="softmax_def",
        source='''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  items = np.asarray(items_in, dtype=float)
  items_out = np.zeros_like(items)
  # the denominator: the sum of all the exponentials
  total = 0
  for m in range(1, len(items)):
    total = total + np.exp(items[m])
  # each output is its exponential over the total
  for m in range(len(items)):
    items_out[m] = np.exp(items[m]) / total
  return items_out
''',
        cause="The loop that adds up the denominator starts at index 1, so the first exponential is missing from the sum "
              "and the outputs add up to more than one: Python counts from 0, loop over range(len(items)).",
    ),
    HeldOut(
        name="h01_loop_query_index_m",
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
  for m, key in enumerate(all_keys):
    # TODO -- compute the appropriate dot product
    dot_product = (all_queries[m].T @ key).item()
    # Store dot product
    all_km_qn.append(dot_product)

  # Compute the attention weights of output n
  attention = softmax(all_km_qn)
  # Print result (should be positive and sum to one)
  print("Attentions for output ", n)
  print(np.round(np.ravel(attention), 8))  # 8 decimals: a weight of 1e-13 shows as 0

  # TODO: Compute a weighted sum of all of the values according to the attention
  # (equation 12.3)
  x_prime = np.zeros((D,1))
  for m in range(N):
    x_prime = x_prime + attention[m] * all_values[m]

  all_x_prime.append(x_prime)
  all_attention.append(attention)
''',
        cause="Each key m is dotted with query m instead of with query n, the output being computed, so every output gets "
              "the same weights: the score a_mn compares key m with all_queries[n].",
    ),
    HeldOut(
        name="h01_loop_skip_last_value",
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
    dot_product = np.sum(key * all_queries[n])
    # Store dot product
    all_km_qn.append(dot_product)

  # Compute the attention weights of output n
  attention = softmax(all_km_qn)
  # Print result (should be positive and sum to one)
  print("Attentions for output ", n)
  print(np.round(np.ravel(attention), 8))  # 8 decimals: a weight of 1e-13 shows as 0

  # TODO: Compute a weighted sum of all of the values according to the attention
  # (equation 12.3)
  x_prime = np.zeros((D,1))
  for m in range(N - 1):
    x_prime += attention[m] * all_values[m]

  all_x_prime.append(x_prime)
  all_attention.append(attention)
''',
        cause="The weighted sum loops over range(N - 1), so the last value is left out of every output: range(N) "
              "already stops at index N - 1.",
    ),
    HeldOut(
        name="h01_matrix_global_softmax",
        assignment=A01,
        cell="self_attention_def",
        source='''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # 1. Compute queries, keys, and values
  Q = beta_q + omega_q @ X
  K = beta_k + omega_k @ X
  V = beta_v + omega_v @ X
  # 2. Compute dot products
  dot_products = K.T @ Q
  # 3. Apply softmax to calculate attentions
  attention = np.exp(dot_products) / np.sum(np.exp(dot_products))
  # 4. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause="The softmax divides by the sum over the whole N x N matrix, so no query's weights sum to one: normalise "
              "each column separately (np.sum(..., axis=0), or the given softmax_cols).",
    ),
    HeldOut(
        name="h01_matrix_weights_transposed",
        assignment=A01,
        cell="self_attention_def",
        source='''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  # 2. Compute dot products
  scores = K.T @ Q
  # 3. Apply softmax to calculate attentions
  attention = softmax_cols(scores)
  # 4. Weight values by attentions: output n uses the weights of query n
  X_prime = V @ attention.T
  return X_prime
''',
        cause="The attention matrix is transposed before it weights the values: column n of softmax_cols(K.T @ Q) already "
              "holds output n's weights, so X' = V @ attention; attention.T mixes the weights of different queries.",
    ),
    # ------------------------------------------------------------------ 02 scaled attention
    HeldOut(
        name="h02_softmax_row_max",
        assignment=A02,
        cell="softmax_cols_def",
        source='''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # subtract the maximum first so that np.exp cannot overflow
  shifted = data_in - np.max(data_in, axis=1, keepdims=True)
  exp_values = np.exp(shifted)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax
''',
        cause="The maximum subtracted is each row's (axis=1), not each column's: only a shift that is the same for every "
              "entry of a column leaves that column's softmax unchanged, so use np.max(data_in, axis=0, keepdims=True).",
    ),
    HeldOut(
        name="h02_softmax_divide_by_max",
        assignment=A02,
        cell="softmax_cols_def",
        source='''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # scale each column down so that its largest score has size 1: then np.exp cannot overflow
  scaled = data_in / np.max(np.abs(data_in), axis=0, keepdims=True)
  exp_values = np.exp(scaled)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax
''',
        cause="Dividing each column by its largest magnitude keeps np.exp finite but changes the softmax, which is unchanged "
              "by a shift of the scores, not by a scaling (1000, 999 and 998 become almost equal): subtract each column's "
              "maximum instead.",
    ),
    HeldOut(
        name="h02_softmax_int_buffer",
        assignment=A02,
        cell="softmax_cols_def",
        source='''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  softmax = np.zeros_like(data_in)
  for j in range(data_in.shape[1]):
    column = data_in[:, j]
    e = np.exp(column - np.max(column))
    softmax[:, j] = e / np.sum(e)
  return softmax
''',
        cause="np.zeros_like(data_in) takes data_in's dtype, so for integer scores the output array is an integer array "
              "and every weight stored in it is truncated to 0: create a float array, e.g. "
              "np.zeros(data_in.shape) or np.zeros_like(data_in, dtype=float).",
    ),
    HeldOut(
        name="h02_softmax_clip",
        assignment=A02,
        cell="softmax_cols_def",
        source='''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # np.exp overflows a little past 709: keep the scores below that
  exp_values = np.exp(np.clip(data_in, -700, 700))
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax
''',
        cause="Clipping the scores to +-700 avoids the overflow by changing the scores (1000, 999 and 998 all become 700, "
              "so the column gets equal weights): subtract each column's maximum instead, which leaves the softmax unchanged.",
    ),
    HeldOut(
        name="h02_scaled_multiplied",
        assignment=A02,
        cell="scaled_attention_def",
        source='''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  # 2. Compute dot products
  dots = K.T @ Q
  # 3. Scale the dot products as in equation 12.9
  D_q = Q.shape[0]
  dots = dots * np.sqrt(D_q)
  # 4. Apply softmax to calculate attentions
  attention = softmax_cols(dots)
  # 5. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause="The dot products are multiplied by sqrt(D_q) instead of divided by it, which makes the saturation worse: "
              "equation 12.9 uses K.T @ Q / np.sqrt(D_q).",
    ),
    HeldOut(
        name="h02_scale_precedence",
        assignment=A02,
        cell="scaled_attention_def",
        source='''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  # 2. Compute dot products
  dots = K.T @ Q
  # 3. Scale the dot products as in equation 12.9: the square root of the query size
  D_q = Q.shape[0]
  scale = D_q ** 1/2
  # 4. Apply softmax to calculate attentions
  attention = softmax_cols(dots / scale)
  # 5. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause="D_q ** 1/2 is (D_q ** 1) / 2 = D_q / 2, because ** binds tighter than /; it equals sqrt(D_q) only for "
              "D_q = 4: write D_q ** 0.5 or np.sqrt(D_q).",
    ),
    HeldOut(
        name="h02_scale_size",
        assignment=A02,
        cell="scaled_attention_def",
        source='''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  # 2.-3. Compute the dot products and scale them by the size of the queries
  scores = K.T @ Q / np.sqrt(Q.size)
  # 4. Apply softmax to calculate attentions
  attention = softmax_cols(scores)
  # 5. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause="Q.size counts every entry of Q (D_q x N), not the size of one query: divide by np.sqrt(Q.shape[0]).",
    ),
    HeldOut(
        name="h02_value_bias_missing",
        assignment=A02,
        cell="scaled_attention_def",
        source='''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # 1. Compute queries, keys, and values
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X
  # 2. Compute dot products
  # 3. Scale the dot products as in equation 12.9
  scores = K.T @ Q / np.sqrt(Q.shape[0])
  # 4. Apply softmax to calculate attentions
  attention = softmax_cols(scores)
  # 5. Weight values by attentions
  X_prime = V @ attention
  return X_prime
''',
        cause="The values have no bias: V = omega_v @ X + beta_v (the queries and keys have theirs).",
    ),
    # ------------------------------------------------------------------ 03 permutation equivariance
    HeldOut(
        name="h03_perm_combinations",
        assignment=A03,
        cell="permutation_matrices_def",
        source='''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  permutation_matrices = []
  for order in itertools.combinations(range(n), n):
    permutation_matrices.append(np.eye(n)[:, list(order)])
  return permutation_matrices
''',
        cause="itertools.combinations(range(n), n) lists the ways to choose n columns out of n regardless of order, which "
              "is just one (the identity): the orders are itertools.permutations(range(n)).",
    ),
    HeldOut(
        name="h03_perm_skip_last",
        assignment=A03,
        cell="permutation_matrices_def",
        source='''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  orders = list(itertools.permutations(range(n)))
  permutation_matrices = []
  for k in range(len(orders) - 1):
    permutation_matrices.append(np.eye(n)[:, list(orders[k])])
  return permutation_matrices
''',
        cause="The loop runs over range(len(orders) - 1), so the last order (the columns reversed) is left out and only "
              "n! - 1 matrices come back: loop over every order.",
    ),
    HeldOut(
        name="h03_perm_swaps_only",
        assignment=A03,
        cell="permutation_matrices_def",
        source='''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  permutation_matrices = [np.eye(n)]
  # every other order: swap two columns of the identity
  for i in range(n):
    for j in range(i + 1, n):
      P = np.eye(n)
      P[:, [i, j]] = P[:, [j, i]]
      permutation_matrices.append(P)
  return permutation_matrices
''',
        cause="Swapping one pair of columns gives only the identity and the n(n-1)/2 transpositions; orders that move three "
              "or more columns (the two 3-cycles for n = 3) are missing: there are n! orders, itertools.permutations(range(n)).",
    ),
    HeldOut(
        name="h03_pe_floor_div",
        assignment=A03,
        cell="position_encoding_def",
        source='''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  encoding = np.zeros((D, N))
  for d in range(D):
    i = d // 2
    for n in range(N):
      angle = n / 10000 ** (2 * i // D)
      if d % 2 == 0:
        encoding[d, n] = np.sin(angle)
      else:
        encoding[d, n] = np.cos(angle)
  return encoding
''',
        cause="2 * i // D is floor division, which is 0 for every row (2i < D), so every pair of rows turns at one radian "
              "per position: the exponent is the true division 2 * i / D.",
    ),
    HeldOut(
        name="h03_pe_odd_last_row",
        assignment=A03,
        cell="position_encoding_def",
        source='''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  encoding = np.zeros((D, N))
  positions = np.arange(N)
  for i in range(D // 2):
    angle = positions / 10000 ** (2 * i / D)
    encoding[2 * i] = np.sin(angle)
    encoding[2 * i + 1] = np.cos(angle)
  return encoding
''',
        cause="The loop over pairs of rows runs range(D // 2), so when D is odd the last row (a sine with no cosine below "
              "it) is never filled and stays zero: loop over range((D + 1) // 2) and write the cosine only when 2i + 1 < D.",
    ),
    HeldOut(
        name="h03_pe_over_N",
        assignment=A03,
        cell="position_encoding_def",
        source='''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  encoding = np.zeros((D, N))
  positions = np.arange(N)
  for d in range(D):
    i = d // 2
    angle = positions / 10000 ** (2 * i / N)
    if d % 2 == 0:
      encoding[d] = np.sin(angle)
    else:
      encoding[d] = np.cos(angle)
  return encoding
''',
        cause="The exponent divides by N, the number of positions, instead of D, the number of rows: the frequency of rows "
              "2i and 2i+1 is 1 / 10000 ** (2 * i / D).",
    ),
    HeldOut(
        name="h03_checker_last_only",
        assignment=A03,
        cell="checker_def",
        source='''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  equivariant = False
  for P in generate_permutation_matrices(X.shape[1]):
    difference = np.max(np.abs(f(X @ P) - f(X) @ P))
    if difference <= tolerance:
      equivariant = True
    else:
      equivariant = False
  return equivariant
''',
        cause="The flag is overwritten for every permutation, so the answer is the verdict of the last P alone and a "
              "failure for an earlier P is forgotten: return False as soon as one P fails, and True only after all passed.",
    ),
    HeldOut(
        name="h03_checker_invariance",
        assignment=A03,
        cell="checker_def",
        source='''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  equivariant = True
  f_X = f(X)
  for P in generate_permutation_matrices(X.shape[1]):
    # shuffling the tokens should not change the output
    if np.max(np.abs(f(X @ P) - f_X)) > tolerance:
      equivariant = False
  return equivariant
''',
        cause="It compares f(X @ P) with f(X), which tests invariance (the output does not move at all); equivariance "
              "compares it with f(X) @ P, the output shuffled the same way as the input.",
    ),
    # ------------------------------------------------------------------ 04 multi-head attention
    HeldOut(
        name="h04_weights_global_H",
        assignment=A04,
        cell="attention_weights_def",
        source='''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  # a head's queries have size D/H
  attention = softmax_cols(K.T @ Q / np.sqrt(X.shape[0] / H))
  return attention
''',
        cause="The scale divides X's size by the notebook's global H (2), which is the head's size only in the book's "
              "example: take it from the head's own queries, np.sqrt(Q.shape[0]) (or omega_q.shape[0]).",
    ),
    HeldOut(
        name="h04_weights_rowmax_shift",
        assignment=A04,
        cell="attention_weights_def",
        source='''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  scores = K.T @ Q / np.sqrt(Q.shape[0])
  # subtract the largest score first, for stability
  scores = scores - np.max(scores, axis=-1, keepdims=True)
  attention = softmax_cols(scores)
  return attention
''',
        cause="The maximum subtracted is each row's (axis=-1), but the softmax runs down each column, and only a shift "
              "that is the same for a whole column leaves its softmax unchanged: drop the line (softmax_cols already "
              "subtracts each column's maximum) or use axis=0.",
    ),
    HeldOut(
        name="h04_weights_no_query_bias",
        assignment=A04,
        cell="attention_weights_def",
        source='''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  Q = omega_q @ X
  K = omega_k @ X + beta_k
  attention = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
  return attention
''',
        cause="The queries have no bias: Q = omega_q @ X + beta_q (leaving out the key bias would change nothing, but the "
              "query bias changes the weights).",
    ),
    HeldOut(
        name="h04_mh_omega_c_transposed",
        assignment=A04,
        cell="multihead_def",
        source='''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  head1 = (omega_v1 @ X + beta_v1) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = (omega_v2 @ X + beta_v2) @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  stacked = np.vstack([head1, head2])
  X_prime = omega_c.T @ stacked
  return X_prime
''',
        cause="omega_c is transposed: in the column convention the heads are mixed by omega_c @ (heads stacked), so row d "
              "of the output is row d of omega_c times the stacked matrix.",
    ),
    HeldOut(
        name="h04_mh_copy_paste_bias",
        assignment=A04,
        cell="multihead_def",
        source='''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  # head 1
  V1 = omega_v1 @ X + beta_v1
  A1 = attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  # head 2
  V2 = omega_v2 @ X + beta_v1
  A2 = attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  X_prime = omega_c @ np.vstack([V1 @ A1, V2 @ A2])
  return X_prime
''',
        cause="Head 2's values use head 1's bias beta_v1 (a copy-paste slip): V2 = omega_v2 @ X + beta_v2.",
    ),
    HeldOut(
        name="h04_mh_residual_added",
        assignment=A04,
        cell="multihead_def",
        source='''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
  # TODO -- Write this function: two heads, stacked, then mixed by omega_c (figure 12.6)
  head1 = (omega_v1 @ X + beta_v1) @ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)
  head2 = (omega_v2 @ X + beta_v2) @ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)
  # mix the heads, and keep the input (residual connection)
  X_prime = X + omega_c @ np.vstack([head1, head2])
  return X_prime
''',
        cause="A residual connection (+ X) was added: multi-head self-attention is omega_c @ (heads stacked) alone; adding "
              "the input back is the job of the transformer layer around it (section 12.4).",
    ),
    HeldOut(
        name="h04_general_skips_first_head",
        assignment=A04,
        cell="multihead_general_def",
        source='''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  H = len(omegas_v)
  head_size = X.shape[0] // H
  stacked = np.zeros_like(X)
  for h in range(1, H):
    A = attention_weights(X, omegas_q[h], omegas_k[h], betas_q[h], betas_k[h])
    stacked[h * head_size:(h + 1) * head_size] = (omegas_v[h] @ X + betas_v[h]) @ A
  X_prime = omega_c @ stacked
  return X_prime
''',
        cause="The loop over heads starts at 1, so the first head (index 0) is never computed and its rows of the stacked "
              "matrix stay zero: loop over range(H).",
    ),
    HeldOut(
        name="h04_general_concat_reshape",
        assignment=A04,
        cell="multihead_general_def",
        source='''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  heads = []
  for h in range(len(omegas_v)):
    A = attention_weights(X, omegas_q[h], omegas_k[h], betas_q[h], betas_k[h])
    heads.append((omegas_v[h] @ X + betas_v[h]) @ A)
  # put the heads together into one D x N matrix
  stacked = np.concatenate(heads, axis=1).reshape(X.shape[0], X.shape[1])
  X_prime = omega_c @ stacked
  return X_prime
''',
        cause="The heads were joined side by side (axis=1) and then reshaped to D x N; a reshape reads row by row, so the "
              "rows of the heads come out interleaved instead of head 1 on top of head 2: stack them with np.vstack(heads).",
    ),
    # ------------------------------------------------------------------ 05 batched, masked attention
    HeldOut(
        name="h05_masked_clamp_empty",
        assignment=A05,
        cell="masked_softmax_def",
        source='''def masked_softmax(scores, valid_lens):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk), the keys at or past each valid length masked.
    # valid_lens: None (no mask), (B,) one length per sequence, or (B, Tq) one length per query.
    if valid_lens is None:
        return softmax(scores)
    # a length of 0 would mask every key of the query: let every query see at least one key
    valid_lens = np.maximum(valid_lens, 1)
    if valid_lens.ndim == 1:
        valid_lens = valid_lens[:, None]  # (B, 1): the same length for every query
    mask = np.arange(scores.shape[-1]) < valid_lens[:, :, None]  # (B, Tq or 1, Tk)
    weights = softmax(np.where(mask, scores, -1e6))
    return weights
''',
        cause="Lengths of 0 were raised to 1, so a query with no valid key puts all its weight on key 0 (a padding key) "
              "instead of getting the course's uniform weights: leave the lengths as they are, since -1e6 on every key "
              "already gives 1/Tk each.",
    ),
    HeldOut(
        name="h05_masked_inplace",
        assignment=A05,
        cell="masked_softmax_def",
        source='''def masked_softmax(scores, valid_lens):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk), the keys at or past each valid length masked.
    # valid_lens: None (no mask), (B,) one length per sequence, or (B, Tq) one length per query.
    if valid_lens is None:
        return softmax(scores)
    B, Tq, Tk = scores.shape
    if valid_lens.ndim == 1:
        lens = np.repeat(valid_lens, Tq)  # one length per query
    else:
        lens = valid_lens.reshape(-1)
    flat = scores.reshape(-1, Tk)  # (B*Tq, Tk)
    mask = np.arange(Tk)[None, :] < lens[:, None]
    flat[~mask] = -1e6  # the padding keys get a large negative score
    weights = softmax(flat).reshape(B, Tq, Tk)
    return weights
''',
        cause="scores.reshape(-1, Tk) is a view of the caller's array, so flat[~mask] = -1e6 overwrites the caller's "
              "scores: build a new array instead, np.where(mask, scores, -1e6).",
    ),
    HeldOut(
        name="h05_loop_slice_offset",
        assignment=A05,
        cell="loop_heads",
        source='''split_dim = E // H
heads = []
for i in range(H):
    # TODO -- head i: take its slice of the features of q, k and v (split_dim of them), its dot products
    # scaled by the square root of the head's size, their softmax over the keys, and the weighted sum
    # of the values: local_head, (B, C, E / H)
    q_head = q[:, :, i:i + split_dim]  # (B, C, split_dim)
    k_head = k[:, i:i + split_dim]  # (C, split_dim)
    v_head = v[:, i:i + split_dim]  # (C, split_dim)
    weights = softmax(q_head @ k_head.T / np.sqrt(split_dim))  # (B, C, C)
    local_head = weights @ v_head
    heads.append(local_head)
raw_multi_head_output = np.concatenate(heads, axis=-1)  # (B, C, E)
attention = raw_multi_head_output @ proj  # (B, C, E)
print("proj(concat) -> attention", attention.shape)
''',
        cause="Head i's slice starts at feature i instead of i * split_dim, so the heads overlap and the last features are "
              "never used: slice i * split_dim:(i + 1) * split_dim.",
    ),
    HeldOut(
        name="h05_loop_values_first_slice",
        assignment=A05,
        cell="loop_heads",
        source='''split_dim = E // H
heads = []
for i in range(H):
    # TODO -- head i: take its slice of the features of q, k and v (split_dim of them), its dot products
    # scaled by the square root of the head's size, their softmax over the keys, and the weighted sum
    # of the values: local_head, (B, C, E / H)
    start, stop = i * split_dim, (i + 1) * split_dim
    q_head = q[:, :, start:stop]
    k_head = k[:, start:stop]
    v_head = v[:, :split_dim]
    scores = q_head @ k_head.T / np.sqrt(split_dim)
    local_head = softmax(scores) @ v_head
    heads.append(local_head)
raw_multi_head_output = np.concatenate(heads, axis=-1)  # (B, C, E)
attention = raw_multi_head_output @ proj  # (B, C, E)
print("proj(concat) -> attention", attention.shape)
''',
        cause="Every head takes its values from the first split_dim features (v[:, :split_dim]); head i's values are "
              "v[:, start:stop], the same slice as its queries and keys.",
    ),
    HeldOut(
        name="h05_split_head_major",
        assignment=A05,
        cell="transpose_qkv_def",
        source='''def transpose_qkv(X, num_heads):
    # Split the features into heads: X (B, T, D) -> (B*H, T, D/H); item b*H + h is head h of sequence b
    # TODO -- reshape to (B, T, H, D/H), move the heads before the tokens (B, H, T, D/H),
    # then merge the batch and head axes: (B*H, T, D/H)
    B, T, D = X.shape
    X_split = X.reshape(B, T, num_heads, D // num_heads)  # (B, T, H, d)
    X_split = X_split.transpose(2, 0, 1, 3)  # the heads in front
    X_split = X_split.reshape(num_heads * B, T, D // num_heads)
    return X_split
''',
        cause="The heads were moved in front of the batch, (H, B, T, d), so item h*B + b is head h of sequence b, not item "
              "b*H + h as the rest of the code expects: transpose to (B, H, T, d) with transpose(0, 2, 1, 3).",
    ),
    HeldOut(
        name="h05_merge_head_major",
        assignment=A05,
        cell="transpose_output_def",
        source='''def transpose_output(X, num_heads):
    # Undo transpose_qkv: X (B*H, T, d) -> (B, T, H*d), the heads' features side by side
    # TODO -- reshape to (B, H, T, d), move the heads after the tokens (B, T, H, d),
    # then merge the head and feature axes: (B, T, H*d)
    BH, T, d = X.shape
    B = BH // num_heads
    X_merged = X.reshape(num_heads, B, T, d)
    X_merged = X_merged.transpose(1, 2, 0, 3)  # (B, T, H, d)
    X_merged = X_merged.reshape(B, T, num_heads * d)
    return X_merged
''',
        cause="It reads the items as (H, B, ...), heads first, but transpose_qkv stores them sequence by sequence, item "
              "b*H + h: reshape to (B, H, T, d) first, then transpose(0, 2, 1, 3).",
    ),
    HeldOut(
        name="h05_init_std_as_mean",
        assignment=A05,
        cell="init_weight_def",
        source='''def init_weight(fan_in, fan_out, rng):
    # A weight for X @ W, shape (fan_in, fan_out): mean 0, standard deviation 1/sqrt(fan_in)
    # TODO -- draw it with rng.normal (rng is a np.random.Generator)
    W = rng.normal(1 / np.sqrt(fan_in), size=(fan_in, fan_out))
    return W
''',
        cause="rng.normal's first argument is the mean (loc), not the standard deviation, so these weights have mean "
              "1/sqrt(fan_in) and std 1: pass it as the scale, rng.normal(0, 1 / np.sqrt(fan_in), size=...).",
    ),
    HeldOut(
        name="h05_mha_self_only",
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
        H = self.num_heads
        # 1. project and split into heads
        Q = transpose_qkv(queries @ self.W_q + self.b_q, H)
        K = transpose_qkv(queries @ self.W_k + self.b_k, H)
        V = transpose_qkv(queries @ self.W_v + self.b_v, H)
        # 2. every head of sequence b has sequence b's lengths
        if valid_lens is not None:
            valid_lens = np.repeat(valid_lens, H, axis=0)
        # 3. scaled dot products, masked softmax, weighted sum
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])
        self.attention_weights = masked_softmax(scores, valid_lens)
        # 4. merge the heads and project
        output = transpose_output(self.attention_weights @ V, H) @ self.W_o + self.b_o
        return output
''',
        cause="The keys and values are projected from the queries argument, which is right only for self-attention: in "
              "cross-attention they are keys @ self.W_k + self.b_k and values @ self.W_v + self.b_v.",
    ),
    HeldOut(
        name="h05_mha_no_output_bias",
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
        H = self.num_heads
        Q = transpose_qkv(queries @ self.W_q + self.b_q, H)  # (B*H, Tq, d)
        K = transpose_qkv(keys @ self.W_k + self.b_k, H)  # (B*H, Tk, d)
        V = transpose_qkv(values @ self.W_v + self.b_v, H)  # (B*H, Tk, d)
        if valid_lens is not None:
            valid_lens = np.repeat(valid_lens, H, axis=0)
        d = Q.shape[-1]
        scores = Q @ np.swapaxes(K, 1, 2) / np.sqrt(d)  # (B*H, Tq, Tk)
        self.attention_weights = masked_softmax(scores, valid_lens)
        heads = transpose_output(self.attention_weights @ V, H)  # (B, Tq, num_hiddens)
        output = heads @ self.W_o
        return output
''',
        cause="The output projection's bias is missing: finish with transpose_output(...) @ self.W_o + self.b_o (with "
              "bias=True the grader's b_o is not zero).",
    ),
    HeldOut(
        name="h05_causal_strict",
        assignment=A05,
        cell="boolean_masks_def",
        source='''def key_padding_mask(valid_lens, num_keys):
    # True where key j of sequence b may be attended, j < valid_lens[b]: (B,) -> (B, 1, Tk)
    # TODO -- compare np.arange(num_keys) with valid_lens shaped (B, 1, 1): broadcasting, no loop
    mask = np.arange(num_keys)[None, None, :] < valid_lens[:, None, None]
    return mask

def causal_mask(num_queries, num_keys):
    # True where query t may attend to key j, that is j <= t: (Tq, Tk), the same for every sequence
    # TODO -- keep the entries on and below the diagonal of a (Tq, Tk) array of True (np.tril)
    # below the diagonal: the keys before the query
    mask = np.tril(np.ones((num_queries, num_keys), dtype=bool), k=-1)
    return mask

print(key_padding_mask(np.array([2, 3]), 4).astype(int))  # (2, 1, 4)
print(causal_mask(2, 4).astype(int))  # (2, 4)
''',
        cause="np.tril with k=-1 keeps only the entries strictly below the diagonal, so no query may attend to itself (and "
              "query 0 sees no key at all): query t sees keys 0..t, the diagonal included, np.tril(..., k=0).",
    ),
    HeldOut(
        name="h05_bool_double_mask",
        assignment=A05,
        cell="masked_softmax_bool_def",
        source='''def masked_softmax_bool(scores, mask):
    # Softmax over the keys (last axis) of scores (B, Tq, Tk) where mask is True. mask broadcasts against
    # scores: (B, 1, Tk) from key_padding_mask, (Tq, Tk) from causal_mask, or (B, Tq, Tk)
    # TODO -- set the scores where mask is False to -1e6 with np.where, then take the softmax over the keys
    weights = softmax(np.where(mask, scores, -1e6))
    # and make sure the masked keys get exactly zero weight
    weights = weights * mask
    return weights
''',
        cause="Multiplying by the mask after the softmax changes nothing for a query with some valid key but zeroes the "
              "whole row of a query with no valid key, which should keep the uniform weights (1/Tk each) that -1e6 gives: "
              "drop the multiplication.",
    ),
    # ------------------------------------------------------------------ 06 contextual embeddings
    HeldOut(
        name="h06_tokenize_or_default",
        assignment=A06,
        cell="tokenize_def",
        source='''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    token_ids = []
    for word in sentence.lower().split():
        token_ids.append(vocab.get(word) or vocab[UNK])
    return np.array(token_ids, dtype=int)  # (T,)
''',
        cause="vocab.get(word) or vocab[UNK] treats an id of 0 as missing, because 0 is falsy, so a known word whose id is "
              "0 becomes <unk>: use vocab.get(word, vocab[UNK]), which falls back only when the word is absent.",
    ),
    HeldOut(
        name="h06_tokenize_first_letter_only",
        assignment=A06,
        cell="tokenize_def",
        source='''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    # the sentence starts with a capital letter: make it lower case
    sentence = sentence[0].lower() + sentence[1:]
    token_ids = [vocab.get(word, vocab[UNK]) for word in sentence.split()]
    return np.array(token_ids, dtype=int)  # (T,)
''',
        cause="Only the sentence's first character was lower-cased, so capitals elsewhere ('RIVER', 'Boat') still miss the "
              "vocabulary and become <unk>: lower-case the whole sentence, sentence.lower().",
    ),
    HeldOut(
        name="h06_embed_minus_one",
        assignment=A06,
        cell="embeddings_def",
        source='''def text_to_word_embeddings(text, vocab, embedding_matrix):
    """The embeddings of the words of a text, looked up in the table: (1, T, D)."""
    # TODO -- token ids of the text (your tokenize), their rows of embedding_matrix,
    #         and a batch axis in front (np.newaxis): shape (1, T, D).
    #         Never draw a new table here: look up the one you are given.
    token_ids = tokenize(text, vocab)
    # rows are numbered from 0
    word_embeddings = embedding_matrix[token_ids - 1][np.newaxis]
    return word_embeddings
''',
        cause="The ids already count from 0, like the rows of the table: subtracting 1 gives every word the previous id's "
              "row (and id 0 the last row): index with the ids as they are, embedding_matrix[token_ids].",
    ),
    HeldOut(
        name="h06_embed_unique",
        assignment=A06,
        cell="embeddings_def",
        source='''def text_to_word_embeddings(text, vocab, embedding_matrix):
    """The embeddings of the words of a text, looked up in the table: (1, T, D)."""
    # TODO -- token ids of the text (your tokenize), their rows of embedding_matrix,
    #         and a batch axis in front (np.newaxis): shape (1, T, D).
    #         Never draw a new table here: look up the one you are given.
    token_ids = np.unique(tokenize(text, vocab))  # the tokens of the text
    word_embeddings = embedding_matrix[token_ids][np.newaxis]
    return word_embeddings
''',
        cause="np.unique sorts the ids and drops repeats, so the rows come in id order, not sentence order, and a repeated "
              "word appears once: look up tokenize(text, vocab) as it is, one row per word in order.",
    ),
    HeldOut(
        name="h06_sa_out_proj_transposed",
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
        # 1. queries, keys and values
        Q = embeddings @ self.q_proj
        K = embeddings @ self.k_proj
        V = embeddings @ self.v_proj
        # 2. split into heads: (B, H, T, d)
        Q = Q.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        K = K.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        V = V.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        # 3. attention weights over the keys
        attn_weights = self.softmax(Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d))
        # 4. weighted values, heads side by side, output weights (the book's omega_c, transposed for rows)
        heads = (attn_weights @ V).transpose(0, 2, 1, 3).reshape(B, T, D)
        output = heads @ self.out_proj.T
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output
''',
        cause="The output weights are transposed: in the row convention every projection multiplies from the right by the "
              "weight itself, heads @ self.out_proj, just as the queries are embeddings @ self.q_proj.",
    ),
    HeldOut(
        name="h06_sa_values_unprojected",
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
        Q = (embeddings @ self.q_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        K = (embeddings @ self.k_proj).reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        V = embeddings.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # the values: the words themselves
        attn_weights = self.softmax(Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d))  # (B, H, T, T)
        output = (attn_weights @ V).transpose(0, 2, 1, 3).reshape(B, T, D) @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output
''',
        cause="The values are the embeddings themselves: they must be projected too, V = embeddings @ self.v_proj, then "
              "split into heads like Q and K.",
    ),
    HeldOut(
        name="h06_pca_global_mean",
        assignment=A06,
        cell="pca_def",
        source='''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    Xc = X - np.mean(X)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    components = Vt[:n_components]
    for k in range(n_components):
        if components[k, np.argmax(np.abs(components[k]))] < 0:
            components[k] = -components[k]
    return components
''',
        cause="np.mean(X) without an axis is one number, the mean of every entry, so the features are not each centred on "
              "their own mean: subtract X.mean(axis=0), one mean per feature (column).",
    ),
    HeldOut(
        name="h06_pca_sign_first_entry",
        assignment=A06,
        cell="pca_def",
        source='''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    Xc = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    components = Vt[:n_components]
    # make each axis point the same way every time
    signs = np.sign(components[:, 0])
    components = components * signs[:, None]
    return components
''',
        cause="The signs were fixed by each axis's first entry, but the rule is its largest-magnitude entry: flip each axis "
              "so that the entry with the largest absolute value is positive.",
    ),
    # ------------------------------------------------------------------ 07 attention backprop
    HeldOut(
        name="h07_smb_sum_without_a",
        assignment=A07,
        cell="softmax_backward_def",
        source='''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # a * (g - a^T g), for all the columns at once
  dS = A * (dA - np.sum(dA, axis=0, keepdims=True))
  return dS
''',
        cause="The coupling term a^T g is the sum of the column of dA weighted by A, np.sum(A * dA, axis=0, keepdims=True); "
              "the plain sum of dA leaves out the weights.",
    ),
    HeldOut(
        name="h07_smb_diagonal_only",
        assignment=A07,
        cell="softmax_backward_def",
        source='''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # the derivative of each weight with respect to its own score is a (1 - a)
  dS = A * (1 - A) * dA
  return dS
''',
        cause="Only the diagonal of the Jacobian, a_m (1 - a_m), was used, as for a sigmoid: the off-diagonal terms -a_m a_j "
              "couple each score to every weight of its column, so dS = A * (dA - np.sum(A * dA, axis=0, keepdims=True)).",
    ),
    HeldOut(
        name="h07_ab_dx_no_value_path",
        assignment=A07,
        cell="attention_backward_def",
        source='''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  # forward
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  c = 1 / np.sqrt(Q.shape[0])
  A = softmax_cols(c * K.T @ Q)
  # 1. X' = V A
  dV = dX_prime @ A.T
  dA = V.T @ dX_prime
  # 2. softmax
  dS = softmax_backward(A, dA)
  # 3. S = c K^T Q
  dQ = c * K @ dS
  dK = c * Q @ dS.T
  # 4. parameters
  gradients = {"d_omega_v": dV @ X.T, "d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T,
               "d_beta_v": np.sum(dV, axis=1, keepdims=True), "d_beta_q": np.sum(dQ, axis=1, keepdims=True),
               "d_beta_k": np.sum(dK, axis=1, keepdims=True)}
  # 5. X made the queries and the keys
  gradients["dX"] = omega_q.T @ dQ + omega_k.T @ dK
  return gradients
''',
        cause="dX leaves out the path through the values: X also made V = omega_v @ X + beta_v, so add omega_v.T @ dV to "
              "the query and key paths.",
    ),
    HeldOut(
        name="h07_ab_dA_transposed",
        assignment=A07,
        cell="attention_backward_def",
        source='''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  D_q = Q.shape[0]
  A = softmax_cols(K.T @ Q / np.sqrt(D_q))
  # step 1
  dV = dX_prime @ A.T
  dA = dX_prime.T @ V
  # step 2
  dS = softmax_backward(A, dA)
  # step 3
  dQ = K @ dS / np.sqrt(D_q)
  dK = Q @ dS.T / np.sqrt(D_q)
  # steps 4 and 5
  gradients = {"dX": omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK,
               "d_omega_v": dV @ X.T, "d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T,
               "d_beta_v": dV.sum(axis=1, keepdims=True), "d_beta_q": dQ.sum(axis=1, keepdims=True),
               "d_beta_k": dK.sum(axis=1, keepdims=True)}
  return gradients
''',
        cause="dA is transposed: from X' = V @ A the rule gives dA = V.T @ dX_prime, whose entry [m, n] pairs value m with "
              "output n; dX_prime.T @ V is its transpose.",
    ),
    HeldOut(
        name="h07_ab_scale_twice",
        assignment=A07,
        cell="attention_backward_def",
        source='''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  D_q = Q.shape[0]
  S = K.T @ Q / np.sqrt(D_q)
  A = softmax_cols(S)
  # 1.
  dV = dX_prime @ A.T
  dA = V.T @ dX_prime
  # 2. back through the softmax and the scaling
  dS = softmax_backward(A, dA) / np.sqrt(D_q)
  # 3. don't forget c
  dQ = K @ dS / np.sqrt(D_q)
  dK = Q @ dS.T / np.sqrt(D_q)
  # 4.
  gradients = {"d_omega_v": dV @ X.T, "d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T,
               "d_beta_v": dV.sum(axis=1, keepdims=True), "d_beta_q": dQ.sum(axis=1, keepdims=True),
               "d_beta_k": dK.sum(axis=1, keepdims=True)}
  # 5.
  gradients["dX"] = omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK
  return gradients
''',
        cause="The factor 1/sqrt(D_q) is applied twice, once to dS and again in dQ and dK: the forward pass scales the "
              "scores once, so the chain rule multiplies by it once.",
    ),
    HeldOut(
        name="h07_gc_not_restored",
        assignment=A07,
        cell="gradient_check_def",
        source='''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  X_shift = X.copy()  # never change X itself
  numeric = np.zeros_like(X, dtype=float)
  for index in np.ndindex(X.shape):
    X_shift[index] += eps
    f_plus = f(X_shift)
    X_shift[index] -= 2 * eps
    f_minus = f(X_shift)
    numeric[index] = (f_plus - f_minus) / (2 * eps)
  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)
  return relative_error
''',
        cause="Each entry is left at x - eps after its difference (shifted by +eps, then -2 eps, and never put back), so "
              "every later difference is taken at a point where the earlier entries are off by eps: add eps back after "
              "f_minus (or start from a fresh copy of X for each entry).",
    ),
    HeldOut(
        name="h07_gc_denominator_eps",
        assignment=A07,
        cell="gradient_check_def",
        source='''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  numeric = np.zeros(X.shape)
  for index in np.ndindex(X.shape):
    X_plus = X.astype(float).copy()
    X_minus = X.astype(float).copy()
    X_plus[index] += eps
    X_minus[index] -= eps
    numeric[index] = (f(X_plus) - f(X_minus)) / eps
  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)
  return relative_error
''',
        cause="The central difference spans 2 eps (from x - eps to x + eps), so it must be divided by 2 * eps; dividing by "
              "eps doubles every numeric derivative.",
    ),
    HeldOut(
        name="h07_mha_dK_not_transposed",
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
  dV = A.transpose(0, 1, 3, 2) @ d_heads
  dA = d_heads @ V.transpose(0, 1, 3, 2)
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = dS @ K
  dK = dS @ Q
  dx = np.zeros_like(x)
  for name, g in (("q", dQ), ("k", dK), ("v", dV)):
    g = merge_heads(g)  # (B, T, D)
    grads["W_" + name] = np.einsum("btd,bte->de", x, g)
    grads["b_" + name] = g.sum(axis=(0, 1))
    dx = dx + g @ params["W_" + name].T
  return dx, grads
''',
        cause="dK needs dS transposed: S = Q K^T / sqrt(d), so dK = dS^T Q (dS.transpose(0, 1, 3, 2) @ Q); dS @ Q pairs "
              "each key with the wrong queries.",
    ),
    HeldOut(
        name="h07_mha_Wo_not_transposed",
        assignment=A07,
        cell="mha_backward_def",
        source='''def mha_backward(x, params, num_heads, dout):
  # TODO -- the forward pass with a cache, then backwards: W_o and b_o, split the heads' gradient, dV and dA,
  # dS (the softmax's backward along the last axis, times 1/sqrt(d)), dQ and dK, merge them, then the
  # projections' gradients (summed over the batch and the tokens) and dx (three paths)
  cache = {}
  mha_forward(x, params, num_heads, cache)
  Q, K, V, A = cache["Q"], cache["K"], cache["V"], cache["A"]
  d = Q.shape[-1]
  grads = {"W_o": np.einsum("btd,bte->de", cache["heads"], dout), "b_o": np.sum(dout, axis=(0, 1))}
  # back through the output projection
  d_heads = split_heads(dout @ params["W_o"], num_heads)
  dA = d_heads @ V.transpose(0, 1, 3, 2)
  dV = A.transpose(0, 1, 3, 2) @ d_heads
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = merge_heads(dS @ K)
  dK = merge_heads(dS.transpose(0, 1, 3, 2) @ Q)
  dV = merge_heads(dV)
  grads["W_q"] = np.einsum("btd,bte->de", x, dQ)
  grads["W_k"] = np.einsum("btd,bte->de", x, dK)
  grads["W_v"] = np.einsum("btd,bte->de", x, dV)
  grads["b_q"] = dQ.sum(axis=(0, 1))
  grads["b_k"] = dK.sum(axis=(0, 1))
  grads["b_v"] = dV.sum(axis=(0, 1))
  dx = dQ @ params["W_q"].T + dK @ params["W_k"].T + dV @ params["W_v"].T
  return dx, grads
''',
        cause="The gradient that reaches the heads is dout @ W_o.T: the output is heads @ W_o, so going back multiplies by "
              "W_o transposed.",
    ),
    # ------------------------------------------------------------------ 08 transformer block
    HeldOut(
        name="h08_ln_sqrt_of_std",
        assignment=A08,
        cell="layer_norm_def",
        source='''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    mean = np.mean(x, axis=-1, keepdims=True)
    std = np.std(x, axis=-1, keepdims=True)
    x_hat = (x - mean) / np.sqrt(std + eps)
    out = gamma * x_hat + beta
    return out
''',
        cause="np.std is already the square root of the variance, so np.sqrt(std + eps) divides by the fourth root of the "
              "variance: use np.sqrt(np.var(x, axis=-1, keepdims=True) + eps).",
    ),
    HeldOut(
        name="h08_ln_whole_sequence",
        assignment=A08,
        cell="layer_norm_def",
        source='''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # normalise each sequence of the batch (its tokens and features)
    mean = np.mean(x, axis=(1, 2), keepdims=True)
    var = np.var(x, axis=(1, 2), keepdims=True)
    out = gamma * (x - mean) / np.sqrt(var + eps) + beta
    return out
''',
        cause="The statistics were taken over all the tokens and features of each sequence (axis=(1, 2)); LayerNorm "
              "normalises each token alone over its own D features, axis=-1.",
    ),
    HeldOut(
        name="h08_mlp_no_b2",
        assignment=A08,
        cell="mlp_def",
        source='''def mlp(x, W1, b1, W2, b2):
    # The position-wise MLP: x (B, T, D) -> hidden (B, T, D_ff) -> (B, T, D), each token alone
    # TODO -- ReLU(x @ W1 + b1) @ W2 + b2, with np.maximum(0, ...) as the ReLU
    hidden = np.maximum(0, x @ W1 + b1)  # (B, T, D_ff)
    out = hidden @ W2  # (B, T, D)
    return out
''',
        cause="The second layer's bias is missing: the MLP is ReLU(x @ W1 + b1) @ W2 + b2.",
    ),
    HeldOut(
        name="h08_mlp_residual_inside",
        assignment=A08,
        cell="mlp_def",
        source='''def mlp(x, W1, b1, W2, b2):
    # The position-wise MLP: x (B, T, D) -> hidden (B, T, D_ff) -> (B, T, D), each token alone
    # TODO -- ReLU(x @ W1 + b1) @ W2 + b2, with np.maximum(0, ...) as the ReLU
    hidden = np.maximum(0, x @ W1 + b1)
    # the sublayer sits in a residual connection
    out = x + hidden @ W2 + b2
    return out
''',
        cause="The MLP adds its input back (x + ...): the residual connection belongs to the block, which adds mlp(...) to "
              "x; the MLP itself returns ReLU(x @ W1 + b1) @ W2 + b2.",
    ),
    HeldOut(
        name="h08_block_residual_from_normed",
        assignment=A08,
        cell="block_def",
        source='''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    T = x.shape[1]
    mask = causal_mask(T, T)
    p = params
    if post_norm:
        x = layer_norm(x + multi_head_attention(x, p, num_heads, mask), p["gamma1"], p["beta1"])
        x = layer_norm(x + mlp(x, p["W1"], p["b1"], p["W2"], p["b2"]), p["gamma2"], p["beta2"])
    else:
        h = layer_norm(x, p["gamma1"], p["beta1"])
        x = h + multi_head_attention(h, p, num_heads, mask)
        h = layer_norm(x, p["gamma2"], p["beta2"])
        x = h + mlp(h, p["W1"], p["b1"], p["W2"], p["b2"])
    out = x
    return out
''',
        cause="In the pre-norm branch the residual adds the sublayer's output to the normalised input h; pre-norm adds it to "
              "x as it was, x = x + attention(layer_norm_1(x)), then x = x + mlp(layer_norm_2(x)).",
    ),
    HeldOut(
        name="h08_block_same_ln_params",
        assignment=A08,
        cell="block_def",
        source='''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    mask = causal_mask(x.shape[1], x.shape[1])
    gamma, beta = params["gamma1"], params["beta1"]
    if post_norm:
        x = layer_norm(x + multi_head_attention(x, params, num_heads, mask), gamma, beta)
        x = layer_norm(x + mlp(x, params["W1"], params["b1"], params["W2"], params["b2"]), gamma, beta)
    else:
        x = x + multi_head_attention(layer_norm(x, gamma, beta), params, num_heads, mask)
        x = x + mlp(layer_norm(x, gamma, beta), params["W1"], params["b1"], params["W2"], params["b2"])
    out = x
    return out
''',
        cause="Both LayerNorms use gamma1 and beta1; the second one (before the MLP, or after its residual) has its own "
              "parameters, gamma2 and beta2.",
    ),
    HeldOut(
        name="h08_block_post_stale_input",
        assignment=A08,
        cell="block_def",
        source='''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    T = x.shape[1]
    mask = causal_mask(T, T)
    if post_norm:
        h = layer_norm(x + multi_head_attention(x, params, num_heads, mask), params["gamma1"], params["beta1"])
        out = layer_norm(h + mlp(x, params["W1"], params["b1"], params["W2"], params["b2"]),
                         params["gamma2"], params["beta2"])
    else:
        h = x + multi_head_attention(layer_norm(x, params["gamma1"], params["beta1"]), params, num_heads, mask)
        out = h + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"], params["b1"], params["W2"],
                      params["b2"])
    return out
''',
        cause="In the post-norm branch the MLP is applied to the block's input x instead of to the first sublayer's output "
              "h: the second step is layer_norm_2(h + mlp(h)), with h = layer_norm_1(x + attention(x)).",
    ),
    HeldOut(
        name="h08_counts_no_mlp_biases",
        assignment=A08,
        cell="counts_def",
        source='''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    attention = 4 * D * D + 4 * D  # W_q, W_k, W_v, W_o and their biases
    mlp = D * D_ff + D_ff * D  # W1 and W2
    norms = 2 * (D + D)  # gamma and beta of both LayerNorms
    count = attention + mlp + norms
    return count

def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    projections = 4 * T * D * D  # x @ W_q, x @ W_k, x @ W_v, heads @ W_o
    scores = T * T * D  # Q @ K.T, every head: H * T * (D/H) * T
    weighted = T * T * D  # weights @ V
    mlp = T * D * D_ff + T * D_ff * D
    flops = projections + scores + weighted + mlp
    return flops
''',
        cause="block_parameters leaves out the MLP's biases: b1 has D_ff entries and b2 has D, so add D_ff + D.",
    ),
    HeldOut(
        name="h08_flops_one_head",
        assignment=A08,
        cell="counts_def",
        source='''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    count = 4 * (D * D + D) + (D * D_ff + D_ff) + (D_ff * D + D) + 2 * 2 * D
    return count

def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    d = D // H  # the size of one head
    projections = 4 * T * D * D
    scores = T * d * T  # (T, d) @ (d, T)
    weighted = T * T * d  # (T, T) @ (T, d)
    mlp = 2 * T * D * D_ff
    flops = projections + scores + weighted + mlp
    return flops
''',
        cause="The scores and weighted sums were counted for one head only, T * T * d: each of the H heads computes its "
              "own, so each product costs H * T * T * d = T * T * D.",
    ),
    # ------------------------------------------------------------------ 09 tiny transformer
    HeldOut(
        name="h09_ce_logsumexp_all_axes",
        assignment=A09,
        cell="cross_entropy_def",
        source='''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted)))
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    count = np.sum(weights)
    loss = -np.sum(weights * picked) / count
    one_hot = np.eye(logits.shape[-1])[targets]  # (B, T, V)
    dlogits = (np.exp(log_p) - one_hot) * weights[..., None] / count
    return loss, dlogits
''',
        cause="The normaliser np.log(np.sum(np.exp(shifted))) sums over every position of the batch, not over each "
              "position's vocabulary: use np.sum(..., axis=-1, keepdims=True), so that each position's probabilities "
              "sum to one.",
    ),
    HeldOut(
        name="h09_ce_fancy_index",
        assignment=A09,
        cell="cross_entropy_def",
        source='''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    # log p of the target at each position
    picked = log_p[:, :, targets]
    loss = -np.sum(weights * picked) / np.sum(weights)
    probs = np.exp(log_p)
    one_hot = np.zeros_like(logits)
    np.put_along_axis(one_hot, targets[..., None], 1.0, axis=-1)
    dlogits = (probs - one_hot) * weights[..., None] / np.sum(weights)
    return loss, dlogits
''',
        cause="log_p[:, :, targets] does not pick one entry per position: indexing the last axis with the (B, T) array "
              "takes every target at every position, a (B, T, B, T) array; use "
              "np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0].",
    ),
    HeldOut(
        name="h09_ce_sign",
        assignment=A09,
        cell="cross_entropy_def",
        source='''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    log_p_target = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
    loss = np.sum(weights * log_p_target) / np.sum(weights)
    dlogits = np.exp(log_p)
    dlogits[np.arange(targets.shape[0])[:, None], np.arange(targets.shape[1]), targets] -= 1
    dlogits = dlogits * weights[..., None] / np.sum(weights)
    return loss, dlogits
''',
        cause="The loss is missing its minus sign: the cross-entropy is -sum(w * log p(target)) / sum(w), which is "
              "positive; without the minus it is negative and rises towards 0 as the model improves.",
    ),
    HeldOut(
        name="h09_adam_correction_parens",
        assignment=A09,
        cell="adam_step_def",
        source='''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = new_m / (1 - beta1) ** t
    v_hat = new_v / (1 - beta2) ** t
    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v
''',
        cause="The bias correction divides by 1 - beta1**t (and 1 - beta2**t); (1 - beta1) ** t raises the difference to "
              "the power t instead, a far smaller number, so the corrected moments are far too large.",
    ),
    HeldOut(
        name="h09_adam_returns_corrected",
        assignment=A09,
        cell="adam_step_def",
        source='''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad ** 2
    # bias correction
    m = m / (1 - beta1 ** t)
    v = v / (1 - beta2 ** t)
    new_param = param - lr * m / (np.sqrt(v) + eps)
    new_m, new_v = m, v
    return new_param, new_m, new_v
''',
        cause="The bias-corrected moments are returned as the new m and v: store the uncorrected moving averages and use "
              "m_hat and v_hat only for the step, otherwise the correction compounds from step to step.",
    ),
    HeldOut(
        name="h09_adam_inplace",
        assignment=A09,
        cell="adam_step_def",
        source='''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    m *= beta1
    m += (1 - beta1) * grad
    v *= beta2
    v += (1 - beta2) * grad ** 2
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    param -= lr * m_hat / (np.sqrt(v_hat) + eps)
    new_param, new_m, new_v = param, m, v
    return new_param, new_m, new_v
''',
        cause="m *= ..., v += ... and param -= ... change the caller's arrays in place, but adam_step must leave its "
              "arguments as they were and return new arrays: write new_m = beta1 * m + (1 - beta1) * grad, and so on.",
    ),
    HeldOut(
        name="h09_train_t_per_param",
        assignment=A09,
        cell="train_step_def",
        source='''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    for name in params:
        adam_state["t"] += 1
        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss
''',
        cause="adam_state['t'] is increased inside the loop over the parameters, so one step counts as one per parameter "
              "and every parameter gets another t: add 1 once, before the loop.",
    ),
    HeldOut(
        name="h09_train_args_swapped",
        assignment=A09,
        cell="train_step_def",
        source='''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:
        new_param, new_m, new_v = adam_step(params[name], grads[name], adam_state["m"][name],
                                            adam_state["v"][name], lr, adam_state["t"])
        params[name] = new_param
        adam_state["m"][name] = new_m
        adam_state["v"][name] = new_v
    return loss
''',
        cause="lr and t are passed in each other's place: adam_step takes (param, grad, m, v, t, lr), so the step ran with "
              "t = lr and a learning rate equal to the step count.",
    ),
    HeldOut(
        name="h09_train_logits_as_grad",
        assignment=A09,
        cell="train_step_def",
        source='''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # 1. forward
    logits, cache = model_forward(params, tokens, num_heads)
    # 2. loss
    loss, dlogits = cross_entropy(logits, targets, weights)
    # 3. backward
    grads = model_backward(logits, cache)
    # 4. Adam
    adam_state["t"] += 1
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss
''',
        cause="model_backward was given the logits instead of dlogits, the gradient of the loss with respect to them: the "
              "parameters then follow the gradient of half the sum of the squared logits, which pulls every logit towards "
              "0 instead of towards the targets.",
    ),
    # ------------------------------------------------------------------ 10 byte-pair encoding
    HeldOut(
        name="h10_count_pairs_stops_before_marker",
        assignment=A10,
        cell="count_pairs_def",
        source='''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  counts = {}
  for word, freq in corpus.items():
    # the last symbol is the end-of-word marker, not a letter: stop before it
    for k in range(len(word) - 2):
      pair = (word[k], word[k + 1])
      counts[pair] = counts.get(pair, 0) + freq
  return counts
''',
        cause="The loop runs over range(len(word) - 2), so the last pair of every word, its last letter and \"</w>\", is "
              "never counted; the marker is a symbol like any other, and those pairs are how merges learn word endings:"
              " a word of n symbols has n - 1 pairs, range(len(word) - 1).",
    ),
    HeldOut(
        name="h10_count_pairs_joined_keys",
        assignment=A10,
        cell="count_pairs_def",
        source='''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  counts = {}
  for word, freq in corpus.items():
    for k in range(len(word) - 1):
      pair = word[k] + word[k + 1]  # the pair, written as the symbol it would make
      counts[pair] = counts.get(pair, 0) + freq
  return counts
''',
        cause="The keys are the two symbols joined into one string instead of the tuple (a, b): the dictionary must say"
              " which two symbols stand side by side, and a joined string loses where one ends, so (\"ab\", \"c\") and "
              "(\"a\", \"bc\") are counted together as \"abc\"; key the counts by (word[k], word[k + 1]).",
    ),
    HeldOut(
        name="h10_count_pairs_across_words",
        assignment=A10,
        cell="count_pairs_def",
        source='''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  counts = {}
  # write the corpus out as one long list of symbols, each word as many times as it occurs
  symbols = []
  for word, freq in corpus.items():
    symbols = symbols + list(word) * freq
  for a, b in zip(symbols[:-1], symbols[1:]):
    counts[(a, b)] = counts.get((a, b), 0) + 1
  return counts
''',
        cause="Stringing all the words into one list pairs the \"</w>\" that ends each word with the first symbol of the "
              "next word (or of the next copy of the same word), pairs that are in no word: count the pairs inside each"
              " word, and add the word's frequency for each.",
    ),
    HeldOut(
        name="h10_merge_pair_drops_last_symbol",
        assignment=A10,
        cell="merge_pair_def",
        source='''def merge_pair(corpus, pair):
  """A new corpus with every occurrence of pair merged into one symbol, left to right, without overlaps."""
  # TODO -- walk each word from the left; where word[k], word[k + 1] is the pair, put one merged symbol and move on by two
  merged = {}
  for word, freq in corpus.items():
    new_word = []
    k = 0
    while k < len(word) - 1:  # word[k + 1] must exist
      if word[k] == pair[0] and word[k + 1] == pair[1]:
        new_word.append(pair[0] + pair[1])
        k += 2
      else:
        new_word.append(word[k])
        k += 1
    merged[tuple(new_word)] = freq
  return merged
''',
        cause="The loop stops at len(word) - 1 so that word[k + 1] exists, but then a last symbol that is not the "
              "second half of a merge is never copied: most words lose their \"</w>\". After the loop, append word[k] "
              "when k == len(word) - 1 (or loop while k < len(word) and test k + 1 < len(word) before comparing).",
    ),
    HeldOut(
        name="h10_merge_pair_keeps_old_words",
        assignment=A10,
        cell="merge_pair_def",
        source='''def merge_pair(corpus, pair):
  """A new corpus with every occurrence of pair merged into one symbol, left to right, without overlaps."""
  # TODO -- walk each word from the left; where word[k], word[k + 1] is the pair, put one merged symbol and move on by two
  merged = dict(corpus)
  for word, freq in corpus.items():
    new_word = []
    k = 0
    while k < len(word):
      if k < len(word) - 1 and (word[k], word[k + 1]) == pair:
        new_word.append(word[k] + word[k + 1])
        k += 2
      else:
        new_word.append(word[k])
        k += 1
    merged[tuple(new_word)] = freq
  return merged
''',
        cause="merged starts as a copy of the corpus and the merged words are added to it, but the words as they were "
              "are never taken out, so every word that changed is in the result twice, unmerged and merged, each with "
              "its frequency: build the new corpus from an empty dict.",
    ),
    HeldOut(
        name="h10_merge_pair_first_symbol_only",
        assignment=A10,
        cell="merge_pair_def",
        source='''def merge_pair(corpus, pair):
  """A new corpus with every occurrence of pair merged into one symbol, left to right, without overlaps."""
  # TODO -- walk each word from the left; where word[k], word[k + 1] is the pair, put one merged symbol and move on by two
  merged = {}
  for word, freq in corpus.items():
    word = list(word)
    # find the pair's first symbol; if the second one follows it, merge them, and look again
    while pair[0] in word:
      k = word.index(pair[0])
      if k + 1 < len(word) and word[k + 1] == pair[1]:
        word[k:k + 2] = [pair[0] + pair[1]]
      else:
        break
    merged[tuple(word)] = freq
  return merged
''',
        cause="word.index finds only the first place the pair's first symbol stands; when that one is not followed by "
              "the second symbol the loop gives up, so later occurrences are never merged (the \"e\" of \"ne\" in \"newest\" "
              "stops the search before \"es\"). Look at every position k in turn.",
    ),
    HeldOut(
        name="h10_learn_ties_by_joined_string",
        assignment=A10,
        cell="learn_merges_def",
        source='''def learn_merges(corpus, num_merges):
  """The pairs merged, in the order learned: up to num_merges of them."""
  # TODO -- repeat num_merges times: count the pairs, stop if there are none, take the most frequent
  # (ties: the smallest pair), remember it and merge it in the corpus
  merges = []
  for _ in range(num_merges):
    counts = count_pairs(corpus)
    if len(counts) == 0:
      break
    # the most frequent pair; on a tie, the one that comes first in alphabetical order
    best = min(counts, key=lambda p: (-counts[p], p[0] + p[1]))
    merges.append(best)
    corpus = merge_pair(corpus, best)
  return merges
''',
        cause="Ties are broken by the two symbols joined into one string, not by the pair: Python compares tuples by "
              "their first symbols first, so (\"a\", \"z\") comes before (\"ab\", \"c\"), while \"az\" comes after \"abc\"; once "
              "symbols have several characters the two orders differ. Use the tuple itself, key=lambda p: (-counts[p], "
              "p).",
    ),
    HeldOut(
        name="h10_learn_stops_at_count_one",
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
    best = min(counts, key=lambda p: (-counts[p], p))
    if counts[best] < 2:
      break  # no pair repeats any more: nothing worth merging
    merges.append(best)
    corpus = merge_pair(corpus, best)
  return merges
''',
        cause="Learning stops as soon as the most frequent pair occurs only once, but the rule stops only when no pair "
              "is left: a pair seen once is still merged, so on a text with rare words this returns fewer merges than "
              "it should.",
    ),
    HeldOut(
        name="h10_learn_counts_once",
        assignment=A10,
        cell="learn_merges_def",
        source='''def learn_merges(corpus, num_merges):
  """The pairs merged, in the order learned: up to num_merges of them."""
  # TODO -- repeat num_merges times: count the pairs, stop if there are none, take the most frequent
  # (ties: the smallest pair), remember it and merge it in the corpus
  merges = []
  counts = count_pairs(corpus)
  for _ in range(num_merges):
    if not counts:
      break
    best = min(counts, key=lambda p: (-counts[p], p))
    merges.append(best)
    corpus = merge_pair(corpus, best)
    del counts[best]  # that pair is one symbol now
  return merges
''',
        cause="The pairs are counted once, before the loop, and a merge only deletes its own pair; but merging changes "
              "the pairs around it (merging (\"e\", \"s\") makes (\"es\", \"t\") and removes some (\"s\", \"t\")), so the counts "
              "must be taken again from the merged corpus at every step.",
    ),
    HeldOut(
        name="h10_learn_one_merge_short",
        assignment=A10,
        cell="learn_merges_def",
        source='''def learn_merges(corpus, num_merges):
  """The pairs merged, in the order learned: up to num_merges of them."""
  # TODO -- repeat num_merges times: count the pairs, stop if there are none, take the most frequent
  # (ties: the smallest pair), remember it and merge it in the corpus
  merges = []
  for n in range(1, num_merges):
    counts = count_pairs(corpus)
    if not counts:
      break
    best = min(counts, key=lambda p: (-counts[p], p))
    merges.append(best)
    corpus = merge_pair(corpus, best)
  return merges
''',
        cause="range(1, num_merges) runs num_merges - 1 times, so one merge too few is learned: range(num_merges) makes"
              " num_merges of them.",
    ),
    HeldOut(
        name="h10_encode_marker_after_merges",
        assignment=A10,
        cell="encode_def",
        source='''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  ids = []
  for word in text.split(" "):
    symbols = list(word)
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
    symbols.append(EOW)  # the end of the word
    ids = ids + [vocab.get(s, vocab[UNK]) for s in symbols]
  return ids
''',
        cause="\"</w>\" is appended after the merges, so no merge that includes it ((\"the\", \"</w>\"), (\"s\", \"</w>\"), ...) "
              "can apply and every word ends in a lone \"</w>\" token: put the marker at the end of the word first, as in"
              " training, then apply the merges.",
    ),
    HeldOut(
        name="h10_encode_unknown_word_one_unk",
        assignment=A10,
        cell="encode_def",
        source='''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  ids = []
  for word in text.split(" "):
    symbols = tuple(word) + (EOW,)
    for pair in merges:
      symbols = list(merge_pair({symbols: 1}, pair))[0]
    if all(s in vocab for s in symbols):
      ids += [vocab[s] for s in symbols]
    else:
      ids.append(vocab[UNK])  # a word we cannot spell is unknown
  return ids
''',
        cause="A word with one character the vocabulary lacks becomes a single <unk>, losing its other pieces and its "
              "\"</w>\" (so decode also loses the space after it): byte-pair encoding replaces only the symbol it does "
              "not have, vocab.get(s, vocab[UNK]) for each symbol, and keeps the rest of the word.",
    ),
    HeldOut(
        name="h10_encode_strips_text",
        assignment=A10,
        cell="encode_def",
        source='''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  ids = []
  for word in text.strip().split(" "):
    symbols = tuple(word) + (EOW,)
    for pair in merges:
      symbols = next(iter(merge_pair({symbols: 1}, pair)))
    for s in symbols:
      ids.append(vocab.get(s, vocab[UNK]))
  return ids
''',
        cause="text.strip() removes the spaces at the start and end of the text before it is split, but each of them "
              "stands for an empty word with its own \"</w>\": a text that starts or ends with a space no longer comes "
              "back from decode. Split the text exactly as it is, text.split(\" \").",
    ),
    HeldOut(
        name="h10_encode_distinct_words",
        assignment=A10,
        cell="encode_def",
        source='''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  # the text's words, as in training, each merge applied to all of them at once
  words = corpus_from_text(text)
  for pair in merges:
    words = merge_pair(words, pair)
  ids = [vocab.get(s, vocab[UNK]) for word in words for s in word]
  return ids
''',
        cause="corpus_from_text keeps each distinct word once, with its count, so a word the text has twice is encoded "
              "only once and the words come out in the order they first appear: encode must give the ids of the text "
              "word by word, so go through text.split(\" \") in order.",
    ),
    HeldOut(
        name="h10_decode_rstrip",
        assignment=A10,
        cell="decode_def",
        source='''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  text = "".join(tokens[i] for i in ids)
  text = text.replace(EOW, " ").rstrip(" ")
  return text
''',
        cause="rstrip(\" \") removes every space at the end, not only the one the last \"</w>\" gave: a text that itself "
              "ends with spaces (empty words at its end) loses them. Drop exactly one character, text[:-1].",
    ),
    HeldOut(
        name="h10_decode_skips_unknown",
        assignment=A10,
        cell="decode_def",
        source='''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  pieces = []
  for i in ids:
    if tokens[i] == UNK:
      continue  # nothing to write for a symbol we do not know
    pieces.append(tokens[i])
  text = "".join(pieces).replace(EOW, " ")[:-1]
  return text
''',
        cause="The <unk> tokens are skipped, so a character never seen in training vanishes from the text instead of "
              "coming back as \"<unk>\": keep every token's string, <unk> included, so the reader sees where something "
              "was unknown.",
    ),
    HeldOut(
        name="h10_decode_lone_marker_only",
        assignment=A10,
        cell="decode_def",
        source='''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  text = ""
  for i in ids:
    if tokens[i] == EOW:
      text += " "
    else:
      text += tokens[i]
  text = text[:-1]
  return text
''',
        cause="Only a token that is exactly \"</w>\" becomes a space, but after the merges most words end in a token that"
              " holds the marker inside it (\"the</w>\", \"boat</w>\"), which stays in the text as it is: join all the "
              "strings first, then replace every \"</w>\" in the joined text.",
    ),
    # ------------------------------------------------------------------ 11 decoding
    HeldOut(
        name="h11_greedy_last_id_only",
        assignment=A11,
        cell="greedy_def",
        source='''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  # TODO -- n_new times: the logits given ids, their argmax, appended to ids
  ids = list(prompt)
  for _ in range(n_new):
    logits = next_logits([ids[-1]])  # the next word depends on the last one
    ids.append(int(np.argmax(logits)))
  return ids
''',
        cause="next_logits is given only the last id. That is all the bigram model reads, but a decoder must pass every"
              " id so far: the tiny transformer needs the digits it is to reverse and the position of the new token, so"
              " from one id it predicts something else. Call next_logits(ids).",
    ),
    HeldOut(
        name="h11_greedy_argsort_last",
        assignment=A11,
        cell="greedy_def",
        source='''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  # TODO -- n_new times: the logits given ids, their argmax, appended to ids
  ids = list(prompt)
  for _ in range(n_new):
    order = np.argsort(next_logits(ids))  # ascending: the most likely token is the last
    ids.append(int(order[-1]))
  return ids
''',
        cause="The last index of an ascending argsort is a most likely token, but when several tie for the largest "
              "logit it is the one with the larger id (the sort keeps tied ones in id order), while the rule is "
              "np.argmax, which takes the smaller id.",
    ),
    HeldOut(
        name="h11_greedy_n_new_as_length",
        assignment=A11,
        cell="greedy_def",
        source='''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  # TODO -- n_new times: the logits given ids, their argmax, appended to ids
  ids = list(prompt)
  while len(ids) < n_new:
    ids.append(int(np.argmax(next_logits(ids))))
  return ids
''',
        cause="The loop stops when the whole sequence has n_new ids, prompt included, but n_new is the number of new "
              "tokens: with a prompt of L ids only n_new - L are added (none when the prompt is as long as n_new). Loop"
              " n_new times, or until len(ids) == len(prompt) + n_new.",
    ),
    HeldOut(
        name="h11_sample_global_generator",
        assignment=A11,
        cell="sample_def",
        source='''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  # TODO -- n_new times: probs = softmax(logits / temperature), one draw rng.choice(len(probs), p=probs), appended
  ids = list(prompt)
  for _ in range(n_new):
    probs = softmax(next_logits(ids) / temperature)
    ids.append(int(np.random.choice(len(probs), p=probs)))
  return ids
''',
        cause="np.random.choice draws from NumPy's global generator, not from the rng passed in, so the same rng does "
              "not give the same tokens (each run differs, and the seed the caller chose is ignored): draw with "
              "rng.choice(len(probs), p=probs).",
    ),
    HeldOut(
        name="h11_sample_temperature_first_step_only",
        assignment=A11,
        cell="sample_def",
        source='''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  # TODO -- n_new times: probs = softmax(logits / temperature), one draw rng.choice(len(probs), p=probs), appended
  ids = list(prompt)
  probs = softmax(next_logits(ids) / temperature)
  for _ in range(n_new):
    ids.append(int(rng.choice(len(probs), p=probs)))
    if len(ids) < len(prompt) + n_new:  # the distribution for the next draw, if there is one
      probs = softmax(next_logits(ids))
  return ids
''',
        cause="The distribution is computed ahead of each draw, but only the first one is divided by the temperature: "
              "the one recomputed inside the loop is softmax(next_logits(ids)) at temperature 1, so every token after "
              "the first is drawn at the wrong temperature. Divide by temperature every time.",
    ),
    HeldOut(
        name="h11_sample_exp_not_shifted",
        assignment=A11,
        cell="sample_def",
        source='''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  # TODO -- n_new times: probs = softmax(logits / temperature), one draw rng.choice(len(probs), p=probs), appended
  ids = list(prompt)
  for _ in range(n_new):
    scaled = np.asarray(next_logits(ids)) / temperature
    probs = np.exp(scaled) / np.sum(np.exp(scaled))  # softmax
    ids.append(int(rng.choice(len(probs), p=probs)))
  return ids
''',
        cause="The softmax is written out without subtracting the maximum first: at a low temperature logits / "
              "temperature is large, and np.exp overflows to inf (or, for log-probabilities, underflows to 0 "
              "everywhere), giving nan probabilities that rng.choice rejects; subtract np.max before np.exp, as the "
              "given softmax does.",
    ),
    HeldOut(
        name="h11_top_k_argpartition",
        assignment=A11,
        cell="top_k_def",
        source='''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  result = np.zeros_like(probs)
  keep = np.argpartition(-probs, k - 1)[:k]  # the k largest, in no particular order (faster than a sort)
  result[keep] = probs[keep]
  result = result / np.sum(result)
  return result
''',
        cause="np.argpartition finds k largest probabilities, but among tokens tied with the k-th it keeps whichever "
              "the partition happens to leave in front, not the smaller ids the rule asks for: use np.argsort(-probs, "
              "kind=\"stable\")[:k].",
    ),
    HeldOut(
        name="h11_top_k_logits_renormalised",
        assignment=A11,
        cell="top_k_def",
        source='''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  result = np.zeros_like(probs)
  keep = np.argsort(-probs, kind="stable")[:k]
  result[keep] = logits[keep]
  result = result / np.sum(result)
  return result
''',
        cause="The kept logits are divided by their sum instead of the kept probabilities: logits are log-probabilities"
              " (negative here), and their ratios are not those of the probabilities, so the most likely token gets the"
              " smallest share. Keep probs[keep] and divide by their sum.",
    ),
    HeldOut(
        name="h11_top_k_unit_length",
        assignment=A11,
        cell="top_k_def",
        source='''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  result = np.zeros_like(probs)
  keep = np.argsort(-probs, kind="stable")[:k]
  result[keep] = probs[keep]
  result = result / np.linalg.norm(result)  # normalise
  return result
''',
        cause="\"Renormalise\" here means make the kept probabilities a distribution again, dividing them by their sum; "
              "dividing by np.linalg.norm gives the vector length 1, and its entries then add up to more than 1.",
    ),
    HeldOut(
        name="h11_top_p_one_past_exact_p",
        assignment=A11,
        cell="top_p_def",
        source='''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  result = np.zeros_like(probs)
  order = np.argsort(-probs, kind="stable")
  cumulative = np.cumsum(probs[order])
  n = int(np.sum(cumulative <= p)) + 1  # the tokens below p, and the one that crosses it
  keep = order[:n]
  result[keep] = probs[keep]
  result = result / result.sum()
  return result
''',
        cause="Counting the sums <= p and adding one keeps one token too many when a cumulative sum equals p exactly: "
              "that token already reaches p and is the last one kept, the nucleus is the tokens up to and including the"
              " first sum >= p (count cumulative < p, then add one).",
    ),
    HeldOut(
        name="h11_top_p_mask_in_sorted_order",
        assignment=A11,
        cell="top_p_def",
        source='''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  result = np.zeros_like(probs)
  order = np.argsort(-probs, kind="stable")
  sorted_probs = probs[order]
  cumulative = np.cumsum(sorted_probs)
  keep = cumulative - sorted_probs < p  # up to and including the one that reaches p
  result[keep] = probs[keep]
  result = result / result.sum()
  return result
''',
        cause="keep is worked out in sorted order (its j-th entry is about the j-th most likely token) but used to "
              "index the probabilities in id order, so it keeps the first ids, not the most likely tokens: map it back "
              "through the sort, result[order[keep]] = probs[order[keep]].",
    ),
    HeldOut(
        name="h11_top_p_never_reached",
        assignment=A11,
        cell="top_p_def",
        source='''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  result = np.zeros_like(probs)
  order = np.argsort(-probs, kind="stable")
  cumulative = np.cumsum(probs[order])
  last = np.argmax(cumulative >= p)  # the first place where the sum reaches p
  keep = order[:last + 1]
  result[keep] = probs[keep]
  result = result / result.sum()
  return result
''',
        cause="When no cumulative sum reaches p (with p = 1 the floats can add up to 0.9999999999999999), cumulative >="
              " p is all False and np.argmax of it is 0, so only the most likely token is kept instead of all of them; "
              "np.searchsorted(cumulative, p) gives the end of the array in that case.",
    ),
    HeldOut(
        name="h11_top_p_divided_by_p",
        assignment=A11,
        cell="top_p_def",
        source='''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  result = np.zeros_like(probs)
  order = np.argsort(-probs, kind="stable")
  cumulative = np.cumsum(probs[order])
  n = int(np.searchsorted(cumulative, p)) + 1
  keep = order[:n]
  result[keep] = probs[keep]
  result = result / p  # the kept tokens hold a share p of the probability
  return result
''',
        cause="The kept probabilities are divided by p, but they hold p or more (the last token kept takes the sum past"
              " p), so the result sums to more than 1: divide by the kept probabilities' own sum.",
    ),
    HeldOut(
        name="h11_beam_norm_counts_prompt",
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
        continue
      logp = log_softmax(next_logits(ids))
      for token in range(len(logp)):
        candidates.append((ids + [token], score + logp[token]))
    scores = np.array([score for ids, score in candidates])
    order = np.argsort(-scores, kind="stable")
    beams = [candidates[i] for i in order[:beam_width]]
  if length_norm:
    final = [score / len(ids) for ids, score in beams]
  else:
    final = [score for ids, score in beams]
  best = beams[int(np.argmax(final))][0]
  return best
''',
        cause="With length_norm the score is divided by len(ids), which counts the prompt too; the score is the sum "
              "over the new tokens only, so divide by their number, len(ids) - len(prompt): otherwise a long prompt "
              "dilutes the average and short beams are favoured again.",
    ),
    HeldOut(
        name="h11_beam_finished_set_aside",
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
  finished = []  # beams that reached the end token
  for step in range(n_new):
    candidates = []
    for ids, score in beams:
      logp = log_softmax(next_logits(ids))
      for token in range(len(logp)):
        candidates.append((ids + [token], score + logp[token]))
    scores = np.array([score for ids, score in candidates])
    beams = []
    for i in np.argsort(-scores, kind="stable"):
      if candidates[i][0][-1] == end:
        finished.append(candidates[i])  # done: keep it aside
      else:
        beams.append(candidates[i])
      if len(beams) == beam_width:
        break
  pool = finished + beams
  if length_norm:
    final = [score / (len(ids) - len(prompt)) for ids, score in pool]
  else:
    final = [score for ids, score in pool]
  best = pool[int(np.argmax(final))][0]
  return best
''',
        cause="Finished beams are set aside, so they no longer take one of the beam_width places: the search keeps "
              "beam_width unfinished beams and remembers every finished one it met. Here a finished beam stays among "
              "the candidates, takes a place, and drops out once beam_width others score above it; the two searches "
              "then return different sequences, above all with length_norm.",
    ),
    HeldOut(
        name="h11_beam_stops_when_best_finishes",
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
    scores = np.array([score for ids, score in candidates])
    beams = [candidates[i] for i in np.argsort(-scores, kind="stable")[:beam_width]]
    if beams[0][0][-1] == end:
      break  # the best beam has finished: nothing can beat it any more
  if length_norm:
    final = [score / (len(ids) - len(prompt)) for ids, score in beams]
  else:
    final = [score for ids, score in beams]
  best = beams[int(np.argmax(final))][0]
  return best
''',
        cause="The search stops as soon as the best beam by summed score ends; that is safe for the plain sum, which "
              "only falls as beams grow, but not with length normalisation, where a longer beam's average can still "
              "overtake it: run all n_new steps.",
    ),
    HeldOut(
        name="h11_beam_score_not_accumulated",
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
          candidates.append((ids + [token], logp[token]))
    scores = np.array([c[1] for c in candidates])
    beams = [candidates[i] for i in np.argsort(-scores, kind="stable")[:beam_width]]
  if length_norm:
    final = [score / (len(ids) - len(prompt)) for ids, score in beams]
  else:
    final = [score for ids, score in beams]
  best = beams[int(np.argmax(final))][0]
  return best
''',
        cause="A new candidate's score is only its last token's log-probability: the beam's score so far is not added, "
              "so beams are ranked by their last step alone. The score is the sum over all the new tokens, score + "
              "logp[token].",
    ),
    HeldOut(
        name="h11_beam_prompt_end_finished",
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
      if ids[-1] == end:  # a finished beam stays as it is
        candidates.append((ids, score))
      else:
        logp = log_softmax(next_logits(ids))
        for token in range(len(logp)):
          candidates.append((ids + [token], score + logp[token]))
    scores = np.array([score for ids, score in candidates])
    beams = [candidates[i] for i in np.argsort(-scores, kind="stable")[:beam_width]]
  if length_norm:
    final = [score / max(len(ids) - len(prompt), 1) for ids, score in beams]
  else:
    final = [score for ids, score in beams]
  best = beams[int(np.argmax(final))][0]
  return best
''',
        cause="A beam counts as finished whenever its last id is the end token, even before it has a new token: a "
              "prompt that ends with the end token (a full sentence, \"... .\") is never extended and comes back as it "
              "is. A beam is finished only once one of its new tokens is the end token.",
    ),
    HeldOut(
        name="h11_kv_position_from_heads_axis",
        assignment=A11,
        cell="decode_step_def",
        source='''def decode_step(params, token, K_cache, V_cache, num_heads):
  """(logits (V,), K, V): one new token, given only it and its sequence's cache (H, t, d), t tokens so far."""
  p = params
  # TODO -- position t = K_cache.shape[1]; x; LayerNorm 1; q, k, v (H, 1, d); append k, v; attend (no mask);
  # W_o and b_o, the residual, LayerNorm 2, the MLP, the residual, the final LayerNorm, W_out and b_out
  H = num_heads
  D = p["tok_emb"].shape[1]
  d = D // H
  t = K_cache.shape[0]  # tokens already cached
  x = p["tok_emb"][token] + p["pos_emb"][t]
  h1, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  q = (h1 @ p["W_q"] + p["b_q"]).reshape(H, 1, d)
  k = (h1 @ p["W_k"] + p["b_k"]).reshape(H, 1, d)
  v = (h1 @ p["W_v"] + p["b_v"]).reshape(H, 1, d)
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, v], axis=1)
  A = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))
  x1 = x + (A @ V).reshape(D) @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  m, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  x2 = x1 + m
  hf, _ = layer_norm_forward(x2, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="The cache is (H, t, d), so the number of tokens cached is K_cache.shape[1]; shape[0] is the number of "
              "heads, so every token was given the position embedding of position H instead of its own.",
    ),
    HeldOut(
        name="h11_kv_heads_interleaved",
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
  h1, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  q = (h1 @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)  # (H, 1, d)
  k = (h1 @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h1 @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)  # (H, t + 1, d)
  V = np.concatenate([V_cache, v], axis=1)
  A = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))  # (H, 1, t + 1)
  heads = (A @ V).transpose(1, 2, 0).reshape(D)  # the heads side by side, as merge_heads does
  x1 = x + heads @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  m, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  x2 = x1 + m
  hf, _ = layer_norm_forward(x2, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="The heads' outputs (H, 1, d) were transposed to (1, d, H) before the reshape, which interleaves them "
              "(feature 0 of every head, then feature 1, ...), whereas merge_heads puts head 0's d features first, then"
              " head 1's: (A @ V).reshape(D) already has that order, so W_o meets the features in the wrong rows.",
    ),
    HeldOut(
        name="h11_kv_scaled_by_model_width",
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
  x = p["tok_emb"][token] + p["pos_emb"][t]
  h1, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  q = (h1 @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)
  k = (h1 @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h1 @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, v], axis=1)
  scores = q @ K.transpose(0, 2, 1) / np.sqrt(D)  # scaled dot products
  A = softmax(scores)
  x1 = x + (A @ V).reshape(D) @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  m, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  x2 = x1 + m
  hf, _ = layer_norm_forward(x2, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="The scores are divided by sqrt(D), the model's width, but each head's dot products have d = D / H terms,"
              " so the scale is sqrt(d), as in model_forward: with sqrt(D) the attention is flatter than the full "
              "forward pass's.",
    ),
    HeldOut(
        name="h11_kv_residual_from_normed",
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
  x = p["tok_emb"][token] + p["pos_emb"][t]
  x = layer_norm_forward(x, p["gamma1"], p["beta1"])[0]  # LayerNorm 1
  q = (x @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)
  k = (x @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (x @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, v], axis=1)
  A = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))
  x1 = x + (A @ V).reshape(D) @ p["W_o"] + p["b_o"]  # the residual
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  m, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  x2 = x1 + m
  hf, _ = layer_norm_forward(x2, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="x was overwritten by its LayerNorm, so the residual adds the attention to the normalised input instead "
              "of the embedding itself: in a pre-norm block the LayerNorm feeds only the attention, and the residual is"
              " x0 + attention(LayerNorm(x0)). Keep the normalised vector under another name.",
    ),
    HeldOut(
        name="h11_kv_softmax_query_axis",
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
  x = p["tok_emb"][token] + p["pos_emb"][t]
  h1, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  q = (h1 @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)
  k = (h1 @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h1 @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, v], axis=1)
  scores = q @ K.transpose(0, 2, 1) / np.sqrt(d)  # (H, 1, t + 1)
  e = np.exp(scores - np.max(scores, axis=1, keepdims=True))
  A = e / np.sum(e, axis=1, keepdims=True)  # softmax over the scores
  x1 = x + (A @ V).reshape(D) @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  m, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  x2 = x1 + m
  hf, _ = layer_norm_forward(x2, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="The softmax runs over axis 1, the single query, instead of the last axis, the t + 1 keys: every weight "
              "becomes exp(0) / 1 = 1, so the step adds up all the values instead of averaging them. Normalise over the"
              " keys, axis=-1 (the given softmax does).",
    ),
    HeldOut(
        name="h11_kv_value_cache_gets_key",
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
  x = p["tok_emb"][token] + p["pos_emb"][t]
  h1, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  q = (h1 @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)
  k = (h1 @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h1 @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, k], axis=1)
  A = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))
  x1 = x + (A @ V).reshape(D) @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  m, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  x2 = x1 + m
  hf, _ = layer_norm_forward(x2, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="The new key is appended to the value cache as well (the line was copied from the one above it): V must "
              "grow by v, so the attention averages the tokens' values, not their keys.",
    ),
]
