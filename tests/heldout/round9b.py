"""Held-out wrong answers, round 9, part B (2026-11-29, round 9): written from the release notebooks alone by one person who had
read neither grader/ nor the earlier rounds' answers (only the list of their entry names). Frozen: do not edit to
suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='q07_smb_column_sums_as_column_vector',
        assignment=A07,
        cell='softmax_backward_def',
        source=r'''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # Replace this line
  dS = np.zeros_like(dA)
  column_sums = np.sum(A * dA, axis=0).reshape(-1, 1)  # a^T g for each column, as a column vector
  dS = A * (dA - column_sums)
  return dS''',
        cause="The column sums a^T g (one per column, shape (M,)) were reshaped into an (M, 1) column vector, so they are subtracted along the rows (row m gets column m's sum) instead of down each column; on non-square A it does not even broadcast. Keep them as a (1, M) row, np.sum(A * dA, axis=0, keepdims=True), so that dS[:, n] = a_n * (g_n - a_n^T g_n).",
    ),
    HeldOut(
        name='q07_mha_dx_overwritten_in_loop',
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
  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)
  dQ = dS @ K
  dK = dS.transpose(0, 1, 3, 2) @ Q
  for name, d_proj in (("q", dQ), ("k", dK), ("v", dV)):
    d_proj = merge_heads(d_proj)  # (B, T, D)
    grads["W_" + name] = np.einsum("btd,bte->de", x, d_proj)
    grads["b_" + name] = d_proj.sum(axis=(0, 1))
    dx = d_proj @ params["W_" + name].T
  return dx, grads''',
        cause='Inside the loop over the q, k and v projections dx is assigned, dx = d_proj @ W.T, instead of accumulated, so only the last (value) path survives: x feeds all three projections, so dx = dQ W_q^T + dK W_k^T + dV W_v^T (dx += ... in the loop). The weight and bias gradients are right.',
    ),
    HeldOut(
        name='q08_block_post_norm_mlp_input_normalised_twice',
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
    mask = causal_mask(T, T)  # (T, T)
    ln1 = lambda z: layer_norm(z, params["gamma1"], params["beta1"])
    ln2 = lambda z: layer_norm(z, params["gamma2"], params["beta2"])
    ffn = lambda z: mlp(z, params["W1"], params["b1"], params["W2"], params["b2"])
    if post_norm:
        h = ln1(x + multi_head_attention(x, params, num_heads, mask))
        out = ln2(h + ffn(ln2(h)))
    else:
        h = x + multi_head_attention(ln1(x), params, num_heads, mask)
        out = h + ffn(ln2(h))
    return out''',
        cause='In the post-norm branch the MLP reads ln2(h), as in the pre-norm branch, so LayerNorm 2 is applied twice (before the MLP and after the residual); post-norm feeds the sublayer the un-normalised stream, out = LN2(h + MLP(h)) with h = LN1(x + attention(x)). The pre-norm branch is right.',
    ),
    HeldOut(
        name='q08_flops_doubled_as_two_flops_per_multiply_add',
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
    projections = 4 * T * D * D  # q, k, v and the output projection
    scores = H * T * T * d  # Q @ K^T per head
    weighted_sums = H * T * T * d  # weights @ V per head
    feed_forward = T * D * D_ff + T * D_ff * D
    flops = 2 * (projections + scores + weighted_sums + feed_forward)  # a multiply and an add each: 2 FLOPs
    return flops''',
        cause='block_flops counts FLOPs (a multiply and an add each) rather than multiply-adds, so every term is doubled; the function asks for multiply-adds, where (m, n) @ (n, p) costs m * n * p, without the factor 2. block_parameters is right.',
    ),
    HeldOut(
        name='q09_ce_logits_shifted_in_place',
        assignment=A09,
        cell='cross_entropy_def',
        source=r'''def cross_entropy(logits, targets, weights):
    # The mean of -log softmax(logits)[target] over the positions of weight 1, and its gradient
    # TODO -- log_p = shifted - log(sum(exp(shifted))) with shifted = logits - max over the last axis;
    # loss = -(sum of weights * log_p at the targets) / sum(weights);
    # dlogits = (softmax - one-hot of the targets) * weights / sum(weights), the weights over the last axis
    # Replace this line
    loss, dlogits = 0.0, np.zeros_like(logits)
    logits -= np.max(logits, axis=-1, keepdims=True)  # shift in place so np.exp cannot overflow (saves a copy)
    log_p = logits - np.log(np.sum(np.exp(logits), axis=-1, keepdims=True))  # (B, T, V)
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    total = np.sum(weights)
    loss = -np.sum(weights * picked) / total
    one_hot = np.eye(logits.shape[-1])[targets]  # (B, T, V)
    dlogits = (np.exp(log_p) - one_hot) * weights[..., None] / total
    return loss, dlogits''',
        cause="The max-shift is done in place on the caller's array (logits -= max), so cross_entropy silently changes its input: the loss and dlogits are right, but the logits passed in come back shifted. Shift a copy, shifted = logits - np.max(logits, axis=-1, keepdims=True), and leave logits as it was.",
    ),
    HeldOut(
        name='q09_train_moments_not_written_back',
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
        m, v = adam_state["m"][name], adam_state["v"][name]
        params[name], m, v = adam_step(params[name], grads[name], m, v, adam_state["t"], lr)
    return loss''',
        cause='The new moments returned by adam_step are bound to the local names m and v only and never written back to adam_state["m"][name] and adam_state["v"][name], so the moments stay zero and every step is a first Adam step (m_hat = g, v_hat = g^2, a step of lr * sign(g)); store all three results: params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(...).',
    ),
    HeldOut(
        name='q10_merge_pair_advances_by_one',
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
      if k + 1 < len(word) and (word[k], word[k + 1]) == pair:
        symbols.append(word[k] + word[k + 1])
      else:
        symbols.append(word[k])
      k += 1
    merged[tuple(symbols)] = merged.get(tuple(symbols), 0) + freq
  return merged''',
        cause='After a merge the walk moves on by one position, not two, so the second symbol of the merged pair is also kept (or merged again with its right neighbour): ("l", "o", "w") merged at ("l", "o") becomes ("lo", "o", "w"). Where word[k], word[k + 1] is the pair, append the merged symbol and advance k by 2; otherwise append word[k] and advance by 1.',
    ),
    HeldOut(
        name='q10_encode_unknown_symbols_dropped',
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
    ids += [vocab[symbol] for symbol in symbols if symbol in vocab]  # symbols not in the vocabulary: skipped
  return ids''',
        cause='Symbols that are not in the vocabulary (characters never seen in training) are dropped instead of encoded as <unk>, so the text loses tokens silently; each unknown symbol should become vocab[UNK]: ids += [vocab.get(s, vocab[UNK]) for s in symbols].',
    ),
    HeldOut(
        name='q11_top_k_threshold_keeps_all_ties',
        assignment=A11,
        cell='top_k_def',
        source=r'''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  # Replace this line
  result = np.zeros_like(probs)
  threshold = np.sort(probs)[-k]  # the k-th largest probability
  kept = np.where(probs >= threshold, probs, 0.0)
  result = kept / np.sum(kept)
  return result''',
        cause='The tokens are kept by a threshold, probs >= the k-th largest probability, so when several tokens tie at that probability all of them are kept and more than k survive; top-k keeps exactly k, the first k of np.argsort(-probs, kind="stable") (equal probabilities: the smaller ids first), then renormalises.',
    ),
    HeldOut(
        name='q11_kv_position_embedding_indexed_by_token',
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
  t = K_cache.shape[1]  # how many tokens are cached
  x = p["tok_emb"][token] + p["pos_emb"][token]  # (D,)
  D = x.shape[0]
  d = D // num_heads
  h, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  q = (h @ p["W_q"] + p["b_q"]).reshape(num_heads, 1, d)
  k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)  # (H, t + 1, d)
  V = np.concatenate([V_cache, v], axis=1)
  weights = softmax(q @ K.transpose(0, 2, 1) / np.sqrt(d))  # (H, 1, t + 1)
  heads = (weights @ V).reshape(D)
  x1 = x + heads @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  mlp_out, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  hf, _ = layer_norm_forward(x1 + mlp_out, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V''',
        cause="The position embedding is looked up with the token id, pos_emb[token], instead of the token's position t = K_cache.shape[1] (computed but never used), so the new token gets the wrong position unless its id happens to equal its position; x = tok_emb[token] + pos_emb[t].",
    ),
]
