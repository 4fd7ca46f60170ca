"""Sample students of notebook 02 (scaled dot-product attention)."""
from tests.students import MANUAL, Student

A02 = "02_scaled_attention"
FULL_02 = {"test_softmax_cols": 2, "test_scaled_attention": 3, "why_sqrt": MANUAL}


def _02(**changed):
    return dict(FULL_02, **changed)


# Seed 003's softmax_cols (the book's, with the student's logging) and its scaled attention, as written.
SEED_003_SOFTMAX_COLS = """\
# Define softmax operation that works independently on each column
def softmax_cols(data_in):
  # Exponentiate all of the values
  exp_values = np.exp(data_in) ;
  # log out exp_values
  print("exp_values")
  print(exp_values)
  # Sum over columns
  denom = np.sum(exp_values, axis = 0);
  # log out denom
  print("denom")
  print(denom)
  # Replicate denominator to N rows
  denom = np.matmul(np.ones((data_in.shape[0],1)), denom[np.newaxis,:])
  # log out replicated denom
  print("replicated denom")
  print(denom)
  # Compute softmax
  softmax = exp_values / denom
  # return the answer
  return softmax"""

SEED_003_SCALED = """\
# Now let's compute self attention in matrix form
def scaled_dot_product_self_attention(X,omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):

  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Scale the dot products as in equation 12.9
  # 4. Apply softmax to calculate attentions
  # 5. Weight values by attentions
  # Replace this line
  X_prime = np.zeros_like(X);
  XQ = omega_q @ X + beta_q
  XK = omega_k @ X + beta_k
  XV = omega_v @ X + beta_v
  dots = np.matmul(XK.T,XQ)
  attentions = softmax_cols(dots / np.sqrt(D))
  # log out the attentions
  print("attentions")
  print(attentions)

  X_prime =  XV @ attentions

  return X_prime"""

# Right, written other ways: a log-sum-exp softmax (as scipy computes it), and a float32 loop over queries.
LOGSUMEXP = """\
def softmax_cols(data_in):
  top = np.max(data_in, axis=0, keepdims=True)
  log_sum = top + np.log(np.sum(np.exp(data_in - top), axis=0, keepdims=True))
  return np.exp(data_in - log_sum)"""

FLOAT32_LOOP = """\
def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  tokens = X.shape[1]
  out = np.zeros((omega_v.shape[0], tokens), dtype=np.float32)
  for n in range(tokens):
    q = omega_q @ X[:, n:n+1] + beta_q
    scores = np.array([((omega_k @ X[:, m:m+1] + beta_k).T @ q).item() for m in range(tokens)])
    w = softmax_cols(scores[:, None] / np.sqrt(q.shape[0]))
    out[:, n:n+1] = sum(w[m, 0] * (omega_v @ X[:, m:m+1] + beta_v) for m in range(tokens))
  return out"""

NAIVE = [("np.exp(data_in - np.max(data_in, axis=0, keepdims=True))", "np.exp(data_in)")]
SCALE = "softmax_cols(K.T @ Q / np.sqrt(D_q))"

STUDENTS = {
    "correct": Student(A02, FULL_02),
    "correct_other_ways": Student(A02, FULL_02,
                                  cells={"softmax_cols_def": LOGSUMEXP, "scaled_attention_def": FLOAT32_LOOP}),
    "untouched": Student(A02, {"test_softmax_cols": 0, "test_scaled_attention": 0, "why_sqrt": 0}, untouched=True),
    # Right on the book's case only: the fresh inputs have other sizes, where the global D=4 is wrong,
    # and being right where the notebook prints the answer earns nothing.
    "seed003": Student(
        A02, _02(test_softmax_cols=0, test_scaled_attention=0),
        cells={"softmax_cols_def": SEED_003_SOFTMAX_COLS, "scaled_attention_def": SEED_003_SCALED},
        diagnoses={"test_softmax_cols": "softmax overflows", "test_scaled_attention": "the notebook's global D"}),
    "naive_softmax": Student(
        A02, _02(test_softmax_cols=0), edits={"softmax_cols_def": NAIVE},
        diagnoses={"test_softmax_cols": "softmax overflows"}),
    "shift_numerator_only": Student(
        A02, _02(test_softmax_cols=0),
        edits={"softmax_cols_def": [("softmax = exp_values / np.sum(exp_values, axis=0, keepdims=True)",
                                     "softmax = exp_values / np.sum(np.exp(data_in), axis=0, keepdims=True)")]},
        diagnoses={"test_softmax_cols": "maximum subtracted in the numerator only"}),
    "global_max": Student(
        A02, _02(test_softmax_cols=0),
        edits={"softmax_cols_def": [("np.max(data_in, axis=0, keepdims=True)", "np.max(data_in)")]},
        diagnoses={"test_softmax_cols": "one maximum for the whole matrix"}),
    "scaled_after_softmax": Student(
        A02, _02(test_scaled_attention=0),
        edits={"scaled_attention_def": [(SCALE, "softmax_cols(K.T @ Q) / np.sqrt(D_q)")]},
        diagnoses={"test_scaled_attention": "scaled after the softmax"}),
    "divided_by_tokens": Student(
        A02, _02(test_scaled_attention=0),
        edits={"scaled_attention_def": [(SCALE, "softmax_cols(K.T @ Q / np.sqrt(X.shape[1]))")]},
        diagnoses={"test_scaled_attention": "divided by sqrt(N), the number of tokens"}),
    "no_scaling": Student(
        A02, _02(test_scaled_attention=0), edits={"scaled_attention_def": [(SCALE, "softmax_cols(K.T @ Q)")]},
        diagnoses={"test_scaled_attention": "no scaling"}),
    "divided_by_d": Student(
        A02, _02(test_scaled_attention=0), edits={"scaled_attention_def": [(SCALE, "softmax_cols(K.T @ Q / D_q)")]},
        diagnoses={"test_scaled_attention": "divided by D, not sqrt(D)"}),
}

# The maximum subtracted from the caller's scores in place (data_in -= ...): right values, and the
# scaled attention that calls it is right too; the verdict and the check both catch the change.
STUDENTS["softmax_cols_in_place"] = Student(
    A02, _02(test_softmax_cols=round(2 * 2 / 3, 2)),
    edits={"softmax_cols_def": [("exp_values = np.exp(data_in - np.max(data_in, axis=0, keepdims=True))",
                                 "data_in -= np.max(data_in, axis=0, keepdims=True)\n  exp_values = np.exp(data_in)")]},
    diagnoses={"test_softmax_cols": "changed its argument"})
