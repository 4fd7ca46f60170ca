"""Sample students of notebook 04 (multi-head self-attention)."""
from tests.students import MANUAL, Student

A04 = "04_multihead_attention"
FULL_04 = {"test_attention_weights": 2, "test_multihead": 3, "test_multihead_general": 3, "why_heads": MANUAL}


def _04(**changed):
    return dict(FULL_04, **changed)


# Seed 000's first attempt: the row convention (X @ omega) on the book's column-shaped weights.
SEED_000_FIRST = '''\
 # Now let's compute self attention in matrix form
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                     omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """
    Compute multihead scaled self-attention mechanism with 2 heads.

    Args:
        X: Input matrix of shape (sequence_length, embedding_dim)
        omega_v1, omega_q1, omega_k1: Weight matrices for head 1 (projections)
        beta_v1, beta_q1, beta_k1: Bias terms for head 1
        omega_v2, omega_q2, omega_k2: Weight matrices for head 2 (projections)
        beta_v2, beta_q2, beta_k2: Bias terms for head 2
        omega_c: Concatenation weight matrix combining both heads

    Returns:
        X_prime: Output of multihead attention
    """

    d_k = omega_k1.shape[1]

    print("Computing Head 1...")
    V1 = X @ omega_v1 + beta_v1
    Q1 = X @ omega_q1 + beta_q1
    K1 = X @ omega_k1 + beta_k1

    dot_products_1 = Q1 @ K1.T

    scaled_dot_products_1 = dot_products_1 / np.sqrt(d_k)

    attention_weights_1 = softmax(scaled_dot_products_1)

    head1_output = attention_weights_1 @ V1

    print("Computing Head 2...")
    V2 = X @ omega_v2 + beta_v2
    Q2 = X @ omega_q2 + beta_q2
    K2 = X @ omega_k2 + beta_k2

    dot_products_2 = Q2 @ K2.T

    scaled_dot_products_2 = dot_products_2 / np.sqrt(d_k)

    attention_weights_2 = softmax(scaled_dot_products_2)

    head2_output = attention_weights_2 @ V2

    print("Concatenating and combining heads...")
    concatenated_output = np.concatenate([head1_output, head2_output], axis=1)

    X_prime = concatenated_output @ omega_c

    return X_prime'''

# Seed 000's final answer: the whole cell, with its own data, stable softmax_cols and column convention.
SEED_000_FINAL = '''\
import numpy as np

# Set seed so we get the same random numbers
np.random.seed(3)

# Number of inputs and dimensions
N = 6
D = 8

# Inputs matrix (each column is a token/vector)
X = np.random.normal(size=(D, N))
print(X)

# Number of heads
H = 2
# Per-head Q/K/V dimension
H_D = int(D / H)

# Set seed so we get the same random numbers for parameters
np.random.seed(0)

# Head 1 parameters
omega_q1 = np.random.normal(size=(H_D, D))
omega_k1 = np.random.normal(size=(H_D, D))
omega_v1 = np.random.normal(size=(H_D, D))
beta_q1  = np.random.normal(size=(H_D, 1))
beta_k1  = np.random.normal(size=(H_D, 1))
beta_v1  = np.random.normal(size=(H_D, 1))

# Head 2 parameters
omega_q2 = np.random.normal(size=(H_D, D))
omega_k2 = np.random.normal(size=(H_D, D))
omega_v2 = np.random.normal(size=(H_D, D))
beta_q2  = np.random.normal(size=(H_D, 1))
beta_k2  = np.random.normal(size=(H_D, 1))
beta_v2  = np.random.normal(size=(H_D, 1))

# Output projection
omega_c = np.random.normal(size=(D, D))

# Column-wise softmax (stable)
def softmax_cols(data_in):
    shifted = data_in - np.max(data_in, axis=0, keepdims=True)
    exp_values = np.exp(shifted)
    denom = np.sum(exp_values, axis=0, keepdims=True)
    return exp_values / denom

# Multihead scaled dot-product self-attention
def multihead_scaled_self_attention(
    X,
    omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
    omega_c
):
    D, N = X.shape
    H_D = omega_q1.shape[0]
    ones_row = np.ones((1, N))

    # ---- Head 1 ----
    Q1 = omega_q1 @ X + beta_q1 @ ones_row        # (H_D, N)
    K1 = omega_k1 @ X + beta_k1 @ ones_row        # (H_D, N)
    V1 = omega_v1 @ X + beta_v1 @ ones_row        # (H_D, N)

    scores1 = K1.T @ Q1                            # (N, N) with [m, n] = k_m^T q_n
    scores1 = scores1 * (1.0 / np.sqrt(H_D))       # scale by sqrt(d_k)
    A1 = softmax_cols(scores1)                     # (N, N)
    O1 = V1 @ A1                                   # (H_D, N)

    # ---- Head 2 ----
    Q2 = omega_q2 @ X + beta_q2 @ ones_row        # (H_D, N)
    K2 = omega_k2 @ X + beta_k2 @ ones_row        # (H_D, N)
    V2 = omega_v2 @ X + beta_v2 @ ones_row        # (H_D, N)

    scores2 = K2.T @ Q2                            # (N, N)
    scores2 = scores2 * (1.0 / np.sqrt(H_D))       # scale by sqrt(d_k)
    A2 = softmax_cols(scores2)                     # (N, N)
    O2 = V2 @ A2                                   # (H_D, N)

    # Concatenate head outputs and project
    O = np.vstack([O1, O2])                        # (D, N)
    X_prime = omega_c @ O                          # (D, N)

    return X_prime

# Run the self attention mechanism
X_prime = multihead_scaled_self_attention(
    X,
    omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
    omega_c
)

# Print out the results
np.set_printoptions(precision=3, suppress=True)
print("My answer:")
print(X_prime)

print("\\nTrue values:")
print("[[-21.207  -5.373 -20.933  -9.179 -11.319 -17.812]")
print(" [ -1.995   7.906 -10.516   3.452   9.863  -7.24 ]")
print(" [  5.479   1.115   9.244   0.453   5.656   7.089]")
print(" [ -7.413  -7.416   0.363  -5.573  -6.736  -0.848]")
print(" [-11.261  -9.937  -4.848  -8.915 -13.378  -5.761]")
print(" [  3.548  10.036  -2.244   1.604  12.113  -2.557]")
print(" [  4.888  -5.814   2.407   3.228  -4.232   3.71 ]")
print(" [  1.248  18.894  -6.409   3.224  19.717  -5.629]]")'''

# Right, written another way: all heads at once with einsum on stacked weights.
EINSUM = """\
def multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c):
  Q = np.einsum("hed,dn->hen", np.stack(omegas_q), X) + np.stack(betas_q)  # (H, D/H, N)
  K = np.einsum("hed,dn->hen", np.stack(omegas_k), X) + np.stack(betas_k)  # (H, D/H, N)
  V = np.einsum("hed,dn->hen", np.stack(omegas_v), X) + np.stack(betas_v)  # (H, D/H, N)
  S = np.einsum("hem,hen->hmn", K, Q) / np.sqrt(Q.shape[1])  # (H, N, N)
  A = np.exp(S - S.max(axis=1, keepdims=True))
  A = A / A.sum(axis=1, keepdims=True)
  heads = np.einsum("hem,hmn->hen", V, A)  # (H, D/H, N)
  return omega_c @ heads.reshape(-1, X.shape[1])  # heads stacked: (D, N)"""

SCALE = "softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))"
HEADS_LOOP = ("for omega_v, omega_q, omega_k, beta_v, beta_q, beta_k in zip(omegas_v, omegas_q, omegas_k, betas_v, "
              "betas_q, betas_k):")

STUDENTS = {
    "correct": Student(A04, FULL_04),
    "correct_other_ways": Student(A04, FULL_04, cells={"multihead_general_def": EINSUM}),
    "untouched": Student(A04, _04(test_attention_weights=0, test_multihead=0, test_multihead_general=0, why_heads=0),
                         untouched=True),
    "seed000_final": Student(A04, FULL_04, cells={"multihead_def": SEED_000_FINAL}),
    "seed000_first": Student(A04, _04(test_multihead=0), cells={"multihead_def": SEED_000_FIRST},
                             diagnoses={"test_multihead": "shapes that do not multiply"}),
    # A wrong attention_weights costs its own marks once: both multihead parts call it, and are marked
    # with the course's attention_weights in its place.
    "no_scaling": Student(
        A04, _04(test_attention_weights=0),
        edits={"attention_weights_def": [(SCALE, "softmax_cols(K.T @ Q)")]},
        diagnoses={"test_attention_weights": "no scaling"}),
    "sqrt_d": Student(
        A04, _04(test_attention_weights=0),
        edits={"attention_weights_def": [(SCALE, "softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))")]},
        diagnoses={"test_attention_weights": "sqrt(D) instead of sqrt(D/H)"}),
    "divided_by_head_size": Student(
        A04, _04(test_attention_weights=0),
        edits={"attention_weights_def": [(SCALE, "softmax_cols(K.T @ Q / Q.shape[0])")]},
        diagnoses={"test_attention_weights": "divided by D/H, not sqrt(D/H)"}),
    # Two independent parts: the book's two heads stacked head 2 first; the general version loops over
    # range(2), right on the book's case and on the fresh input with two heads (5/9 of the marks).
    "reversed_two_heads_only": Student(
        A04, _04(test_multihead=0, test_multihead_general=1.67),
        edits={"multihead_def": [("np.vstack([head1, head2])", "np.vstack([head2, head1])")],
               "multihead_general_def": [(HEADS_LOOP, "for h in range(2):\n    omega_v, omega_q, omega_k, beta_v, beta_q, "
                                                      "beta_k = omegas_v[h], omegas_q[h], omegas_k[h], betas_v[h], betas_q[h], betas_k[h]")]},
        diagnoses={"test_multihead": "heads stacked in reverse order",
                   "test_multihead_general": "two heads hard-coded"}),
    # The book's second head weighted by the first head's attention; the general version stacks the heads last first.
    "shared_weights_reversed": Student(
        A04, _04(test_multihead=0, test_multihead_general=0),
        edits={"multihead_def": [("@ attention_weights(X, omega_q2, omega_k2, beta_q2, beta_k2)",
                                  "@ attention_weights(X, omega_q1, omega_k1, beta_q1, beta_k1)")],
               "multihead_general_def": [("omega_c @ np.vstack(heads)", "omega_c @ np.vstack(heads[::-1])")]},
        diagnoses={"test_multihead": "head 1's attention weights used for every head",
                   "test_multihead_general": "heads stacked in reverse order"}),
    "side_by_side": Student(
        A04, _04(test_multihead_general=0),
        edits={"multihead_general_def": [("omega_c @ np.vstack(heads)", "omega_c @ np.hstack(heads)")]},
        diagnoses={"test_multihead_general": "shapes that do not multiply"}),
    "no_omega_c": Student(
        A04, _04(test_multihead=0, test_multihead_general=0),
        edits={"multihead_def": [("omega_c @ np.vstack([head1, head2])", "np.vstack([head1, head2])")],
               "multihead_general_def": [("omega_c @ np.vstack(heads)", "np.vstack(heads)")]},
        diagnoses={"test_multihead": "output projection left out",
                   "test_multihead_general": "output projection left out"}),
}
