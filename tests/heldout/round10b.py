"""Held-out wrong answers, round 10, part B (2026-11-29, round 10): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='k07_mha_softmax_backward_sums_over_batch',
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
  dS = softmax_backward(A, dA) / np.sqrt(d)  # reuse my softmax backward from section 1
  dQ = dS @ K
  dK = dS.transpose(0, 1, 3, 2) @ Q
  dx = np.zeros_like(x, dtype=float)
  for name, d_proj in (("q", dQ), ("k", dK), ("v", dV)):
    d_proj = merge_heads(d_proj)
    grads["W_" + name] = np.einsum("btd,bte->de", x, d_proj)
    grads["b_" + name] = d_proj.sum(axis=(0, 1))
    dx = dx + d_proj @ params["W_" + name].T
  return dx, grads''',
        cause="The student reused section 1's softmax_backward, which sums A * dA down axis 0, on the (B, H, T, T) weights, so the sum that couples a row's entries runs over the batch instead of over the keys; in the row convention it must be dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / sqrt(d).",
    ),
    HeldOut(
        name='k07_gc_index_loops_assume_2d',
        assignment=A07,
        cell='gradient_check_def',
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  # Replace this line
  relative_error = 0.0
  numeric = np.zeros_like(X, dtype=float)
  for i in range(X.shape[0]):
    for j in range(X.shape[1]):
      X_plus = X.astype(float)
      X_minus = X.astype(float)
      X_plus[i, j] += eps
      X_minus[i, j] -= eps
      numeric[i, j] = (f(X_plus) - f(X_minus)) / (2 * eps)
  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)
  return relative_error''',
        cause='The central differences loop over X.shape[0] and X.shape[1] and perturb X_plus[i, j], which is one entry only for a 2-D X; for a 3-D x (B, T, D) it moves a whole feature vector at once and writes the directional derivative into all its entries, so the check fails right gradients; loop over every entry, np.ndindex(X.shape).',
    ),
    HeldOut(
        name='k08_ln_divided_by_variance',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    out = np.zeros_like(x)
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    x_hat = (x - mean) / (var + eps)
    out = gamma * x_hat + beta
    return out''',
        cause='The centred features are divided by the variance plus eps instead of by the standard deviation: the square root is forgotten; LayerNorm is gamma * (x - mean) / sqrt(var + eps) + beta over the last axis.',
    ),
    HeldOut(
        name='k08_block_pre_norm_final_layer_norm',
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
        h = h + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"], params["b1"],
                    params["W2"], params["b2"])
        out = layer_norm(h, params["gamma2"], params["beta2"])  # GPT-2 normalises the output at the end
    return out''',
        cause="The pre-norm block ends with an extra LayerNorm (with the second LayerNorm's gamma2, beta2) on its output, GPT-2's final LayerNorm which belongs after the last block, not inside each one; the pre-norm block returns h + mlp(LayerNorm_2(h)) with h = x + attn(LayerNorm_1(x)), unnormalised.",
    ),
    HeldOut(
        name='k09_ce_log_p_from_unshifted_logits',
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
    log_p = logits - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
    loss = -np.sum(weights * picked) / np.sum(weights)
    one_hot = np.eye(logits.shape[-1])[targets]
    dlogits = (np.exp(log_p) - one_hot) * (weights / np.sum(weights))[..., None]
    return loss, dlogits''',
        cause="log_p subtracts the log-sum-exp of the shifted logits from the unshifted logits, so every log-probability is too large by that position's max logit (and exp(log_p) is the softmax times exp(max)); log_p = shifted - log(sum(exp(shifted))), with shifted = logits - max on both sides.",
    ),
    HeldOut(
        name='k09_train_gradient_divided_by_count_again',
        assignment=A09,
        cell='train_step_def',
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits / np.sum(weights), cache)  # the loss is a mean over the counted positions
    adam_state["t"] += 1
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss''',
        cause="dlogits from cross_entropy is already averaged over the counted positions (it carries w / sum(w)), and the student divides it by sum(weights) again before model_backward, so every gradient (and Adam's m and v) is sum(w) times too small; pass dlogits to model_backward as cross_entropy returns it.",
    ),
    HeldOut(
        name='k10_encode_stops_at_first_unused_merge',
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
      new_symbols = next(iter(merge_pair({symbols: 1}, pair)))
      if new_symbols == symbols:
        break  # this merge does not apply any more: the word is done
      symbols = new_symbols
    ids += [vocab.get(symbol, vocab[UNK]) for symbol in symbols]
  return ids''',
        cause="The merge loop breaks at the first merge that leaves the word unchanged, taking it for the end of the word's merges; but a merge that does not apply to this word says nothing about the later ones, so every merge must be tried in the order learned, each to the whole word, with no early exit.",
    ),
    HeldOut(
        name='k10_count_pairs_wraps_around',
        assignment=A10,
        cell='count_pairs_def',
        source=r'''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  # Replace this line
  counts = {}
  for word, freq in corpus.items():
    for k in range(len(word)):
      pair = (word[k - 1], word[k])  # the symbol before position k, and the one at k
      counts[pair] = counts.get(pair, 0) + freq
  return counts''',
        cause="The loop pairs word[k - 1] with word[k] for every k from 0, and at k = 0 the index -1 wraps round to the last symbol, so each word also counts the pair (last symbol, first symbol), e.g. ('</w>', 'l'), which never stands side by side; pairs are (word[k], word[k + 1]) for k from 0 to len(word) - 2 only.",
    ),
    HeldOut(
        name='k11_kv_second_layer_norm_skipped',
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
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, v], axis=1)
  weights = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))  # (H, 1, t + 1)
  heads = (weights @ V).reshape(D)
  x1 = x + heads @ p["W_o"] + p["b_o"]
  mlp_out, _ = mlp_forward(x1, p["W1"], p["b1"], p["W2"], p["b2"])
  hf, _ = layer_norm_forward(x1 + mlp_out, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V''',
        cause='The MLP is applied to x1, the residual stream after attention, without LayerNorm 2 before it; the pre-norm block feeds the MLP layer_norm(x1, gamma2, beta2) and adds its output to x1, as model_forward does.',
    ),
    HeldOut(
        name='k11_top_p_cumsum_reversed_after_sum',
        assignment=A11,
        cell='top_p_def',
        source=r'''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  # Replace this line
  result = np.zeros_like(probs)
  order = np.argsort(-probs, kind="stable")
  cumulative = np.cumsum(np.sort(probs))[::-1]  # the sorted probabilities, largest first, summed
  n = int(np.searchsorted(cumulative, p)) + 1
  kept = np.zeros_like(probs)
  kept[order[:n]] = probs[order[:n]]
  result = kept / np.sum(kept)
  return result''',
        cause="A misplaced [::-1]: np.cumsum(np.sort(probs))[::-1] sums the probabilities from the smallest up and then reverses the sums, so the array searched for p is not the running total of the largest probabilities (and is decreasing, which np.searchsorted does not handle), and the wrong number of tokens is kept; the running sum is np.cumsum(probs[order]) with order = np.argsort(-probs, kind='stable').",
    ),
]
