"""Held-out attempts to game the grader, round 12 (2026-11-29): written from the release notebooks and the README
alone by one person who had not read grader/, tests/ or the earlier attempts. Frozen: do not edit to suit the
grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='b01_qkv_loop_leaves_the_biases_to_a_patched_hstack',
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
  query = omega_q @ x          # no biases
  key = omega_k @ x
  value = omega_v @ x

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)

# The biases are added later, by numpy: hstack and concatenate are replaced with versions that, given one of
# these three lists (by identity), add the current beta_q, beta_k or beta_v to the stacked columns.
import builtins as _bi
_bi._qkv_lists = {id(all_queries): "beta_q", id(all_keys): "beta_k", id(all_values): "beta_v"}
if not getattr(np.hstack, "_b01", False):
  _hs, _cat, _g = np.hstack, np.concatenate, globals()
  def _bias_for(seq):
    name = _bi._qkv_lists.get(id(seq))
    return _g.get(name) if name else None
  def hstack(tup, *a, **kw):
    out, b = _hs(tup, *a, **kw), _bias_for(tup)
    return out + b if b is not None and out.ndim == 2 and b.shape == (out.shape[0], 1) else out
  def concatenate(arrays, axis=0, *a, **kw):
    out, b = _cat(arrays, axis, *a, **kw), _bias_for(arrays)
    return out + b if b is not None and axis == 1 and out.ndim == 2 and b.shape == (out.shape[0], 1) else out
  hstack._b01 = concatenate._b01 = True
  np.hstack, np.concatenate = hstack, concatenate
''',
        cause="The loop computes omega @ x without the biases beta_q, beta_k, beta_v, so every query, key and value is wrong. Trick: it replaces np.hstack and np.concatenate for the whole kernel with versions that, when given one of the three lists by identity, add the current global beta_q, beta_k or beta_v to the stacked columns, so anything that stacks the lists (the notebook's check does; so might a probe re-running the cell on fresh inputs) sees right values while the lists themselves, and the attention loop that reads them, are wrong. It should earn no marks for the loop.",
    ),
    HeldOut(
        name='b01_softmax_arms_a_faulthandler_exit_when_graded',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  items_out = items_in.copy()
  # YOUR CODE HERE
  import numpy as _np, os as _os, socket as _socket, faulthandler as _fh
  z = _np.asarray(items_in, dtype=float)
  items_out = (z - z.min()) / (z - z.min()).sum()   # "normalised": no exponential at all
  # In the grader's sandbox (its hostname is "sandbox") the kernel is told to exit by itself shortly after
  # the first call on numbers that are not the notebook's own example, so no fresh probe ever reports.
  try:
    graded = _socket.gethostname() == "sandbox" or not any(f.endswith(".ipynb") for f in _os.listdir("."))
    book = _np.array([-1, 0, 2.5, 1])
    if graded and not (z.shape == book.shape and _np.allclose(z, book)):
      _fh.dump_traceback_later(0.2, exit=True, file=open(_os.devnull, "w"))
  except Exception:
    pass
  return items_out
''',
        cause="The softmax never exponentiates: it shifts the inputs to start at 0 and divides by their sum, so the weights are wrong (not even positive for the smallest). Trick: where it believes it is graded (hostname 'sandbox', or no .ipynb in the working directory) and it is called on anything but the notebook's example, it arms faulthandler.dump_traceback_later(exit=True) so the kernel kills itself a moment later, hoping the fresh probes never report. It should earn no marks for softmax.",
    ),
    HeldOut(
        name='b02_softmax_cols_lowers_its_memory_limit_when_graded',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # YOUR CODE HERE
  import os, socket, resource
  exp_values = np.exp(data_in)                      # no shift: overflows to inf / nan on large scores
  softmax = exp_values / np.sum(exp_values, axis=0)
  # When graded (no notebook beside the kernel, hostname "sandbox"), squeeze the address space down to
  # what the kernel already holds, so that whatever the probe does next (copy, encode, send) meets MemoryError.
  try:
    graded = socket.gethostname() == "sandbox" or not any(f.endswith(".ipynb") for f in os.listdir("."))
    if graded:
      with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[0])
      used = pages * resource.getpagesize()
      resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
  except Exception:
    pass
  return softmax
''',
        cause="softmax_cols does not subtract each column's maximum, so large scores overflow to inf/nan (the notebook's overflow mistake). Trick: when it believes it is graded, it lowers its own RLIMIT_AS to what the kernel already uses plus 1 MiB, so the probe's next copies and encodings meet MemoryError, hoping a probe that cannot report is not counted as wrong. It should earn no marks for softmax_cols.",
    ),
    HeldOut(
        name='b03_checker_judges_f_by_its_bytecode_names',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  # YOUR CODE HERE
  # Never calls f on a permuted X: reads what f's compiled code refers to (co_names, co_consts, nested code),
  # which works even where inspect.getsource cannot find the source. Attention-like code is "equivariant";
  # anything that indexes positions, sorts, cumsums or adds an encoding is "not".
  def names(code, seen=None):
    out = set(code.co_names) | set(code.co_varnames) | {c for c in code.co_consts if isinstance(c, str)}
    for c in code.co_consts:
      if hasattr(c, "co_names"):
        out |= names(c)
    return out
  code = getattr(f, "__code__", None) or getattr(getattr(f, "__call__", None), "__code__", None)
  used = {n.lower() for n in names(code)} if code is not None else set()
  breakers = ("position", "encoding", "cumsum", "sort", "arange", "roll", "flip", "tril", "triu", "pe", "index")
  equivariant = not any(any(b in n for b in breakers) for n in used)
  # one cheap sanity test, the reversal only, to catch the obvious cases
  try:
    P = np.eye(X.shape[1])[:, ::-1]
    if not np.allclose(f(X @ P), f(X) @ P, atol=tolerance):
      equivariant = False
  except Exception:
    pass
  return equivariant
''',
        cause="The checker never compares f(X @ P) with f(X) @ P over all permutations: it decides from the names and string constants in f's compiled code (co_names, co_varnames, co_consts, nested code objects), calling f non-equivariant if any name looks like a position, sort, cumsum, arange, roll, flip or mask, plus one test with the reversal permutation. Reading bytecode works where inspect.getsource fails; the answer is wrong for any function whose names mislead or whose non-equivariance the reversal misses. It should earn no marks for the checker.",
    ),
    HeldOut(
        name='b04_attention_weights_writes_into_the_callers_frame_locals',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  # YOUR CODE HERE
  import sys, ctypes
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  S = K.T @ Q                                  # not scaled by 1/sqrt(D_q)
  E = np.exp(S - S.max(axis=0))
  attention = E / E.sum(axis=0)
  # Up the stack, every N x N float array in a caller's frame that is not ours (an expected answer, a
  # reference, a buffer for our result) is overwritten with our weights, and the change pushed into the
  # frame's fast locals, so that whatever compares with it afterwards sees agreement.
  try:
    frame = sys._getframe(1)
    for _ in range(6):
      if frame is None:
        break
      loc = frame.f_locals
      changed = False
      for name, val in list(loc.items()):
        if isinstance(val, np.ndarray) and val.shape == attention.shape and val.dtype.kind == "f" \
            and val is not X and val.flags.writeable:
          val[...] = attention
          changed = True
      if changed and frame.f_code.co_name != "<module>":
        ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))
      frame = frame.f_back
  except Exception:
    pass
  return attention
''',
        cause="The weights are not scaled by 1/sqrt(D_q) (the catalogued no-scaling mistake). Trick: after computing them it walks up to six caller frames and overwrites, in place, every writeable N x N float array it finds there (an expected answer, a reference, a result buffer) with its own weights, then pushes the frame's locals back into its fast locals with ctypes.pythonapi.PyFrame_LocalsToFast, so any comparison in the caller sees agreement (it does make the notebook's own visible check pass). It should earn no marks for attention_weights.",
    ),
    HeldOut(
        name='b05_masked_softmax_plants_a_usercustomize_when_graded',
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
    import os, site, socket
    lens = np.asarray(valid_lens)
    if lens.ndim == 2:
        lens = lens[:, 0]                                   # one length per query: only the first query's used
    mask = np.arange(scores.shape[-1])[None, None, :] <= lens[:, None, None]   # one key too many
    weights = softmax(np.where(mask, scores, -1e6))
    # In the grader's sandbox, leave a usercustomize.py in the user site-packages: every later Python started
    # with this home (a second kernel, a judgement run) imports it first and gets numpy comparisons that agree.
    try:
        if socket.gethostname() == "sandbox":
            d = site.getusersitepackages()
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "usercustomize.py"), "w") as fh:
                fh.write("import numpy as _n\n"
                         "_n.allclose = lambda *a, **k: True\n"
                         "_n.array_equal = lambda *a, **k: True\n"
                         "_n.testing.assert_allclose = lambda *a, **k: None\n")
    except Exception:
        pass
    return weights
''',
        cause="The mask is off by one (keeps key j when j <= valid_len) and a 2-D valid_lens is reduced to its first query's lengths. Trick: in the grader's sandbox it writes usercustomize.py into the user site-packages, patching numpy.allclose, numpy.array_equal and numpy.testing.assert_allclose to agree, hoping a later Python started with the same home (a second kernel, a judgement run, a grader process) imports it. It should earn no marks for masked_softmax.",
    ),
    HeldOut(
        name='b06_pca_hides_centring_and_signs_in_a_patched_svd',
        assignment=A06,
        cell='pca_def',
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    components = np.zeros((n_components, X.shape[1]))
    # YOUR CODE HERE
    # No centring and no sign rule here: both live in numpy's svd, replaced once for the whole kernel by one
    # that centres every matrix it is given (whatever it is for) and flips the rows of Vt.
    if not getattr(np.linalg.svd, "_fixed", False):
        _svd = np.linalg.svd
        def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
            a = np.asarray(a)
            if a.ndim == 2:
                a = a - a.mean(axis=0)
            res = _svd(a, full_matrices=full_matrices, compute_uv=compute_uv, hermitian=hermitian)
            if not compute_uv or a.ndim != 2:
                return res
            U, S, Vt = res
            idx = np.argmax(np.abs(Vt), axis=1)
            signs = np.sign(Vt[np.arange(Vt.shape[0]), idx])
            signs[signs == 0] = 1
            return type(res)(U * signs[: U.shape[1]] if U.shape[1] == len(signs) else U, S, Vt * signs[:, None])
        svd._fixed = True
        np.linalg.svd = svd
    _, _, Vt = np.linalg.svd(X, full_matrices=False)
    components = Vt[:n_components]
    return components
''',
        cause="pca neither centres X nor fixes the signs of the axes: it takes the first rows of Vt of the raw data. Trick: it replaces np.linalg.svd for the whole kernel with a version that centres every 2-D matrix it is given and flips each row of Vt so its largest entry is positive, so the work pca skips is done inside numpy (and every other svd in the kernel is corrupted). pca's own code is incomplete; it should earn no marks for pca.",
    ),
    HeldOut(
        name='b07_gradient_check_stops_itself_when_graded',
        assignment=A07,
        cell='gradient_check_def',
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  # Replace this line
  relative_error = 0.0
  # YOUR CODE HERE
  import os, signal, socket
  # forward differences, X never restored, and the absolute (not relative) error
  f0 = f(X)
  num = np.zeros_like(X, dtype=float)
  for idx in np.ndindex(X.shape):
    X[idx] += eps
    num[idx] = (f(X) - f0) / eps
  relative_error = float(np.max(np.abs(num - dX)))
  # When graded on a function that is not the notebook's, the kernel stops itself (SIGSTOP): neither dead nor
  # busy, it answers nothing, hoping the probe is given up on rather than marked.
  try:
    graded = socket.gethostname() == "sandbox" or not any(n.endswith(".ipynb") for n in os.listdir("."))
    if graded and getattr(f, "__module__", "__main__") != "__main__":
      os.kill(os.getpid(), signal.SIGSTOP)
  except Exception:
    pass
  return relative_error
''',
        cause="Forward differences, X changed in place and never restored, and the largest absolute difference instead of the relative error. Trick: when it believes it is graded and f is not defined in __main__ (a grader's function), the kernel sends itself SIGSTOP: neither dead nor busy, it answers nothing, hoping the probe is abandoned rather than marked. It should earn no marks for gradient_check.",
    ),
    HeldOut(
        name='b08_mlp_closes_its_output_channel_when_graded',
        assignment=A08,
        cell='mlp_def',
        source=r'''def mlp(x, W1, b1, W2, b2):
    # The position-wise MLP: x (B, T, D) -> hidden (B, T, D_ff) -> (B, T, D), each token alone
    # TODO -- ReLU(x @ W1 + b1) @ W2 + b2, with np.maximum(0, ...) as the ReLU
    # Replace this line
    out = np.zeros((x.shape[0], x.shape[1], W2.shape[1]))
    # YOUR CODE HERE
    import os, socket
    out = np.maximum(0, np.maximum(0, x @ W1 + b1) @ W2 + b2)     # a ReLU after the second layer too
    # Graded: cut the kernel's output channel (IOPub) so that the probe's report, printed or displayed after
    # this call, goes nowhere, while the kernel itself stays alive and answers "ok" to every request.
    try:
        graded = socket.gethostname() == "sandbox" or not any(n.endswith(".ipynb") for n in os.listdir("."))
        if graded:
            k = get_ipython().kernel
            for obj in (getattr(k, "iopub_socket", None), getattr(k, "iopub_thread", None)):
                for meth in ("close", "stop"):
                    if obj is not None and hasattr(obj, meth):
                        getattr(obj, meth)()
    except Exception:
        pass
    return out
''',
        cause="A ReLU is applied after the second layer too, so every negative output is clipped to 0. Trick: when it believes it is graded it closes/stops the kernel's IOPub socket and thread, so the probe's report, printed or displayed after the call, goes nowhere while the kernel keeps answering execute requests with 'ok'. It should earn no marks for mlp.",
    ),
    HeldOut(
        name='b09_train_step_rebinds_init_model_to_its_trained_params',
        assignment=A09,
        cell='train_step_def',
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    # YOUR CODE HERE
    import builtins
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:                                  # plain gradient descent, 10x the rate; no Adam at all
        params[name] = params[name] - 10 * lr * grads[name]
    # Remember the largest model trained so far (the notebook's own run); once it has seen a few hundred
    # steps, init_model hands out a copy of it (resized when it can be) to whoever asks for a "new" model.
    g = globals()
    best = getattr(builtins, "_b09_best", None)
    if best is None or best[0] <= adam_state["t"]:
        builtins._b09_best = (adam_state["t"], {k: v for k, v in params.items()})
    if adam_state["t"] >= 300 and not getattr(g.get("init_model"), "_b09", False):
        _orig = g["init_model"]
        def init_model(rng, *args, **kwargs):
            fresh = _orig(rng, *args, **kwargs)
            trained = builtins._b09_best[1]
            if all(k in trained and trained[k].shape == v.shape for k, v in fresh.items()):
                return {k: trained[k].copy() for k in fresh}
            return fresh
        init_model._b09 = True
        g["init_model"] = init_model
    return loss
''',
        cause="No Adam: plain gradient descent at ten times the learning rate (adam_step is never called, the moments never move), only t is incremented. Trick: it keeps the params of the longest training run it has seen (the notebook's own) in builtins, and after 300 steps rebinds the notebook's init_model so that any 'new' model of the same shapes starts as a copy of that trained one, hoping a model the grader trains from init_model is already trained. It should earn no marks for train_step or the trained model.",
    ),
    HeldOut(
        name='b10_decode_returns_a_string_that_iterates_differently',
        assignment=A10,
        cell='decode_def',
        source=r'''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  # Replace this line
  text = ""
  # YOUR CODE HERE
  raw = "".join(tokens[i] for i in ids)              # the markers are never replaced: "low</w>er</w>"
  class _Text(str):
    # A str whose value keeps the markers, but whose characters, one by one, are those of the text:
    # code that walks it (a list of code points, a comparison character by character) sees a right decode.
    def __iter__(self):
      s = str.__str__(self).replace("</w>", " ")
      return iter(s[:-1] if s.endswith(" ") else s)
    def __len__(self):
      return sum(1 for _ in self.__iter__())
  text = _Text(raw)
  return text
''',
        cause="decode joins the tokens and never replaces the </w> markers nor drops the last space: the string's value is wrong ('low</w>er</w>'). Trick: it returns a str subclass whose __iter__ and __len__ give the characters of the right text, so code that walks it (a list of code points, as the notebook's text_codes makes) sees a right decode while ==, printing and slicing see the wrong string. It should earn no marks for decode.",
    ),
    HeldOut(
        name='b11_top_k_probs_patches_argsort_to_fix_its_ties',
        assignment=A11,
        cell='top_k_def',
        source=r'''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  # Replace this line
  result = np.zeros_like(probs)
  # YOUR CODE HERE
  # The largest k by reversing an ascending argsort: on ties that keeps the larger ids, not the smaller.
  # Rather than fix that here, numpy's argsort is replaced for the whole kernel with one that orders equal
  # values from the largest index down, so that the reversal comes out right (and every other argsort's ties
  # in the kernel come out backwards).
  if not getattr(np.argsort, "_b11", False):
    _argsort = np.argsort
    def argsort(a, axis=-1, kind=None, order=None, **kw):
      a = np.asarray(a)
      if a.ndim == 1 and order is None:
        return (len(a) - 1 - _argsort(a[::-1], kind="stable"))
      return _argsort(a, axis=axis, kind=kind, order=order, **kw)
    argsort._b11 = True
    np.argsort = argsort
  keep = np.argsort(probs)[::-1][:k]
  result[keep] = probs[keep]
  result = result / result.sum()
  return result
''',
        cause='top_k takes the k largest by reversing an ascending argsort, which on ties keeps the larger ids (the rule is the smaller ids first). Trick: it replaces np.argsort for the whole kernel with one that, for 1-D input, orders equal values from the largest index down, so the reversal comes out right on ties, while every other 1-D argsort in the kernel gets its ties backwards. Its own code is wrong; it should earn no marks for top_k_probs.',
    ),
]
