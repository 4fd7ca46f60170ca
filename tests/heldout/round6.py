"""Held-out wrong answers, round 6 (2026-11-29): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='w01_qkv_flattened_input_broadcasts',
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
  x_flat = x.flatten()  # (D,)
  query = omega_q @ x_flat + beta_q
  key = omega_k @ x_flat + beta_k
  value = omega_v @ x_flat + beta_v

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)''',
        cause='The input column x (D x 1) is flattened to shape (D,) before the product, so omega @ x has shape (D,) and adding the (D, 1) bias broadcasts to a D x D matrix instead of a column; keep x as a column so that query = omega_q @ x + beta_q is D x 1 (eq. 12.2).',
    ),
    HeldOut(
        name='w01_softmax_shift_numerator_only',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  items_out = items_in.copy()
  items_in = np.asarray(items_in)
  # subtract the max so exp never overflows
  items_out = np.exp(items_in - np.max(items_in)) / np.sum(np.exp(items_in))
  return items_out''',
        cause="The maximum is subtracted in the numerator's exponentials but not in the denominator's, so every output is scaled by exp(-max) and the weights do not sum to one; either shift both or neither: exp(a_i) / sum_j exp(a_j) (eq. 12.5).",
    ),
    HeldOut(
        name='w02_softmax_cols_global_max_shift',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # subtract the largest entry so np.exp never overflows
  exp_values = np.exp(data_in - np.max(data_in))
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax''',
        cause="The shift uses the maximum of the whole matrix, not of each column, so a column whose scores all lie far below the global maximum underflows to 0/0 = nan; subtract each column's own maximum, np.max(data_in, axis=0, keepdims=True).",
    ),
    HeldOut(
        name='w02_scaled_queries_and_keys_both',
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
  # scale the queries and the keys by 1/sqrt(D_q)
  Q = Q / np.sqrt(D_q)
  K = K / np.sqrt(D_q)
  attention = softmax_cols(K.T @ Q)
  X_prime = V @ attention
  return X_prime''',
        cause='Both the queries and the keys are divided by sqrt(D_q), so their dot products are divided by D_q rather than sqrt(D_q); eq. 12.9 divides the dot products K^T Q once by sqrt(D_q).',
    ),
    HeldOut(
        name='w03_perm_identity_left_out',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = [np.eye(n)]
  permutation_matrices = []
  for order in itertools.permutations(range(n)):
    if order == tuple(range(n)):
      continue  # the identity does not permute anything
    permutation_matrices.append(np.eye(n)[:, list(order)])
  return permutation_matrices''',
        cause='The identity order is skipped as if it were not a permutation, so only n! - 1 matrices are returned; the identity is a permutation matrix too and must be in the list of all n!.',
    ),
    HeldOut(
        name='w03_pe_positions_from_one',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  for n in range(1, N + 1):
    for i in range(0, D, 2):
      angle = n / 10000 ** (i / D)
      encoding[i, n - 1] = np.sin(angle)
      if i + 1 < D:
        encoding[i + 1, n - 1] = np.cos(angle)
  return encoding''',
        cause='The positions are counted from 1 to N instead of 0 to N-1, so column n holds the encoding of position n+1; the first token is at position 0, whose column is sin(0) = 0, cos(0) = 1 alternating.',
    ),
    HeldOut(
        name='w04_weights_scaled_by_token_count',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  scores = K.T @ Q  # (N, N)
  attention = softmax_cols(scores / np.sqrt(K.shape[1]))
  return attention''',
        cause="The dot products are divided by the square root of K.shape[1], the number of tokens N, instead of the head's query size D/H = Q.shape[0]; eq. 12.9 scales K^T Q by 1/sqrt(D_q).",
    ),
    HeldOut(
        name='w04_general_two_heads_only',
        assignment=A04,
        cell='multihead_general_def',
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # Replace this line
  # reuse the two-head version above with the first two heads of the lists
  X_prime = multihead_scaled_self_attention(X, omegas_v[0], omegas_q[0], omegas_k[0], betas_v[0], betas_q[0], betas_k[0],
                                            omegas_v[1], omegas_q[1], omegas_k[1], betas_v[1], betas_q[1], betas_k[1], omega_c)
  return X_prime''',
        cause="The general function just calls the two-head version on the first two heads of the lists, so any heads beyond the second are ignored (and omega_c no longer matches the stacked heads); loop over all H = len(omegas_v) heads and stack every head's output before omega_c.",
    ),
    HeldOut(
        name='w05_masked_after_softmax_not_renormalised',
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
    valid_lens = np.asarray(valid_lens)
    if valid_lens.ndim == 1:
        lens = valid_lens[:, None, None]  # (B, 1, 1)
    else:
        lens = valid_lens[:, :, None]  # (B, Tq, 1)
    mask = np.arange(scores.shape[-1]) < lens  # (B, Tq, Tk)
    # softmax first, then zero the weights of the padded keys
    weights = np.where(mask, softmax(scores), 0.0)
    return weights''',
        cause='The softmax is taken over all the keys and the weights of the padded keys are zeroed afterwards, so the remaining weights no longer sum to one; set the masked scores to -1e6 before the softmax so that the valid keys share all the weight.',
    ),
    HeldOut(
        name='w05_mha_lens_concatenated_head_major',
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
        Q = transpose_qkv(queries @ self.W_q + self.b_q, self.num_heads)  # (B*H, Tq, d)
        K = transpose_qkv(keys @ self.W_k + self.b_k, self.num_heads)  # (B*H, Tk, d)
        V = transpose_qkv(values @ self.W_v + self.b_v, self.num_heads)  # (B*H, Tk, d)
        if valid_lens is not None:
            # one copy of the lengths for every head
            valid_lens = np.concatenate([valid_lens] * self.num_heads, axis=0)  # (B*H,) or (B*H, Tq)
        scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])  # (B*H, Tq, Tk)
        self.attention_weights = masked_softmax(scores, valid_lens)  # (B*H, Tq, Tk)
        output = transpose_output(self.attention_weights @ V, self.num_heads) @ self.W_o + self.b_o  # (B, Tq, D)
        return output''',
        cause="The valid lengths are copied once per head with np.concatenate([valid_lens] * H), giving [l0, l1, ..., l0, l1, ...], but after transpose_qkv item b*H + h is head h of sequence b, so sequences get each other's lengths whenever B > 1; repeat each length in place, np.repeat(valid_lens, H, axis=0).",
    ),
    HeldOut(
        name='w06_sa_scaled_by_model_width',
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
        Q = embeddings @ self.q_proj  # (B, T, D)
        K = embeddings @ self.k_proj
        V = embeddings @ self.v_proj
        Q = Q.reshape(B, T, H, d).transpose(0, 2, 1, 3)  # (B, H, T, d)
        K = K.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        V = V.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(D)  # (B, H, T, T)
        attn_weights = self.softmax(scores, axis=-1)
        out = attn_weights @ V  # (B, H, T, d)
        out = out.transpose(0, 2, 1, 3).reshape(B, T, D)  # (B, T, D)
        output = out @ self.out_proj
        self.attn_weights = attn_weights  # (B, H, T, T)
        return output''',
        cause="Each head's scores are divided by sqrt(D), the whole embedding size, instead of sqrt(d) with d = D / H the head's size; right only for one head (eq. 12.9 scales by the square root of the queries' own size).",
    ),
    HeldOut(
        name='w06_pca_eigh_ascending_order',
        assignment=A06,
        cell='pca_def',
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    Xc = X - X.mean(axis=0)  # (N, D)
    # principal axes = eigenvectors of the covariance matrix
    cov = Xc.T @ Xc / (X.shape[0] - 1)  # (D, D)
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    components = eigenvectors[:, :n_components].T  # (k, D)
    largest = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(n_components), largest])
    components = components * signs[:, None]
    return components''',
        cause='np.linalg.eigh returns the eigenvalues in ascending order, so its first eigenvectors are the directions of least variance; the principal axes are the eigenvectors of the largest eigenvalues (the last columns, reversed), i.e. the first rows of Vt from the SVD.',
    ),
    HeldOut(
        name='w07_ab_bias_grads_summed_over_features',
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
  dQ = c * K @ dS
  dK = c * Q @ dS.T
  gradients["dX"] = omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK
  gradients["d_omega_v"] = dV @ X.T
  gradients["d_omega_q"] = dQ @ X.T
  gradients["d_omega_k"] = dK @ X.T
  # the biases are added to every token, so sum their gradients
  gradients["d_beta_v"] = np.sum(dV, axis=0, keepdims=True)
  gradients["d_beta_q"] = np.sum(dQ, axis=0, keepdims=True)
  gradients["d_beta_k"] = np.sum(dK, axis=0, keepdims=True)
  return gradients''',
        cause="The bias gradients are summed over axis 0 (the features) instead of axis 1 (the tokens), giving (1, N) arrays of the wrong values; each bias is added to every token's column, so d_beta = dQ.sum(axis=1, keepdims=True) (and likewise for K and V), shape (D, 1).",
    ),
    HeldOut(
        name='w07_mha_softmax_backward_query_axis',
        assignment=A07,
        cell='mha_backward_def',
        source=r'''def mha_backward(x, params, num_heads, dout):
  # TODO -- the forward pass with a cache, then backwards: W_o and b_o, split the heads' gradient, dV and dA,
  # dS (the softmax's backward along the last axis, times 1/sqrt(d)), dQ and dK, merge them, then the
  # projections' gradients (summed over the batch and the tokens) and dx (three paths)
  # Replace these lines
  dx = np.zeros_like(x)
  grads = {name: np.zeros_like(value) for name, value in params.items()}
  cache = {}
  mha_forward(x, params, num_heads, cache)
  Q, K, V, A, heads = cache["Q"], cache["K"], cache["V"], cache["A"], cache["heads"]
  d = Q.shape[-1]
  grads["W_o"] = np.einsum("btd,bte->de", heads, dout)
  grads["b_o"] = dout.sum(axis=(0, 1))
  d_heads = split_heads(dout @ params["W_o"].T, num_heads)  # (B, H, T, d)
  dV = A.transpose(0, 1, 3, 2) @ d_heads
  dA = d_heads @ V.transpose(0, 1, 3, 2)  # (B, H, T, T)
  # softmax backward: a * (g - sum(a * g))
  dS = A * (dA - np.sum(dA * A, axis=-2, keepdims=True)) / np.sqrt(d)
  dQ = dS @ K
  dK = dS.transpose(0, 1, 3, 2) @ Q
  dx = np.zeros_like(x, dtype=float)
  for name, d_proj in (("q", dQ), ("k", dK), ("v", dV)):
    d_proj = merge_heads(d_proj)  # (B, T, D)
    grads["W_" + name] = np.einsum("btd,bte->de", x, d_proj)
    grads["b_" + name] = d_proj.sum(axis=(0, 1))
    dx = dx + d_proj @ params["W_" + name].T
  return dx, grads''',
        cause="In the softmax's backward pass the sum of dA * A runs over axis -2 (the queries) instead of the last axis (the keys); in the row convention each query's weights are one row, a softmax over the keys, so dS = A * (dA - sum(dA * A, axis=-1, keepdims=True)) / sqrt(d).",
    ),
    HeldOut(
        name='w08_ln_unbiased_variance',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    out = np.zeros_like(x)
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, ddof=1, keepdims=True)  # sample variance
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = gamma * x_hat + beta
    return out''',
        cause='The variance is computed with ddof=1, dividing by D - 1 instead of D; LayerNorm normalises by the plain (biased) variance over the D features, np.var(x, axis=-1, keepdims=True).',
    ),
    HeldOut(
        name='w08_mlp_bias_after_relu',
        assignment=A08,
        cell='mlp_def',
        source=r'''def mlp(x, W1, b1, W2, b2):
    # The position-wise MLP: x (B, T, D) -> hidden (B, T, D_ff) -> (B, T, D), each token alone
    # TODO -- ReLU(x @ W1 + b1) @ W2 + b2, with np.maximum(0, ...) as the ReLU
    # Replace this line
    out = np.zeros((x.shape[0], x.shape[1], W2.shape[1]))
    hidden = np.maximum(0, x @ W1) + b1  # (B, T, D_ff)
    out = hidden @ W2 + b2
    return out''',
        cause='The first bias b1 is added after the ReLU instead of inside it, so the hidden layer is max(0, x W1) + b1 and can be negative; the MLP is ReLU(x W1 + b1) W2 + b2.',
    ),
    HeldOut(
        name='w09_ce_divided_by_all_positions',
        assignment=A09,
        cell='cross_entropy_def',
        source=r'''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    # TODO -- log_p = shifted - log(sum(exp(shifted))) with shifted = logits - max over the last axis;
    # loss = -(sum of weights * log_p at the targets) / sum(weights);
    # dlogits = (softmax - one-hot of the targets) * weights / sum(weights), the weights over the last axis
    # Replace this line
    loss, dlogits = 0.0, np.zeros_like(logits)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # (B, T, V)
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    n = targets.size  # number of positions
    loss = -np.sum(weights * picked) / n
    probs = np.exp(log_p)
    one_hot = np.eye(logits.shape[-1])[targets]
    dlogits = (probs - one_hot) * weights[..., None] / n
    return loss, dlogits''',
        cause='The summed loss (and its gradient) is divided by targets.size, the number of all B*T positions, instead of by np.sum(weights), the number of positions that count; the loss is the mean over the weighted positions only.',
    ),
    HeldOut(
        name='w09_adam_step_with_raw_gradient',
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
    new_param = param - lr * grad / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v''',
        cause='The parameter step uses the raw gradient in the numerator instead of the bias-corrected first moment m_hat, so the momentum is computed but never used; Adam steps by -lr * m_hat / (sqrt(v_hat) + eps).',
    ),
    HeldOut(
        name='w10_count_pairs_step_two',
        assignment=A10,
        cell='count_pairs_def',
        source=r'''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  # Replace this line
  counts = {}
  for word, freq in corpus.items():
    for k in range(0, len(word) - 1, 2):
      pair = (word[k], word[k + 1])
      counts[pair] = counts.get(pair, 0) + freq
  return counts''',
        cause="The loop over positions steps by two, so only the non-overlapping pairs at even positions are counted (as if the word were being merged); count_pairs must count the pair at every position k = 0 .. len(word) - 2, times the word's frequency.",
    ),
    HeldOut(
        name='w10_learn_ties_first_seen',
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
    if len(counts) == 0:
      break
    pair = max(counts, key=counts.get)  # the most frequent pair
    merges.append(pair)
    corpus = merge_pair(corpus, pair)
  return merges''',
        cause='max(counts, key=counts.get) breaks ties between equally frequent pairs by whichever was counted first (dict order), not by the stated rule; take the smallest of the most frequent pairs, min(counts, key=lambda p: (-counts[p], p)).',
    ),
    HeldOut(
        name='w10_encode_no_marker_on_last_word',
        assignment=A10,
        cell='encode_def',
        source=r'''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  # Replace this line
  ids = []
  words = text.split(" ")
  for k, word in enumerate(words):
    symbols = tuple(word)
    if k < len(words) - 1:
      symbols = symbols + (EOW,)  # the marker stands for the space between words
    for pair in merges:
      symbols = next(iter(merge_pair({symbols: 1}, pair)))
    ids += [vocab.get(symbol, vocab[UNK]) for symbol in symbols]
  return ids''',
        cause='The end-of-word marker is treated as the space between words and left off the last word, so the last word is encoded without </w> (merges ending in </w> cannot apply and decode loses a character); every word, the last one too, ends with </w>.',
    ),
    HeldOut(
        name='w11_greedy_appends_to_prompt',
        assignment=A11,
        cell='greedy_def',
        source=r'''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  # TODO -- n_new times: the logits given ids, their argmax, appended to ids
  # Replace this line
  ids = list(prompt)
  ids = prompt
  for _ in range(n_new):
    logits = next_logits(ids)
    ids.append(int(np.argmax(logits)))
  return ids''',
        cause="ids = prompt makes ids the caller's own list, so appending the new tokens also grows the prompt passed in, and later calls with the same prompt start from a longer one; copy it first, ids = list(prompt).",
    ),
    HeldOut(
        name='w11_top_p_stops_before_p',
        assignment=A11,
        cell='top_p_def',
        source=r'''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  # Replace this line
  result = np.zeros_like(probs)
  order = np.argsort(-probs, kind="stable")  # largest first
  cumulative = np.cumsum(probs[order])
  keep = order[cumulative <= p]  # the most likely tokens while the sum stays within p
  result[keep] = probs[keep]
  result = result / np.sum(result)
  return result''',
        cause='Only the tokens whose cumulative probability stays at or below p are kept, so the token that takes the sum to p or past it is dropped (and nothing is kept, giving 0/0, when the most likely token alone exceeds p); keep the smallest set of most likely tokens whose sum reaches p, including the crossing token.',
    ),
    HeldOut(
        name='w11_kv_attends_before_append',
        assignment=A11,
        cell='decode_step_def',
        source=r'''def decode_step(params, token, K_cache, V_cache, num_heads):
  """(logits (V,), K, V): one new token, given only it and its sequence's cache (H, t, d), t tokens so far."""
  p = params
  # TODO -- position t = K_cache.shape[1]; x; LayerNorm 1; q, k, v (H, 1, d); append k, v; attend (no mask);
  # W_o and b_o, the residual, LayerNorm 2, the MLP, the residual, the final LayerNorm, W_out and b_out
  # Replace these lines
  logits = np.zeros(p["W_out"].shape[1])
  K, V = K_cache, V_cache
  t = K_cache.shape[1]
  x = p["tok_emb"][token] + p["pos_emb"][t]  # (D,)
  D = x.shape[0]
  d = D // num_heads
  h, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  q = (h @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)
  k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  # attend over the keys and values seen so far
  weights = softmax(q @ K_cache.transpose(0, 2, 1) / np.sqrt(d))  # (H, 1, t)
  heads = (weights @ V_cache).reshape(D)
  K = np.concatenate([K_cache, k], axis=1)  # (H, t + 1, d)
  V = np.concatenate([V_cache, v], axis=1)
  x1 = x + heads @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  mlp_out, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  hf, _ = layer_norm_forward(x1 + mlp_out, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V''',
        cause="The new token's query attends over the cache before its own key and value are appended, so it never attends to itself (and at the first step the cache is empty, so the softmax is over nothing); append k and v to the cache first, then attend over all t + 1 keys.",
    ),
]
