"""Held-out wrong answers, round 7 (2026-11-29): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='z01_loop_weighted_sum_overwritten',
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
  for m in range(N):
    x_prime = attention[m] * all_values[m]

  all_x_prime.append(x_prime)
  all_attention.append(attention)
''',
        cause='The weighted sum assigns x_prime = attention[m] * all_values[m] inside the loop instead of accumulating, so x_prime is only the last value times its weight; equation 12.3 sums a[x_m, x_n] v_m over all m.',
    ),
    HeldOut(
        name='z01_matrix_adds_input',
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
  attention = softmax_cols(K.T @ Q)
  X_prime = X + V @ attention
  return X_prime
''',
        cause='Adds the input X to the attention output (a residual connection, which belongs to the transformer block, not to self-attention); equation 12.8 is Sa[X] = V Softmax[K^T Q] alone.',
    ),
    HeldOut(
        name='z02_softmax_cols_unshifted',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  exp_values = np.exp(data_in)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax
''',
        cause="Exponentiates the raw scores without subtracting each column's maximum, so it is right on small scores but np.exp overflows to inf on scores near 1000 and the columns become nan; subtract the column max first (it leaves the softmax unchanged).",
    ),
    HeldOut(
        name='z02_scaled_after_softmax',
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
  attention = softmax_cols(K.T @ Q) / np.sqrt(D_q)
  X_prime = V @ attention
  return X_prime
''',
        cause='Divides the attention weights by sqrt(D_q) after the softmax instead of dividing the dot products K^T Q before it (eq. 12.9), so the columns of the weights sum to 1/sqrt(D_q) rather than one.',
    ),
    HeldOut(
        name='z03_perm_heap_swap_through_views',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = [np.eye(n)]
  # Heap's algorithm: each new order is the previous one with two columns swapped
  permutation_matrices = []
  def heap(k, P):
    if k == 1:
      permutation_matrices.append(P.copy())
      return
    for i in range(k - 1):
      heap(k - 1, P)
      if k % 2 == 0:
        P[:, i], P[:, k - 1] = P[:, k - 1], P[:, i]
      else:
        P[:, 0], P[:, k - 1] = P[:, k - 1], P[:, 0]
    heap(k - 1, P)
  heap(n, np.eye(n))
  return permutation_matrices
''',
        cause="Heap's algorithm swaps two columns with the Python idiom P[:, i], P[:, j] = P[:, j], P[:, i], but NumPy column slices are views, so the second assignment copies the already-overwritten column and a column is duplicated instead of swapped; most matrices returned are not permutation matrices (swap with P[:, [i, j]] = P[:, [j, i]], or take np.eye(n)[:, order] for each itertools.permutations order).",
    ),
    HeldOut(
        name='z03_checker_returns_inside_loop',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  f_X = f(X)
  for P in generate_permutation_matrices(X.shape[1]):
    if np.max(np.abs(f(X @ P) - f_X @ P)) > tolerance:
      equivariant = False
    else:
      equivariant = True
    return equivariant
  return equivariant
''',
        cause='The return statement is indented inside the loop over permutations, so only the first P (the identity, for which f(X P) = f(X) P always holds) is tested and every function is declared equivariant; all n! permutations must be compared before returning.',
    ),
    HeldOut(
        name='z04_weights_unscaled',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  attention = softmax_cols(K.T @ Q)
  return attention
''',
        cause="Forgets the scaling step: the softmax is taken of K^T Q itself, not of K^T Q / sqrt(D_q) with D_q the head's query size (eq. 12.9), so the weights are too peaked.",
    ),
    HeldOut(
        name='z04_general_values_from_first_head',
        assignment=A04,
        cell='multihead_general_def',
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # Replace this line
  X_prime = np.zeros_like(X)
  H = len(omegas_v)
  V = omegas_v[0] @ X + betas_v[0]
  heads = []
  for h in range(H):
    A = attention_weights(X, omegas_q[h], omegas_k[h], betas_q[h], betas_k[h])
    heads.append(V @ A)
  X_prime = omega_c @ np.vstack(heads)
  return X_prime
''',
        cause="Computes the values once, outside the loop, with the first head's omegas_v[0] and betas_v[0], so every head weights head 1's values; each head h needs its own values omegas_v[h] X + betas_v[h].",
    ),
    HeldOut(
        name='z05_masked_lens_inclusive',
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
        lens = valid_lens[:, None, None]
    else:
        lens = valid_lens[:, :, None]
    mask = np.arange(scores.shape[-1]) <= lens
    weights = softmax(np.where(mask, scores, -1e6))
    return weights
''',
        cause='Off by one: the mask keeps key j when j <= valid_len, so each query also sees the first padded key (and an empty sequence sees key 0); a valid length L means keys 0..L-1, so the comparison must be j < valid_len.',
    ),
    HeldOut(
        name='z05_causal_mask_square_only',
        assignment=A05,
        cell='boolean_masks_def',
        source=r'''def key_padding_mask(valid_lens, num_keys):
    # True where key j of sequence b may be attended, j < valid_lens[b]: (B,) -> (B, 1, Tk)
    # TODO -- compare np.arange(num_keys) with valid_lens shaped (B, 1, 1): broadcasting, no loop
    # Replace this line
    mask = np.zeros((len(valid_lens), 1, num_keys), dtype=bool)
    mask = np.arange(num_keys) < np.asarray(valid_lens)[:, None, None]
    return mask


def causal_mask(num_queries, num_keys):
    # True where query t may attend to key j, that is j <= t: (Tq, Tk), the same for every sequence
    # TODO -- keep the entries on and below the diagonal of a (Tq, Tk) array of True (np.tril)
    # Replace this line
    mask = np.zeros((num_queries, num_keys), dtype=bool)
    mask = np.tril(np.ones((num_queries, num_queries), dtype=bool))
    return mask


print(key_padding_mask(np.array([2, 3]), 4).astype(int))  # (2, 1, 4)
print(causal_mask(2, 4).astype(int))  # (2, 4)
''',
        cause='causal_mask builds np.tril of a (Tq, Tq) array, using the number of queries for both axes, so it is right only when Tq == Tk; the mask must be np.tril(np.ones((num_queries, num_keys), dtype=bool)), shape (Tq, Tk).',
    ),
    HeldOut(
        name='z06_tokenize_strips_punctuation',
        assignment=A06,
        cell='tokenize_def',
        source=r'''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    # Replace this line (for now every word is unknown)
    token_ids = [vocab[UNK] for _ in sentence.split()]
    token_ids = []
    for word in sentence.lower().split():
        word = word.strip(".,;:!?\"'()")
        token_ids.append(vocab.get(word, vocab[UNK]))
    return np.array(token_ids, dtype=int)  # (T,)
''',
        cause='Strips punctuation from each word before the lookup, so "bank." becomes the known word "bank"; the tokenizer must only lower-case and split() and look each word up as it is, an unknown spelling like "bank." mapping to <unk>.',
    ),
    HeldOut(
        name='z06_pca_axes_from_vt_columns',
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
    components = Vt[:, :n_components].T
    for i in range(n_components):
        j = np.argmax(np.abs(components[i]))
        if components[i, j] < 0:
            components[i] = -components[i]
    return components
''',
        cause='Takes the principal axes as the columns of Vt (Vt[:, :k].T) instead of its rows; np.linalg.svd returns V already transposed, so the axes are Vt[:n_components].',
    ),
    HeldOut(
        name='z07_gc_forward_difference',
        assignment=A07,
        cell='gradient_check_def',
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  # Replace this line
  relative_error = 0.0
  numeric = np.zeros_like(X, dtype=float)
  f_X = f(X)
  for index in np.ndindex(X.shape):
    X_plus = X.astype(float)
    X_plus[index] += eps
    numeric[index] = (f(X_plus) - f_X) / eps
  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)
  return relative_error
''',
        cause='Uses one-sided (forward) differences (f(X + eps e_i) - f(X)) / eps, whose error is of order eps times the second derivative, instead of central differences (f(X + eps e_i) - f(X - eps e_i)) / (2 eps), whose error is of order eps^2, so the relative error it reports is far too large for a right gradient.',
    ),
    HeldOut(
        name='z07_ab_chain_rule_drops_scale',
        assignment=A07,
        cell='attention_backward_def',
        source=r'''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  # Replace this line
  gradients = {"dX": np.zeros_like(X), "d_omega_v": np.zeros_like(omega_v), "d_omega_q": np.zeros_like(omega_q),
               "d_omega_k": np.zeros_like(omega_k), "d_beta_v": np.zeros_like(beta_v),
               "d_beta_q": np.zeros_like(beta_q), "d_beta_k": np.zeros_like(beta_k)}
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  c = 1 / np.sqrt(Q.shape[0])
  A = softmax_cols(c * K.T @ Q)
  dV = dX_prime @ A.T
  dA = V.T @ dX_prime
  dS = softmax_backward(A, dA)
  dQ = K @ dS
  dK = Q @ dS.T
  gradients = {"dX": omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK,
               "d_omega_v": dV @ X.T, "d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T,
               "d_beta_v": np.sum(dV, axis=1, keepdims=True),
               "d_beta_q": np.sum(dQ, axis=1, keepdims=True),
               "d_beta_k": np.sum(dK, axis=1, keepdims=True)}
  return gradients''',
        cause='The forward pass scales the scores by c = 1/sqrt(D_q) (eq. 12.9) but the backward pass forgets that factor in the chain rule: dQ and dK must be c K dS and c Q dS^T, so dX, d_omega_q, d_omega_k, d_beta_q and d_beta_k are all sqrt(D_q) times too large.',
    ),
    HeldOut(
        name='z08_ln_over_tokens_axis',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    out = np.zeros_like(x)
    mean = np.mean(x, axis=1, keepdims=True)
    var = np.var(x, axis=1, keepdims=True)
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = gamma * x_hat + beta
    return out''',
        cause="Takes the mean and variance over axis 1, across the tokens of each sequence (a batch-norm-like statistic), instead of over each token's own D features (axis=-1, keepdims=True) as LayerNorm does.",
    ),
    HeldOut(
        name='z08_block_causal_mask_forgotten',
        assignment=A08,
        cell='block_def',
        source=r'''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    # TODO -- make the causal mask (T, T); then, pre-norm:
    #   x = x + attention(layer_norm_1(x)), then x = x + mlp(layer_norm_2(x))
    # or, post-norm:
    #   x = layer_norm_1(x + attention(x)), then x = layer_norm_2(x + mlp(x))
    # Replace this line
    out = np.zeros_like(x)
    if post_norm:
        h = layer_norm(x + multi_head_attention(x, params, num_heads), params["gamma1"], params["beta1"])
        out = layer_norm(h + mlp(h, params["W1"], params["b1"], params["W2"], params["b2"]),
                         params["gamma2"], params["beta2"])
    else:
        h = x + multi_head_attention(layer_norm(x, params["gamma1"], params["beta1"]), params, num_heads)
        out = h + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"], params["b1"],
                      params["W2"], params["b2"])
    return out''',
        cause='Never builds causal_mask(T, T) nor passes it to multi_head_attention, so in both the pre-norm and post-norm branches every token also attends to the tokens after it; the block must be causal.',
    ),
    HeldOut(
        name='z09_ce_gradient_not_averaged',
        assignment=A09,
        cell='cross_entropy_def',
        source=r'''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    # TODO -- log_p = shifted - log(sum(exp(shifted))) with shifted = logits - max over the last axis;
    # loss = -(sum of weights * log_p at the targets) / sum(weights);
    # dlogits = (softmax - one-hot of the targets) * weights / sum(weights), the weights over the last axis
    # Replace this line
    loss, dlogits = 0.0, np.zeros_like(logits)
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
    loss = -np.sum(weights * picked) / np.sum(weights)
    one_hot = np.eye(logits.shape[-1])[targets]
    dlogits = (np.exp(log_p) - one_hot) * weights[..., None]
    return loss, dlogits''',
        cause='The loss is divided by sum(weights) but its gradient is not: dlogits must be (softmax - one_hot) * weights / sum(weights), since the loss is a weighted mean over the positions.',
    ),
    HeldOut(
        name='z09_adam_eps_inside_sqrt',
        assignment=A09,
        cell='adam_step_def',
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    # Replace this line
    new_param, new_m, new_v = param, m, v
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = new_m / (1 - beta1 ** t)
    v_hat = new_v / (1 - beta2 ** t)
    new_param = param - lr * m_hat / np.sqrt(v_hat + eps)
    return new_param, new_m, new_v''',
        cause="Puts eps inside the square root, param - lr * m_hat / sqrt(v_hat + eps), where Adam's step is lr * m_hat / (sqrt(v_hat) + eps); the two differ noticeably where the gradients (and so v_hat) are small.",
    ),
    HeldOut(
        name='z10_merge_pair_mutates_corpus',
        assignment=A10,
        cell='merge_pair_def',
        source=r'''def merge_pair(corpus, pair):
  """A new corpus with every occurrence of pair merged into one symbol, left to right, without overlaps."""
  # TODO -- walk each word from the left; where word[k], word[k + 1] is the pair, put one merged symbol and move on by two
  # Replace this line
  merged = dict(corpus)
  for word in list(corpus):
    freq = corpus.pop(word)
    symbols, k = [], 0
    while k < len(word):
      if k + 1 < len(word) and word[k] == pair[0] and word[k + 1] == pair[1]:
        symbols.append(word[k] + word[k + 1])
        k += 2
      else:
        symbols.append(word[k])
        k += 1
    corpus[tuple(symbols)] = corpus.get(tuple(symbols), 0) + freq
  merged = corpus
  return merged''',
        cause="Merges the words in place, popping each word from the corpus it was given and inserting the merged one, and returns that same dict; the merged corpus is right but the caller's corpus is destroyed (e.g. the training corpus after learn_merges), whereas merge_pair must build and return a new dict and leave its input unchanged.",
    ),
    HeldOut(
        name='z10_learn_ties_first_seen',
        assignment=A10,
        cell='learn_merges_def',
        source=r'''def learn_merges(corpus, num_merges):
  """The pairs merged, in the order learned: up to num_merges of them."""
  # TODO -- repeat num_merges times: count the pairs, stop if there are none, take the most frequent
  # (ties: the smallest pair), remember it and merge it in the corpus
  # Replace this line
  merges = []
  for _ in range(num_merges):
    counts = count_pairs(corpus)
    if not counts:
      break
    pair = max(counts, key=counts.get)
    merges.append(pair)
    corpus = merge_pair(corpus, pair)
  return merges''',
        cause='Picks the pair with max(counts, key=counts.get), which among equally frequent pairs keeps the one counted first; the stated rule is the smallest pair among the most frequent, min(counts, key=lambda p: (-counts[p], p)).',
    ),
    HeldOut(
        name='z11_greedy_returns_new_tokens_only',
        assignment=A11,
        cell='greedy_def',
        source=r'''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  # TODO -- n_new times: the logits given ids, their argmax, appended to ids
  # Replace this line
  ids = list(prompt)
  new_ids = []
  for _ in range(n_new):
    next_id = int(np.argmax(next_logits(ids)))
    ids.append(next_id)
    new_ids.append(next_id)
  ids = new_ids
  return ids''',
        cause='Returns only the n_new generated ids, dropping the prompt; greedy must return the prompt followed by the n_new tokens (len(prompt) + n_new ids).',
    ),
    HeldOut(
        name='z11_sample_logits_times_temperature',
        assignment=A11,
        cell='sample_def',
        source=r'''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  # TODO -- n_new times: probs = softmax(logits / temperature), one draw rng.choice(len(probs), p=probs), appended
  # Replace this line
  ids = list(prompt)
  ids = list(prompt)
  for _ in range(n_new):
    logits = np.asarray(next_logits(ids))
    probs = softmax(logits * temperature)
    ids.append(int(rng.choice(len(probs), p=probs)))
  return ids''',
        cause='Multiplies the logits by the temperature instead of dividing, softmax(logits * temperature) rather than softmax(logits / temperature), so a temperature above 1 sharpens the distribution and one below 1 flattens it, the opposite of what temperature means.',
    ),
]
