"""Held-out wrong answers, round 14, part B (2026-11-29, round 14): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='i07_mha_dv_weights_not_transposed',
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
  grads = {"W_o": np.einsum("btd,bte->de", heads, dout), "b_o": dout.sum(axis=(0, 1))}
  d_heads = split_heads(dout @ params["W_o"].T, num_heads)  # (B, H, T, d)
  dV = A @ d_heads  # heads = A @ V, so dV = A @ d_heads
  dA = d_heads @ V.transpose(0, 1, 3, 2)  # (B, H, T, T)
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = dS @ K
  dK = dS.transpose(0, 1, 3, 2) @ Q
  dx = np.zeros_like(x, dtype=float)
  for name, d_proj in (("q", dQ), ("k", dK), ("v", dV)):
    d_proj = merge_heads(d_proj)
    grads["W_" + name] = np.einsum("btd,bte->de", x, d_proj)
    grads["b_" + name] = d_proj.sum(axis=(0, 1))
    dx = dx + d_proj @ params["W_" + name].T
  return dx, grads
''',
        cause='heads = A @ V along the last two axes, so the value gradient is dV = A^T @ d_heads (A.transpose(0, 1, 3, 2) @ d_heads); the student used A @ d_heads, which gives the wrong dV (and so wrong dx, W_v and b_v gradients) because A is not symmetric.',
    ),
    HeldOut(
        name='i07_ab_softmax_backward_args_swapped',
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
  dS = softmax_backward(dA, A)
  dQ = c * K @ dS
  dK = c * Q @ dS.T
  gradients = {"dX": omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK,
               "d_omega_v": dV @ X.T, "d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T,
               "d_beta_v": dV.sum(axis=1, keepdims=True),
               "d_beta_q": dQ.sum(axis=1, keepdims=True),
               "d_beta_k": dK.sum(axis=1, keepdims=True)}
  return gradients
''',
        cause='softmax_backward takes (A, dA), but the student called softmax_backward(dA, A), computing dA * (A - sum(dA * A)) instead of A * (dA - sum(A * dA)); dS, and with it dQ, dK and every gradient through the scores, are wrong (the value path is still right).',
    ),
    HeldOut(
        name='i08_flops_weighted_sums_forgotten',
        assignment=A08,
        cell='counts_def',
        source=r'''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    # Replace this line
    count = 0
    attention = 4 * D * D + 4 * D  # W_q, W_k, W_v, W_o and their biases
    feed_forward = D * D_ff + D_ff + D_ff * D + D  # W1, b1, W2, b2
    norms = 2 * 2 * D  # two LayerNorms, gamma and beta
    count = attention + feed_forward + norms
    return count


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    # Replace this line
    flops = 0
    d = D // H
    projections = 4 * T * D * D  # q, k, v and the output projection
    scores = H * T * T * d  # Q @ K.T for each head
    feed_forward = T * D * D_ff + T * D_ff * D  # the two MLP layers
    flops = projections + scores + feed_forward
    return flops
''',
        cause='block_flops counts the scores Q @ K^T (H * T * T * d) but forgets the second attention product, the weighted sums weights @ V, another H * T * T * d multiply-adds; the total is short by T * T * D.',
    ),
    HeldOut(
        name='i08_block_post_norm_on_sublayer_output',
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
    T = x.shape[1]
    mask = causal_mask(T, T)
    if post_norm:
        # post-norm: the norm comes after the sublayer
        h = x + layer_norm(multi_head_attention(x, params, num_heads, mask), params["gamma1"], params["beta1"])
        out = h + layer_norm(mlp(h, params["W1"], params["b1"], params["W2"], params["b2"]),
                             params["gamma2"], params["beta2"])
    else:
        h = x + multi_head_attention(layer_norm(x, params["gamma1"], params["beta1"]), params, num_heads, mask)
        out = h + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"], params["b1"],
                      params["W2"], params["b2"])
    return out
''',
        cause="In the post-norm branch the student normalised only the sublayer's output and added it to the un-normalised residual (x + LN(attention(x)), then h + LN(mlp(h))); post-norm normalises the sum: x = LN_1(x + attention(x)), then LN_2(x + mlp(x)).",
    ),
    HeldOut(
        name='i09_ce_weights_on_one_hot_only',
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
    count = np.sum(weights)
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
    loss = -np.sum(weights * picked) / count
    one_hot = np.eye(logits.shape[-1])[targets] * weights[..., None]  # only the targets that count
    dlogits = (np.exp(log_p) - one_hot) / count
    return loss, dlogits
''',
        cause='The student weighted only the one-hot term of the gradient, (softmax - weights * one_hot) / sum(weights), so positions of weight 0 still get a gradient of softmax / sum(weights); the whole difference must be weighted: (softmax - one_hot) * weights / sum(weights). The loss itself is right.',
    ),
    HeldOut(
        name='i09_adam_corrects_old_moments',
        assignment=A09,
        cell='adam_step_def',
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    # Replace this line
    new_param, new_m, new_v = param, m, v
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v
''',
        cause="The student computed the new moments but bias-corrected the old ones (m_hat = m / (1 - beta1**t), v_hat = v / (1 - beta2**t)), so each step uses the previous step's moments (the first step does not move at all); Adam corrects the updated moments new_m and new_v.",
    ),
    HeldOut(
        name='i10_count_pairs_get_default_freq',
        assignment=A10,
        cell='count_pairs_def',
        source=r'''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  # Replace this line
  counts = {}
  for word, freq in corpus.items():
    for pair in zip(word[:-1], word[1:]):
      counts[pair] = counts.get(pair, freq) + freq
  return counts
''',
        cause="counts.get(pair, freq) + freq starts a new pair at freq before adding freq, so the first occurrence of every pair is counted twice (one word's frequency too many); the default of get must be 0.",
    ),
    HeldOut(
        name='i10_encode_unknown_as_unk_string',
        assignment=A10,
        cell='encode_def',
        source=r'''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  # Replace this line
  ids = []
  for word in text.split(" "):
    symbols = tuple(word) + (EOW,)
    for pair in merges:
      symbols = next(iter(merge_pair({symbols: 1}, pair)))
    ids += [vocab.get(symbol, UNK) for symbol in symbols]
  return ids
''',
        cause="For a symbol not in the vocabulary the student returned the default UNK itself, the string '<unk>', with vocab.get(symbol, UNK); an id list must hold the id of the unknown token, vocab.get(symbol, vocab[UNK]) (known symbols are right, so it only shows on text with unseen symbols).",
    ),
    HeldOut(
        name='i11_kv_mlp_residual_forgotten',
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
  x = p["tok_emb"][token] + p["pos_emb"][t]
  D = x.shape[0]
  d = D // num_heads
  h, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  q = (h @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)
  k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, v], axis=1)
  weights = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))
  heads = (weights @ V).reshape(D)
  x1 = x + heads @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  mlp_out, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  hf, _ = layer_norm_forward(mlp_out, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="The student dropped the second residual: the final LayerNorm gets the MLP's output alone, LN_f(mlp(LN_2(x1))), instead of the residual stream x1 + mlp(LN_2(x1)); the cached logits then differ from the full forward pass at every step.",
    ),
    HeldOut(
        name='i11_top_p_kept_values_unsorted',
        assignment=A11,
        cell='top_p_def',
        source=r'''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  # Replace this line
  result = np.zeros_like(probs)
  order = np.argsort(-probs, kind="stable")
  cumulative = np.cumsum(probs[order])
  n = int(np.searchsorted(cumulative, p)) + 1
  result[order[:n]] = probs[:n]
  result = result / np.sum(result)
  return result
''',
        cause='The kept positions are taken in sorted order, order[:n], but the values written there are probs[:n], the first n probabilities by token id; each kept token must keep its own probability, kept[order[:n]] = probs[order[:n]], before renormalising.',
    ),
]
