"""Held-out wrong answers, round 15, part B (2026-11-30, round 15): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='o07_smb_dA_updated_in_place',
        assignment=A07,
        cell='softmax_backward_def',
        source=r'''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # Replace this line
  dS = np.zeros_like(dA)
  dA -= np.sum(A * dA, axis=0, keepdims=True)  # g - a^T g, column by column
  dS = A * dA  # (N, M)
  return dS
''',
        cause="The student subtracts each column's a^T g from dA in place (dA -= ...), so the caller's gradient array is overwritten; the result dS = A * (dA - sum(A * dA, axis=0)) is right, but it must be computed into a new array, leaving dA as it was.",
    ),
    HeldOut(
        name='o08_ln_eps_added_twice',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    out = np.zeros_like(x)
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True) + eps  # keep the variance away from zero
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = gamma * x_hat + beta
    return out
''',
        cause='The student adds eps to the variance and then again inside the square root, dividing by sqrt(var + 2 eps) instead of sqrt(var + eps); only tokens whose variance is near eps (the quiet token) change, but those change a lot.',
    ),
    HeldOut(
        name='o07_ab_forward_without_biases',
        assignment=A07,
        cell='attention_backward_def',
        source=r'''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  # Replace this line
  gradients = {"dX": np.zeros_like(X), "d_omega_v": np.zeros_like(omega_v), "d_omega_q": np.zeros_like(omega_q),
               "d_omega_k": np.zeros_like(omega_k), "d_beta_v": np.zeros_like(beta_v),
               "d_beta_q": np.zeros_like(beta_q), "d_beta_k": np.zeros_like(beta_k)}
  Q = omega_q @ X  # (D_q, N)
  K = omega_k @ X  # (D_q, N)
  V = omega_v @ X  # (D_v, N)
  c = 1 / np.sqrt(Q.shape[0])
  A = softmax_cols(c * K.T @ Q)  # (N, N)
  dV = dX_prime @ A.T  # (D_v, N)
  dA = V.T @ dX_prime  # (N, N)
  dS = softmax_backward(A, dA)  # (N, N)
  dQ = c * K @ dS  # (D_q, N)
  dK = c * Q @ dS.T  # (D_q, N)
  gradients["dX"] = omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK
  gradients["d_omega_v"] = dV @ X.T
  gradients["d_omega_q"] = dQ @ X.T
  gradients["d_omega_k"] = dK @ X.T
  gradients["d_beta_v"] = dV.sum(axis=1, keepdims=True)
  gradients["d_beta_q"] = dQ.sum(axis=1, keepdims=True)
  gradients["d_beta_k"] = dK.sum(axis=1, keepdims=True)
  return gradients
''',
        cause='The student reruns the forward pass without the biases (Q = omega_q X, K = omega_k X, V = omega_v X), so A, V, Q and K, and with them every gradient, belong to another function; the forward pass must be Q = omega_q X + beta_q, K = omega_k X + beta_k, V = omega_v X + beta_v, as in scaled_dot_product_self_attention (eqs. 12.2-12.4, 12.9).',
    ),
    HeldOut(
        name='o08_block_post_norm_layer_norms_swapped',
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
        # post-norm: the LayerNorm after the sublayers, so the second one comes after attention... then the first
        h = layer_norm(x + multi_head_attention(x, params, num_heads, mask), params["gamma2"], params["beta2"])
        out = layer_norm(h + mlp(h, params["W1"], params["b1"], params["W2"], params["b2"]),
                         params["gamma1"], params["beta1"])
    else:
        h = x + multi_head_attention(layer_norm(x, params["gamma1"], params["beta1"]), params, num_heads, mask)
        out = h + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"], params["b1"],
                      params["W2"], params["b2"])
    return out
''',
        cause="In the post-norm branch the student normalises after attention with the second LayerNorm's gamma2, beta2 and after the MLP with the first's gamma1, beta1; the LayerNorm after the attention residual is LayerNorm_1 (gamma1, beta1) and the one after the MLP residual is LayerNorm_2 (gamma2, beta2).",
    ),
    HeldOut(
        name='o09_adam_correction_beta_times_t',
        assignment=A09,
        cell='adam_step_def',
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    # Replace this line
    new_param, new_m, new_v = param, m, v
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = new_m / (1 - beta1 * t)
    v_hat = new_v / (1 - beta2 * t)
    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v
''',
        cause="The student writes the bias correction as 1 - beta * t instead of 1 - beta ** t, so at t >= 2 the divisor is negative (v_hat < 0, its square root nan) and at t = 1 it is only right by accident; Adam's correction is m_hat = m / (1 - beta1**t), v_hat = v / (1 - beta2**t).",
    ),
    HeldOut(
        name='o11_beam_finished_beams_extended',
        assignment=A11,
        cell='beam_search_def',
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
  for _ in range(n_new):
    candidates = []
    for ids, score in beams:
      log_probs = log_softmax(next_logits(ids))  # (V,)
      for token in range(len(log_probs)):
        candidates.append((ids + [token], score + log_probs[token]))
    order = np.argsort([-s for _, s in candidates], kind="stable")
    beams = [candidates[k] for k in order[:beam_width]]
  if length_norm:
    final = [score / (len(ids) - len(prompt)) for ids, score in beams]
  else:
    final = [score for ids, score in beams]
  best = beams[int(np.argmax(final))][0]
  return best
''',
        cause='The student extends every beam at every step, including beams that already ended with the end token, so a finished sequence keeps growing past the end token and the search never keeps a short finished sentence; a finished beam (at least one new token, the last one end) must be carried over as it is, with its score.',
    ),
    HeldOut(
        name='o11_kv_query_from_unnormalised_x',
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
  h, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])  # (D,): what goes into the cache
  q = (x @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)  # the new token's query
  k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)  # (H, t + 1, d)
  V = np.concatenate([V_cache, v], axis=1)  # (H, t + 1, d)
  weights = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))  # (H, 1, t + 1)
  heads = (weights @ V).reshape(D)
  x1 = x + heads @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  mlp_out, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  hf, _ = layer_norm_forward(x1 + mlp_out, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="The student computes the new token's query from the embedding x instead of from LayerNorm_1(x) (the keys and values use h, the query does not), so the attention differs from the full forward pass; q = LayerNorm_1(x) W_q + b_q, like k and v.",
    ),
    HeldOut(
        name='o09_train_weights_ignored',
        assignment=A09,
        cell='train_step_def',
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    logits, cache = model_forward(params, tokens, num_heads)  # (B, T, vocab)
    loss, dlogits = cross_entropy(logits, targets, np.ones(targets.shape))  # every position predicts the next token
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss
''',
        cause='The student passes np.ones for the weights to cross_entropy, so the loss and gradient average over every position, the prompt digits and separator included, whose next tokens cannot be predicted; the loss is the mean over the counted positions only, cross_entropy(logits, targets, weights).',
    ),
    HeldOut(
        name='o10_count_pairs_keys_reversed',
        assignment=A10,
        cell='count_pairs_def',
        source=r'''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  # Replace this line
  counts = {}
  for word, freq in corpus.items():
    for pair in zip(word[1:], word[:-1]):  # each symbol with the one before it
      counts[pair] = counts.get(pair, 0) + freq
  return counts
''',
        cause="The student zips word[1:] with word[:-1], so each key is (following symbol, preceding symbol), e.g. ('</w>', 'r'), the pair backwards; the key must be (word[k], word[k + 1]), the symbol a and then the symbol b that follows it.",
    ),
    HeldOut(
        name='o10_learn_ties_last_seen',
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
    pair = sorted(counts, key=counts.get)[-1]  # sorted by count: the last is the most frequent
    merges.append(pair)
    corpus = merge_pair(corpus, pair)
  return merges
''',
        cause="The student takes sorted(counts, key=counts.get)[-1]: the most frequent pair, but on ties the one counted last (sorted is stable), not the smallest pair the notebook's rule asks for; the pick is min(counts, key=lambda p: (-counts[p], p)).",
    ),
]
