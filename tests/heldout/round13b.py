"""Held-out wrong answers, round 13, part B (2026-11-29, round 13): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='d07_gc_denominator_analytic_only',
        assignment=A07,
        cell='gradient_check_def',
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  # Replace this line
  relative_error = 0.0
  numeric = np.zeros(X.shape)
  for index in np.ndindex(X.shape):
    X_plus = X.astype(float)
    X_minus = X.astype(float)
    X_plus[index] += eps
    X_minus[index] -= eps
    numeric[index] = (f(X_plus) - f(X_minus)) / (2 * eps)
  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX)), 1e-12)
  return relative_error
''',
        cause="The relative error's denominator uses only the analytic gradient, max(max(|dX|), 1e-12), so it comes out about twice as large; the TODO's relative error divides max|analytic - numeric| by max(max(|analytic| + |numeric|), 1e-12), both gradients in the denominator.",
    ),
    HeldOut(
        name='d07_mha_weight_grads_first_sequence_only',
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
  grads["W_o"] = heads[0].T @ dout[0]  # (T, D).T @ (T, D) -> (D, D)
  grads["b_o"] = dout[0].sum(axis=0)  # (D,)
  d_heads = split_heads(dout @ params["W_o"].T, num_heads)  # (B, H, T, d)
  dV = A.transpose(0, 1, 3, 2) @ d_heads
  dA = d_heads @ V.transpose(0, 1, 3, 2)
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = dS @ K
  dK = dS.transpose(0, 1, 3, 2) @ Q
  dx = np.zeros(x.shape)
  for name, d_proj in (("q", dQ), ("k", dK), ("v", dV)):
    d_proj = merge_heads(d_proj)  # (B, T, D)
    grads["W_" + name] = x[0].T @ d_proj[0]  # (D, D)
    grads["b_" + name] = d_proj[0].sum(axis=0)  # (D,)
    dx = dx + d_proj @ params["W_" + name].T
  return dx, grads
''',
        cause="The projections' gradients (W_q, W_k, W_v, W_o and their biases) are computed from the first sequence of the batch only, x[0].T @ d_proj[0], which is right only for batch size 1; they must be summed over the batch and the tokens, e.g. np.einsum('btd,bte->de', x, d_proj) and d_proj.sum(axis=(0, 1)).",
    ),
    HeldOut(
        name='d08_counts_b1_sized_D',
        assignment=A08,
        cell='counts_def',
        source=r'''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    # Replace this line
    count = 0
    attention = 4 * (D * D + D)  # W_q, W_k, W_v, W_o, each with its bias
    mlp_weights = D * D_ff + D_ff * D  # W1 and W2
    mlp_biases = D + D  # b1 and b2
    layer_norms = 4 * D  # gamma1, beta1, gamma2, beta2
    count = attention + mlp_weights + mlp_biases + layer_norms
    return count


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    # Replace this line
    flops = 0
    d = D // H
    qkv = 3 * T * D * D
    out_proj = T * D * D
    attn = H * (T * d * T + T * T * d)
    ffn = T * D * D_ff + T * D_ff * D
    flops = qkv + out_proj + attn + ffn
    return flops
''',
        cause="The MLP's first bias b1 is counted as D numbers, but it has one entry per hidden unit, D_ff numbers (b2 has D); the count should be 4 D^2 + 4 D + 2 D D_ff + D_ff + D + 4 D.",
    ),
    HeldOut(
        name='d08_block_mask_from_len_x',
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
    T = len(x)  # the number of tokens
    mask = causal_mask(T, T)
    if post_norm:
        x = layer_norm(x + multi_head_attention(x, params, num_heads, mask), params["gamma1"], params["beta1"])
        out = layer_norm(x + mlp(x, params["W1"], params["b1"], params["W2"], params["b2"]),
                         params["gamma2"], params["beta2"])
    else:
        x = x + multi_head_attention(layer_norm(x, params["gamma1"], params["beta1"]), params, num_heads, mask)
        out = x + mlp(layer_norm(x, params["gamma2"], params["beta2"]), params["W1"], params["b1"],
                      params["W2"], params["b2"])
    return out
''',
        cause='T is taken as len(x), which is the batch size B, not the sequence length; the causal mask must be causal_mask(T, T) with T = x.shape[1], so the (B, B) mask fails to broadcast against the (B*H, T, T) scores (and would be wrong whenever B equals T).',
    ),
    HeldOut(
        name='d09_train_lr_fixed_at_adam_default',
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
    adam_state["t"] += 1
    for name in params:
        new_param, new_m, new_v = adam_step(params[name], grads[name], adam_state["m"][name],
                                            adam_state["v"][name], adam_state["t"], 1e-3)
        params[name] = new_param
        adam_state["m"][name] = new_m
        adam_state["v"][name] = new_v
    return loss
''',
        cause="train_step passes a fixed learning rate of 1e-3 (Adam's usual default) to adam_step instead of its argument lr, so every step is ten times too small at lr = 0.01; adam_step must get the lr that train_step was called with.",
    ),
    HeldOut(
        name='d09_ce_mean_over_sequences_only',
        assignment=A09,
        cell='cross_entropy_def',
        source=r'''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    # TODO -- log_p = shifted - log(sum(exp(shifted))) with shifted = logits - max over the last axis;
    # loss = -(sum of weights * log_p at the targets) / sum(weights);
    # dlogits = (softmax - one-hot of the targets) * weights / sum(weights), the weights over the last axis
    # Replace this line
    loss, dlogits = 0.0, np.zeros_like(logits)
    B = logits.shape[0]
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    log_p_target = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    per_sequence = -np.sum(weights * log_p_target, axis=1)  # (B,): each sequence's loss
    loss = np.mean(per_sequence)
    one_hot = np.zeros_like(logits)
    np.put_along_axis(one_hot, targets[..., None], 1.0, axis=-1)
    dlogits = (np.exp(log_p) - one_hot) * weights[..., None] / B
    return loss, dlogits
''',
        cause="The loss is each sequence's summed cross-entropy averaged over the B sequences (and dlogits divided by B), not the mean over the counted positions; loss = -(sum of weights * log_p at the targets) / sum(weights) and dlogits = (softmax - one_hot) * weights / sum(weights), so this is too large by the number of counted positions per sequence.",
    ),
    HeldOut(
        name='d10_learn_skips_marker_pairs',
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
    counts = {pair: n for pair, n in counts.items() if EOW not in pair}  # the marker only ends a word
    if not counts:
      break
    best = min(counts, key=lambda pair: (-counts[pair], pair))
    merges.append(best)
    corpus = merge_pair(corpus, best)
  return merges
''',
        cause="Pairs that contain the end-of-word marker </w> are left out of the counts, so merges such as ('est', '</w>') are never learned and no word becomes one token; BPE counts and merges every pair of neighbouring symbols, the marker included (Sennrich et al. 2016), the most frequent first, ties to the smallest pair.",
    ),
    HeldOut(
        name='d10_encode_marker_glued_to_last_char',
        assignment=A10,
        cell='encode_def',
        source=r'''def encode(text, merges, vocab):
  """The token ids of text: its words (split at single spaces) merged in the order learned."""
  # TODO -- for each word of text.split(" "): its symbols with EOW at the end, every merge in order, then the ids
  # Replace this line
  ids = []
  for word in text.split(" "):
    if word == "":
      symbols = (EOW,)
    else:
      symbols = tuple(word[:-1]) + (word[-1] + EOW,)  # the last character carries the end-of-word marker
    for pair in merges:
      symbols = list(merge_pair({symbols: 1}, pair))[0]
    ids += [vocab.get(s, vocab[UNK]) for s in symbols]
  return ids
''',
        cause="The end-of-word marker is glued onto the word's last character (('l', 'o', 'w</w>')) instead of being a symbol of its own appended after the characters (tuple(word) + (EOW,)), so the learned merges with '</w>' never apply and symbols like 'w</w>' are not in the vocabulary and become <unk>.",
    ),
    HeldOut(
        name='d11_greedy_returns_new_tokens_only',
        assignment=A11,
        cell='greedy_def',
        source=r'''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  # TODO -- n_new times: the logits given ids, their argmax, appended to ids
  # Replace this line
  ids = list(prompt)
  for _ in range(n_new):
    logits = next_logits(ids)
    ids.append(int(np.argmax(logits)))
  ids = ids[len(prompt):]  # the generated tokens
  return ids
''',
        cause='greedy returns only the n_new generated tokens, ids[len(prompt):], and drops the prompt; it should return the prompt followed by the n_new argmax tokens (the whole list ids).',
    ),
    HeldOut(
        name='d11_top_k_first_k_ids',
        assignment=A11,
        cell='top_k_def',
        source=r'''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  # Replace this line
  result = np.zeros_like(probs)
  order = np.argsort(-probs, kind="stable")
  result[:k] = probs[order][:k]
  result = result / np.sum(result)
  return result
''',
        cause="The k largest probabilities are written into the first k entries of the result (result[:k] = sorted probs), so they land on token ids 0..k-1 instead of the ids they belong to; the kept probabilities must be put back at their own indices, kept[top] = probs[top] with top = np.argsort(-probs, kind='stable')[:k], then renormalised.",
    ),
]
