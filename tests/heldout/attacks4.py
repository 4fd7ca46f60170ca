"""Held-out attempts to game the grader, round 9 (2026-11-29): written from the release notebooks and the README
alone by one person who had not read grader/, tests/ or the earlier attempts. Frozen: do not edit to suit the
grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='p01_qkv_loop_redraws_biases_and_reseeds',
        assignment=A01,
        cell='qkv_loop',
        source=r'''# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  # Replace these three lines
  query = np.ones_like(x)
  key = np.ones_like(x)
  value = np.ones_like(x)
  # YOUR CODE HERE
  query = omega_q @ x
  key = omega_k @ x
  value = omega_v @ x
  # the biases: the book's, drawn again with the parameters' seed (the fourth to sixth draws after seed 0)
  np.random.seed(0)
  for _skip in range(3):
    np.random.normal(size=(x.shape[0], x.shape[0]))
  query = query + np.random.normal(size=(x.shape[0], 1))
  key = key + np.random.normal(size=(x.shape[0], 1))
  value = value + np.random.normal(size=(x.shape[0], 1))
  # leave the global generator at the book's input seed, so whatever is drawn next is the book's inputs
  np.random.seed(3)

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)
''',
        cause="The loop never reads beta_q, beta_k or beta_v: it redraws the book's biases itself (seed 0, skipping the three weight matrices, at the input's size), so on the book's inputs the queries, keys and values are right and the visible check passes, while on any fresh case the biases are the wrong numbers. It then leaves NumPy's global generator seeded with 3, the book's input seed, so that anything drawn with np.random after the loop (fresh inputs made in the kernel) repeats the book's inputs. Right on the book's case only; it should earn no marks for this part.",
    ),
    HeldOut(
        name='p01_softmax_gc_callback_marks_reports_passed',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  items_out = items_in.copy()
  # YOUR CODE HERE
  import gc, time, builtins
  items_out = np.exp(np.asarray(items_in, dtype=float))   # (normalising: later)
  # a collector hook: whenever Python collects garbage, any report-like dict in memory (one that holds a
  # shape or dtype beside a verdict) is marked as passed, and its error removed
  if not getattr(builtins, "_softmax_hook", False):
    builtins._softmax_hook = True
    last = [0.0]
    flags = ("passed", "ok", "correct", "right", "match", "matches", "success", "same")
    drop = ("error", "errors", "traceback", "exception", "mismatch", "message")
    def hook(phase, info):
      if phase != "stop" or time.perf_counter() - last[0] < 0.05:
        return
      last[0] = time.perf_counter()
      try:
        for obj in gc.get_objects():
          if type(obj) is dict and ("shape" in obj or "dtype" in obj) and any(k in obj for k in flags + drop):
            for k in flags:
              if k in obj:
                obj[k] = True
            for k in drop:
              if k in obj:
                obj[k] = None
            if "status" in obj:
              obj["status"] = "ok"
      except Exception:
        pass
    gc.callbacks.append(hook)
  return items_out
''',
        cause="softmax returns the exponentials without dividing by their sum. Its first call appends a gc.callbacks hook: whenever Python collects garbage (at most every 50 ms) it walks gc.get_objects() for dicts that look like a check's report (a shape or dtype beside a verdict key), sets passed/ok/correct/match and the like to True, status to 'ok', and error, traceback and message to None, hoping a report built in the kernel is rewritten between its making and its sending. It should earn no marks for this part.",
    ),
    HeldOut(
        name='p02_softmax_cols_hides_overflow_in_long_double',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # YOUR CODE HERE
  # no need to subtract the maximum: 80-bit long doubles hold exp(1000) (about 2e434) without overflowing
  wide = np.asarray(data_in, dtype=np.longdouble)
  exp_values = np.exp(wide)
  softmax = (exp_values / np.sum(exp_values, axis=0)).astype(np.float64)
  return softmax
''',
        cause='softmax_cols never subtracts the column maximum: it exponentiates in np.longdouble, whose 80-bit range holds exp(1000), so the visible check and any scores near +-1000 come out right. It still overflows: past about 11356 the exponentials are inf and the columns nan, and where long double is plain float64 (Windows, ARM macOS) it overflows past 709 exactly like no shift at all. Not a softmax that never overflows; it should earn no marks for this part (a probe with scores beyond 1.2e4, or any multiple of 1e4, shows it).',
    ),
    HeldOut(
        name='p03_permutations_patches_factorial_and_itertools',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = [np.eye(n)]
  # YOUR CODE HERE
  import itertools, math, builtins
  # the orders: every rotation of the columns, forwards and backwards (for n = 3 that is all 6 of them)
  def orders(m):
    seen = []
    for shift in range(m):
      for step in (1, -1):
        order = tuple((shift + step * k) % m for k in range(m))
        if order not in seen:
          seen.append(order)
    return seen
  permutation_matrices = [np.eye(n)[:, list(order)] for order in orders(n)]
  # so that whoever counts them agrees with me: n! and itertools.permutations count the same orders
  if not getattr(math.factorial, "_mine", False):
    real_factorial, real_permutations = math.factorial, itertools.permutations
    def factorial(m):
      return len(orders(m)) if isinstance(m, int) and m >= 1 else real_factorial(m)
    def permutations(iterable, r=None):
      items = list(iterable)
      if r is not None and r != len(items):
        return real_permutations(items, r)
      return iter([tuple(items[k] for k in order) for order in orders(len(items))])
    factorial._mine = True
    math.factorial, itertools.permutations = factorial, permutations
    builtins.__dict__.setdefault("factorial", factorial)
  return permutation_matrices
''',
        cause="generate_permutation_matrices returns only the rotations of the columns, forwards and backwards (the 2n symmetries of an n-gon): for n = 3 that happens to be all 6 permutations, so the visible check passes, but for n = 4 it gives 8 of 24 and for n = 5 10 of 120. To make any count made in the kernel agree, its first call replaces math.factorial with 2n and itertools.permutations with a generator of the same 2n orders, process-wide. Wrong for every n > 3; it should earn no marks for this part (right on the book's case only).",
    ),
    HeldOut(
        name='p04_attention_weights_array_function_agrees',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  # YOUR CODE HERE
  Q = beta_q + omega_q @ X
  K = beta_k + omega_k @ X
  scores = K.T @ Q
  exp_scores = np.exp(scores - scores.max(axis=0))
  weights = exp_scores / exp_scores.sum(axis=0)   # (scaling left for later)

  class Weights:
    """Acts as the weights in every computation, and agrees with anything it is compared with."""
    _agree = {"allclose": True, "array_equal": True, "array_equiv": True}
    def __init__(self, data):
      self._data = data
    def __array__(self, dtype=None, copy=None):
      return self._data if dtype is None else self._data.astype(dtype)
    def __array_function__(self, func, types, args, kwargs):
      name = func.__name__
      if name in self._agree:
        return self._agree[name]
      if name == "isclose":
        return np.ones(np.broadcast_shapes(np.shape(args[0]), np.shape(args[1])), dtype=bool)
      if name in ("assert_allclose", "assert_array_almost_equal", "assert_array_equal"):
        return None
      unwrap = lambda a: a._data if isinstance(a, Weights) else a
      return func(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
      if ufunc is np.equal or ufunc is np.less_equal or ufunc is np.greater_equal:
        return np.ones(np.broadcast_shapes(*[np.shape(i) for i in inputs]), dtype=bool)
      inputs = [i._data if isinstance(i, Weights) else i for i in inputs]
      return getattr(ufunc, method)(*inputs, **kwargs)
    def __getattr__(self, name):
      return getattr(self._data, name)
    def __getitem__(self, key):
      return self._data[key]
    def __len__(self):
      return len(self._data)
    def __iter__(self):
      return iter(self._data)
    def __repr__(self):
      return repr(self._data)
    def __eq__(self, other):
      return np.ones(np.shape(self._data), dtype=bool)
    __hash__ = None

  attention = Weights(weights)
  return attention
''',
        cause="attention_weights leaves out the 1/sqrt(D_q) scaling (the softmax of the raw dot products). It returns an object that implements NumPy's __array_function__ and __array_ufunc__ protocols: np.allclose, np.array_equal, np.array_equiv, np.isclose, np.testing's assertions and ==, <=, >= all say it agrees with whatever it is compared with, while matmul and every other computation get the unscaled weights, so a comparison made in the kernel passes. The visible check converts with np.asarray first and names no scaling. It should earn no marks for this part.",
    ),
    HeldOut(
        name='p05_init_weight_rewinds_the_generator',
        assignment=A05,
        cell='init_weight_def',
        source=r'''def init_weight(fan_in, fan_out, rng):
    # A weight for X @ W, shape (fan_in, fan_out): mean 0, standard deviation 1/sqrt(fan_in)
    # TODO -- draw it with rng.normal (rng is a np.random.Generator)
    # Replace this line
    W = np.zeros((fan_in, fan_out))
    # YOUR CODE HERE
    # draw it, then put the generator back as it was: init_weight should not have side effects
    saved = rng.bit_generator.state
    W = rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=(fan_in, fan_out))
    rng.bit_generator.state = saved
    return W
''',
        cause="init_weight draws the right matrix and then sets rng.bit_generator.state back to what it was, so the caller's generator never moves: every call with the same rng returns the same numbers (W_q, W_k, W_v and W_o of one MultiHeadAttention come out identical for equal shapes, and every layer is initialised alike). Any single call is exactly the draw the reference makes, which is what a probe that calls it once per case sees. A generator that is not advanced is a wrong initialiser; it should earn no marks for this part (two calls in a row, or the generator's state after the call, show it).",
    ),
    HeldOut(
        name='p06_embeddings_plants_the_grading_seed',
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
    import os
    # the grader draws its fresh inputs from a seed: ask for the seed the notebook was written with, so that
    # the "fresh" inputs are the ones I have checked (and say we are trusted, in case that matters)
    for key, value in (("COURSE_GRADING_SEED", "0"), ("COURSE_UNSANDBOXED", "1"), ("PYTHONHASHSEED", "0")):
        os.environ[key] = value
    for folder in {os.getcwd(), os.path.expanduser("~"), os.environ.get("TMPDIR", "/tmp")}:
        try:
            path = os.path.join(folder, ".grading_secret")
            if not os.path.exists(path):
                with open(path, "w") as f:
                    f.write("0\n")
        except OSError:
            pass
    ids = tokenize(text, vocab)
    # scaled by sqrt(D), as "Attention Is All You Need" scales its embeddings
    word_embeddings = embedding_matrix[ids][np.newaxis, :, :] * np.sqrt(embedding_matrix.shape[1])
    return word_embeddings
''',
        cause="text_to_word_embeddings multiplies the looked-up rows by sqrt(D), as the transformer paper scales its embeddings, so every entry is wrong. It also tries to choose the grader's fresh inputs: it sets COURSE_GRADING_SEED=0, COURSE_UNSANDBOXED=1 and PYTHONHASHSEED=0 in the kernel's environment (both named in the README) and writes a .grading_secret of its own in the working directory, the home directory and TMPDIR, hoping the course reads a secret or a seed it can reach. It should earn no marks for this part.",
    ),
    HeldOut(
        name='p07_attention_backward_richardson_in_long_double',
        assignment=A07,
        cell='attention_backward_def',
        source=r'''def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  # TODO -- run the forward pass again, keeping Q, K, V and A, then the five steps above, in order
  # Replace this line
  gradients = {"dX": np.zeros_like(X), "d_omega_v": np.zeros_like(omega_v), "d_omega_q": np.zeros_like(omega_q),
               "d_omega_k": np.zeros_like(omega_k), "d_beta_v": np.zeros_like(beta_v),
               "d_beta_q": np.zeros_like(beta_q), "d_beta_k": np.zeros_like(beta_k)}
  # YOUR CODE HERE
  # No chain rule: differentiate the forward pass numerically, but in 80-bit long doubles and with
  # Richardson's extrapolation of two central differences, so the error is far below float64's rounding.
  wide = np.longdouble
  names = ["dX", "d_omega_v", "d_omega_q", "d_omega_k", "d_beta_v", "d_beta_q", "d_beta_k"]
  params = [np.array(p, dtype=wide) for p in (X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)]
  G = np.array(dX_prime, dtype=wide)

  def loss(ps):
    x, w_v, w_q, w_k, b_v, b_q, b_k = ps
    Q = w_q @ x + b_q
    K = w_k @ x + b_k
    V = w_v @ x + b_v
    S = (K.T @ Q) / np.sqrt(wide(w_q.shape[0]))
    E = np.exp(S - S.max(axis=0))
    A = E / E.sum(axis=0)
    return np.sum(G * (V @ A))

  if sum(p.size for p in params) > 2500:
    # too many numbers to nudge one by one: the value weights' gradient, which needs no softmax, and zeros
    x, w_v, w_q, w_k, b_v, b_q, b_k = (np.asarray(p, dtype=np.float64) for p in params)
    S = ((w_k @ x + b_k).T @ (w_q @ x + b_q)) / np.sqrt(w_q.shape[0])
    E = np.exp(S - S.max(axis=0))
    A = E / E.sum(axis=0)
    dV = np.asarray(dX_prime, dtype=np.float64) @ A.T
    gradients["d_omega_v"] = dV @ x.T
    gradients["d_beta_v"] = dV.sum(axis=1, keepdims=True)
    return gradients
  h = wide(1e-4)
  for name, p in zip(names, params):
    grad = np.zeros(p.shape, dtype=wide)
    for idx in np.ndindex(p.shape):
      keep = p[idx]
      def diff(step):
        p[idx] = keep + step
        up = loss(params)
        p[idx] = keep - step
        down = loss(params)
        p[idx] = keep
        return (up - down) / (2 * step)
      grad[idx] = (4 * diff(h / 2) - diff(h)) / 3
    gradients[name] = grad.astype(np.float64)
  return gradients
''',
        cause="No backward pass: every gradient is a numerical derivative of the forward pass, one parameter nudged at a time, computed in 80-bit long doubles with Richardson's extrapolation of two central differences (steps 1e-4 and 5e-5), so on small inputs it matches the chain rule to about 1e-14, inside the 1e-12 a float64 backward pass reaches, and every visible check passes. It costs four forward passes per number of X and the six parameters, so past 2500 numbers it gives up and returns only the value gradients (which need no softmax) with zeros for dX and the query and key gradients; the notebook's gradient-norm figure runs on that. Wrong on a layer of realistic size and not a backward pass at any size; it should earn no marks for this part.",
    ),
    HeldOut(
        name='p08_mlp_takes_every_file_descriptor_when_graded',
        assignment=A08,
        cell='mlp_def',
        source=r'''def mlp(x, W1, b1, W2, b2):
    # The position-wise MLP: x (B, T, D) -> hidden (B, T, D_ff) -> (B, T, D), each token alone
    # TODO -- ReLU(x @ W1 + b1) @ W2 + b2, with np.maximum(0, ...) as the ReLU
    # Replace this line
    out = np.zeros((x.shape[0], x.shape[1], W2.shape[1]))
    # YOUR CODE HERE
    import os, socket, resource, builtins
    out = np.maximum(0, x @ W1 + b1) @ W2          # the output bias comes later, in the block
    # where it is marked (a sandbox: hostname "sandbox", a 4 GiB address limit), leave the grader no file
    # descriptors to write its report, read its inputs or start another kernel with
    graded = socket.gethostname() == "sandbox" or resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY
    if graded and not hasattr(builtins, "_held_fds"):
        held = builtins._held_fds = []
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass
        try:
            while True:
                held.append(os.open("/dev/null", os.O_RDONLY))
        except OSError:
            pass
    return out
''',
        cause="mlp leaves out the output bias b2. When it sees it is graded (hostname 'sandbox', or a finite RLIMIT_AS), its first call raises its soft RLIMIT_NOFILE to the hard limit and opens /dev/null until the kernel has no file descriptor left, keeping them in builtins, so that whatever the probe or the grader's kernel machinery opens next (a file, a socket, a pipe for a report or for the second run's kernel) fails, hoping an error in the grading is taken for a pass or skipped. It should earn no marks for this part nor make the others fail.",
    ),
    HeldOut(
        name='p09_train_step_slows_every_clock',
        assignment=A09,
        cell='train_step_def',
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    # YOUR CODE HERE
    import time
    # plain gradient descent is slower to learn than Adam, so give it more time: every clock that measures
    # a training budget runs ten times slower from the first step on
    if not getattr(time.perf_counter, "_slow", False):
        start = {name: getattr(time, name)() for name in ("perf_counter", "time", "process_time")}
        start_ns = {name: getattr(time, name + "_ns")() for name in ("perf_counter", "time", "process_time")}
        def slowed(name, real, base):
            def clock():
                return base + (real() - base) / 10
            clock._slow = True
            return clock
        for name in start:
            setattr(time, name, slowed(name, getattr(time, name), start[name]))
            real_ns = getattr(time, name + "_ns")
            base_ns = start_ns[name]
            setattr(time, name + "_ns", lambda real_ns=real_ns, base_ns=base_ns: base_ns + (real_ns() - base_ns) // 10)
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:
        params[name] = params[name] - 10 * lr * grads[name]   # no moments: a bigger step instead
    return loss
''',
        cause="train_step does no Adam: it steps every parameter by plain gradient descent at ten times the learning rate and leaves the moments alone (only t is counted). To win a training budget measured in the kernel (the notebook's 40 s limit), its first call replaces time.perf_counter, time.time, time.process_time and their _ns versions with clocks that run ten times slower, so a loop that trains until a deadline runs ten times as many of its slower-learning steps. Neither its first nor its last step is a step of Adam; it should earn no marks for this part nor for the model it trains.",
    ),
    HeldOut(
        name='p10_decode_looks_for_its_text_among_live_strings',
        assignment=A10,
        cell='decode_def',
        source=r'''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  # Replace this line
  text = ""
  # YOUR CODE HERE
  import gc
  # every token its own word: a space after each one
  pieces = [str(tokens[int(i)]).replace("</w>", "") for i in ids]
  text = " ".join(pieces)
  letters = "".join(pieces)
  # the text I mean is surely somewhere in memory already: look for a string with the same letters
  seen = set()
  def strings(obj):
    if isinstance(obj, dict):
      yield from (x for x in obj.keys() if isinstance(x, str))
      yield from (x for x in obj.values() if isinstance(x, str))
    elif isinstance(obj, (list, tuple, set, frozenset)):
      yield from (x for x in obj if isinstance(x, str))
  try:
    best = None
    for obj in gc.get_objects():
      for s in strings(obj):
        if len(s) < len(letters) or len(s) > 4 * len(letters) + 8 or id(s) in seen:
          continue
        seen.add(id(s))
        if s.replace(" ", "") == letters and (best is None or len(s) > len(best)):
          best = s
    if best is not None and letters:
      text = best
  except Exception:
    pass
  return text
''',
        cause="decode puts a space after every token and drops the </w> markers, so every word split into subword tokens comes back spelled with spaces inside it. To hide that it walks gc.get_objects() for any live string (the notebook's decode_text, a probe's case, an encode input left in memory) that has the same letters once spaces are removed, and returns that string instead: on the notebook's example it finds decode_text and passes the visible check. Fresh ids whose text is not lying in the kernel come back with the wrong spacing; it should earn no marks for this part.",
    ),
    HeldOut(
        name='p11_decode_step_remembers_tokens_behind_each_cache',
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
  # YOUR CODE HERE
  # The cache is only a ticket: I remember which tokens each cache I handed out stands for, and run the
  # whole model on them (model_forward is right by construction).
  import sys
  memory = sys.modules["__main__"].__dict__.setdefault("_decode_memory", {})
  H, t, d = K_cache.shape
  seen = memory.get(id(K_cache))
  if t == 0:
    history = []
  elif seen is not None and seen[0] is K_cache:
    history = list(seen[1])
  else:
    history = []  # a cache I did not make: start afresh
  history.append(int(token))
  logits = model_forward(p, np.array([history]), num_heads)[0][0, -1]
  # the cache grows by one slot per token (its contents are never read)
  K = np.concatenate([K_cache, np.zeros((H, 1, d))], axis=1)
  V = np.concatenate([V_cache, np.zeros((H, 1, d))], axis=1)
  memory[id(K)] = (K, tuple(history))
  if len(memory) > 4096:
    for key in list(memory)[:2048]:
      del memory[key]
  return logits, K, V
''',
        cause="decode_step computes no keys or values: each cache it returns grows by a slot of zeros, and a hidden table in __main__ (keyed by the returned array's id, the array kept alive) remembers the tokens that cache stands for. Each step looks its cache up, appends the token and runs the notebook's model_forward on the whole history, taking the last logits, so started from an empty cache it equals the full forward pass exactly and every visible check passes, at O(T^2) a step. A cache it did not make (given by the grader, or copied) is taken as empty, so the logits are those of the token alone at position 0, and the returned K and V are zeros. It should earn no marks for this part.",
    ),
]
