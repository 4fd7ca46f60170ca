"""Held-out wrong answers, round 8, part B (2026-11-29, later): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='u07_ab_scale_from_global_D',
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
  A = softmax_cols(K.T @ Q / np.sqrt(D))
  # backwards
  dV = dX_prime @ A.T
  dA = V.T @ dX_prime
  dS = softmax_backward(A, dA)
  dQ = K @ dS / np.sqrt(D)
  dK = Q @ dS.T / np.sqrt(D)
  gradients["d_omega_v"] = dV @ X.T
  gradients["d_omega_q"] = dQ @ X.T
  gradients["d_omega_k"] = dK @ X.T
  gradients["d_beta_v"] = np.sum(dV, axis=1, keepdims=True)
  gradients["d_beta_q"] = np.sum(dQ, axis=1, keepdims=True)
  gradients["d_beta_k"] = np.sum(dK, axis=1, keepdims=True)
  gradients["dX"] = omega_v.T @ dV + omega_q.T @ dQ + omega_k.T @ dK
  return gradients''',
        cause="The scale c = 1/sqrt(D_q) is taken from the notebook's global D (4) instead of from the arguments (Q.shape[0]), both in the forward pass and in dQ and dK, so the gradients are right only when D_q happens to equal 4 and wrong on the D=5 example (equation 12.9 divides by the square root of the queries' own size).",
    ),
    HeldOut(
        name='u07_mha_weight_grads_averaged_over_batch',
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
  # output projection: one (D, D) per sequence, then averaged over the batch
  grads["W_o"] = np.mean(heads.transpose(0, 2, 1) @ dout, axis=0)
  grads["b_o"] = np.mean(dout.sum(axis=1), axis=0)
  d_heads = split_heads(dout @ params["W_o"].T, num_heads)  # (B, H, T, d)
  dV = A.transpose(0, 1, 3, 2) @ d_heads
  dA = d_heads @ V.transpose(0, 1, 3, 2)
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = merge_heads(dS @ K)
  dK = merge_heads(dS.transpose(0, 1, 3, 2) @ Q)
  dV = merge_heads(dV)
  for name, g in (("q", dQ), ("k", dK), ("v", dV)):
    grads["W_" + name] = np.mean(x.transpose(0, 2, 1) @ g, axis=0)
    grads["b_" + name] = np.mean(g.sum(axis=1), axis=0)
    dx = dx + g @ params["W_" + name].T
  return dx, grads''',
        cause="The gradients of the shared weights and biases (W_q, W_k, W_v, W_o and b_q, b_k, b_v, b_o) are averaged over the B sequences instead of summed: the loss is a plain sum over batch and tokens, so each must be the sum over b and t, e.g. np.einsum('btd,bte->de', x, dQ) and dQ.sum(axis=(0, 1)); they come out B times too small (dx is unaffected).",
    ),
    HeldOut(
        name='u08_ln_default_eps_1e6',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''def layer_norm(x, gamma, beta, eps=1e-6):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    out = np.zeros_like(x)
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    out = gamma * (x - mean) / np.sqrt(var + eps) + beta
    return out''',
        cause="The default eps is 1e-6 instead of 1e-5 (the notebook's and PyTorch's nn.LayerNorm default), so a token whose variance is near or below 1e-5 is scaled by 1/sqrt(var + 1e-6) instead of 1/sqrt(var + 1e-5) and comes out far too large; the formula is right otherwise.",
    ),
    HeldOut(
        name='u08_flops_mlp_width_assumed_4D',
        assignment=A08,
        cell='counts_def',
        source=r'''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    # Replace this line
    count = 0
    count = 4 * (D * D + D)            # W_q, W_k, W_v, W_o and their biases
    count += D * D_ff + D_ff           # W1, b1
    count += D_ff * D + D              # W2, b2
    count += 2 * (D + D)               # gamma, beta of the two LayerNorms
    return count


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    # Replace this line
    flops = 0
    d = D // H
    flops += 3 * T * D * D             # x @ W_q, x @ W_k, x @ W_v
    flops += H * T * d * T             # Q @ K.T for each head
    flops += H * T * T * d             # weights @ V for each head
    flops += T * D * D                 # @ W_o
    hidden = 4 * D                     # the MLP is four times wider than the model
    flops += T * D * hidden + T * hidden * D
    return flops''',
        cause="block_flops ignores its D_ff argument and counts the MLP with a hidden width of 4 D; the MLP's products cost T D D_ff + T D_ff D with the given D_ff, so the count is right only when D_ff = 4 D (both visible cases) and wrong otherwise, e.g. block_flops(D, H, T, 0) should be the attention sublayer alone.",
    ),
    HeldOut(
        name='u09_ce_gradient_softmax_unshifted',
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
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))  # (B, T, V)
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    loss = -np.sum(weights * picked) / np.sum(weights)
    # gradient: softmax minus one-hot
    probs = np.exp(logits) / np.sum(np.exp(logits), axis=-1, keepdims=True)  # (B, T, V)
    one_hot = np.zeros_like(logits)
    np.put_along_axis(one_hot, targets[..., None], 1.0, axis=-1)
    dlogits = (probs - one_hot) * weights[..., None] / np.sum(weights)
    return loss, dlogits''',
        cause="The loss uses the shifted log-softmax, but dlogits recomputes the softmax as np.exp(logits) / sum(np.exp(logits)) without subtracting each position's maximum, so it is right for small logits and overflows to inf/inf = nan once a logit exceeds about 709 (the 1000x example); the gradient must use the same stable softmax, np.exp(log_p).",
    ),
    HeldOut(
        name='u09_train_clips_gradient_norm',
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
    # clip the gradient to a global norm of 1, as nanoGPT does, so that one bad batch cannot blow up the weights
    total_norm = np.sqrt(sum(np.sum(g ** 2) for g in grads.values()))
    if total_norm > 1.0:
        grads = {name: g / total_norm for name, g in grads.items()}
    adam_state["t"] += 1
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss''',
        cause="An unrequested step is added: the gradients are rescaled to a global norm of 1 (nanoGPT-style clipping) before Adam, so whenever their norm exceeds 1 the moments m and v (and, through them, later steps) are computed from a shrunken gradient; train_step must pass model_backward's gradients to adam_step unchanged (the first update happens to be nearly the same, since Adam's first step is scale-invariant, but m and v differ).",
    ),
    HeldOut(
        name='u10_learn_merges_mutates_corpus',
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
    best = min(counts, key=lambda p: (-counts[p], p))
    merges.append(best)
    merged = merge_pair(corpus, best)
    corpus.clear()          # merge it in the corpus
    corpus.update(merged)
  return merges''',
        cause="learn_merges writes each merged corpus back into the dictionary it was given (corpus.clear(); corpus.update(...)), so the caller's corpus is left fully merged; the merges it returns are right, but the argument must be left as it was (keep the merged corpus in a local variable: corpus = merge_pair(corpus, pair)), and the caller's later use of it (make_vocab's characters in section 5) goes wrong.",
    ),
    HeldOut(
        name='u10_encode_word_cache_default_argument',
        assignment=A10,
        cell='encode_def',
        source=r'''def encode(text, merges, vocab, _seen={}):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  # Replace this line
  ids = []
  for word in text.split(" "):
    if word not in _seen:  # a word that comes back is merged only once
      symbols = tuple(word) + (EOW,)
      for pair in merges:
        symbols = next(iter(merge_pair({symbols: 1}, pair)))
      _seen[word] = symbols
    ids += [vocab.get(s, vocab[UNK]) for s in _seen[word]]
  return ids''',
        cause="encode memoises each word's segmentation in a mutable default argument (_seen={}), which persists across calls, so a later call with other merges or another vocabulary reuses segmentations made with the first call's merges; the merges must be applied afresh for each call (a cache, if any, local to the call or keyed by the merges too).",
    ),
    HeldOut(
        name='u11_kv_final_norm_with_second_norm_params',
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
  K = np.concatenate([K_cache, k], axis=1)  # (H, t + 1, d)
  V = np.concatenate([V_cache, v], axis=1)
  scores = q @ K.transpose(0, 2, 1) / np.sqrt(d)  # (H, 1, t + 1)
  att = softmax(scores) @ V  # (H, 1, d)
  x = x + att.reshape(D) @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x, p["gamma2"], p["beta2"])
  m, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  x = x + m
  hf, _ = layer_norm_forward(x, p["gamma2"], p["beta2"])  # the final LayerNorm
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V''',
        cause="The final LayerNorm is computed with the block's second LayerNorm parameters (gamma2, beta2) instead of its own (gamma_f, beta_f), a copy-paste slip; model_forward applies layer_norm(x, gamma_f, beta_f) before W_out, so every logit differs from the full forward pass.",
    ),
    HeldOut(
        name='u11_beam_candidates_share_one_list',
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
  n_prompt = len(prompt)
  for _ in range(n_new):
    candidates = []
    for ids, score in beams:
      if len(ids) > n_prompt and ids[-1] == end:
        candidates.append((ids, score))
        continue
      log_probs = log_softmax(next_logits(ids))
      for token in range(len(log_probs)):
        new_ids = ids
        new_ids.append(token)
        candidates.append((new_ids, score + log_probs[token]))
    scores = [score for _, score in candidates]
    order = np.argsort(-np.array(scores), kind="stable")
    beams = [candidates[i] for i in order[:beam_width]]
  if length_norm:
    final = [score / (len(ids) - n_prompt) for ids, score in beams]
  else:
    final = [score for ids, score in beams]
  best = beams[int(np.argmax(final))][0]
  return best''',
        cause="Each candidate is made with new_ids = ids; new_ids.append(token), which does not copy: every extension of a beam appends to the same list (the beam's own, and for the first step the prompt's), so all its candidates share one ever-growing list and len(prompt)-based lengths and finish tests are wrong; each candidate needs its own list, ids + [token].",
    ),
]
