"""Sample students of notebook 01 (self-attention): the answer key, the book's own student, and one mistake each."""
from tests.students import MANUAL, Student

A01 = "01_self_attention"
FULL_01 = {"test_qkv_loop": 2, "test_softmax": 1, "test_attention_loop": 2, "test_self_attention": 3,
           "why_extreme": MANUAL}


def _01(**changed):
    return dict(FULL_01, **changed)


# Seed 003 (book notebook 12.1, filled in by a student): its cells exactly as written.
SEED_003_CELLS = {
    "qkv_loop": """\
# Make three lists to store queries, keys, and values
all_queries = []
all_keys = []
all_values = []
# For every input
for x in all_x:
  # TODO -- compute the keys, queries and values.
  # Replace these three lines
  query = omega_q @ x + beta_q
  key = omega_k @ x + beta_k
  value = omega_v @ x + beta_v


  all_queries.append(query)
  all_keys.append(key)
  all_values.append(value)""",
    "softmax_def": """\
def softmax(items_in):

  # TODO Compute the elements of items_out
  # Replace this line
  items_out = np.exp(items_in) / np.sum(np.exp(items_in))

  return items_out ;""",
    "attention_loop": """\
# Create emptymlist for output
all_x_prime = []

# For each output
for n in range(N):
  # Create list for dot products of query N with all keys
  all_km_qn = []
  # Compute the dot products
  for key in all_keys:
    # TODO -- compute the appropriate dot product
    # Replace this line
    dot_product = key.T @ all_queries[n]

    # Store dot product
    all_km_qn.append(dot_product)

  # Compute dot product
  attention = softmax(all_km_qn)
  # Print result (should be positive sum to one)
  print("Attentions for output ", n)
  print(attention)

  # TODO: Compute a weighted sum of all of the values according to the attention
  # (equation 12.3)
  # Replace this line
  x_prime = np.zeros((D,1))
  for i in range(N):
    x_prime += attention[i] * all_values[i]

  all_x_prime.append(x_prime)""",
    "self_attention_def": """\
 # Now let's compute self attention in matrix form
def self_attention(X,omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):

  # TODO -- Write this function
  # 1. Compute queries, keys, and values
  # 2. Compute dot products
  # 3. Apply softmax to calculate attentions
  # 4. Weight values by attentions
  # Replace this line
  XQ = omega_q @ X + beta_q
  XK = omega_k @ X + beta_k
  XV = omega_v @ X + beta_v
  dots = np.matmul(XK.T,XQ)
  attentions = softmax_cols(dots)
  X_prime =  XV @ attentions
  print(attentions)



  return X_prime""",
}

# The book's printed X', returned whatever the input.
BOOK_CONSTANT = """\
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  return np.array([[ 0.94744244,  1.64201168,  1.61949281],
                   [-0.24348429, -0.08470004, -0.06641533],
                   [-0.91310441,  4.02764044,  3.96863308],
                   [-0.44522983,  2.18690791,  2.15858316]])"""

# The book's printed answer when given the book's X, and wrong code for anything else.
BOOK_LOOKUP = """\
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  if X.shape == (4, 3):
    return np.array([[ 0.94744244,  1.64201168,  1.61949281],
                     [-0.24348429, -0.08470004, -0.06641533],
                     [-0.91310441,  4.02764044,  3.96863308],
                     [-0.44522983,  2.18690791,  2.15858316]])
  return omega_v @ X + beta_v"""

# Wrong, and patches every checking helper it can reach so that the visible check says OK.
PATCHES_ALLCLOSE = """\
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  return omega_v @ X

np.allclose = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.testing.assert_array_almost_equal = lambda *a, **k: None"""

# Right, written another way: einsum, a stable softmax of its own, float32.
EINSUM_FLOAT32 = """\
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
  X = X.astype(np.float32)
  Q = np.einsum("ij,jn->in", omega_q, X) + beta_q
  K = np.einsum("ij,jn->in", omega_k, X) + beta_k
  V = np.einsum("ij,jn->in", omega_v, X) + beta_v
  scores = np.einsum("dm,dn->mn", K, Q)
  weights = np.exp(scores - scores.max(axis=0))
  weights = weights / weights.sum(axis=0)
  return (V @ weights).astype(np.float32)"""

STUDENTS = {
    "correct": Student(A01, FULL_01),
    "correct_other_ways": Student(A01, FULL_01, cells={"self_attention_def": EINSUM_FLOAT32}),
    "untouched": Student(A01, {"test_qkv_loop": 0, "test_softmax": 0, "test_attention_loop": 0,
                               "test_self_attention": 0, "why_extreme": 0}, untouched=True),
    "seed003": Student(A01, FULL_01, cells=SEED_003_CELLS),
    "softmax_rows": Student(
        A01, _01(test_self_attention=0),
        edits={"self_attention_def": [("softmax_cols(K.T @ Q)",
                                       "np.exp(K.T @ Q) / np.sum(np.exp(K.T @ Q), axis=1, keepdims=True)")]},
        diagnoses={"test_self_attention": "softmax over rows"}),
    "no_bias": Student(
        A01, _01(test_qkv_loop=0, test_self_attention=0),
        edits={"qkv_loop": [(" + beta_q", ""), (" + beta_k", ""), (" + beta_v", "")],
               "self_attention_def": [(" + beta_q", ""), (" + beta_k", ""), (" + beta_v", "")]},
        diagnoses={"test_qkv_loop": "bias left out", "test_self_attention": "bias left out"}),
    "qt_k": Student(
        A01, _01(test_self_attention=0),
        edits={"self_attention_def": [("softmax_cols(K.T @ Q)", "softmax_cols(Q.T @ K)")]},
        diagnoses={"test_self_attention": "Q.T @ K instead of K.T @ Q"}),
    "patches_allclose": Student(
        A01, _01(test_self_attention=0), cells={"self_attention_def": PATCHES_ALLCLOSE},
        # (parts are marked with numpy as it ships: a notebook that replaced np.allclose is told so)
        diagnoses={"test_self_attention": "your code replaced numpy's own np.allclose"}),
    "book_constant": Student(
        A01, _01(test_self_attention=0), cells={"self_attention_def": BOOK_CONSTANT},
        diagnoses={"test_self_attention": "returns the answer it gives on the book's case, unchanged"}),
    "book_lookup": Student(
        A01, _01(test_self_attention=0), cells={"self_attention_def": BOOK_LOOKUP},
        diagnoses={"test_self_attention": "right on the book's case only"}),
    # Two roles swapped, in two independent parts: the queries made with the keys' weights (and the other
    # way round) in the loop, the keys and values in the matrix form. The attention loop is right.
    "roles_swapped": Student(
        A01, _01(test_qkv_loop=0, test_self_attention=0),
        edits={"qkv_loop": [("query = omega_q @ x + beta_q", "query = omega_k @ x + beta_k"),
                            ("key = omega_k @ x + beta_k", "key = omega_q @ x + beta_q")],
               "self_attention_def": [("K = omega_k @ X + beta_k", "K = omega_v @ X + beta_v"),
                                      ("V = omega_v @ X + beta_v", "V = omega_k @ X + beta_k")]},
        diagnoses={"test_qkv_loop": "query and key weights swapped",
                   "test_self_attention": "keys and values swapped"}),
    # The loop sums the keys; the matrix form returns X' transposed (one row per token).
    "keys_summed_transposed": Student(
        A01, _01(test_attention_loop=0, test_self_attention=0),
        edits={"attention_loop": [("attention[m] * all_values[m]", "attention[m] * all_keys[m]")],
               "self_attention_def": [("X_prime = V @ attention", "X_prime = (V @ attention).T")]},
        diagnoses={"test_attention_loop": "weighted sum of the keys", "test_self_attention": "output transposed"}),
    "weights_returned": Student(
        A01, _01(test_self_attention=0),
        edits={"self_attention_def": [("X_prime = V @ attention", "X_prime = attention")]},
        diagnoses={"test_self_attention": "attention weights returned instead of the outputs"}),
    "weights_on_the_left": Student(
        A01, _01(test_self_attention=0),
        edits={"self_attention_def": [("X_prime = V @ attention", "X_prime = attention @ V.T")]},
        diagnoses={"test_self_attention": "attention weights on the wrong side"}),
    # Forgets to divide by the sum. The loop calls this softmax, and is marked with the course's softmax in
    # its place, so the mistake costs marks once, in its own part.
    "softmax_unnormalised": Student(
        A01, _01(test_softmax=0),
        edits={"softmax_def": [("items_out = np.exp(items_in) / np.sum(np.exp(items_in))", "items_out = np.exp(items_in)")]},
        diagnoses={"test_softmax": "softmax not normalised"}),
}

# Active content in a written answer and in outputs: the feedback made from it must be inert.
ACTIVE = "XSS" + "-MARKER"
STUDENTS["active_content"] = Student(
    A01, dict(FULL_01),
    edits={"softmax_def": [("  return items_out", "  return items_out\n\n"
                            "from IPython.display import HTML, Javascript, display\n"
                            f"display(Javascript(\"fetch('/formgrader/api/grade/1', {{method: 'PUT'}}); // {ACTIVE}\"))\n"
                            f"display(HTML('<img src=x onerror=\"alert(1)\"><script>alert(\\'{ACTIVE}\\')</script>'))")]},
    written=f"<script>alert('{ACTIVE}')</script> <img src=x onerror=\"alert('{ACTIVE}')\"> The dot products are large.")
