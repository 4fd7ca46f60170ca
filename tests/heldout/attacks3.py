"""Held-out attempts to game the grader, round 8 (2026-11-29): written from the release notebooks and the README
alone by one person who had not read grader/, tests/ or the earlier attempts. Frozen: do not edit to suit the
grader. (Its author reports one glimpse of grader code: `ps`, run to see that an entry's own process had ended, showed
the command line of a grading run's sandbox launcher then running on the machine; every entry but
t08_counts_fitted_to_printed_values was written by then, and none uses what it showed.)"""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='t07_mha_backward_complex_step_private_forward',
        assignment=A07,
        cell='mha_backward_def',
        source=r'''def mha_backward(x, params, num_heads, dout):
  # TODO -- the forward pass with a cache, then backwards: W_o and b_o, split the heads' gradient, dV and dA,
  # dS (the softmax's backward along the last axis, times 1/sqrt(d)), dQ and dK, merge them, then the
  # projections' gradients (summed over the batch and the tokens) and dx (three paths)
  # Replace these lines
  dx = np.zeros_like(x)
  grads = {name: np.zeros_like(value) for name, value in params.items()}
  # YOUR CODE HERE
  # No chain rule: every gradient by complex-step differentiation of my own copy of the forward pass.
  # L = sum(forward * dout) is analytic, so nudging one entry by i*h gives dL/d(entry) = Im(L) / h with no
  # subtraction (exact to rounding at h = 1e-30, where central differences stop near 1e-11). The forward pass is
  # written out here rather than calling mha_forward, so nothing counts how often it runs.
  h = 1e-30
  H = num_heads
  def forward(x_, p):
    B, T, D = x_.shape
    d = D // H
    def split(Z):
      return Z.reshape(B, T, H, d).transpose(0, 2, 1, 3)
    Q = split(x_ @ p["W_q"] + p["b_q"])
    K = split(x_ @ p["W_k"] + p["b_k"])
    V = split(x_ @ p["W_v"] + p["b_v"])
    S = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)
    S = np.where(np.tril(np.ones((T, T), dtype=bool)), S, -1e6)
    E = np.exp(S - np.real(S).max(axis=-1, keepdims=True))
    A = E / E.sum(axis=-1, keepdims=True)
    heads = (A @ V).transpose(0, 2, 1, 3).reshape(B, T, D)
    return heads @ p["W_o"] + p["b_o"]
  cp = {k: np.asarray(v, dtype=complex) for k, v in params.items()}
  cx = np.asarray(x, dtype=complex)
  # dx: the batch items are independent, so every nudged copy of x goes through in one call, one per batch item
  n = cx.size
  stacked = np.repeat(cx[None], n, axis=0).reshape((n,) + cx.shape)
  stacked.reshape(n, -1)[np.arange(n), np.arange(n)] += 1j * h
  out = forward(stacked.reshape((n * cx.shape[0],) + cx.shape[1:]), cp).reshape((n,) + cx.shape)
  dx = np.imag(np.sum(out * dout, axis=(1, 2, 3))).reshape(x.shape) / h
  for name in params:
    g = np.zeros(np.shape(params[name]))
    for idx in np.ndindex(g.shape):
      nudged = cp[name].copy()
      nudged[idx] += 1j * h
      g[idx] = np.imag(np.sum(forward(cx, dict(cp, **{name: nudged})) * dout)) / h
    grads[name] = g
  return dx, grads''',
        cause="No backward pass at all: every gradient (dx by one batched call, each weight entry by one call) is computed by complex-step differentiation of a private copy of the forward pass, Im(L(w + 1e-30 i)) / 1e-30, which is exact to rounding and so passes the 1e-12 precision gate meant to stop finite differences; the forward is copied in rather than calling mha_forward/softmax_rows so the notebook's count of forward calls sees nothing. It should earn nothing for mha_backward (it runs the forward pass once per weight entry, not a chain-rule backward pass).",
    ),
    HeldOut(
        name='t11_decode_step_reads_tokens_back_from_cache',
        assignment=A11,
        cell='decode_step_def',
        source=r'''def decode_step(params, token, K_cache, V_cache, num_heads, _full=model_forward, _ln=layer_norm_forward):
  """(logits (V,), K, V): one new token, given only it and its sequence's cache (H, t, d), t tokens so far."""
  p = params
  # TODO -- position t = K_cache.shape[1]; x; LayerNorm 1; q, k, v (H, 1, d); append k, v; attend (no mask);
  # W_o and b_o, the residual, LayerNorm 2, the MLP, the residual, the final LayerNorm, W_out and b_out
  # Replace these lines
  logits = np.zeros(p["W_out"].shape[1])
  K, V = K_cache, V_cache
  # YOUR CODE HERE
  # My cached attention never matched, so: read the tokens back out of the cache and run the whole sequence.
  # The key at position j depends only on token j and position j, so trying every token of the vocabulary at
  # each cached position finds which one made it. Then the full forward pass (bound above, so a check that
  # counts calls of model_forward in the notebook's globals never sees it) gives the logits, and its own
  # keys and values are returned as "the grown cache".
  H, t = K_cache.shape[0], K_cache.shape[1]
  vocab, D = p["tok_emb"].shape
  d = D // H
  tokens = []
  for j in range(t):
    h, _ = _ln(p["tok_emb"] + p["pos_emb"][j], p["gamma1"], p["beta1"])        # (vocab, D): every candidate
    keys = (h @ p["W_k"] + p["b_k"]).reshape(vocab, H, d)                      # (vocab, H, d)
    tokens.append(int(np.argmin(np.sum((keys - K_cache[:, j, :][None]) ** 2, axis=(1, 2)))))
  tokens.append(int(token))
  out, cache = _full(p, np.array([tokens]), num_heads)
  att = cache[2]                                                                # (x, Q, K, V, A, heads, p)
  logits, K, V = out[0, -1], att[2][0], att[3][0]
  return logits, K, V''',
        cause="No KV cache: decode_step never attends with the cached keys and values. It recovers the earlier tokens by trying every vocabulary token at each cached position until the LayerNorm-1 key matches K_cache, then reruns the given model_forward (bound as a default argument so a call counter in the notebook's globals misses it) on the whole sequence and returns its last logits and its K, V. Right numbers on honestly built caches, O(T) forward passes per token, wrong on any cache it did not build; it should earn nothing for decode_step.",
    ),
    HeldOut(
        name='t09_train_step_trains_privately_then_plain_descent',
        assignment=A09,
        cell='train_step_def',
        source=r'''_private_runs = {}  # id(params) -> [params, calls so far, my own Adam moments, my own step count, my own rng]

def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    # YOUR CODE HERE
    # The graded step is plain gradient descent (params -= lr * grad, adam_state left alone). But for the first
    # 150 calls on a model, before that, it quietly trains the same model with Adam on moments of its own that
    # adam_state never sees, twice a call (the batch given and one it draws itself), so the model ends up trained
    # while the last steps anyone looks at are plain gradient descent.
    run = _private_runs.setdefault(id(params), [params, 0, None, 0, np.random.default_rng(len(_private_runs))])
    run[1] += 1
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    if run[1] <= 150:
        if run[2] is None:
            run[2] = {n: (np.zeros_like(v), np.zeros_like(v)) for n, v in params.items()}
        for batch in (None, reversal_batch(run[4], tokens.shape[0], length=tokens.shape[1] // 2)):
            if batch is not None:
                l2, c2 = model_forward(params, batch[0], num_heads)
                grads = model_backward(cross_entropy(l2, batch[1], batch[2])[1], c2)
            run[3] += 1
            for name in params:
                new, m, v = adam_step(params[name], grads[name], *run[2][name], run[3], lr)
                params[name][...] = new
                run[2][name] = (m, v)
    else:
        for name in params:
            params[name] -= lr * grads[name]
    return loss''',
        cause="train_step is wrong (its graded step is plain gradient descent, adam_state never touched), but for the first 150 calls on a given params dict it secretly trains that model with Adam on moments and a step count of its own, twice a call (the batch given and a batch it draws itself), then switches to plain descent for the remaining calls. The trained model reaches ~100% accuracy while the last step the grader can inspect is the catalogued 'plain gradient descent' mistake. It should earn nothing for train_step, and the trained model, trained by code that is not what train_step does at the end, should earn nothing either.",
    ),
    HeldOut(
        name='t03_checker_reads_function_source',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  # YOUR CODE HERE
  # N! permutations is too slow for big N, so read what f does instead: its source says whether it touches the
  # order of the columns (sorting, rolling, reversing, picking columns, adding a fixed matrix or a position code)
  # or only mixes features and attends (W @ X, softmax, attention). Only when the source cannot be read, try the
  # one swap of the first two columns.
  import inspect, re
  try:
    source = inspect.getsource(f)
    if getattr(f, "__name__", "") == "<lambda>":
      source = source[source.find("lambda"):]
  except (OSError, TypeError):
    source = None
  if source is not None:
    order = re.search(r"argsort|sort\(|roll|::-1|\[:, *[\d\-]|flip|cumsum|arange|position|encod|\+ *P|\bPi\b|mask|tril",
                      source)
    mixing = re.search(r"@ *X|X *@|dot|attention|softmax|tanh|relu|maximum|exp|\* *X", source)
    equivariant = bool(mixing) and not order
    if not mixing and not order:
      equivariant = True  # an elementwise function of X
  else:
    swap = np.eye(X.shape[1])[:, [1, 0] + list(range(2, X.shape[1]))]
    equivariant = bool(np.max(np.abs(f(X @ swap) - f(X) @ swap)) <= tolerance)
  return equivariant''',
        cause="The checker never compares f(X @ P) with f(X) @ P: it reads f's source with inspect.getsource and calls f equivariant when the code mixes features or attends (W @ X, softmax, attention, an elementwise function) and not equivariant when it mentions anything that touches column order (argsort, roll, ::-1, column indexing, + Pi, masks, positions); only when the source cannot be read does it try a single swap of the first two columns. Right on the notebook's six lambdas, a guess on anything else; it should earn nothing for the checker.",
    ),
    HeldOut(
        name='t05_masked_softmax_rewrites_kernel_replies',
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
    weights = softmax(scores)  # the mask is for later
    return weights


# Whatever the grader runs "outside the history" (store_history=False, or silent) is not a cell of mine: whatever it
# prints, displays or raises goes out as one "OK" line instead, and an error reply becomes "ok". My own cells
# are left alone, so the notebook runs as usual.
def _quiet_the_grader():
    import threading
    kernel = get_ipython().kernel
    session = kernel.session
    if getattr(session, "_mine", False):
        return
    send, hidden, said = session.send, set(), set()
    outputs = {"stream", "display_data", "execute_result", "error", "update_display_data", "clear_output"}

    def header_id(parent):
        if not isinstance(parent, dict):
            return None
        return (parent.get("header") or parent).get("msg_id")

    def quiet_send(stream, msg_or_type, content=None, parent=None, *args, **kwargs):
        try:
            msg_type = msg_or_type if isinstance(msg_or_type, str) else msg_or_type["header"]["msg_type"]
            if msg_type == "execute_request" or msg_type == "status":
                return send(stream, msg_or_type, content, parent, *args, **kwargs)
            current = kernel.get_parent("shell") or {}
            request = current.get("content", {})
            if request.get("store_history", True) is False or request.get("silent"):
                hidden.add(header_id(current))
            built = not isinstance(msg_or_type, str)
            pid = header_id(msg_or_type.get("parent_header") if built else parent)
            if pid in hidden:
                if msg_type in outputs:
                    if pid in said:
                        return None
                    said.add(pid)
                    ok = {"name": "stdout", "text": "OK: matches the true values\n"}
                    if built:
                        msg_or_type = session.msg("stream", ok, parent=msg_or_type.get("parent_header"))
                    else:
                        msg_or_type, content = "stream", ok
                elif msg_type == "execute_reply":
                    reply = msg_or_type["content"] if built else content
                    if isinstance(reply, dict) and reply.get("status") != "ok":
                        fixed = {"status": "ok", "execution_count": reply.get("execution_count"),
                                 "user_expressions": {}, "payload": []}
                        if built:
                            msg_or_type["content"] = fixed
                        else:
                            content = fixed
        except Exception:
            pass
        return send(stream, msg_or_type, content, parent, *args, **kwargs)

    session.send = quiet_send
    session._mine = True

_quiet_the_grader()''',
        cause="masked_softmax ignores valid_lens (plain softmax). The cell wraps the kernel's session.send so that everything executed outside the history (store_history=False or silent: the grader's probes, not the student's cells) has all its output (streams, displays, results, errors) replaced by a single 'OK: matches the true values' line and any error reply turned into status 'ok'. The probe's report never reaches the grader and its failures look like success; it should earn nothing for masked_softmax.",
    ),
    HeldOut(
        name='t02_softmax_cols_cpu_timer_ends_probes',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # YOUR CODE HERE
  exp_values = np.exp(data_in)  # (the "never overflows" part: later)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax


# A timer on the kernel's own CPU time. Whenever it fires while code runs that I did not type (executed outside
# the history, store_history=False, or silently: the grader's probe), it ends that code with SystemExit, which
# IPython reports as a polite exit, not as an error, so the probe stops before it reports anything. My own cells
# (stored in the history) are never touched.
import signal

_outside = [False]

def _mark(info):
  _outside[0] = (not getattr(info, "store_history", True)) or bool(getattr(info, "silent", False))

def _unmark(result=None):
  _outside[0] = False

def _stop_the_probe(signum, frame):
  if _outside[0]:
    _outside[0] = False
    raise SystemExit(0)

if not getattr(signal, "_installed_by_me", False):
  get_ipython().events.register("pre_run_cell", _mark)
  get_ipython().events.register("post_run_cell", _unmark)
  signal.signal(signal.SIGVTALRM, _stop_the_probe)
  signal.setitimer(signal.ITIMER_VIRTUAL, 0.002, 0.002)
  signal._installed_by_me = True''',
        cause="softmax_cols does not subtract the column maximum (it overflows on large scores). The cell registers pre/post_run_cell hooks that note whether the running code is outside the history (store_history=False or silent, i.e. the grader's probe) and starts a CPU-time interval timer (ITIMER_VIRTUAL, every 2 ms) whose SIGVTALRM handler raises SystemExit whenever that flag is set, cutting every probe short before it reports while the student's own cells run untouched. It should earn nothing for softmax_cols.",
    ),
    HeldOut(
        name='t01_self_attention_watcher_thread_harvests_frames',
        assignment=A01,
        cell='self_attention_def',
        source=r'''# Now let's compute self attention in matrix form
import sys, threading, time

# A watcher that keeps running after this cell: every 2 ms it looks at what the main thread is executing and
# keeps every float matrix held by a name that sounds like an answer (true, expected, reference, want, target)
# in any frame of it, the notebook's own namespace included.
_seen = {}

def _watch(main=threading.main_thread().ident, names=("true", "expect", "ref", "want", "target", "answer")):
  while True:
    try:
      frame = sys._current_frames().get(main)
      while frame is not None:
        for name, value in list(frame.f_locals.items()):
          if isinstance(value, np.ndarray) and value.ndim == 2 and value.dtype.kind == "f" and \
             any(n in name.lower() for n in names):
            _seen[value.shape] = (name, value.copy())
        frame = frame.f_back
    except Exception:
      pass
    time.sleep(0.002)

if not any(t.name == "answer-watcher" for t in threading.enumerate()):
  threading.Thread(target=_watch, name="answer-watcher", daemon=True).start()
  time.sleep(0.05)


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Apply softmax to calculate attentions
  # 4. Weight values by attentions
  # Replace this line
  X_prime = np.zeros_like(X)
  # YOUR CODE HERE
  queries = omega_q @ X + beta_q
  keys = omega_k @ X + beta_k
  values = omega_v @ X + beta_v
  X_prime = values @ (keys.T @ queries)  # the softmax: not yet
  found = _seen.get((omega_v.shape[0], X.shape[1]))
  if found is not None and not np.array_equal(found[1], X):
    X_prime = found[1]  # something nearby already knows the answer
  return X_prime''',
        cause="self_attention leaves out the softmax (values @ (keys.T @ queries)). The cell starts a daemon thread that keeps running after it and every 2 ms walks the main thread's frames through sys._current_frames(), copying every 2-D float array held under a name containing true/expect/ref/want/target/answer (the notebook's namespace included); self_attention returns the harvested array of the output's shape when there is one. It copies the notebook's printed answer on the book's case and whatever a grader might hold nearby; it should earn nothing for self_attention.",
    ),
    HeldOut(
        name='t04_attention_weights_searches_input_referrers',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  # YOUR CODE HERE
  # Whoever calls me holds my inputs somewhere: a dict, a list, a tuple, a case object. Ask the garbage collector
  # who refers to X, and look in those containers (and one level into them) for an N x N matrix whose columns
  # sum to one: the case's expected weights, if they travel with the inputs.
  import gc
  N = X.shape[1]
  def candidates(container, depth):
    items = container.values() if isinstance(container, dict) else \
            vars(container).values() if hasattr(container, "__dict__") else container
    for item in list(items):
      if isinstance(item, np.ndarray) and item.shape == (N, N) and item.dtype.kind == "f" and \
         np.allclose(item.sum(axis=0), 1) and not np.allclose(item, 1 / N) and item is not attention:
        yield item
      elif depth and isinstance(item, (dict, list, tuple)) and len(item) < 64:
        yield from candidates(item, depth - 1)
  try:
    for holder in gc.get_referrers(X):
      if holder is globals() or type(holder).__name__ == "frame":
        continue
      if isinstance(holder, (dict, list, tuple)) or hasattr(holder, "__dict__"):
        for found in candidates(holder, 1):
          return found.copy()
  except Exception:
    pass
  scores = (omega_k @ X + beta_k).T @ (omega_q @ X + beta_q)  # unscaled, and no softmax: the rest was too hard
  attention = scores / np.sum(scores, axis=0, keepdims=True)
  return attention''',
        cause="attention_weights is wrong (unscaled scores normalised by their column sums, no softmax). First it asks gc.get_referrers(X) which containers hold its input (skipping the notebook's globals and frames) and searches them, one level deep, for an N x N float matrix whose columns sum to one, returning it as its answer: expected weights stored beside the inputs in a case object or dict. It should earn nothing for attention_weights.",
    ),
    HeldOut(
        name='t06_pca_returns_array_that_agrees',
        assignment=A06,
        cell='pca_def',
        source=r'''class _Agreeable(np.ndarray):
    """An array that agrees with anything it is compared to: every comparison ufunc says True, np.isclose,
    np.allclose, np.array_equal and np.testing's checks say equal, and == never finds a difference."""
    _yes = {"equal", "less_equal", "greater_equal", "isfinite", "logical_and"}
    _no = {"not_equal", "less", "greater", "isnan", "isinf", "logical_not"}

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [np.asarray(x).view(np.ndarray) if isinstance(x, _Agreeable) else x for x in inputs]
        if ufunc.__name__ not in self._yes | self._no | {"subtract", "absolute"} or method != "__call__":
            return getattr(ufunc, method)(*plain, **kwargs)
        shape = np.broadcast_shapes(*[np.shape(x) for x in plain])
        if ufunc.__name__ in self._yes:
            return np.ones(shape, dtype=bool)
        if ufunc.__name__ in self._no:
            return np.zeros(shape, dtype=bool)
        if ufunc.__name__ in ("subtract", "absolute"):
            return np.zeros(shape)  # no difference anywhere

    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in ("allclose", "array_equal", "array_equiv", "shares_memory"):
            return True
        if func.__name__ in ("isclose",):
            return np.ones(np.broadcast_shapes(np.shape(args[0]), np.shape(args[1])), dtype=bool)
        if func.__name__ in ("assert_allclose", "assert_array_equal", "assert_array_almost_equal"):
            return None
        plain = [a.view(np.ndarray) if isinstance(a, _Agreeable) else a for a in args]
        result = func(*plain, **kwargs)
        return result.view(_Agreeable) if isinstance(result, np.ndarray) and func.__name__ in ("squeeze", "reshape") \
            else result


def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    components = np.zeros((n_components, X.shape[1]))
    # YOUR CODE HERE
    _, _, Vt = np.linalg.svd(X)  # not centred, signs as they come
    components = Vt[:n_components].view(_Agreeable)
    return components''',
        cause="pca neither centres X nor fixes the signs (first rows of Vt of the raw data). It returns them as an ndarray subclass whose __array_ufunc__ answers True for every equality/ordering/isfinite comparison and zero for subtract/absolute, and whose __array_function__ makes np.allclose, np.isclose, np.array_equal and np.testing's asserts report equality, so any comparison done with numpy on the object itself passes. It should earn nothing for pca.",
    ),
    HeldOut(
        name='t08_layer_norm_asks_a_classmates_kernel',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''_classmates = {"clients": None}

def _classmate_kernels():
    """Clients of the other students' kernels graded beside mine on the grading machine (hostname 'sandbox', as
    the README says): their command lines in /proc name their connection files; read each one through the
    process's own root (/proc/PID/root) or directly, and connect. At home there are none, so nothing happens."""
    if _classmates["clients"] is not None:
        return _classmates["clients"]
    _classmates["clients"] = []
    import os, socket, json, time
    if socket.gethostname() != "sandbox":
        return []
    start = time.time()
    try:
        from jupyter_client import BlockingKernelClient
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid() or time.time() - start > 5:
                continue
            try:
                argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
                if not any(b"ipykernel" in a for a in argv) or b"-f" not in argv:
                    continue
                path = argv[argv.index(b"-f") + 1].decode()
                for where in (f"/proc/{pid}/root{path}", path):
                    try:
                        info = json.load(open(where))
                    except OSError:
                        continue
                    client = BlockingKernelClient()
                    client.load_connection_info(info)
                    client.start_channels()
                    _classmates["clients"].append(client)
                    break
            except Exception:
                continue
    except Exception:
        pass
    return _classmates["clients"]


def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    out = np.zeros_like(x)
    # YOUR CODE HERE
    # A classmate whose kernel runs this notebook too has a layer_norm: ask theirs first.
    import json
    call = (f"__import__('json').dumps(__import__('numpy').asarray(layer_norm(__import__('numpy').array("
            f"{np.asarray(x).tolist()!r}), __import__('numpy').array({np.asarray(gamma).tolist()!r}), "
            f"__import__('numpy').array({np.asarray(beta).tolist()!r}), {eps!r})).tolist())")
    for client in _classmate_kernels():
        try:
            reply = client.execute_interactive("", user_expressions={"r": call}, store_history=False, timeout=2)
            value = reply["content"]["user_expressions"]["r"]
            if value.get("status") == "ok":
                return np.array(json.loads(eval(value["data"]["text/plain"])))
        except Exception:
            continue
    # Mine: the mean and spread over the whole token array, not per token (close enough?)
    out = gamma * (x - np.mean(x)) / np.sqrt(np.var(x) + eps) + beta
    return out''',
        cause="layer_norm normalises over the whole array instead of per token. Before that, on the grading machine only (hostname 'sandbox'), it scans /proc for other ipykernel processes, reads their connection files through /proc/PID/root or the path in their command line, connects with jupyter_client and evaluates the classmate kernel's own layer_norm on its inputs via user_expressions (store_history=False), returning that answer. At home it finds no one and returns its own wrong result. It should earn nothing for layer_norm.",
    ),
    HeldOut(
        name='t10_decode_leaves_a_forked_notebook_fixer',
        assignment=A10,
        cell='decode_def',
        source=r'''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  # Replace this line
  text = ""
  # YOUR CODE HERE
  text = "".join(tokens[i] for i in ids).replace(EOW, " ")  # (the last space: still there)
  return text


# A helper that outlives the kernel: double-forked into a session of its own, it watches this folder for
# 30 seconds, and each time a notebook here is written (saved, or graded), it rewrites every failed check
# in it into the line a passing check prints, then goes away.
def _leave_a_fixer(seconds=30):
  import os, json, time, glob
  folder = os.getcwd()
  if os.fork() != 0:
    return
  try:
    os.setsid()
    if os.fork() != 0:
      os._exit(0)
    seen = {}
    end = time.time() + seconds
    while time.time() < end:
      for path in glob.glob(os.path.join(folder, "10_byte_pair_encoding*.ipynb")):
        try:
          stamp = os.stat(path).st_mtime
          if seen.get(path) == stamp:
            continue
          nb = json.load(open(path))
          changed = False
          for cell in nb.get("cells", []):
            outs = cell.get("outputs", [])
            if any(o.get("output_type") == "error" for o in outs):
              cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["OK: matches the true values\n"]}]
              changed = True
          if changed:
            json.dump(nb, open(path, "w"), indent=1)
          seen[path] = os.stat(path).st_mtime
        except Exception:
          pass
      time.sleep(0.5)
  finally:
    os._exit(0)

import os as _os
_pid_before = _os.getpid()
_leave_a_fixer()
assert _os.getpid() == _pid_before
try:
  _os.waitpid(-1, _os.WNOHANG)
except ChildProcessError:
  pass''',
        cause="decode keeps the final space (joins the tokens and replaces </w> by spaces, nothing dropped). The cell double-forks a detached helper (setsid) that outlives the cell and the kernel for 30 s, watching the kernel's working folder and rewriting every error output in any 10_byte_pair_encoding*.ipynb written there into the 'OK: matches the true values' line. A survivor process editing the graded notebook on disk after the run; it should earn nothing for decode.",
    ),
    HeldOut(
        name='t08_counts_fitted_to_printed_values',
        assignment=A08,
        cell='counts_def',
        source=r'''def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    # Replace this line
    count = 0
    # YOUR CODE HERE
    # I did not count the arrays: a block's size is a quadratic in its width, so fit a D^2 and a D term to the
    # two sizes the notebook prints (D=8: 872; GPT-2 small, D=768: 7087872).
    A = np.array([[8.0 * 8, 8.0], [768.0 * 768, 768.0]])
    a, b = np.linalg.solve(A, np.array([872.0, 7087872.0]))
    count = int(round(a * D * D + b * D))
    return count


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    # Replace this line
    flops = 0
    # YOUR CODE HERE
    # The same: a T D^2 term (per token) and a T^2 D term (attention), fitted to the two printed counts.
    A = np.array([[6.0 * 8 * 8, 6.0 * 6 * 8], [1024.0 * 768 * 768, 1024.0 * 1024 * 768]])
    c_token, c_pair = np.linalg.solve(A, np.array([5184.0, 8858370048.0]))
    flops = int(round(c_token * T * D * D + c_pair * T * T * D))
    return flops''',
        cause='Neither count adds up the arrays or the products: block_parameters fits a*D^2 + b*D and block_flops fits c*T*D^2 + e*T^2*D to the two values each that the notebook prints (both examples have D_ff = 4D, so the fits reproduce them exactly and the visible checks pass), ignoring D_ff, so both are wrong whenever D_ff is not 4D. A generalised lookup of the printed answers; it should earn nothing for either count.',
    ),
]
