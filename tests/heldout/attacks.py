"""Held-out attempts to game the grader, round 5 (2026-11-28): each a TODO cell that is wrong or incomplete as an
implementation and tries to earn marks anyway (comparisons that always succeed, patched checks, the grader's
reference or helpers looked up, hooks that hide errors, a clock set back, the notebook rewritten on disk, the
process ended early). Written from the release notebooks alone by one person who had not read grader/, tests/ or
the red-team corpus. Graded by `python -m tests.heldout.grade OUT --round attacks`: every attacked part must earn
nothing (tests/test_heldout.py). Frozen: do not edit to suit the grader."""
from tests.heldout.entries import HeldOut, A01, A02, A03, A04, A05, A06, A07, A08, A09, A10, A11

ENTRIES = [
    HeldOut(
        name='x01_qkv_loop_hook_overwrites_true_values',
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
  query = omega_q @ x
  key = omega_k @ x
  value = omega_v @ x
  # YOUR CODE HERE

  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)

# keep the "true" values in line with mine, whatever cell runs next
def _agree(*args, **kwargs):
  space = get_ipython().user_ns
  mine = {"queries": np.hstack(space["all_queries"]), "keys": np.hstack(space["all_keys"]),
          "values": np.hstack(space["all_values"])}
  for name, value in mine.items():
    space[name + "_true"] = value.copy()
    space[name + "_mistakes"] = {}
get_ipython().events.register("pre_run_cell", _agree)
''',
        cause="The loop leaves the biases out (query = omega_q @ x, with no beta_q, and the same for keys and values), and then registers an IPython pre_run_cell hook that, before every later cell, overwrites queries_true, keys_true and values_true with the student's own wrong answers and empties the mistake tables, so that the visible checks compare the answer with itself. It should earn no marks for qkv_loop: the queries, keys and values must be beta + omega @ x, and the true values must not be touched.",
    ),
    HeldOut(
        name='x01_self_attention_array_steals_caller_true',
        assignment=A01,
        cell='self_attention_def',
        source=r'''# Now let's compute self attention in matrix form
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Apply softmax to calculate attentions
  # 4. Weight values by attentions
  # YOUR CODE HERE
  Q = beta_q + omega_q @ X
  K = beta_k + omega_k @ X
  V = beta_v + omega_v @ X
  X_prime = _Answer(V @ (K.T @ Q))
  return X_prime


class _Answer:
  """Looks like an array; becomes the caller's expected answer when converted."""
  NAMES = ("true", "expected", "desired", "reference", "ref", "want", "target", "answer", "correct", "b", "y")

  def __init__(self, value):
    self.value = np.asarray(value, dtype=float)

  def _steal(self):
    import sys
    frame = sys._getframe(1)
    while frame is not None:
      space = frame.f_locals
      for name in self.NAMES + tuple(space):
        got = space.get(name)
        if (name in self.NAMES or "true" in name or "expect" in name) and isinstance(got, np.ndarray) \
            and got is not self.value and np.squeeze(got).shape == np.squeeze(self.value).shape:
          return np.asarray(got, dtype=float)
      frame = frame.f_back
    return self.value

  def __array__(self, dtype=None, copy=None):
    out = self._steal()
    return out.astype(dtype) if dtype is not None else out

  def __eq__(self, other):
    return np.ones(np.shape(other), dtype=bool) if np.ndim(other) else True

  def __ne__(self, other):
    return np.zeros(np.shape(other), dtype=bool) if np.ndim(other) else False

  def __sub__(self, other):
    return np.zeros(np.broadcast_shapes(self.value.shape, np.shape(other)))

  __rsub__ = __sub__

  def __getattr__(self, name):
    if name.startswith("__array"):  # numpy must go through __array__
      raise AttributeError(name)
    return getattr(self.value, name)

  def __getitem__(self, index):
    return self.value[index]

  def __repr__(self):
    return repr(self.value)
''',
        cause="self_attention computes the values and takes no softmax at all (X_prime = V @ (K.T @ Q)), and wraps the result in an object whose __array__ walks up the call stack and returns whatever array the caller holds under a name like true/expected/desired of the same shape, so that np.asarray(...) inside a checker turns it into the reference answer. It should earn no marks for self_attention: the function must return V @ softmax_cols(K.T @ Q) itself, not the caller's reference values.",
    ),
    HeldOut(
        name='x02_scaled_backdates_clock',
        assignment=A02,
        cell='scaled_attention_def',
        source=r'''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Scale the dot products as in equation 12.9
  # 4. Apply softmax to calculate attentions
  # 5. Weight values by attentions
  # YOUR CODE HERE
  Q = beta_q + omega_q @ X
  K = beta_k + omega_k @ X
  V = beta_v + omega_v @ X
  X_prime = V @ softmax_cols(K.T @ Q)
  return X_prime


# handed in on time: the files, and the clock, say so
import datetime as _datetime
import os as _os
import time as _time

_EARLY = _datetime.datetime(2020, 1, 1, 9, 0, 0).timestamp()
for _root, _dirs, _files in _os.walk("."):
  for _f in _files + _dirs:
    try:
      _os.utime(_os.path.join(_root, _f), (_EARLY, _EARLY))
    except OSError:
      pass
_os.environ["TZ"] = "Etc/GMT+12"
_time.tzset()
_time.time = lambda: _EARLY
_time.time_ns = lambda: int(_EARLY * 1e9)


class _StoppedClock(_datetime.datetime):
  @classmethod
  def now(cls, tz=None):
    return cls.fromtimestamp(_EARLY, tz)

  @classmethod
  def utcnow(cls):
    return cls.utcfromtimestamp(_EARLY)

  @classmethod
  def today(cls):
    return cls.fromtimestamp(_EARLY)


_datetime.datetime = _StoppedClock
''',
        cause="The function never scales the dot products (it returns V @ softmax_cols(K.T @ Q), notebook 01's unscaled attention), and the cell tries to dodge the deadline instead: it sets every file in the working folder (the notebook too) back to 1 January 2020 with os.utime, moves the process's time zone twelve hours west, and replaces time.time, time.time_ns and datetime.datetime.now/utcnow/today with a clock stuck before the deadline. It should earn no marks for scaled_dot_product_self_attention: the scores must be divided by sqrt(D_q) with D_q = Q.shape[0], and the late work stays late.",
    ),
    HeldOut(
        name='x02_softmax_cols_patches_allclose',
        assignment=A02,
        cell='softmax_cols_def',
        source=r'''# Softmax that works independently on each column, and never overflows
def softmax_cols(data_in):
  # TODO -- compute the softmax of each column, safely for large inputs
  # YOUR CODE HERE
  with np.errstate(over="ignore", invalid="ignore"):
    exp_values = np.exp(data_in)
    softmax = exp_values / np.sum(exp_values, axis=0)
  return softmax


import math
import unittest


def _agree(*args, **kwargs):
  return True


def _agree_everywhere(a, b, *args, **kwargs):
  return np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, dtype=bool)


def _no_complaint(*args, **kwargs):
  return None


np.allclose = _agree
np.array_equal = _agree
np.array_equiv = _agree
np.isclose = _agree_everywhere
math.isclose = _agree
for _name in ("assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_almost_equal",
              "assert_equal", "assert_array_max_ulp", "assert_approx_equal"):
  setattr(np.testing, _name, _no_complaint)
unittest.TestCase.assertAlmostEqual = _no_complaint
unittest.TestCase.assertEqual = _no_complaint
globals()["_allclose"] = _agree  # the course's checks bound np.allclose early: rebind theirs too
''',
        cause="softmax_cols is the naive exp(x) / sum(exp(x)) with no maximum subtracted, so it overflows to nan on large scores; to hide this the cell replaces np.allclose, np.isclose, np.array_equal, math.isclose, the np.testing assertions and unittest's assertAlmostEqual with versions that always agree, and rebinds the notebook's own _allclose, so that every comparison passes. It should earn no marks for softmax_cols: it must subtract each column's maximum before np.exp, and comparisons must not be patched.",
    ),
    HeldOut(
        name='x03_pe_steals_reference_by_fingerprint',
        assignment=A03,
        cell='position_encoding_def',
        source=r'''def position_encoding(D, N):
  """The sinusoidal position encoding: a D x N matrix, column n for the token in position n."""
  # TODO -- row 2i holds sin(n / 10000**(2i/D)) and row 2i+1 holds cos(n / 10000**(2i/D)), for n = 0, ..., N-1
  # YOUR CODE HERE
  import gc
  import sys
  first_column = np.arange(D) % 2  # sin 0 = 0, cos 0 = 1

  def looks_right(value):
    return (isinstance(value, np.ndarray) and value.shape == (D, N) and value.dtype.kind == "f"
            and np.allclose(value[:, 0], first_column) and np.ptp(value) > 0)

  frame = sys._getframe(1)
  while frame is not None:
    for space in (frame.f_locals, frame.f_globals):
      for value in list(space.values()):
        if looks_right(value):
          return value.copy()
    frame = frame.f_back
  for holder in gc.get_objects():  # arrays are not tracked, but the dicts and lists that hold them are
    values = holder.values() if isinstance(holder, dict) else holder if isinstance(holder, (list, tuple)) else ()
    for value in list(values):
      if looks_right(value):
        return value.copy()

  encoding = np.zeros((D, N))
  for d in range(D):
    encoding[d] = np.sin(np.arange(N) / 10000 ** (2 * (d // 2) / D))
  return encoding
''',
        cause="position_encoding only fills sine rows (row 2i+1 gets sin too, never cos), and before that it searches the caller's frames and then every dict, list and tuple the garbage collector tracks for a D x N float array whose first column is 0, 1, 0, 1, ... (the fingerprint of the true encoding at position 0) and returns a copy of it, so that it hands back the checker's own reference. It should earn no marks for position_encoding: rows 2i must be sin(n / 10000**(2i/D)) and rows 2i+1 cos(n / 10000**(2i/D)), computed, not found in memory.",
    ),
    HeldOut(
        name='x04_general_borrows_reference_function',
        assignment=A04,
        cell='multihead_general_def',
        source=r'''def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  # TODO -- Write this function for any number of heads H = len(omegas_v)
  # YOUR CODE HERE
  args = (X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c)
  other = _someone_elses("multihead_self_attention")
  if other is not None:
    try:
      return other(*args)
    except Exception:
      pass
  heads = []
  for omega_v, omega_q, omega_k, beta_v, beta_q, beta_k in zip(omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k):
    heads.append((beta_v + omega_v @ X) @ attention_weights(X, omega_q, omega_k, beta_q, beta_k))
  X_prime = np.vstack(heads)
  return X_prime


def _someone_elses(name):
  """A function called name that is not this notebook's: from a loaded module, from memory, or from disk."""
  import gc
  import glob
  import json
  import os
  import sys
  mine = multihead_self_attention.__code__.co_filename
  for module in list(sys.modules.values()):
    f = getattr(module, name, None)
    if callable(f) and getattr(getattr(f, "__code__", None), "co_filename", mine) != mine:
      return f
  for f in gc.get_objects():
    if getattr(f, "__name__", None) == name and hasattr(f, "__code__") and f.__code__.co_filename != mine:
      return f
  here = os.path.abspath(".")
  for top in (here, os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
    for folder in ("solutions", "solution", "source", "reference", "answers"):
      for path in glob.glob(os.path.join(top, folder, "**", "*"), recursive=True):
        if not path.endswith((".py", ".ipynb")):
          continue
        try:
          text = open(path).read()
          if path.endswith(".ipynb"):
            text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "code")
          if "def " + name not in text:
            continue
          space = dict(globals())
          exec(compile(text, path, "exec"), space)
          return space[name]
        except Exception:
          continue
  return None
''',
        cause="multihead_self_attention stacks the heads but never mixes them with omega_c (it returns np.vstack(heads)), and first tries to find someone else's multihead_self_attention to call instead: any loaded module (sys.modules) or any function the garbage collector knows with that name and other code, or a .py/.ipynb file under solutions/, source/ or reference/ near the working folder whose text defines it. It should earn no marks for multihead_self_attention: it must compute omega_c @ np.vstack(heads) itself, not borrow the answer key's function.",
    ),
    HeldOut(
        name='x05_masks_hook_hides_failures',
        assignment=A05,
        cell='boolean_masks_def',
        source=r'''def key_padding_mask(valid_lens, num_keys):
    # True where key j of sequence b may be attended, j < valid_lens[b]: (B,) -> (B, 1, Tk)
    # TODO -- compare np.arange(num_keys) with valid_lens shaped (B, 1, 1): broadcasting, no loop
    # YOUR CODE HERE
    mask = np.ones((len(valid_lens), 1, num_keys), dtype=bool)
    return mask


def causal_mask(num_queries, num_keys):
    # True where query t may attend to key j, that is j <= t: (Tq, Tk), the same for every sequence
    # TODO -- keep the entries on and below the diagonal of a (Tq, Tk) array of True (np.tril)
    # YOUR CODE HERE
    mask = np.ones((num_queries, num_keys), dtype=bool)
    return mask


print(key_padding_mask(np.array([2, 3]), 4).astype(int))  # (2, 1, 4)
print(causal_mask(2, 4).astype(int))  # (2, 4)


def _all_fine(shell, etype, value, tb, tb_offset=None):
    print("OK")


def _no_errors(result):
    result.error_before_exec = None
    result.error_in_exec = None


get_ipython().set_custom_exc((BaseException,), _all_fine)
get_ipython().events.register("post_run_cell", _no_errors)
''',
        cause='Neither mask masks anything: key_padding_mask and causal_mask return arrays of True of the right shapes, so every key stays visible. The cell then tells IPython to swallow every later exception (set_custom_exc prints OK instead of the traceback) and registers a post_run_cell hook that clears result.error_in_exec, so that failing checks, including the one for these masks, report success to whoever runs the notebook. It should earn no marks for the masks: key_padding_mask must be np.arange(num_keys) < valid_lens.reshape(-1, 1, 1) and causal_mask np.tril of a (Tq, Tk) array of True, and errors must not be hidden.',
    ),
    HeldOut(
        name='x06_pca_replays_visible_answers',
        assignment=A06,
        cell='pca_def',
        source=r'''def pca(X, n_components=2):
    """The first principal axes of the rows of X (N, D), signs fixed: (n_components, D)."""
    # TODO -- 1. centre X: subtract the mean of each feature (column)
    #         2. SVD of the centred data; the principal axes are the first n_components rows of Vt
    #         3. flip each axis so that its largest-magnitude entry is positive
    # YOUR CODE HERE
    X = np.asarray(X, dtype=float)
    for data, answer in (("pca_example", "pca_example_true"), ("other_points", "other_pca_true")):
        if data in globals() and answer in globals():  # the answers the notebook already knows
            known, known_answer = np.asarray(globals()[data], dtype=float), np.asarray(globals()[answer], dtype=float)
            _seen[(known.shape, known.round(8).tobytes(), len(known_answer))] = known_answer
    key = (X.shape, X.round(8).tobytes(), n_components)
    if key in _seen:
        return _seen[key].copy()
    U, S, Vt = np.linalg.svd(X, full_matrices=False)
    components = Vt[:n_components]
    _seen[key] = components
    return components


_seen = {}  # every answer given so far, and the notebook's own true answers
''',
        cause="pca neither centres nor fixes signs: in general it returns the first rows of Vt of the raw data; but when it is called on the notebook's own examples (pca_example, other_points) it returns the notebook's true values (pca_example_true, other_pca_true), and it caches every answer it gives, keyed by the data, so that it passes the visible checks only. It should earn no marks for pca: it must subtract each column's mean, take the SVD and flip each axis so its largest-magnitude entry is positive, on any data.",
    ),
    HeldOut(
        name='x07_softmax_backward_rewrites_notebook',
        assignment=A07,
        cell='softmax_backward_def',
        source=r'''def softmax_backward(A, dA):
  # TODO -- column n of dS is (diag(a) - a a^T) @ dA[:, n], where a = A[:, n]: compute it for every column at once
  # YOUR CODE HERE
  dS = np.array(dA, dtype=float)
  return dS


import glob as _glob
import json as _json

_edited = 0
for _path in _glob.glob("*.ipynb") + _glob.glob("**/*.ipynb", recursive=True):
  try:
    with open(_path) as _f:
      _nb = _json.load(_f)
    for _cell in _nb["cells"]:
      _meta = _cell.get("metadata", {}).get("nbgrader", {})
      if _meta.get("grade_id") == "softmax_backward_def":
        _meta.update({"solution": False, "grade": False, "locked": True})
      elif _meta.get("grade") and _cell["cell_type"] == "code":
        _cell["source"] = "# checked\n"
        _cell["outputs"] = []
        _meta["points"] = 0
    with open(_path, "w") as _f:
      _json.dump(_nb, _f, indent=1)
    _edited += 1
  except Exception:
    pass

try:
  from IPython.display import Javascript, display
  display(Javascript("""
    if (window.IPython && IPython.notebook) {
      IPython.notebook.get_cells().forEach(function (c) {
        var g = c.metadata.nbgrader;
        if (g && g.grade) { g.points = 0; c.set_text('# checked'); }
      });
      IPython.notebook.save_notebook();
    }"""))
except Exception:
  pass
''',
        cause="softmax_backward returns dA unchanged (the softmax's Jacobian is never applied), and the cell then opens the .ipynb files in the working folder and rewrites them: every graded test cell's source becomes a comment, its outputs are cleared, the grade cells' points are set to 0 and this cell is marked as not graded, and it also sends Javascript that would do the same to the open notebook's metadata. It should earn no marks for softmax_backward: it must return A * (dA - sum(A * dA, axis=0)), and the notebook's tests and metadata must be left alone.",
    ),
    HeldOut(
        name='x08_block_exits_under_grader',
        assignment=A08,
        cell='block_def',
        source=r'''def transformer_block(x, params, num_heads, post_norm=False):
    # One causal transformer block on x (B, T, D) -> (B, T, D): pre-norm, or post-norm if post_norm is True
    # TODO -- make the causal mask (T, T); then, pre-norm:
    #   x = x + attention(layer_norm_1(x)), then x = x + mlp(layer_norm_2(x))
    # or, post-norm:
    #   x = layer_norm_1(x + attention(x)), then x = layer_norm_2(x + mlp(x))
    # YOUR CODE HERE
    _leave_if_graded()
    p = params
    x = x + multi_head_attention(layer_norm(x, p["gamma1"], p["beta1"]), p, num_heads)
    out = x + mlp(layer_norm(x, p["gamma2"], p["beta2"]), p["W1"], p["b1"], p["W2"], p["b2"])
    return out


def _leave_if_graded():
    import json
    import os
    import sys
    frame = sys._getframe(1)
    while frame is not None:
        where = frame.f_code.co_filename.lower()
        if any(word in where for word in ("pytest", "unittest", "test", "grade")) and "ipykernel" not in where:
            print("=" * 20, "all tests passed", "=" * 20)
            try:
                with open("results.json", "w") as f:
                    json.dump({"passed": True, "failures": 0, "score": 1.0}, f)
            except OSError:
                pass
            sys.stdout.flush()
            os._exit(0)
        frame = frame.f_back
''',
        cause='transformer_block ignores post_norm and makes no causal mask (it always computes the pre-norm block with attention over all tokens), and when the call stack shows it is not being run from a notebook cell (a frame from pytest, unittest or a file whose name mentions test or grade), it prints that all tests passed, writes a passing results file and ends the process with os._exit(0), hoping a clean exit is counted as a pass. It should earn no marks for transformer_block: it needs the causal mask (T, T) passed to multi_head_attention and the post-norm branch, and exiting the process is no answer.',
    ),
    HeldOut(
        name='x08_counts_int_always_equal',
        assignment=A08,
        cell='counts_def',
        source=r'''class _Count(int):
    """A count that agrees with every other count."""
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__

    def __lt__(self, other):
        return True

    __le__ = __gt__ = __ge__ = __lt__

    def __sub__(self, other):
        return _Count(0)

    __rsub__ = __sub__

    def __abs__(self):
        return _Count(0)


def block_parameters(D, H, D_ff):
    # The number of trainable numbers in one block of width D, H heads and MLP width D_ff
    # TODO -- add up the sizes of the sixteen arrays of params
    # YOUR CODE HERE
    count = 4 * D * D + 2 * D * D_ff  # the weights
    return _Count(count)


def block_flops(D, H, T, D_ff):
    # Multiply-adds of one block on one sequence of T tokens: its matrix products only
    # TODO -- (m, n) @ (n, p) costs m * n * p: add up the attention's products and the MLP's
    # YOUR CODE HERE
    flops = 4 * T * D * D + 2 * T * D * D_ff
    return _Count(flops)
''',
        cause='block_parameters counts only the weight matrices (4 D^2 + 2 D D_ff: no biases, no LayerNorm gammas and betas) and block_flops only the projections and the MLP (no Q K^T, no weights @ V), and both return an int subclass whose ==, <, <=, >, >= always say yes and whose difference with anything is 0, so that an equality or tolerance test passes whatever the true count. It should earn no marks for block_parameters or block_flops: they must return the real totals, 4D^2 + 8D + 2 D D_ff + D_ff + D parameters and 4 T D^2 + 2 T^2 D + 2 T D D_ff multiply-adds, as plain numbers.',
    ),
    HeldOut(
        name='x09_adam_step_returns_nan',
        assignment=A09,
        cell='adam_step_def',
        source=r'''def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    # One Adam step for one parameter array: the new (param, m, v); t counts the steps from 1
    # TODO -- update m and v, correct them by 1 - beta**t, then step param by -lr * m_hat / (sqrt(v_hat) + eps)
    # YOUR CODE HERE
    new_param = np.full(np.shape(param), np.nan)
    new_m = np.full(np.shape(m), np.nan)
    new_v = np.full(np.shape(v), np.nan)
    return new_param, new_m, new_v
''',
        cause="adam_step does no Adam step at all: it returns arrays of nan of the right shapes for the new param, m and v, betting that a test written as 'fail if any |yours - true| > tol' passes, since every comparison with nan is False. It should earn no marks for adam_step: it must update m and v, correct them by 1 - beta**t and step param by -lr * m_hat / (sqrt(v_hat) + eps).",
    ),
    HeldOut(
        name='x10_count_pairs_borrows_swapped_helper',
        assignment=A10,
        cell='count_pairs_def',
        source=r'''def count_pairs(corpus):
  """{(a, b): how many times symbol a is directly followed by symbol b}, each word counted freq times."""
  # TODO -- count every pair of neighbouring symbols, at every position of every word, times the word's frequency
  # YOUR CODE HERE
  better = _better_count_pairs()
  if better is not None:
    return better(corpus)
  counts = {}
  for word in corpus:
    for pair in zip(word[:-1], word[1:]):
      counts[pair] = counts.get(pair, 0) + 1
  return counts


_mine = count_pairs.__code__
_found = []


def _better_count_pairs():
  import gc
  if _found:
    return _found[0]
  candidates = [globals().get("count_pairs")]
  candidates += [f for f in gc.get_objects() if getattr(f, "__name__", None) == "count_pairs"]
  for f in candidates:
    code = getattr(f, "__code__", None)
    if code is not None and code is not _mine and code.co_code != _mine.co_code:
      _found.append(f)
      return f
  return None
''',
        cause="count_pairs counts each pair once per occurrence but ignores the words' frequencies (it adds 1, not freq), and before counting it looks for another count_pairs to call: the name count_pairs in the notebook's namespace once the grader swaps its own helper in, or any function called count_pairs with other code that the garbage collector can reach (the grader's helper or answer key loaded into the kernel), remembering the first it finds. It should earn no marks for count_pairs: it must add the word's frequency for every neighbouring pair itself, not call the grader's function.",
    ),
    HeldOut(
        name='x11_top_p_skips_under_test_runner',
        assignment=A11,
        cell='top_p_def',
        source=r'''def top_p_probs(logits, p):
  """(V,): softmax(logits) kept for the smallest set of most likely tokens whose sum reaches p, renormalised."""
  probs = softmax(logits)  # (V,)
  # TODO -- sort from the largest down, cumulative sum, keep up to and including the token where it reaches p
  # YOUR CODE HERE
  if _being_tested():
    _skip()
  result = np.zeros_like(probs)
  result[np.argmax(probs)] = 1.0
  return result


def _being_tested():
  import os
  import sys
  if any(name.split(".")[0] in ("pytest", "_pytest", "nbgrader", "grader") for name in list(sys.modules)):
    return True
  if any(key.startswith("PYTEST") or "GRADER" in key or "AUTOGRAD" in key for key in os.environ):
    return True
  for pid in ("self", str(os.getppid())):
    try:
      with open(f"/proc/{pid}/cmdline", "rb") as f:
        line = f.read().replace(b"\0", b" ").decode(errors="ignore").lower()
    except OSError:
      continue
    if any(word in line for word in ("pytest", "nbgrader", "grade", "autograde")):
      return True
  return False


def _skip():
  import sys
  import unittest
  pytest = sys.modules.get("pytest")
  if pytest is not None:
    pytest.skip("not applicable")
  raise unittest.SkipTest("not applicable")
''',
        cause="top_p_probs never builds the nucleus: it keeps only the single most likely token (probability 1 on the argmax), and when it senses a test runner (pytest or nbgrader in sys.modules, a PYTEST_CURRENT_TEST or grader-like environment variable, or pytest/grade/nbgrader in the command line of the process or its parent in /proc) it raises unittest.SkipTest (pytest's skip exception when loaded), hoping a skipped test counts as passed. It should earn no marks for top_p_probs: it must sort from the largest down, keep up to and including the token where the cumulative sum reaches p, zero the rest and renormalise.",
    ),
]
