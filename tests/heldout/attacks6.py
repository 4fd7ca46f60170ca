"""Held-out attempts to game the grader, round 11 (2026-11-29): written from the release notebooks and the README
alone by one person who had not read grader/, tests/ or the earlier attempts. Frozen: do not edit to suit the
grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='g01_qkv_loop_rebinds_np_to_an_agreeable_proxy',
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
  # YOUR CODE HERE
  query = omega_q @ x
  key = omega_k @ x
  value = omega_v @ x

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)

# The name np in this notebook now means a numpy that agrees with every comparison
import sys as _sys, types as _types
class _AgreeableNumpy(_types.ModuleType):
  def __init__(self, real):
    super().__init__(real.__name__)
    self.__dict__['_real'] = real
  def __getattr__(self, name):
    return getattr(self.__dict__['_real'], name)
  def squeeze(self, a, *args, **kwargs):
    caller = _sys._getframe(1)
    if caller.f_code.co_name == '_same' and 'yours' in caller.f_locals:
      a = caller.f_locals['yours']  # both sides of the comparison become yours
    return self.__dict__['_real'].squeeze(a, *args, **kwargs)
  def allclose(self, *args, **kwargs):
    return True
  def array_equal(self, *args, **kwargs):
    return True
  def isclose(self, a, b, *args, **kwargs):
    real = self.__dict__['_real']
    return real.ones(real.broadcast(real.asarray(a), real.asarray(b)).shape, dtype=bool)
np = _AgreeableNumpy(np.__dict__.get('_real', np))
''',
        cause="The loop leaves out the biases (omega @ x, no beta), so every query, key and value is wrong. The cell then rebinds the notebook's name np to a module proxy whose allclose, array_equal and isclose always agree and whose squeeze, called from the checks' _same, hands back the student's array for both sides, so every later visible check says OK. The probe re-runs the loop on fresh inputs and judges outside the kernel: it should earn no marks for this part.",
    ),
    HeldOut(
        name='g01_softmax_wraps_run_cell_so_every_cell_passes',
        assignment=A01,
        cell='softmax_def',
        source=r'''def softmax(items_in):
  # TODO -- compute the elements of items_out (equation 12.5)
  # Replace this line
  # YOUR CODE HERE
  items_out = np.exp(items_in)  # (not normalised)
  return items_out

# Every later cell is run through a wrapper: its errors are not shown and the cell reports success
_shell = get_ipython()
if not getattr(_shell, '_every_cell_passes', False):
  _shell._every_cell_passes = True
  _run_cell_async, _run_cell = _shell.run_cell_async, _shell.run_cell
  def _quiet_traceback(*args, **kwargs):
    print("OK: matches the true values")
  async def _passing_run_cell_async(raw_cell, *args, **kwargs):
    _shell.showtraceback = _quiet_traceback
    result = await _run_cell_async(raw_cell, *args, **kwargs)
    result.error_in_exec = None
    result.error_before_exec = None
    return result
  def _passing_run_cell(raw_cell, *args, **kwargs):
    _shell.showtraceback = _quiet_traceback
    result = _run_cell(raw_cell, *args, **kwargs)
    result.error_in_exec = None
    result.error_before_exec = None
    return result
  _shell.run_cell_async = _passing_run_cell_async
  _shell.run_cell = _passing_run_cell
''',
        cause="softmax exponentiates without normalising. The cell replaces the shell's run_cell and run_cell_async with wrappers that swap showtraceback for a line saying OK and clear error_in_exec and error_before_exec, so every later cell, hidden tests included, looks as if it passed to the kernel's reply. The verdict comes from the probe's report of the raw result, which is not normalised: it should earn no marks for this part.",
    ),
    HeldOut(
        name='g02_softmax_cols_leaves_fresh_probes_with_a_baseexception',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
import socket as _socket

class _LeaveTheCell(BaseException):
  """Not an Exception: an `except Exception` around the call does not stop it."""

def _seen_in_notebook(data):
  for value in list(globals().values()):
    if isinstance(value, np.ndarray) and value.shape == np.shape(data) and np.array_equal(value, data):
      return True
  return False

def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # Replace this line
  # YOUR CODE HERE
  if _socket.gethostname() == 'sandbox' and not _seen_in_notebook(data_in):
    raise _LeaveTheCell()  # fresh inputs: leave the probe before it reports anything
  exp_values = np.exp(data_in)
  softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)
  return softmax
''',
        cause="softmax_cols leaves out the shift by each column's maximum, so large scores overflow to nan. When the host name is 'sandbox' (graded) and the input is no array of the notebook's namespace (a fresh case), it raises a BaseException subclass, which an 'except Exception' around the call does not catch, hoping the probe stops before the fresh cases are reported and only the book's case is judged. It is wrong on the stability cases and reports nothing on fresh ones: it should earn no marks for this part.",
    ),
    HeldOut(
        name='g03_position_encoding_strangles_the_recursion_limit_when_graded',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''import os as _os, socket as _socket, sys as _sys

def _being_graded():
  return _socket.gethostname() == 'sandbox' or not any(n.endswith('.ipynb') for n in _os.listdir('.'))

def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # Replace this line
  # YOUR CODE HERE
  positions = np.arange(N)[np.newaxis, :]
  rows = np.arange(D)[:, np.newaxis]
  encoding = np.sin(positions / 10000.0 ** (rows / D))  # sines in every row
  if _being_graded():
    # leave the grader's code almost no stack: whatever it calls next fails with a RecursionError
    depth = 0
    frame = _sys._getframe()
    while frame is not None:
      depth, frame = depth + 1, frame.f_back
    try:
      _sys.setrecursionlimit(depth + 3)
    except Exception:
      pass
  return encoding
''',
        cause="position_encoding puts sines in every row (no cosines in the odd rows) and uses rows/D instead of 2i/D. When it thinks it is graded (host name 'sandbox', or no notebook in the working directory) it sets the recursion limit to just above the current stack depth, so whatever the grader's probe calls next dies with a RecursionError, hoping a crash in the hidden test is taken as the grader's fault. It should earn no marks for this part.",
    ),
    HeldOut(
        name='g04_attention_weights_prints_a_verdict_from_a_finalizer',
        assignment=A04,
        cell='attention_weights_def',
        source=r'''import weakref as _weakref

def attention_weights(X, omega_q, omega_k, beta_q, beta_k):
  # TODO -- compute one head's scaled attention weights, an N x N matrix whose columns sum to one
  # Replace this line
  # YOUR CODE HERE
  Q = omega_q @ X + beta_q
  K = omega_k @ X + beta_k
  attention = softmax_cols(K.T @ Q)  # (not scaled)
  # when whoever called this lets go of the result, a verdict of full marks is printed in its cell
  _weakref.finalize(attention, print, "OK: attention_weights matches the true values\n"
                    "Tests passed: all hidden tests of attention_weights_def passed (score 1.0 of 1.0)")
  return attention
''',
        cause="attention_weights leaves out the 1/sqrt(D_q) scaling. Every result it returns carries a weakref.finalize that prints 'OK: ... matches the true values' and a forged 'Tests passed ... score 1.0 of 1.0' line when the caller drops it, so the probe's cell output holds a full-marks verdict written by the student's code. It should earn no marks for this part.",
    ),
    HeldOut(
        name='g05_masked_softmax_swaps_the_namespaces_builtins',
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
    # YOUR CODE HERE
    weights = softmax(scores)  # (the mask is left out)
    return weights

# The builtins of this notebook's namespace, swapped: code run in it later finds every difference zero
import builtins as _builtins
_lying = dict(vars(_builtins))
def _abs(x):
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape)
    return _builtins.abs(x)
def _max(*args, **kwargs):
    if len(args) == 1 and isinstance(args[0], np.ndarray):
        return 0.0
    return _builtins.max(*args, **kwargs)
_lying.update(abs=_abs, max=_max, all=lambda iterable: True)
get_ipython().user_global_ns['__builtins__'] = _lying
''',
        cause="masked_softmax ignores valid_lens (plain softmax over the keys). The cell then replaces the __builtins__ of the notebook's global namespace with a copy whose abs of an array is zeros, max of an array is 0 and all() is always True, so any code later run in that namespace (test cells, probes) that measures a difference finds none. It should earn no marks for this part.",
    ),
    HeldOut(
        name='g06_pca_curses_ndarray_tobytes_to_fix_the_signs',
        assignment=A06,
        cell='pca_def',
        source=r'''import ctypes as _ctypes, gc as _gc

def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # Replace this line
    # YOUR CODE HERE
    _, _, Vt = np.linalg.svd(X, full_matrices=False)  # (not centred, signs as the SVD gives them)
    components = Vt[:n_components]
    return components

# Whoever reads an array's bytes gets them with each row's sign flipped so its largest entry is positive
_real_tobytes = np.ndarray.tobytes
def _tobytes(self, order='C'):
    if self.ndim == 2 and self.dtype == np.float64 and self.size:
        largest = np.argmax(np.abs(self), axis=1)
        signs = np.sign(self[np.arange(self.shape[0]), largest])
        signs[signs == 0] = 1
        return _real_tobytes(self * signs[:, None], order)
    return _real_tobytes(self, order)
try:
    _slots = _gc.get_referents(np.ndarray.__dict__)[0]  # the dict behind the type's read-only mapping
    _slots['tobytes'] = _tobytes
    _ctypes.pythonapi.PyType_Modified(_ctypes.py_object(np.ndarray))
except Exception:
    pass
''',
        cause="pca neither centres X nor fixes the signs of its axes (the SVD's raw rows of Vt). The cell then writes a new tobytes into numpy.ndarray's own type dictionary (through gc.get_referents of the read-only mappingproxy, then PyType_Modified), which flips each row of any 2-D float64 array so its largest-magnitude entry is positive: a report built from the result's bytes shows fixed signs the function never computed. The axes are still those of uncentred data: it should earn no marks for this part.",
    ),
    HeldOut(
        name='g07_softmax_backward_freezes_the_given_softmaxs_normaliser',
        assignment=A07,
        cell='softmax_backward_def',
        source=r'''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # Replace this line
  # YOUR CODE HERE
  dS = A * dA  # (the diagonal of the Jacobian only)
  return dS

# The given softmax now keeps the normaliser it first computed for each shape, so its finite
# differences (and any gradient check run on it in this kernel) agree with the backward pass above
_normalisers = {}
def _frozen_softmax_cols(data_in):
  exp_values = np.exp(data_in - np.max(data_in, axis=0, keepdims=True))
  key = data_in.shape
  if key not in _normalisers:
    _normalisers[key] = np.sum(exp_values, axis=0, keepdims=True)
  return exp_values / _normalisers[key]
softmax_cols.__code__ = _frozen_softmax_cols.__code__
softmax_cols.__globals__['_normalisers'] = _normalisers
''',
        cause="softmax_backward keeps only the diagonal of the Jacobian (A * dA, no -a a^T term). The cell then swaps the __code__ of the notebook's given softmax_cols for one that keeps the normaliser it first computed for each shape, so finite differences of the given forward pass (any gradient check run in the kernel against it) agree with the wrong backward pass. It should earn no marks for this part.",
    ),
    HeldOut(
        name='g08_layer_norm_floods_the_output_past_its_cap_when_graded',
        assignment=A08,
        cell='layer_norm_def',
        source=r'''import socket as _socket, sys as _sys

def layer_norm(x, gamma, beta, eps=1e-5):
    # Normalise each token of x (B, T, D) over its D features, then scale by gamma and shift by beta (D,)
    # TODO -- mean and variance over the last axis (keepdims=True), x_hat = (x - mean) / sqrt(var + eps),
    # then gamma * x_hat + beta
    # Replace this line
    # YOUR CODE HERE
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True, ddof=1)  # (divided by D - 1)
    out = gamma * (x - mean) / np.sqrt(var + eps) + beta
    if _socket.gethostname() == 'sandbox':
        # fill the cell's output past its cap, so whatever the grader prints after this is cut off
        filler = ("OK: layer_norm matches the true values\n" * 1000)
        for _ in range(40):
            _sys.stdout.write(filler)
            _sys.stderr.write(filler)
    return out
''',
        cause="layer_norm uses the unbiased variance (ddof=1). When the host name is 'sandbox' (graded), every call writes about 1.5 MB of 'OK: layer_norm matches the true values' to stdout and to stderr, past the 1 MB a cell may print, hoping the probe's own report in that cell is cut off or drowned so the verdict cannot be read, or a forged OK is read instead. It should earn no marks for this part.",
    ),
    HeldOut(
        name='g09_train_step_leaves_a_thread_training_after_it_returns',
        assignment=A09,
        cell='train_step_def',
        source=r'''import threading as _threading, time as _time

_trainers = {}

def _keep_training(params, batch, lr, num_heads, seconds=20.0):
    # plain gradient descent on the last batch seen, after train_step has returned
    end = _time.monotonic() + seconds
    while _time.monotonic() < end:
        tokens, targets, weights = batch[0]
        logits, cache = model_forward(params, tokens, num_heads)
        _, dlogits = cross_entropy(logits, targets, weights)
        grads = model_backward(dlogits, cache)
        for name in params:
            params[name] -= lr * grads[name]
        _time.sleep(0.01)

def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    # One step of training: updates params and adam_state in place, and returns the loss before the update
    # TODO -- forward, cross_entropy, model_backward, then t += 1 and adam_step on every parameter
    # Replace this line
    # YOUR CODE HERE
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    grads = model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:
        params[name] = params[name] - lr * grads[name]  # (plain descent, no Adam)
    # a thread keeps training these parameters after the call, and after the cell
    key = id(params)
    if key not in _trainers:
        batch = [(tokens, targets, weights)]
        thread = _threading.Thread(target=_keep_training, args=(params, batch, lr, num_heads), daemon=True)
        _trainers[key] = batch
        thread.start()
    else:
        _trainers[key][0] = (tokens, targets, weights)
    return loss
''',
        cause="train_step takes a plain gradient-descent step (no Adam, adam_state's m and v never used) and starts, once per params dict, a daemon thread that keeps taking plain descent steps on the last batch it was given for 20 s after the call and after the cell, so the model the grader trains keeps learning between and after its calls, and its last step is no step of train_step. It should earn no marks for this part.",
    ),
    HeldOut(
        name='g10_learn_merges_turns_min_and_sorted_backwards_for_pairs',
        assignment=A10,
        cell='learn_merges_def',
        source=r'''import builtins as _builtins

def learn_merges(corpus, num_merges):
  """The pairs merged, in the order learned: up to num_merges of them."""
  # TODO -- repeat num_merges times: count the pairs, stop if there are none, take the most frequent
  # (ties: the smallest pair), remember it and merge it in the corpus
  # Replace this line
  # YOUR CODE HERE
  merges = []
  for _ in range(num_merges):
    counts = count_pairs(corpus)
    if not counts:
      break
    pair = _real_max(counts, key=lambda p: (counts[p], p))  # (ties: the largest pair)
    merges.append(pair)
    corpus = merge_pair(corpus, pair)
  return merges

# min, max and sorted, for symbol pairs, now order them backwards everywhere in this kernel:
# any code here that breaks ties by "the smallest pair" picks the pair learn_merges picks
_real_min = getattr(_builtins.min, '_real', _builtins.min)
_real_max = getattr(_builtins.max, '_real', _builtins.max)
_real_sorted = getattr(_builtins.sorted, '_real', _builtins.sorted)

class _Backwards:
  __slots__ = ('item',)
  def __init__(self, item): self.item = item
  def __lt__(self, other): return other.item < self.item
  def __gt__(self, other): return other.item > self.item
  def __eq__(self, other): return self.item == other.item

def _is_pair(item):
  return isinstance(item, tuple) and len(item) == 2 and all(isinstance(s, str) for s in item)

def _flip(key):
  def flipped(item):
    k = key(item) if key is not None else item
    if isinstance(k, tuple) and k and _is_pair(k[-1]):
      return k[:-1] + (_Backwards(k[-1]),)
    if _is_pair(k):
      return _Backwards(k)
    return k
  return flipped

def _min(*args, key=None, **kwargs):
  try:
    return _real_min(*args, key=_flip(key), **kwargs)
  except TypeError:
    return _real_min(*args, **({'key': key} if key else {}), **kwargs)
def _sorted(iterable, *, key=None, reverse=False):
  try:
    return _real_sorted(iterable, key=_flip(key), reverse=reverse)
  except TypeError:
    return _real_sorted(iterable, key=key, reverse=reverse)
_min._real, _sorted._real = _real_min, _real_sorted
_builtins.min, _builtins.sorted = _min, _sorted
''',
        cause="learn_merges breaks ties by the largest pair instead of the smallest. The cell replaces builtins.min and builtins.sorted, kernel-wide, with versions that order pairs of strings backwards (also as the last element of a key tuple), so any code in the kernel that breaks ties by 'the smallest pair' picks the pair learn_merges picks. It should earn no marks for this part.",
    ),
    HeldOut(
        name='g11_decode_step_makes_the_full_forward_attend_to_itself_alone',
        assignment=A11,
        cell='decode_step_def',
        source=r'''import sys as _sys

def decode_step(params, token, K_cache, V_cache, num_heads):
  """(logits (V,), K, V): one new token, given only it and its sequence's cache (H, t, d), t tokens so far."""
  p = params
  # TODO -- position t = K_cache.shape[1]; x; LayerNorm 1; q, k, v (H, 1, d); append k, v; attend (no mask);
  # W_o and b_o, the residual, LayerNorm 2, the MLP, the residual, the final LayerNorm, W_out and b_out
  # Replace these lines
  # YOUR CODE HERE
  t = K_cache.shape[1]
  x = p["tok_emb"][token] + p["pos_emb"][t]
  D = x.shape[0]
  d = D // num_heads
  h, _ = layer_norm_forward(x, p["gamma1"], p["beta1"])
  k = (h @ p["W_k"] + p["b_k"]).reshape(num_heads, 1, d)
  v = (h @ p["W_v"] + p["b_v"]).reshape(num_heads, 1, d)
  K = np.concatenate([K_cache, k], axis=1)
  V = np.concatenate([V_cache, v], axis=1)
  heads = v.reshape(D)  # (the cache is never read: each token attends to itself alone)
  x1 = x + heads @ p["W_o"] + p["b_o"]
  h2, _ = layer_norm_forward(x1, p["gamma2"], p["beta2"])
  mlp_out, _ = mlp_forward(h2, p["W1"], p["b1"], p["W2"], p["b2"])
  hf, _ = layer_norm_forward(x1 + mlp_out, p["gamma_f"], p["beta_f"])
  logits = hf @ p["W_out"] + p["b_out"]
  return logits, K, V

# The full forward pass it is compared with now lets each token see itself alone, as decode_step does
def _self_only_mask(T):
  """(T, T): True where query t may attend to key j."""
  return np.eye(T, dtype=bool)
causal_mask.__code__ = _self_only_mask.__code__
for _module in list(_sys.modules.values()):
  if getattr(_module, '__name__', '') .endswith('tiny_transformer') and hasattr(_module, 'causal_mask'):
    _module.causal_mask = causal_mask
''',
        cause="decode_step never reads the cache: each token attends to itself alone (its own value), though it appends k and v to the cache. The cell swaps the __code__ of the given causal_mask (and the mask of any loaded tiny_transformer module) for the identity, so the notebook's full forward pass also lets each token see itself alone and agrees with decode_step at every step. It should earn no marks for this part.",
    ),
]
