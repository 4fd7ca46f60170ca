"""Sample students of notebook 07 (backpropagation through attention): the answer key, right answers written
other ways, and one fixture for each named mistake."""
from tests.students import MANUAL, Student

A07 = "07_attention_backprop"
FULL_07 = {"test_softmax_backward": 2, "test_attention_backward": 4, "test_gradient_check": 2,
           "test_mha_backward": 3, "why_saturation": MANUAL}


def _07(**changed):
    return dict(FULL_07, **changed)


# Right, another way: each column's Jacobian formed with np.diag and multiplied, one column at a time.
JACOBIAN_PER_COLUMN = """\
def softmax_backward(A, dA):
  dS = np.zeros_like(dA)
  for n in range(A.shape[1]):
    a = A[:, n]
    jacobian = np.diag(a) - np.outer(a, a)  # (N, N)
    dS[:, n] = jacobian @ dA[:, n]
  return dS"""

# Right, another way: the gradient check written with einsum-free loops over a flat copy, eps read from the argument.
FLAT_GRADIENT_CHECK = """\
def gradient_check(f, X, dX, eps=1e-6):
  flat = X.astype(float).ravel()
  numeric = np.zeros_like(flat)
  for i in range(flat.size):
    old = flat[i]
    flat[i] = old + eps
    up = f(flat.reshape(X.shape))
    flat[i] = old - eps
    down = f(flat.reshape(X.shape))
    flat[i] = old
    numeric[i] = (up - down) / (2 * eps)
  numeric = numeric.reshape(X.shape)
  return np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)"""

SUMS = "  column_sums = np.sum(A * dA, axis=0, keepdims=True)  # (1, M): a^T g for each column"
DQ = "  dQ = c * K @ dS  # (D_q, N): query n is in column n of S"
DK = "  dK = c * Q @ dS.T  # (D_q, N): key m is in row m of S"
DV = "  dV = dX_prime @ A.T  # (D_v, N)"
CENTRAL = "    numeric[index] = (f(X_plus) - f(X_minus)) / (2 * eps)"
RELATIVE = "  relative_error = np.max(np.abs(dX - numeric)) / max(np.max(np.abs(dX) + np.abs(numeric)), 1e-12)"
BIASES = ('''               "d_beta_v": dV.sum(axis=1, keepdims=True),  # (D, 1): summed over the tokens
               "d_beta_q": dQ.sum(axis=1, keepdims=True),
               "d_beta_k": dK.sum(axis=1, keepdims=True)}''')


def _backward(*pairs):
    return {"attention_backward_def": list(pairs)}


# Section 4, mha_backward in rows: lines of the answer key that the fixtures change.
MHA_CACHE = '  Q, K, V, A, heads = cache["Q"], cache["K"], cache["V"], cache["A"], cache["heads"]'
MHA_DS = ("  dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)) / np.sqrt(d)  # (B, H, T, T): along the keys, "
          "then 1/sqrt(d)")
MHA_DX = '    dx = dx + d_proj @ params["W_" + name].T  # x made all three: their gradients add'
MHA_BIAS = '    grads["b_" + name] = d_proj.sum(axis=(0, 1))  # (D,)'
MHA_BIAS_O = '           "b_o": dout.sum(axis=(0, 1))}  # (D,)'


def _mha(name, *pairs):
    """A student whose mha_backward makes one mistake, named in its verdict."""
    return Student(A07, _07(test_mha_backward=0), edits={"mha_backward_def": list(pairs)},
                   diagnoses={"test_mha_backward": name})


# Right, another way: a loop over the sequences and the heads, each head's slice of the features, the forward
# pass written out (the mask by -inf), each row's softmax Jacobian formed, the weights' gradients as one product
# of the tokens flattened.
LOOP_OVER_HEADS = """\
def mha_backward(x, params, num_heads, dout):
  B, T, D = x.shape
  d = D // num_heads
  q = x @ params["W_q"] + params["b_q"]  # (B, T, D)
  k = x @ params["W_k"] + params["b_k"]
  v = x @ params["W_v"] + params["b_v"]
  mask = np.tril(np.ones((T, T), dtype=bool))
  g_heads = dout @ params["W_o"].T  # (B, T, D)
  heads, dq, dk, dv = np.zeros_like(q), np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
  for b in range(B):
    for h in range(num_heads):
      cols = slice(h * d, (h + 1) * d)
      s = np.where(mask, q[b, :, cols] @ k[b, :, cols].T / np.sqrt(d), -np.inf)  # (T, T)
      a = np.exp(s - s.max(axis=1, keepdims=True))
      a = a / a.sum(axis=1, keepdims=True)
      heads[b, :, cols] = a @ v[b, :, cols]
      g = g_heads[b, :, cols]  # (T, d)
      dv[b, :, cols] = a.T @ g
      da = g @ v[b, :, cols].T  # (T, T)
      ds = np.array([(np.diag(a[t]) - np.outer(a[t], a[t])) @ da[t] for t in range(T)]) / np.sqrt(d)
      dq[b, :, cols] = ds @ k[b, :, cols]
      dk[b, :, cols] = ds.T @ q[b, :, cols]
  flat = lambda z: z.reshape(B * T, D)
  grads = {"W_o": flat(heads).T @ flat(dout), "b_o": flat(dout).sum(axis=0)}
  dx = np.zeros((B, T, D))
  for name, g in (("q", dq), ("k", dk), ("v", dv)):
    grads["W_" + name] = flat(x).T @ flat(g)
    grads["b_" + name] = flat(g).sum(axis=0)
    dx += g @ params["W_" + name].T
  return dx, grads"""


# No backward pass at all: each gradient by central differences of the notebook's own forward functions
# (softmax_cols, attention_loss, mha_forward), the step chosen where their error is smallest (1e-5). Right to
# 1e-11 or so, which the visible checks accept, but not the backward pass the notebook teaches: no marks.
FINITE_DIFFERENCES = {
    "softmax_backward_def": """\
def _central(f, X, h=1e-5):
  X = np.asarray(X, dtype=float)
  grad = np.zeros_like(X)
  for i in np.ndindex(X.shape):
    plus, minus = X.copy(), X.copy()
    plus[i] += h
    minus[i] -= h
    grad[i] = (f(plus) - f(minus)) / (2 * h)
  return grad

def softmax_backward(A, dA):
  # A = softmax_cols(S) for S = log(A), up to a constant per column, which the softmax ignores
  return _central(lambda S: np.sum(softmax_cols(S) * dA), np.log(A))""",
    "attention_backward_def": """\
def attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime):
  args = dict(X=X, omega_v=omega_v, omega_q=omega_q, omega_k=omega_k, beta_v=beta_v, beta_q=beta_q, beta_k=beta_k)
  grads = {}
  for name in args:
    loss = lambda value, name=name: attention_loss(**dict(args, **{name: value}), dX_prime=dX_prime)
    grads["dX" if name == "X" else "d_" + name] = _central(loss, args[name])
  return grads""",
    "mha_backward_def": """\
def mha_backward(x, params, num_heads, dout):
  loss = lambda x_, p_: np.sum(mha_forward(x_, p_, num_heads) * dout)
  dx = _central(lambda x_: loss(x_, params), x)
  grads = {name: _central(lambda w, name=name: loss(x, dict(params, **{name: w})), params[name]) for name in params}
  return dx, grads""",
}

STUDENTS = {
    "correct": Student(A07, FULL_07),
    "finite_differences": Student(
        A07, _07(test_softmax_backward=0, test_attention_backward=0, test_mha_backward=0), cells=FINITE_DIFFERENCES,
        # (attention_backward's and mha_backward's layers of realistic size stop them at their time budget: one
        # forward pass an entry)
        diagnoses={"test_softmax_backward": "which finite differences (about 1e-11 at best, at any step)",
                   "test_attention_backward": "as derivatives taken numerically need, cannot finish",
                   "test_mha_backward": "as derivatives taken numerically need, cannot finish"}),
    "untouched": Student(A07, {"test_softmax_backward": 0, "test_attention_backward": 0, "test_gradient_check": 0,
                               "test_mha_backward": 0, "why_saturation": 0}, untouched=True,
                         diagnoses={"test_mha_backward": "not attempted"}),
    "mha_loop_over_heads": Student(A07, FULL_07, cells={"mha_backward_def": LOOP_OVER_HEADS}),
    "jacobian_per_column": Student(A07, FULL_07, cells={"softmax_backward_def": JACOBIAN_PER_COLUMN,
                                                        "gradient_check_def": FLAT_GRADIENT_CHECK}),
    # Without the -a a^T term: the softmax part earns nothing, and attention_backward, which calls it, is
    # marked with the course's softmax_backward: full marks there.
    "softmax_backward_no_outer": Student(
        A07, _07(test_softmax_backward=0),
        edits={"softmax_backward_def": [("  dS = A * (dA - column_sums)  # (N, M)", "  dS = A * dA  # (N, M)")]},
        diagnoses={"test_softmax_backward": "softmax backward without the -a a^T term",
                   "test_attention_backward": "right once your softmax_backward is fixed"}),
    "softmax_backward_rows": Student(
        A07, _07(test_softmax_backward=0),
        edits={"softmax_backward_def": [(SUMS, SUMS.replace("axis=0", "axis=1"))]},
        diagnoses={"test_softmax_backward": "softmax backward summed over rows"}),
    "no_scale_in_backward": Student(
        A07, _07(test_attention_backward=0),
        edits=_backward((DQ, DQ.replace("c * K", "K")), (DK, DK.replace("c * Q", "Q"))),
        diagnoses={"test_attention_backward": "scale forgotten in the backward pass"}),
    "queries_keys_swapped": Student(
        A07, _07(test_attention_backward=0),
        edits=_backward((DQ, "  dQ = c * Q @ dS.T"), (DK, "  dK = c * K @ dS")),
        diagnoses={"test_attention_backward": "gradients of the queries and keys swapped"}),
    "bias_not_summed": Student(
        A07, _07(test_attention_backward=0),
        edits=_backward((BIASES, BIASES.replace(".sum(axis=1, keepdims=True)", ""))),
        diagnoses={"test_attention_backward": "bias gradients not summed over the tokens"}),
    "bias_summed_over_features": Student(
        A07, _07(test_attention_backward=0),
        edits=_backward((BIASES, BIASES.replace("axis=1", "axis=0"))),
        diagnoses={"test_attention_backward": "bias gradients summed over the features"}),
    "dV_not_transposed": Student(
        A07, _07(test_attention_backward=0),
        edits=_backward((DV, DV.replace("A.T", "A"))),
        diagnoses={"test_attention_backward": "attention matrix not transposed in dV"}),
    "one_sided_differences": Student(
        A07, _07(test_gradient_check=0),
        edits={"gradient_check_def": [(CENTRAL, "    numeric[index] = (f(X_plus) - f(X)) / eps")]},
        diagnoses={"test_gradient_check": "one-sided differences"}),
    "absolute_error": Student(
        A07, _07(test_gradient_check=0),
        edits={"gradient_check_def": [(RELATIVE, "  relative_error = np.max(np.abs(dX - numeric))")]},
        diagnoses={"test_gradient_check": "absolute error instead of the relative one"}),
    "mha_softmax_over_queries": _mha("softmax backward over the queries",
                                     (MHA_DS, MHA_DS.replace("axis=-1", "axis=-2"))),
    "mha_no_scale": _mha("1/sqrt(d) left out of the backward pass", (MHA_DS, MHA_DS.replace(" / np.sqrt(d)", ""))),
    "mha_dx_queries_only": _mha("dx from the queries only",
                                (MHA_DX, '    if name == "q":\n'
                                         '      dx = dx + d_proj @ params["W_q"].T  # the queries\' path only')),
    "mha_scale_sqrt_D": _mha("1/sqrt(D) in place of 1/sqrt(d)",
                             (MHA_DS, MHA_DS.replace("np.sqrt(d)", "np.sqrt(x.shape[-1])"))),
    "mha_bias_not_summed_over_batch": _mha("bias gradients not summed over the batch",
                                           (MHA_BIAS, MHA_BIAS.replace("axis=(0, 1)", "axis=1")),
                                           (MHA_BIAS_O, MHA_BIAS_O.replace("axis=(0, 1)", "axis=1"))),
    "mha_mask_left_out": _mha("causal mask left out of the backward pass",
                              (MHA_CACHE, '  Q, K, V = cache["Q"], cache["K"], cache["V"]\n'
                                          '  A = softmax_rows(Q @ K.transpose(0, 1, 3, 2) / np.sqrt(Q.shape[-1]))  '
                                          '# the weights again\n'
                                          '  heads = merge_heads(A @ V)  # (B, T, D)')),
}
