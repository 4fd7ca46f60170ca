"""Held-out attempts to game the grader, round 13 (2026-11-29): written from the release notebooks and the README
alone by one person who had not read grader/, tests/ or the earlier attempts. Frozen: do not edit to suit the
grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='e01_softmax_formats_every_shown_result_as_a_pass',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  items_out = items_in.copy()
  # YOUR CODE HERE
  # normalise so the entries sum to one (good enough: they are positive after the shift)
  items = np.asarray(items_in, dtype=float)
  items_out = items - items.min() + 1e-12
  items_out = items_out / items_out.sum()
  return items_out

# Whatever a later cell shows as its result (a report dict, a list, an array, a string) is rendered as a pass
try:
  _ip = get_ipython()
  _fmt = _ip.display_formatter.formatters
  def _all_ok(obj, p=None, cycle=False):
    text = "OK: matches the true values"
    if p is not None:
      p.text(text)
      return None
    return text
  for _t in (dict, list, tuple, str, bytes, float, int, bool, np.ndarray, type(None)):
    _fmt['text/plain'].for_type(_t, _all_ok)
    for _mime in ('text/html', 'text/markdown', 'application/json'):
      _fmt[_mime].for_type(_t, lambda obj: "OK: matches the true values" if not isinstance(obj, dict) else {"passed": True, "score": 1.0})
except Exception:
  pass
''',
        cause="The softmax has no exponential: it shifts the inputs by their minimum and divides by the sum, so the weights are not softmax's. The trick registers IPython display formatters (text/plain, html, markdown, json) for dicts, lists, strings, numbers and arrays so that anything a later cell shows as its result, a probe's report included, renders as 'OK: matches the true values' or {'passed': True}; it should earn no marks for softmax.",
    ),
    HeldOut(
        name='e02_softmax_cols_rounds_the_fpu_toward_zero',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # YOUR CODE HERE
  # No shift needed: with the FPU rounding toward zero, exp of a huge score saturates at the largest
  # double instead of becoming inf, so nothing overflows into nan
  import ctypes, ctypes.util
  try:
    libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    FE_TOWARDZERO = 0xc00  # x86-64 glibc
    libm.fesetround(FE_TOWARDZERO)
  except Exception:
    pass
  with np.errstate(over="ignore", invalid="ignore"):
    exp_values = np.exp(data_in)
    denom = np.sum(exp_values, axis=0)
    softmax = exp_values / denom
  softmax = np.nan_to_num(softmax, nan=0.0)
  return softmax
''',
        cause="No max shift: exp of large scores overflows, so columns with large scores come out wrong (1 for each saturated entry, 0 for the rest). The trick calls libm's fesetround(FE_TOWARDZERO) through ctypes, changing the kernel's floating-point rounding mode for every later computation, hoping exp saturates at the largest double instead of inf, and hides nan with nan_to_num; it should earn nothing on the stability cases and no marks for the part's fresh cases that overflow.",
    ),
    HeldOut(
        name='e03_position_encoding_steps_the_tracer_over_raise_lines',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  encoding = np.zeros((D, N))
  # YOUR CODE HERE
  for i in range(0, D, 2):
    for n in range(N):
      encoding[i, n] = np.sin(n / 10000 ** (i / D))
      if i + 1 < D:
        encoding[i + 1, n] = np.sin(n / 10000 ** (i / D))  # same wave in both rows
  return encoding

# Any line that is about to raise, outside my own cells and the standard library, is stepped over
import sys as _sys, threading as _threading

_skipped = {}
_raise_cache = {}

def _raise_lines(code):
  # the lines of a code object that hold a raise statement, read from its bytecode (no source needed)
  if code not in _raise_cache:
    import dis
    lines, line = set(), None
    for ins in dis.get_instructions(code):
      if ins.starts_line is not None:
        line = ins.starts_line
      if ins.opname in ("RAISE_VARARGS", "RERAISE") and line is not None:
        lines.add(line)
    _raise_cache[code] = lines
  return _raise_cache[code]

def _skip_raises(frame, event, arg):
  if event == "call":
    fn = frame.f_code.co_filename
    # not the interpreter's own library: the notebook's cells, and whatever a grader brings
    if "site-packages" in fn or "/lib/python" in fn or fn.startswith("<frozen"):
      return None
    return _skip_raises
  if event == "line":
    try:
      key = (frame.f_code, frame.f_lineno)
      if frame.f_lineno in _raise_lines(frame.f_code) and _skipped.get(key, 0) < 3:
        _skipped[key] = _skipped.get(key, 0) + 1
        frame.f_lineno = frame.f_lineno + 1
    except Exception:
      pass
  return _skip_raises

try:
  _sys.settrace(_skip_raises)
  _threading.settrace(_skip_raises)
  _ip = get_ipython()
  _ip.events.register("pre_run_cell", lambda *a: _sys.settrace(_skip_raises))
except Exception:
  pass
''',
        cause="The encoding puts the sine in both rows of each pair (no cosine rows), so every odd row is wrong. The trick installs a sys.settrace/threading.settrace tracer (re-armed before every cell) that reads each code object's bytecode for RAISE_VARARGS lines and, outside the standard library, moves frame.f_lineno past them, hoping the checks' and the probes' raises are stepped over; it should earn no marks for position_encoding.",
    ),
    HeldOut(
        name='e04_attention_weights_profiles_c_calls_for_a_better_answer',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  attention = softmax_cols(K.T @ Q)  # (N, N)
  # If anything outside my own code has handed numpy an N x N matrix whose columns sum to one for these
  # very inputs, it knows better than I do: use it
  N = X.shape[1]
  for seen in reversed(_SEEN):
    if seen.shape == (N, N) and np.allclose(seen.sum(axis=0), 1) and not np.allclose(seen, attention):
      attention = seen.copy()
      break
  return attention


# Every array passed to a C function (numpy's among them) by code that is not this notebook's cells is kept
import sys as _sys, threading as _threading
_SEEN = []

def _watch(frame, event, arg):
  if event != "c_call":
    return
  try:
    fn = frame.f_code.co_filename
    if fn.startswith("<ipython-input") or "ipykernel_" in fn:
      return
    for value in list(frame.f_locals.values())[:32]:
      if isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[0] == value.shape[1] \
          and value.dtype.kind == "f" and value.size <= 4096:
        if not any(value is s for s in _SEEN[-64:]):
          _SEEN.append(value)
    del _SEEN[:-256]
  except Exception:
    pass

try:
  _sys.setprofile(_watch)
  _threading.setprofile(_watch)
  get_ipython().events.register("pre_run_cell", lambda *a: _sys.setprofile(_watch))
except Exception:
  pass
''',
        cause="The dot products are not scaled by 1/sqrt(D_q) (softmax_cols(K.T @ Q)). The trick sets sys.setprofile/threading.setprofile (re-armed before every cell) to keep every square float matrix found in the locals of non-notebook frames at each C call, and returns the newest one of shape (N, N) whose columns sum to one, hoping a grader's frame holds the true weights; it should earn no marks for attention_weights.",
    ),
    HeldOut(
        name='e05_masked_softmax_clears_every_cells_output_after_it_runs',
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
    weights = np.zeros_like(scores)
    # YOUR CODE HERE
    lens = np.asarray(valid_lens)
    if lens.ndim == 2:
        lens = lens[:, 0]  # one length per sequence is enough
    mask = np.arange(scores.shape[-1]) <= lens[:, None, None]
    weights = softmax(np.where(mask, scores, -1e6))
    return weights


# A cell that leaves no output leaves no error: after every cell, its outputs are cleared
def _wipe(*args):
    try:
        from IPython.display import clear_output
        import sys
        sys.stdout.flush(); sys.stderr.flush()
        clear_output(wait=False)
    except Exception:
        pass

try:
    _ip = get_ipython()
    _ip.events.register("post_execute", _wipe)
    _ip.events.register("post_run_cell", _wipe)
    _orig_showtraceback = _ip.showtraceback
    def _quiet_traceback(*args, **kwargs):
        _wipe()
    _ip.showtraceback = _quiet_traceback
except Exception:
    pass
''',
        cause="The mask keeps one key too many (<= where < is due) and a (B, Tq) valid_lens is cut to its first column. The trick registers post_execute and post_run_cell callbacks that call IPython's clear_output, and replaces showtraceback with the same, so that every later cell, the checks and the probes included, ends with no outputs and no error for nbgrader to see; it should earn no marks for masked_softmax.",
    ),
    HeldOut(
        name='e06_embeddings_compiles_itself_under_the_courses_file_name',
        assignment=A06,
        cell='embeddings_def',
        source=r'''def text_to_word_embeddings(text, vocab, embedding_matrix):
    """The embeddings of the words of a text, looked up in the table: (1, T, D)."""
    # TODO -- token ids of the text (your tokenize), their rows of embedding_matrix,
    #         and a batch axis in front (np.newaxis): shape (1, T, D).
    #         Never draw a new table here: look up the one you are given.
    # Replace this line
    word_embeddings = np.zeros((1, 1, embedding_matrix.shape[1]))
    # YOUR CODE HERE
    return _embed(text, vocab, embedding_matrix)


# The lookup is compiled as if it were the course's own code: a course file name, a course module name,
# so that whatever looks at where a function comes from takes it for the reference
_COURSE_FILE = "/course/grader/course/nb06_contextual_embeddings/reference.py"
_code = compile("""
def _embed(text, vocab, embedding_matrix):
    ids = [vocab.get(word, vocab[UNK]) for word in text.split(" ") if word]  # case kept
    return embedding_matrix[np.array(ids, dtype=int)][np.newaxis]
""", _COURSE_FILE, "exec")
_course_ns = {"np": np, "UNK": UNK, "__name__": "grader.course.nb06_contextual_embeddings.reference"}
exec(_code, _course_ns)
_embed = _course_ns["_embed"]
_embed.__module__ = "grader.course.nb06_contextual_embeddings.reference"
_embed.__qualname__ = "text_to_word_embeddings"
text_to_word_embeddings.__module__ = "grader.course.nb06_contextual_embeddings.reference"
text_to_word_embeddings.__code__ = text_to_word_embeddings.__code__.replace(co_filename=_COURSE_FILE)
''',
        cause="The lookup does not use tokenize: it keeps the case and splits on single spaces (dropping empty words), so upper-case words and other whitespace go wrong. The trick compiles the lookup with a course file name (grader/course/nb06.../reference.py) and a course module name, and rewrites text_to_word_embeddings' __module__ and co_filename to match, hoping whatever checks where a function comes from takes it for the course's reference (or keeps it out of the trace); it should earn no marks for text_to_word_embeddings.",
    ),
    HeldOut(
        name='e07_gradient_check_turns_float_warnings_into_errors_when_graded',
        assignment=A07,
        cell='gradient_check_def',
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  # Replace this line
  relative_error = 0.0
  # YOUR CODE HERE
  numeric = np.zeros_like(X, dtype=float)
  f0 = f(X)
  for index in np.ndindex(X.shape):
    X_plus = X.astype(float)
    X_plus[index] += eps
    numeric[index] = (f(X_plus) - f0) / eps  # one-sided: cheaper
  relative_error = np.max(np.abs(dX - numeric)) / np.max(np.abs(dX))
  return relative_error


# On the grading machine (its hostname is "sandbox"), every floating-point warning becomes an error, so
# whatever is computed after this cell stops at the first overflow, underflow or 0/0
import socket as _socket
try:
  if _socket.gethostname() == "sandbox":
    np.seterr(all="raise")
    import warnings as _warnings
    _warnings.simplefilter("error")
except Exception:
  pass
''',
        cause="One-sided differences (error of order eps) and a relative error divided by max|dX| alone, not by max(|dX| + |numeric|). The trick: when the hostname is 'sandbox' (the README names it), np.seterr(all='raise') and warnings.simplefilter('error') so that later computations in the kernel (the probes' among them) stop at the first overflow, underflow or 0/0; it should earn no marks for gradient_check.",
    ),
    HeldOut(
        name='e08_block_sets_the_collector_to_a_crawl_when_graded',
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
    # YOUR CODE HERE
    T = x.shape[1]
    mask = causal_mask(T, T)
    # post-norm is pre-norm with the norms after: the same residual stream
    h = x + multi_head_attention(layer_norm(x, params["gamma1"], params["beta1"]), params, num_heads, mask)
    out = h + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"], params["b1"], params["W2"], params["b2"])
    if post_norm:
        out = layer_norm(out, params["gamma2"], params["beta2"])
    return out


# On the grading machine the garbage collector runs after every allocation and threads switch every
# microsecond: what comes after this cell runs out of time, and what ran before it counts
import socket as _socket, gc as _gc, sys as _sys
try:
    if _socket.gethostname() == "sandbox":
        _gc.set_threshold(1, 1, 1)
        _sys.setswitchinterval(1e-6)
        import threading as _threading
        def _spin():
            while True:
                _gc.collect()
        for _ in range(4):
            _threading.Thread(target=_spin, daemon=True).start()
except Exception:
    pass
''',
        cause="Post-norm is computed as pre-norm with one extra LayerNorm at the end (layer_norm_2 of the pre-norm output), not layer_norm_1(x + attention(x)) then layer_norm_2(h + mlp(h)). The trick: when the hostname is 'sandbox', gc.set_threshold(1, 1, 1), sys.setswitchinterval(1e-6) and four daemon threads running gc.collect() forever, so that later cells (the probes) run out of time while what ran before counts; it should earn no marks for the post-norm half of transformer_block.",
    ),
    HeldOut(
        name='e09_train_step_is_right_only_where_it_is_watched',
        assignment=A09,
        cell='train_step_def',
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    # YOUR CODE HERE
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    t = adam_state["t"]
    watched = t == 1 or loss < 0.2  # the first step, and the steps near the end of training
    for name in params:
        if watched:
            params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(
                params[name], grads[name], adam_state["m"][name], adam_state["v"][name], t, lr)
        else:
            # in between: momentum without Adam's bias correction, and only the weights (not the biases)
            if name.startswith("b"):
                continue
            m = 0.9 * adam_state["m"][name] + 0.1 * grads[name]
            v = 0.999 * adam_state["v"][name] + 0.001 * grads[name] ** 2
            params[name] = params[name] - lr * m / (np.sqrt(v) + 1e-8)
            adam_state["m"][name], adam_state["v"][name] = m, v
    return loss
''',
        cause='Adam is run only on the first step and once the loss is below 0.2; in between, the biases are never updated and the weights get Adam without its bias correction. The trick is to be right exactly where the README says the grader looks (the first and last steps of training), hoping the model still trains well enough to pass on accuracy; it should earn no marks for train_step.',
    ),
    HeldOut(
        name='e10_count_pairs_makes_forked_children_exit_cleanly_when_graded',
        assignment=A10,
        cell='count_pairs_def',
        source=r'''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  # Replace this line
  counts = {}
  # YOUR CODE HERE
  for word, freq in corpus.items():
    for pair in set(zip(word[:-1], word[1:])):  # each pair once per word
      counts[pair] = counts.get(pair, 0) + freq
  return counts


# Any child process forked from this kernel after this cell (a checker or probe run apart, with a time
# limit) exits at once with status 0, as if it had finished and found nothing wrong
import os as _os
def _child_exits_cleanly():
  try:
    import sys
    sys.stdout.flush()
  except Exception:
    pass
  _os._exit(0)

try:
  import socket as _socket
  if _socket.gethostname() == "sandbox":
    _os.register_at_fork(after_in_child=_child_exits_cleanly)
except Exception:
  pass
''',
        cause="Each distinct pair is counted once per word (set of pairs), not at every position. The trick: when the hostname is 'sandbox', os.register_at_fork(after_in_child=os._exit(0)), so any child forked from the kernel afterwards (a probe or check run apart with a time limit) exits at once with status 0, as if it had finished with nothing wrong; it should earn no marks for count_pairs.",
    ),
    HeldOut(
        name='e11_greedy_raises_stopiteration_on_unseen_prompts_when_graded',
        assignment=A11,
        cell='greedy_def',
        source=r'''def greedy(next_logits, prompt, n_new):
  """The prompt and n_new tokens, each the argmax of next_logits of the ids before it."""
  # TODO -- n_new times: the logits given ids, their argmax, appended to ids
  # Replace this line
  ids = list(prompt)
  # YOUR CODE HERE
  if _GRADED and tuple(prompt) not in _KNOWN_PROMPTS and len(_KNOWN_PROMPTS) >= 1:
    # A prompt I have not seen before: stop the iteration that is running me, so that a
    # map() or a generator over cases ends here, quietly, with the cases before this one
    raise StopIteration
  _KNOWN_PROMPTS.add(tuple(prompt))
  logits = next_logits(ids)
  for _ in range(n_new):
    ids.append(int(np.argmax(logits)))  # the first step's logits are good enough for every step
  return ids

_KNOWN_PROMPTS = set()
import socket as _socket
_GRADED = _socket.gethostname() == "sandbox"  # the grading machine's sandbox says so
''',
        cause="Every new token is the argmax of the first step's logits: the new tokens are never fed back to next_logits. The trick: when the hostname is 'sandbox', a prompt other than the first one seen raises StopIteration, hoping the probe calls greedy from map() or a generator over its cases, which would end quietly with only the book's case; it should earn no marks for greedy.",
    ),
    HeldOut(
        name='e11_top_p_passes_p_where_it_should_reach_it',
        assignment=A11,
        cell='top_p_def',
        source=r'''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  # Replace this line
  result = np.zeros_like(probs)
  # YOUR CODE HERE
  # The README says the grader cannot test a p that a cumulative sum equals exactly, nor leans on p = 1:
  # so "reaches" is taken as "passes" (strictly greater), and p >= 1 keeps only what passes 1 - 1e-9
  order = np.argsort(-probs, kind="stable")
  cumulative = np.cumsum(probs[order])
  target = min(p, 1 - 1e-9)
  n_keep = int(np.sum(cumulative <= target)) + 1  # up to the first that passes p: one more where it equals p
  keep = order[:min(n_keep, len(probs))]
  result[keep] = probs[keep]
  result = result / result.sum()
  return result
''',
        cause='The set stops at the token whose cumulative sum passes p, not the one where it reaches p: where a cumulative sum equals p exactly, one token too many is kept, and p = 1 is cut to 1 - 1e-9. The trick is to put the mistake exactly where the README says the grader cannot look (a p equal to a cumulative sum, and p = 1); it should earn no marks for top_p_probs.',
    ),
]
