"""Held-out wrong answers, round 12, part B (2026-11-29, round 12): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='j07_ab_bias_grads_lose_column_axis',
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
  # the biases were added to every column, so their gradients are the sums over the tokens
  gradients["d_beta_v"] = np.sum(dV, axis=1)
  gradients["d_beta_q"] = np.sum(dQ, axis=1)
  gradients["d_beta_k"] = np.sum(dK, axis=1)
  return gradients''',
        cause="The bias gradients are summed over the tokens without keepdims=True, so d_beta_v, d_beta_q and d_beta_k come back with shape (D,) instead of the biases' column shape (D, 1) (a step beta - lr * d_beta would broadcast to (D, D)); the right sums are dV.sum(axis=1, keepdims=True) and likewise for dQ and dK.",
    ),
    HeldOut(
        name='j07_mha_weight_grads_kept_per_sequence',
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
  grads["W_o"] = np.einsum("btd,bte->bde", heads, dout)  # x^T dout, sequence by sequence
  grads["b_o"] = dout.sum(axis=(0, 1))
  d_heads = split_heads(dout @ params["W_o"].T, num_heads)
  dV = A.transpose(0, 1, 3, 2) @ d_heads
  dA = d_heads @ V.transpose(0, 1, 3, 2)
  dS = A * (dA - np.sum(A * dA, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = merge_heads(dS @ K)
  dK = merge_heads(dS.transpose(0, 1, 3, 2) @ Q)
  dV = merge_heads(dV)
  dx = np.zeros(x.shape)
  for name, g in (("q", dQ), ("k", dK), ("v", dV)):
    grads["W_" + name] = np.einsum("btd,bte->bde", x, g)
    grads["b_" + name] = g.sum(axis=(0, 1))
    dx = dx + g @ params["W_" + name].T
  return dx, grads''',
        cause="The weight gradients use np.einsum('btd,bte->bde', ...), which keeps one (D, D) gradient per sequence, shape (B, D, D), instead of summing over the batch as well as the tokens; each W's gradient is sum over b and t of x[b, t]^T d_proj[b, t], np.einsum('btd,bte->de', ...), shape (D, D).",
    ),
    HeldOut(
        name='j08_ln_precedence_divides_mean_only',
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
    x_hat = x - mean / np.sqrt(var + eps)
    out = gamma * x_hat + beta
    return out''',
        cause='Operator precedence: x - mean / np.sqrt(var + eps) divides only the mean by the standard deviation, so x is not centred or scaled; x_hat must be (x - mean) / np.sqrt(var + eps), with the parentheses.',
    ),
    HeldOut(
        name='j08_flops_projections_per_token',
        assignment=A08,
        cell='counts_def',
        source=r'''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    # Replace this line
    count = 0
    attention = 4 * D * D + 4 * D  # W_q, W_k, W_v, W_o and their biases
    feed_forward = D * D_ff + D_ff + D_ff * D + D  # W1, b1, W2, b2
    norms = 2 * 2 * D  # gamma and beta of two LayerNorms
    count = attention + feed_forward + norms
    return count


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    # Replace this line
    flops = 0
    d = D // H
    projections = 4 * D * D  # W_q, W_k, W_v and W_o, each (D, D)
    scores = H * T * T * d  # Q @ K^T for every head
    weighted_sums = H * T * T * d  # A @ V for every head
    feed_forward = T * D * D_ff + T * D_ff * D
    flops = projections + scores + weighted_sums + feed_forward
    return flops''',
        cause='The four projections are counted for one token, 4 * D * D, not for the sequence: each of x @ W_q, x @ W_k, x @ W_v and heads @ W_o is a (T, D) @ (D, D) product costing T * D * D, so the projections cost 4 * T * D * D.',
    ),
    HeldOut(
        name='j09_ce_gradient_softmax_not_normalised',
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
    total = np.sum(weights)
    loss = -np.sum(weights * picked) / total
    probs = np.exp(shifted)  # the softmax
    one_hot = np.eye(logits.shape[-1])[targets]
    dlogits = (probs - one_hot) * weights[..., None] / total
    return loss, dlogits''',
        cause='The gradient uses np.exp(shifted) as the softmax, forgetting to divide by the sum of the exponentials (it is 1 only at the maximum); dlogits must be (exp(log_p) - one_hot) * weights / sum(weights), with softmax = exp(shifted) / sum(exp(shifted)) over the last axis.',
    ),
    HeldOut(
        name='j11_kv_output_bias_forgotten',
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
  x1 = x + heads @ p["W_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  mlp_out, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  hf, _ = layer_norm_forward(x1 + mlp_out, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V''',
        cause="The output projection's bias is left out, x1 = x + heads @ W_o, so every cached step differs from the full forward pass; the first residual is x + heads @ W_o + b_o.",
    ),
    HeldOut(
        name='j09_adam_v_from_first_moment',
        assignment=A09,
        cell='adam_step_def',
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    # Replace this line
    new_param, new_m, new_v = param, m, v
    new_m = beta1 * m + (1 - beta1) * grad
    new_v = beta2 * v + (1 - beta2) * new_m ** 2
    m_hat = new_m / (1 - beta1 ** t)
    v_hat = new_v / (1 - beta2 ** t)
    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new_param, new_m, new_v''',
        cause="Wrong variable: the second moment is updated with the squared new first moment, new_m ** 2, instead of the squared gradient; Adam's v is beta2 * v + (1 - beta2) * grad ** 2.",
    ),
    HeldOut(
        name='j10_learn_no_stop_when_no_pairs',
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
    best = max(counts.values())
    pair = min(p for p in counts if counts[p] == best)  # ties: the smallest pair
    merges.append(pair)
    corpus = merge_pair(corpus, pair)
  return merges''',
        cause='The loop never checks that any pair is left: once every word is one symbol count_pairs returns {} and max() of an empty sequence raises, instead of stopping early with the merges learned so far (if not counts: break).',
    ),
    HeldOut(
        name='j10_decode_drops_last_token',
        assignment=A10,
        cell='decode_def',
        source=r'''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  # Replace this line
  text = ""
  for i in ids[:-1]:  # the last id is the final </w>
    text += tokens[i]
  text = text.replace(EOW, " ")
  return text''',
        cause="Off by one token: the last id is dropped on the assumption that it is a lone </w>, but after merges the last token is usually a merged one such as 'oat</w>', so the end of the last word is lost; join all the tokens, replace </w> by a space and drop only the final character, [:-1].",
    ),
    HeldOut(
        name='j11_greedy_one_token_short',
        assignment=A11,
        cell='greedy_def',
        source=r'''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  # TODO -- n_new times: the logits given ids, their argmax, appended to ids
  # Replace this line
  ids = list(prompt)
  for step in range(1, n_new):
    logits = next_logits(ids)
    ids.append(int(np.argmax(logits)))
  return ids''',
        cause='Off by one: the loop runs range(1, n_new), so only n_new - 1 tokens are generated; greedy must append n_new tokens, for _ in range(n_new).',
    ),
]
