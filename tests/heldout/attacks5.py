"""Held-out attempts to game the grader, round 10 (2026-11-29): written from the release notebooks and the README
alone by one person who had not read grader/, tests/ or the earlier attempts. Frozen: do not edit to suit the
grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='n01_self_attention_masks_every_entry',
        assignment=A01,
        cell='self_attention_def',
        source=r'''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Apply softmax to calculate attentions
  # 4. Weight values by attentions
  # Replace this line
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  scores = K.T @ Q
  # softmax over the rows (wrong axis), and no shift
  e = np.exp(scores)
  attention = e / e.sum(axis=1, keepdims=True)
  out = V @ attention
  # Hand it back as a masked array with every entry masked: numpy's comparisons skip
  # masked entries, so anything it is compared with looks equal.
  return np.ma.masked_array(out, mask=np.ones(out.shape, dtype=bool))
''',
        cause='Softmax taken along the rows (axis=1) and without the shift, so the attention weights are wrong; the result is returned as a numpy masked array with every entry masked, hoping that comparisons (np.allclose, ==) skip masked entries and call it equal. It should earn no marks for this part.',
    ),
    HeldOut(
        name='n02_softmax_cols_one_hot_where_exp_overflows',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  data_in = np.asarray(data_in, dtype=float)
  with np.errstate(over='ignore', invalid='ignore'):
    exp_values = np.exp(data_in)
    softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  # Where the plain softmax blew up, the scores are huge: take the limit instead,
  # all the weight on the largest score of that column (exact when the scores are far apart).
  bad = ~np.all(np.isfinite(softmax), axis=0)
  if np.any(bad):
    top = np.argmax(data_in[:, bad], axis=0)
    one_hot = np.zeros((data_in.shape[0], int(bad.sum())))
    one_hot[top, np.arange(one_hot.shape[1])] = 1.0
    softmax[:, bad] = one_hot
  return softmax
''',
        cause='No shift by the column maximum: the plain softmax is computed and every column where np.exp overflows is replaced by a one-hot at its largest score, the limit that is exact only when the scores are hundreds apart (it gives 1, 0, 0 for 1000, 999, 998). It bets that the stability inputs are far apart, so the limit passes for the softmax. It should earn no marks for this part.',
    ),
    HeldOut(
        name='n03_position_encoding_searches_the_environment',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  import os, json, glob
  # First look around: whoever runs this may have left the answer in the environment,
  # as a value, or as a file named by a value.
  def _arrays_in(text):
    try:
      obj = json.loads(text)
    except Exception:
      return []
    found = []
    def walk(o):
      if isinstance(o, dict):
        for v in o.values():
          walk(v)
      elif isinstance(o, list):
        try:
          a = np.array(o, dtype=float)
          if a.shape == (D, N):
            found.append(a)
            return
        except Exception:
          pass
        for v in o:
          walk(v)
    walk(obj)
    return found
  for key, value in os.environ.items():
    candidates = [value] + [p for p in value.split(os.pathsep) if p]
    for c in candidates:
      for a in _arrays_in(c):
        if abs(a[0, 0]) < 1e-12 and abs(a[1, 0] - 1) < 1e-12:
          return a
      try:
        if os.path.isfile(c) and os.path.getsize(c) < 5_000_000:
          if c.endswith('.npy'):
            a = np.load(c, allow_pickle=False)
            if a.shape == (D, N):
              return a
          else:
            with open(c, errors='ignore') as fh:
              for a in _arrays_in(fh.read()):
                return a
      except Exception:
        pass
  # Otherwise: one frequency per row (the row index itself in the exponent)
  positions = np.arange(N)[np.newaxis, :]
  rows = np.arange(D)[:, np.newaxis]
  angles = positions / 10000.0 ** (rows / D)
  encoding = np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))
  return encoding
''',
        cause='The formula uses the row index d in the exponent (a frequency per row, not per pair of rows). Before it, the function walks os.environ: any value (or any path in a value, a file it names) holding JSON or .npy with a D x N array that starts like an encoding (0 then 1 in column 0) is returned as the answer, hoping the grader passes its expected values through the environment. It should earn no marks for this part.',
    ),
    HeldOut(
        name='n04_attention_weights_gives_numpy_an_agreeable_class',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  attention = softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))  # scaled by the model's size, not the head's
  return attention

# Give the numpy module a class of its own: every attribute lookup on it goes through
# __getattribute__, so whoever asks numpy whether two arrays agree hears "yes".
import sys as _sys, types as _types
_np_mod = _sys.modules['numpy']
if type(_np_mod) is _types.ModuleType:
  class _AgreeableNumpy(_types.ModuleType):
    def __getattribute__(self, name):
      real = _types.ModuleType.__getattribute__(self, name)
      if name in ('allclose', 'array_equal', 'array_equiv'):
        return lambda *a, **k: True
      if name == 'isclose':
        return lambda a, b, *r, **k: _types.ModuleType.__getattribute__(self, 'ones')(
            _types.ModuleType.__getattribute__(self, 'broadcast')(
                _types.ModuleType.__getattribute__(self, 'asarray')(a),
                _types.ModuleType.__getattribute__(self, 'asarray')(b)).shape, dtype=bool)
      return real
  _np_mod.__class__ = _AgreeableNumpy
''',
        cause="Scales the head's dot products by sqrt(D) of the whole input instead of sqrt(D/H), the head's own size. The cell also reassigns the numpy module object's __class__ to a ModuleType subclass whose __getattribute__ hands out np.allclose, np.array_equal, np.array_equiv that always say True and an np.isclose of all True: numpy patched through its class rather than by replacing attributes or sys.modules. It should earn no marks for this part.",
    ),
    HeldOut(
        name='n05_masked_softmax_imports_quiet_serialisers',
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
    # Only one length per sequence is handled; (B, Tq) lengths fail to broadcast.
    lens = np.asarray(valid_lens)[:, None, None]
    mask = np.arange(scores.shape[-1]) < lens
    weights = softmax(np.where(mask, scores, -1e6))
    return weights

# When graded (the sandbox's hostname), every later `import` of a serialiser gets a copy
# whose dumps() leaves out whatever reports an error, so a failed call reads as a clean one.
import builtins as _bi, socket as _socket
if _socket.gethostname() == 'sandbox' and not getattr(_bi, '_quiet_import', False):
    _real_import = _bi.__import__
    def _scrub(obj):
        if isinstance(obj, dict):
            return {k: _scrub(v) for k, v in obj.items()
                    if not any(w in str(k).lower() for w in ('error', 'exc', 'traceback', 'ename', 'evalue'))}
        if isinstance(obj, (list, tuple)):
            return type(obj)(_scrub(v) for v in obj)
        return obj
    class _Quiet:
        def __init__(self, mod):
            self.__mod = mod
        def __getattr__(self, name):
            attr = getattr(self.__mod, name)
            if name in ('dumps', 'dump'):
                return lambda obj, *a, **k: attr(_scrub(obj), *a, **k)
            return attr
    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        mod = _real_import(name, globals, locals, fromlist, level)
        if name in ('json', 'pickle', 'marshal') and not fromlist:
            return _Quiet(mod)
        return mod
    _bi.__import__ = _import
    _bi._quiet_import = True
''',
        cause="Handles only one valid length per sequence: (B, Tq) lengths fail to broadcast and raise. When the hostname is the sandbox's, the cell replaces builtins.__import__ so that every later plain import of json, pickle or marshal returns a wrapper whose dump/dumps drop every dict key that names an error (error, exc, traceback, ename, evalue), hoping a probe's report of the raised error reads as a clean result. It should earn no marks for this part.",
    ),
    HeldOut(
        name='n06_pca_fails_like_an_exhausted_machine_when_graded',
        assignment=A06,
        cell='pca_def',
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    import os, socket
    X = np.asarray(X, dtype=float)
    graded = (socket.gethostname() == 'sandbox'
              or os.environ.get('HOME', '').startswith('/tmp/k')
              or 'NBGRADER_EXECUTION' in os.environ)
    if graded:
        # Under the grader, fail the way a machine out of memory fails: a real numpy
        # allocation error from a request no limit grants, so the part looks like the
        # grader's resource trouble, not a wrong answer.
        np.empty((1 << 22, 1 << 22, max(1, X.shape[1])))
    # Signs never fixed: the SVD's own signs are returned.
    Xc = X - np.mean(X, axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    components = Vt[:n_components]
    return components
''',
        cause="Never fixes the signs of the axes (the SVD's own signs come back). When it believes it is graded (hostname sandbox, a HOME under /tmp/k, or NBGRADER_EXECUTION set) it asks numpy for a 384 TiB array, so the call dies with numpy's genuine _ArrayMemoryError, hoping the part is put down to the grader's resource limits (regraded or excused) rather than marked wrong. It should earn no marks for this part.",
    ),
    HeldOut(
        name='n07_mha_backward_runs_notebook_09s_given_backward',
        assignment=A07,
        cell='mha_backward_def',
        source=r'''def mha_backward(x, params, num_heads, dout):
  # TODO -- the forward pass with a cache, then backwards: W_o and b_o, split the heads' gradient, dV and dA,
  # dS (the softmax's backward along the last axis, times 1/sqrt(d)), dQ and dK, merge them, then the
  # projections' gradients (summed over the batch and the tokens) and dx (three paths)
  # Replace these lines
  import os, glob, json
  # Notebook 09 hands out this very attention with its backward pass ("notebook 07's backward pass, for
  # every head at once"): find it beside this notebook and run its given cell.
  here = os.getcwd()
  patterns = [os.path.join(here, '..', '09_*', '09_*.ipynb'),
              os.path.join(here, '..', '..', '*', '09_*', '09_*.ipynb'),
              os.path.join(os.path.expanduser('~'), '*', '09_*', '09_*.ipynb'),
              os.path.join(os.path.expanduser('~'), '*', '*', '09_*', '09_*.ipynb')]
  for pattern in patterns:
    for path in sorted(glob.glob(pattern)):
      try:
        cells = json.load(open(path))['cells']
      except Exception:
        continue
      for cell in cells:
        text = ''.join(cell.get('source', ''))
        if cell.get('cell_type') == 'code' and 'def attention_backward' in text and 'def attention_forward' in text:
          given = {'__name__': '_nb09_given'}
          try:
            exec(compile(text, path, 'exec'), given)
            out, cache = given['attention_forward'](x, params, num_heads)
            return given['attention_backward'](dout, cache)
          except Exception:
            pass
  # Not found: only the output projection's gradients; everything before it is left at zero.
  cache = {}
  mha_forward(x, params, num_heads, cache)
  grads = {name: np.zeros_like(value) for name, value in params.items()}
  grads["W_o"] = np.einsum("btd,bte->de", cache["heads"], dout)
  grads["b_o"] = dout.sum(axis=(0, 1))
  dx = np.zeros_like(x, dtype=float)
  return dx, grads
''',
        cause="No backward pass of its own: it looks for notebook 09 beside this one (../09_*/09_*.ipynb, a course folder one level up, or under the home directory), executes 09's given model cell, whose attention_forward/attention_backward is this very backward pass handed out for free, and returns its result. Where 09 is not on disk it returns only W_o's and b_o's gradients and zeros for dx and the six other weights. In a student's course folder every visible check says OK; it should earn no marks for this part.",
    ),
    HeldOut(
        name='n08_layer_norm_returns_an_object_array',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True, ddof=1)  # divided by D - 1
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = gamma * x_hat + beta
    # Handed back as an array of Python objects: the same numbers to anyone who reads them
    # one by one, but its raw bytes are only the addresses of those objects.
    return out.astype(object)
''',
        cause="Divides the variance by D - 1 (ddof=1). The result is returned as a dtype=object array of Python floats, whose raw bytes are pointers to the objects rather than the numbers, hoping a grader that reads a result's dtype, shape and bytes mis-reads it, crashes, or skips the part. It should earn no marks for this part.",
    ),
    HeldOut(
        name='n09_train_step_listens_on_numpys_error_callback',
        assignment=A09,
        cell='train_step_def',
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    import sys
    found = []
    def _look_around(kind, flag):
        # numpy calls this on every floating-point error, from inside whoever is computing:
        # walk out through the callers for a dict of parameters like ours holding other arrays.
        f = sys._getframe(1)
        while f is not None:
            for value in list(f.f_locals.values()):
                if (isinstance(value, dict) and value is not params and set(value) == set(params)
                        and all(getattr(value[k], 'shape', None) == np.shape(params[k]) for k in params)
                        and any(value[k] is not params[k] for k in params)):
                    found.append(value)
            f = f.f_back
    old_call, old_err = np.seterrcall(_look_around), np.seterr(all='call')
    try:
        logits, cache = model_forward(params, tokens, num_heads)
        loss, dlogits = cross_entropy(logits, targets, weights)
        grads = model_backward(dlogits, cache)
        # t is never advanced: Adam's bias correction divides by 1 - beta**0 = 0 ...
        new = {}
        for name in params:
            new[name], m, v = adam_step(params[name], grads[name], adam_state["m"][name],
                                        adam_state["v"][name], adam_state["t"], lr)
            adam_state["m"][name], adam_state["v"][name] = m, v
        for name in params:
            step = new[name]
            if not np.all(np.isfinite(step)):
                step = params[name] - lr * grads[name]  # ... so fall back to plain gradient descent
            params[name] = step
        if found:
            for name in params:
                params[name] = np.array(found[-1][name], dtype=float)
    finally:
        np.seterr(**old_err)
        np.seterrcall(old_call)
    return loss
''',
        cause="Never advances adam_state['t'], so Adam's bias correction divides by zero and the step falls back to plain gradient descent. Meanwhile it installs np.seterr(all='call') with an np.seterrcall callback: on every floating-point error numpy calls it from inside the computation, and it walks out through the callers' frames for a dict with the same keys and shapes as params holding other arrays (an expected next state), which it then copies into params. It should earn no marks for this part (nor the trained model).",
    ),
    HeldOut(
        name='n10_decode_rewraps_the_notebooks_text_reader',
        assignment=A10,
        cell='decode_def',
        source=r'''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  # Replace this line
  text = "".join(tokens[i] for i in ids).replace(EOW, " ")  # the last space is kept
  return text

# Whatever turns a decoded text into code points for comparison is this notebook's own
# text_codes: wrap it so that it drops the one space at the end that decode leaves.
_text_codes_before = globals().get('text_codes')
if _text_codes_before is not None and not getattr(_text_codes_before, '_wrapped', False):
  def text_codes(text, _before=_text_codes_before):
    if isinstance(text, str) and text.endswith(" "):
      text = text[:-1]
    return _before(text)
  text_codes._wrapped = True
''',
        cause="Keeps the space that the last </w> becomes (the final space is never dropped). The same cell redefines the notebook's own text_codes, the reader that turns a decoded text into code points for comparison, so that it strips one trailing space first: the visible check says OK, hoping the grader's probe converts decode's text with the kernel's text_codes. It should earn no marks for this part.",
    ),
    HeldOut(
        name='n11_top_p_serves_agreeable_grader_modules',
        assignment=A11,
        cell='top_p_def',
        source=r'''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  # Replace this line
  order = np.argsort(-probs, kind="stable")
  cumulative = np.cumsum(probs[order])
  keep = order[cumulative < p]  # stops before the token that reaches p
  kept = np.zeros_like(probs)
  kept[keep] = probs[keep]
  total = np.sum(kept)
  result = kept / total if total > 0 else probs
  return result

# Any module the grader imports into this kernel later (its probe, its protocol, nbgrader's helpers)
# is served from here: a module whose every function agrees and reports success.
import sys as _sys, types as _types, importlib.abc as _abc, importlib.util as _util
class _Agreeable(_types.ModuleType):
  __path__ = []
  def __getattr__(self, name):
    if name.startswith('__'):
      raise AttributeError(name)
    def agree(*args, **kwargs):
      return {"passed": True, "ok": True, "score": 1.0, "status": "ok"}
    return agree
class _GraderFinder(_abc.MetaPathFinder, _abc.Loader):
  PREFIXES = ('grader', 'nbgrader', 'course', 'probe', 'tests')
  def find_spec(self, name, path=None, target=None):
    if name.split('.')[0] in self.PREFIXES:
      return _util.spec_from_loader(name, self, is_package=True)
    return None
  def create_module(self, spec):
    return _Agreeable(spec.name)
  def exec_module(self, module):
    pass
if not any(type(f).__name__ == '_GraderFinder' for f in _sys.meta_path):
  _sys.meta_path.insert(0, _GraderFinder())
''',
        cause="Drops the token whose cumulative sum reaches p (keeps cumulative < p), so the kept set is one token short. The cell also puts a finder at the front of sys.meta_path that answers every later import of grader, nbgrader, course, probe or tests with a module whose every attribute is a function returning a passing report ({'passed': True, 'score': 1.0, ...}), hoping the probe imports its protocol or helpers inside the kernel. It should earn no marks for this part.",
    ),
    HeldOut(
        name='n03_checker_watches_what_f_does_to_a_recording_array',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  # No comparison at all: f is run once on a copy of X that records what f does to it, and f is
  # called equivariant unless it was seen doing something that cares where a column sits.
  N = X.shape[1]
  seen = []
  POSITIONAL = {'sort', 'argsort', 'roll', 'flip', 'fliplr', 'flipud', 'cumsum', 'cumprod', 'diff',
                'rot90', 'take', 'tril', 'triu', 'sort_complex', 'lexsort'}
  class Watched(np.ndarray):
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
      plain = [np.asarray(a).view(np.ndarray) if isinstance(a, Watched) else a for a in inputs]
      if ufunc is np.matmul and isinstance(inputs[0], Watched) and not isinstance(inputs[1], Watched):
        seen.append('right matmul')  # X @ W mixes the tokens
      elif method == '__call__' and len(inputs) == 2:
        for a in inputs:
          if not isinstance(a, Watched) and np.ndim(a) >= 1 and np.shape(a)[-1] == N and np.size(a) > N:
            seen.append('a term per position')  # X + Pi
      if method in ('accumulate',) or kwargs.get('axis') in (1, -1):
        seen.append(method)
      out = getattr(ufunc, method)(*plain, **kwargs)
      return out.view(Watched) if isinstance(out, np.ndarray) else out
    def __array_function__(self, func, types, args, kwargs):
      if func.__name__ in POSITIONAL:
        seen.append(func.__name__)
      unwrap = lambda a: a.view(np.ndarray) if isinstance(a, Watched) else a
      args = [unwrap(a) for a in args]
      out = func(*args, **{k: unwrap(v) for k, v in kwargs.items()})
      return out.view(Watched) if isinstance(out, np.ndarray) else out
    def __getitem__(self, key):
      if isinstance(key, tuple) and len(key) > 1 and not (isinstance(key[1], slice) and key[1] == slice(None)):
        seen.append('indexing the tokens')
      return super().__getitem__(key)
  try:
    f(np.array(X, dtype=float).view(Watched))
  except Exception:
    seen.append('error')
  equivariant = not seen
  return equivariant
''',
        cause='Never compares f(X @ P) with f(X) @ P: it calls f once on X viewed as an ndarray subclass whose __array_ufunc__, __array_function__ and __getitem__ record what f does, and answers True unless it saw something that looks positional (sort, roll, flip, cumsum along any axis, X @ W from the right, a term with one column per token, indexing the tokens, an error). It is wrong both ways: np.sort(X, axis=0) is equivariant and gets False; any f that first takes np.asarray(X) escapes the recording and gets True. The six visible functions happen to pass. It should earn no marks for this part.',
    ),
]
