"""Sample students of notebook 07 (backpropagation through attention): the answer key, right answers written
other ways, and one fixture for each named mistake."""
from tests.students import MANUAL, Student

A07 = "07_attention_backprop"
FULL_07 = {"test_softmax_backward": 2, "test_attention_backward": 4, "test_gradient_check": 2,
           "why_saturation": MANUAL}


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


STUDENTS = {
    "correct": Student(A07, FULL_07),
    "untouched": Student(A07, {"test_softmax_backward": 0, "test_attention_backward": 0, "test_gradient_check": 0,
                               "why_saturation": 0}, untouched=True),
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
}
