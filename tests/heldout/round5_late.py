"""Held-out wrong answers, round 5 (2026-11-28), notebooks 07-11: written from the release notebooks alone by one
person who had read neither grader/ nor the earlier rounds' answers (only the list of their entry names, to write
other mistakes). Graded by `python -m tests.heldout.grade OUT --round 5`; judged in tests/heldout/judged.md.
Frozen: do not edit to suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name="v07_ab_da_transposed",
        assignment=A07,
        cell="attention_backward_def",
        source=r'''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  c = 1 / np.sqrt(Q.shape[0])
  A = softmax_cols(c * K.T @ Q)
  dV = dX_prime @ A.T
  dA = dX_prime.T @ V  # (N, N)
  dS = softmax_backward(A, dA)
  dQ = c * K @ dS
  dK = c * Q @ dS.T
  gradients = {"dX": omega_q.T @ dQ + omega_k.T @ dK + omega_v.T @ dV,
               "d_omega_v": dV @ X.T, "d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T,
               "d_beta_v": np.sum(dV, axis=1, keepdims=True),
               "d_beta_q": np.sum(dQ, axis=1, keepdims=True),
               "d_beta_k": np.sum(dK, axis=1, keepdims=True)}
  return gradients
''',
        cause="dA is computed as dX_prime.T @ V, the transpose of the right gradient; from X' = V A the gradient of A is V.T @ dX_prime (N x N, rows = keys, columns = queries).",
    ),
    HeldOut(
        name="v07_ab_scale_from_tokens",
        assignment=A07,
        cell="attention_backward_def",
        source=r'''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  c = 1 / np.sqrt(X.shape[1])  # 1/sqrt(D_q)
  A = softmax_cols(c * K.T @ Q)
  dV = dX_prime @ A.T
  dA = V.T @ dX_prime
  dS = softmax_backward(A, dA)
  dQ = c * K @ dS
  dK = c * Q @ dS.T
  gradients = {"dX": omega_q.T @ dQ + omega_k.T @ dK + omega_v.T @ dV,
               "d_omega_v": dV @ X.T, "d_omega_q": dQ @ X.T, "d_omega_k": dK @ X.T,
               "d_beta_v": np.sum(dV, axis=1, keepdims=True),
               "d_beta_q": np.sum(dQ, axis=1, keepdims=True),
               "d_beta_k": np.sum(dK, axis=1, keepdims=True)}
  return gradients
''',
        cause='The scale c is taken as 1/sqrt(X.shape[1]), the number of tokens N, instead of 1/sqrt(D_q), the size of the queries (Q.shape[0]); both the recomputed forward pass and dQ, dK use the wrong c.',
    ),
    HeldOut(
        name="v07_gc_rows_not_entries",
        assignment=A07,
        cell="gradient_check_def",
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  numeric = np.zeros(X.shape)
  for i in range(X.shape[0]):
    plus = X.copy()
    minus = X.copy()
    plus[i] += eps
    minus[i] -= eps
    numeric[i] = (f(plus) - f(minus)) / (2 * eps)
  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)
  return relative_error
''',
        cause='The loop runs over the rows of X (range(X.shape[0])) and perturbs a whole row at once, giving one directional derivative per row broadcast over its entries; each entry must be perturbed alone, looping with np.ndindex(X.shape).',
    ),
    HeldOut(
        name="v07_mha_weights_recomputed_unmasked",
        assignment=A07,
        cell="mha_backward_def",
        source=r'''def mha_backward(x, params, num_heads, dout):
  # TODO -- the forward pass with a cache, then backwards
  cache = {}
  mha_forward(x, params, num_heads, cache)
  Q, K, V, heads = cache["Q"], cache["K"], cache["V"], cache["heads"]
  d = Q.shape[-1]
  A = softmax_rows(Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d))  # (B, H, T, T): the attention weights
  grads = {}
  grads["W_o"] = np.einsum("btd,bte->de", heads, dout)
  grads["b_o"] = dout.sum(axis=(0, 1))
  d_heads = split_heads(dout @ params["W_o"].T, num_heads)
  dV = A.transpose(0, 1, 3, 2) @ d_heads
  dA = d_heads @ V.transpose(0, 1, 3, 2)
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = merge_heads(dS @ K)
  dK = merge_heads(dS.transpose(0, 1, 3, 2) @ Q)
  dV = merge_heads(dV)
  dx = np.zeros_like(x)
  for name, dP in (("q", dQ), ("k", dK), ("v", dV)):
    grads["W_" + name] = np.einsum("btd,bte->de", x, dP)
    grads["b_" + name] = dP.sum(axis=(0, 1))
    dx = dx + dP @ params["W_" + name].T
  grads = {name: grads[name] for name in params}
  return dx, grads
''',
        cause='The backward pass recomputes the attention weights as softmax_rows(Q K^T / sqrt(d)) without the causal mask instead of using the masked A the forward pass cached, so future tokens get weight and gradient; use cache["A"].',
    ),
    HeldOut(
        name="v07_smb_global_sum",
        assignment=A07,
        cell="softmax_backward_def",
        source=r'''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # a^T g is one number, so subtract it from dA before multiplying by a
  dS = A * (dA - np.sum(A * dA))
  return dS
''',
        cause="The coupling term np.sum(A * dA) runs over the whole matrix, so every column subtracts the same number; each column's softmax is separate, so the sum must run down each column: np.sum(A * dA, axis=0, keepdims=True).",
    ),
    HeldOut(
        name="v08_block_parallel_sublayers",
        assignment=A08,
        cell="block_def",
        source=r'''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    p = params
    mask = causal_mask(x.shape[1], x.shape[1])
    if post_norm:
        x = layer_norm(x + multi_head_attention(x, p, num_heads, mask), p["gamma1"], p["beta1"])
        x = layer_norm(x + mlp(x, p["W1"], p["b1"], p["W2"], p["b2"]), p["gamma2"], p["beta2"])
        out = x
    else:
        attn = multi_head_attention(layer_norm(x, p["gamma1"], p["beta1"]), p, num_heads, mask)
        ff = mlp(layer_norm(x, p["gamma2"], p["beta2"]), p["W1"], p["b1"], p["W2"], p["b2"])
        out = x + attn + ff
    return out
''',
        cause="The pre-norm block computes attention and MLP in parallel from the same input (x + attn(LN1(x)) + mlp(LN2(x))); the MLP's LayerNorm must read x after the attention residual: x = x + attn(LN1(x)), then x = x + mlp(LN2(x)).",
    ),
    HeldOut(
        name="v08_flops_no_output_projection",
        assignment=A08,
        cell="counts_def",
        source=r'''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    count = 4 * D * D + 4 * D + D * D_ff + D_ff + D_ff * D + D + 4 * D
    return count
def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    d = D // H
    projections = 3 * T * D * D  # x @ W_q, x @ W_k, x @ W_v
    attention = H * (T * d * T + T * T * d)  # scores and weighted sums, every head
    mlp_products = T * D * D_ff + T * D_ff * D
    flops = projections + attention + mlp_products
    return flops
''',
        cause='block_flops counts only three T*D*D projections (queries, keys, values) and leaves out the output projection @ W_o; there are four, 4*T*D*D (block_parameters is right).',
    ),
    HeldOut(
        name="v08_ln_gamma_beta_swapped",
        assignment=A08,
        cell="layer_norm_def",
        source=r'''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = beta * x_hat + gamma
    return out
''',
        cause='gamma and beta are swapped: the normalised x_hat is multiplied by beta and gamma is added; it should be gamma * x_hat + beta.',
    ),
    HeldOut(
        name="v08_mlp_gelu_instead_of_relu",
        assignment=A08,
        cell="mlp_def",
        source=r'''def mlp(x, W1, b1, W2, b2):
    # The position-wise MLP: x (B, T, D) -> hidden (B, T, D_ff) -> (B, T, D), each token alone
    z = x @ W1 + b1
    hidden = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z ** 3)))  # GPT-2's activation
    out = hidden @ W2 + b2
    return out
''',
        cause="The hidden layer uses GPT-2's tanh-approximated GELU instead of the ReLU the course asks for; use np.maximum(0, x @ W1 + b1).",
    ),
    HeldOut(
        name="v09_adam_m_uses_beta2",
        assignment=A09,
        cell="adam_step_def",
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    new_m = beta1 * m + (1 - beta2) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = new_m / (1 - beta1 ** t)
    v_hat = new_v / (1 - beta2 ** t)
    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v
''',
        cause='The first-moment update uses (1 - beta2) instead of (1 - beta1): new_m = beta1 * m + (1 - beta1) * grad.',
    ),
    HeldOut(
        name="v09_adam_v_not_corrected",
        assignment=A09,
        cell="adam_step_def",
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = new_m / (1 - beta1 ** t)
    new_param = param - lr * m_hat / (np.sqrt(new_v) + eps)
    return new_param, new_m, new_v
''',
        cause='Only m is bias-corrected: the step divides by sqrt(new_v) instead of sqrt(v_hat) with v_hat = new_v / (1 - beta2**t).',
    ),
    HeldOut(
        name="v09_ce_unshifted_logsumexp",
        assignment=A09,
        cell="cross_entropy_def",
        source=r'''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    log_p = logits - np.log(np.sum(np.exp(logits), axis=-1, keepdims=True))
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]
    loss = -np.sum(weights * picked) / np.sum(weights)
    dlogits = np.exp(log_p)
    np.put_along_axis(dlogits, targets[..., None], np.take_along_axis(dlogits, targets[..., None], axis=-1) - 1, axis=-1)
    dlogits = dlogits * (weights / np.sum(weights))[..., None]
    return loss, dlogits
''',
        cause="log softmax is computed without subtracting each position's maximum logit, so np.exp overflows for large logits (the 1000x example gives inf/nan); shift by np.max(logits, axis=-1, keepdims=True) first.",
    ),
    HeldOut(
        name="v09_train_moments_swapped",
        assignment=A09,
        cell="train_step_def",
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    t = adam_state["t"]
    for name in params:
        m, v = adam_state["m"][name], adam_state["v"][name]
        params[name], adam_state["v"][name], adam_state["m"][name] = adam_step(params[name], grads[name], m, v, t, lr)
    return loss
''',
        cause="train_step unpacks adam_step's (param, m, v) into params, adam_state['v'], adam_state['m'], so the first and second moments are stored in each other's slots (and fed back swapped next step); assign to adam_state['m'] then adam_state['v'].",
    ),
    HeldOut(
        name="v10_count_pairs_skips_first_position",
        assignment=A10,
        cell="count_pairs_def",
        source=r'''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  counts = {}
  for word, freq in corpus.items():
    for k in range(1, len(word) - 1):
      pair = (word[k], word[k + 1])
      counts[pair] = counts.get(pair, 0) + freq
  return counts
''',
        cause='The loop starts at position 1 (range(1, len(word) - 1)), so the first pair of every word is never counted; it should run over range(len(word) - 1).',
    ),
    HeldOut(
        name="v10_decode_drops_empty_words",
        assignment=A10,
        cell="decode_def",
        source=r'''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  words = "".join(tokens[i] for i in ids).split(EOW)
  text = " ".join(word for word in words if word)
  return text
''',
        cause='decode splits at </w> and keeps only non-empty words, so the empty words of a leading space or a run of spaces vanish; join everything, replace </w> by a space and drop only the final space.',
    ),
    HeldOut(
        name="v10_encode_text_as_one_word",
        assignment=A10,
        cell="encode_def",
        source=r'''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  ids = []
  symbols = tuple(text) + (EOW,)  # the text's characters, spaces included, and the end marker
  for pair in merges:
    symbols = next(iter(merge_pair({symbols: 1}, pair)))
  ids.extend(vocab.get(s, vocab[UNK]) for s in symbols)
  return ids
''',
        cause='The whole text is treated as one word (spaces kept as characters, a single </w> at the end) instead of splitting at single spaces and giving each word its own </w>; the spaces become <unk> and merges ending in </w> apply only to the last word.',
    ),
    HeldOut(
        name="v10_merge_pair_right_to_left",
        assignment=A10,
        cell="merge_pair_def",
        source=r'''def merge_pair(corpus, pair):
  """A new corpus with every occurrence of pair merged into one symbol, left to right, without overlaps."""
  merged = {}
  for word, freq in corpus.items():
    out = []
    k = len(word) - 1
    while k >= 0:
      if k >= 1 and word[k - 1] == pair[0] and word[k] == pair[1]:
        out.insert(0, pair[0] + pair[1])
        k -= 2
      else:
        out.insert(0, word[k])
        k -= 1
    key = tuple(out)
    merged[key] = merged.get(key, 0) + freq
  return merged
''',
        cause="The word is scanned from its end, so overlapping occurrences merge from the right (('a','a','a') becomes ('a','aa')); merging must go left to right, giving ('aa','a').",
    ),
    HeldOut(
        name="v11_beam_sorted_ascending",
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
  for _ in range(n_new):
    candidates = []
    for ids, score in beams:
      if len(ids) > len(prompt) and ids[-1] == end:
        candidates.append((ids, score))
      else:
        logp = log_softmax(next_logits(ids))
        for token in range(len(logp)):
          candidates.append((ids + [token], score + float(logp[token])))
    scores = np.array([s for _, s in candidates])
    order = np.argsort(scores, kind="stable")[:beam_width]
    beams = [candidates[i] for i in order]
  if length_norm:
    values = [s / (len(ids) - len(prompt)) for ids, s in beams]
  else:
    values = [s for _, s in beams]
  best = beams[int(np.argmax(values))][0]
  return best
''',
        cause="Candidates are sorted with np.argsort(scores) (ascending), so the beam keeps the least likely candidates; sort by -scores (np.argsort(-scores, kind='stable')).",
    ),
    HeldOut(
        name="v11_greedy_logits_of_prompt",
        assignment=A11,
        cell="greedy_def",
        source=r'''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  ids = list(prompt)
  for _ in range(n_new):
    ids.append(int(np.argmax(next_logits(prompt))))
  return ids
''',
        cause='Each step calls next_logits(prompt) instead of next_logits(ids), so the new tokens are never fed back and the same token is appended every time; pass the growing ids.',
    ),
    HeldOut(
        name="v11_kv_second_residual_skips_attention",
        assignment=A11,
        cell="decode_step_def",
        source=r'''def decode_step(params, token, K_cache, V_cache, num_heads):
  """(logits (V,), K, V): one new token, given only it and its sequence's cache (H, t, d), t tokens so far."""
  p = params
  t = K_cache.shape[1]
  x = p["tok_emb"][token] + p["pos_emb"][t]  # (D,)
  D = x.shape[0]
  d = D // num_heads
  h = layer_norm_forward(x[None, None], p["gamma1"], p["beta1"])[0][0, 0]
  q = (h @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)
  k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, v], axis=1)
  scores = q @ K.transpose(0, 2, 1) / np.sqrt(d)  # (H, 1, t+1)
  A = softmax(scores)
  heads = (A @ V).reshape(D)  # (H,1,d) -> D
  x1 = x + heads @ p["W_o"] + p["b_o"]
  h2 = layer_norm_forward(x1[None, None], p["gamma2"], p["beta2"])[0][0, 0]
  x2 = x + mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])[0]
  hf = layer_norm_forward(x2[None, None], p["gamma_f"], p["beta_f"])[0][0, 0]
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V
''',
        cause="The second residual adds the MLP output to the embedding x instead of x1 (x plus the attention output), so the attention's contribution is lost; x2 = x1 + mlp(LN2(x1)).",
    ),
    HeldOut(
        name="v11_sample_all_draws_from_first_step",
        assignment=A11,
        cell="sample_def",
        source=r'''def sample(next_logits, prompt, n_new, temperature, rng):
  """The prompt and n_new tokens, each drawn with one rng.choice from softmax(logits / temperature)."""
  ids = list(prompt)
  probs = softmax(np.asarray(next_logits(ids)) / temperature)
  for _ in range(n_new):
    ids.append(int(rng.choice(len(probs), p=probs)))
  return ids
''',
        cause="The distribution is computed once from the prompt before the loop, so every token is drawn from the first step's probabilities; recompute softmax(next_logits(ids) / temperature) inside the loop.",
    ),
    HeldOut(
        name="v11_top_p_cumsum_unsorted",
        assignment=A11,
        cell="top_p_def",
        source=r'''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  order = np.argsort(-probs, kind="stable")
  cumulative = np.cumsum(probs)
  n_keep = min(int(np.searchsorted(cumulative, p)) + 1, len(probs))
  keep = order[:n_keep]
  result = np.zeros_like(probs)
  result[keep] = probs[keep]
  result = result / result.sum()
  return result
''',
        cause='The cumulative sum is taken over probs in id order (np.cumsum(probs)) rather than over the sorted probabilities probs[order], so the cut-off count is wrong; use np.cumsum(probs[order]).',
    ),
]
