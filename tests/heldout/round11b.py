"""Held-out wrong answers, round 11, part B (2026-11-29, round 11): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='m07_gc_plus_minus_same_array',
        assignment=A07,
        cell='gradient_check_def',
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  # Replace this line
  relative_error = 0.0
  numeric = np.zeros_like(X, dtype=float)
  for index in np.ndindex(X.shape):
    X_plus = X_minus = X.astype(float)  # a copy, so X itself is not changed
    X_plus[index] += eps
    X_minus[index] -= eps
    numeric[index] = (f(X_plus) - f(X_minus)) / (2 * eps)
  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)
  return relative_error
''',
        cause='X_plus and X_minus are bound to one and the same copy (X_plus = X_minus = X.astype(float)), so adding eps and then subtracting it leaves the copy unchanged and f(X_plus) - f(X_minus) is always 0: every numerical derivative is 0 and the relative error is 1; the central difference needs two separate copies, X + eps e_i and X - eps e_i.',
    ),
    HeldOut(
        name='m07_mha_scores_grad_divided_by_d',
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
  dA = d_heads @ V.transpose(0, 1, 3, 2)
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / d  # the scale of the scores
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
        cause="The softmax's backward is divided by the head size d instead of sqrt(d), so dQ, dK and everything built on them (dx, W_q, W_k, b_q, b_k) are too small by a factor sqrt(d); the forward pass scales the scores by 1/sqrt(d) (eq. 12.9), so the chain rule multiplies dS by 1/sqrt(d).",
    ),
    HeldOut(
        name='m08_block_second_residual_from_input',
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
        h = layer_norm(x + multi_head_attention(x, params, num_heads, mask), params["gamma1"], params["beta1"])
        out = layer_norm(h + mlp(h, params["W1"], params["b1"], params["W2"], params["b2"]),
                         params["gamma2"], params["beta2"])
    else:
        h = x + multi_head_attention(layer_norm(x, params["gamma1"], params["beta1"]), params, num_heads, mask)
        out = x + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"], params["b1"],
                      params["W2"], params["b2"])
    return out
''',
        cause="In the pre-norm branch the second residual adds the MLP's output to the block's input x instead of to h = x + attention(LN1(x)), so the attention sub-layer's output is thrown away (it only feeds LN2); pre-norm is h = x + attention(LN1(x)), out = h + mlp(LN2(h)).",
    ),
    HeldOut(
        name='m08_counts_one_layer_norm',
        assignment=A08,
        cell='counts_def',
        source=r'''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    # Replace this line
    count = 0
    attention = 4 * D * D + 4 * D  # W_q, W_k, W_v, W_o and b_q, b_k, b_v, b_o
    feed_forward = D * D_ff + D_ff + D_ff * D + D  # W1, b1, W2, b2
    norms = 2 * D  # the LayerNorm's gamma and beta
    count = attention + feed_forward + norms
    return count


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    # Replace this line
    flops = 0
    d = D // H
    projections = 4 * T * D * D  # Q, K, V and the output projection
    scores = H * T * T * d  # Q @ K.T per head
    weighted_sums = H * T * T * d  # A @ V per head
    feed_forward = T * D * D_ff + T * D_ff * D
    flops = projections + scores + weighted_sums + feed_forward
    return flops
''',
        cause='block_parameters counts the gamma and beta of only one LayerNorm (2 * D), but the block has two (before attention and before the MLP), so it is 2 * D short; the norms contribute 2 * 2 * D.',
    ),
    HeldOut(
        name='m09_ce_normalised_per_sequence',
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
    count = np.sum(weights, axis=-1, keepdims=True)  # (B, 1): the positions that count
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    loss = -np.sum(weights * picked / count)
    one_hot = np.eye(logits.shape[-1])[targets]
    dlogits = (np.exp(log_p) - one_hot) * (weights / count)[..., None]
    return loss, dlogits
''',
        cause="The weights are summed per sequence (axis=-1) instead of over the whole batch, so the loss and gradient are the sum over sequences of each sequence's mean, B times too large when every sequence has the same number of weighted positions (right only for batch size 1); the loss is -sum(weights * log_p[target]) / sum(weights) with one sum over all positions of the batch.",
    ),
    HeldOut(
        name='m09_train_t_assigned_plus_one',
        assignment=A09,
        cell='train_step_def',
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] =+ 1
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss
''',
        cause="adam_state['t'] =+ 1 assigns +1 instead of adding 1 (+=), so t is 1 at every step and Adam's bias correction divides by 1 - beta**1 every time (m_hat 10 times m, v_hat 1000 times v) instead of 1 - beta**t with t counting the steps; only the first step is right.",
    ),
    HeldOut(
        name='m10_learn_merge_result_discarded',
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
    pair = min(counts, key=lambda p: (-counts[p], p))  # the most frequent, ties: the smallest
    merges.append(pair)
    merge_pair(corpus, pair)  # merge it in the corpus
  return merges
''',
        cause='merge_pair returns a new corpus, but its result is thrown away (merge_pair(corpus, pair) without corpus = ...), so the corpus never changes and every round counts the same pairs and picks the same most frequent pair again; the corpus counted next must be the merged one.',
    ),
    HeldOut(
        name='m10_merge_pair_misses_pair_at_word_end',
        assignment=A10,
        cell='merge_pair_def',
        source=r'''def merge_pair(corpus, pair):
  """A new corpus with every occurrence of pair merged into one symbol, left to right, without overlaps."""
  # TODO -- walk each word from the left; where word[k], word[k + 1] is the pair, put one merged symbol and move on by two
  # Replace this line
  merged = dict(corpus)
  merged = {}
  for word, freq in corpus.items():
    symbols = []
    k = 0
    while k < len(word):
      if k + 2 < len(word) and word[k] == pair[0] and word[k + 1] == pair[1]:
        symbols.append(word[k] + word[k + 1])
        k += 2
      else:
        symbols.append(word[k])
        k += 1
    merged[tuple(symbols)] = merged.get(tuple(symbols), 0) + freq
  return merged
''',
        cause="Off by one: the test k + 2 < len(word) (instead of k + 1 < len(word)) never merges the pair when it is the last two symbols of a word, so pairs ending in the end-of-word marker </w> (e.g. 'est' '</w>') are never merged and learn_merges picks them again; a pair at positions k, k + 1 exists whenever k + 1 < len(word).",
    ),
    HeldOut(
        name='m11_sample_temperature_after_softmax',
        assignment=A11,
        cell='sample_def',
        source=r'''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  # TODO -- n_new times: probs = softmax(logits / temperature), one draw rng.choice(len(probs), p=probs), appended
  # Replace this line
  ids = list(prompt)
  for _ in range(n_new):
    probs = softmax(np.asarray(next_logits(ids)))  # (V,)
    probs = probs / temperature
    probs = probs / np.sum(probs)  # back to a sum of 1
    ids.append(int(rng.choice(len(probs), p=probs)))
  return ids
''',
        cause='The temperature divides the probabilities after the softmax and the result is renormalised, which cancels it: every temperature samples from softmax(logits); the distribution is softmax(logits / temperature), the logits divided before the softmax.',
    ),
    HeldOut(
        name='m11_kv_causal_mask_on_one_query',
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
  q = (h @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)  # (H, 1, d)
  k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)  # (H, t + 1, d)
  V = np.concatenate([V_cache, v], axis=1)
  scores = q @ K.transpose(0, 2, 1) / np.sqrt(d)  # (H, 1, t + 1)
  mask = np.tril(np.ones((1, t + 1), dtype=bool))  # causal, as in the full forward pass
  scores = np.where(mask, scores, -np.inf)
  weights = softmax(scores)
  heads = (weights @ V).reshape(D)
  x1 = x + heads @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  mlp_out, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  hf, _ = layer_norm_forward(x1 + mlp_out, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause='The causal mask of the full forward pass is copied into the step as np.tril of a (1, t + 1) array, whose single row keeps only key 0, so the new token attends only to the first token; the new token is the last position, so it must attend to every cached key and its own, with no mask.',
    ),
]
