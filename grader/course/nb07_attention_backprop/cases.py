"""Notebook 07's inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time.
"""
import numpy as np

from . import reference as ref
from ..shared import reference as shared_ref
from ..shared.cases import PARAMETERS, book_12_1, fresh_12_1, only


def book_07():
    """Book notebook 12.1's X and parameters (D=4, N=3), and the upstream gradient dX_prime = dL/dX' that
    notebook 07 draws after them (seed 1): a fixed loss L = sum(X' * dX_prime)."""
    i = book_12_1()
    np.random.seed(1)
    i["dX_prime"] = np.random.normal(size=(i["D"], i["N"]))  # (D, N)
    return i


def fresh_07(rng, D=None, N=None):
    """Inputs like book_07's, of another size: fresh_12_1's, and an upstream gradient of X's shape."""
    i = fresh_12_1(rng, D=D, N=N)
    i["dX_prime"] = rng.normal(size=(i["D"], i["N"]))  # (D, N)
    return i


def other_07():
    """Notebook 07's second example (D=5, N=3), as notebooks 02-04 draw theirs, with its upstream gradient."""
    return fresh_07(np.random.default_rng(2024), D=5, N=3)


# The functions of X that students' gradient checks are tried on: sources of lambdas, as in notebook 03,
# so that the same text runs in the student's kernel and in the grader. A source may use np, softmax_down,
# the book's parameter names and the case's W (D, D) and G (D, N).
GRADIENT_CHECK_FUNCTIONS = [  # (name a student reads, source)
    ("the attention loss sum(X' * G)",
     "lambda X: np.sum((omega_v @ X + beta_v) @ softmax_down((omega_k @ X + beta_k).T @ (omega_q @ X + beta_q)"
     " / np.sqrt(omega_q.shape[0])) * G)"),
    ("sum(X ** 3)", "lambda X: np.sum(X ** 3)"),
    ("sum(exp(X) * G)", "lambda X: np.sum(np.exp(X) * G)"),
    ("sum(tanh(W @ X) * G)", "lambda X: np.sum(np.tanh(W @ X) * G)"),
]


def gradient_check_function(inputs):
    """Test function inputs["which"], made from its source on these inputs (as the probe makes it in the kernel)."""
    space = dict(inputs, np=np, softmax_down=shared_ref.softmax_cols)
    return eval(GRADIENT_CHECK_FUNCTIONS[int(inputs["which"])][1], space)


def gradient_check_true_gradient(inputs):
    """The gradient of test function inputs["which"] at inputs["X"], by hand."""
    X, which = inputs["X"], int(inputs["which"])
    if which == 0:
        params = [inputs[n] for n in PARAMETERS]
        return ref.attention_backward(X, *params, inputs["G"])["dX"]
    if which == 1:
        return 3 * X ** 2
    if which == 2:
        return np.exp(X) * inputs["G"]
    return inputs["W"].T @ ((1 - np.tanh(inputs["W"] @ X) ** 2) * inputs["G"])


GRADIENT_CHECK_INPUTS = ("X", "W", "G") + PARAMETERS


def gradient_check_case(i, which, dX, eps):
    """The inputs of one gradient_check case: the function's own inputs, the gradient to check and eps."""
    import re
    source = GRADIENT_CHECK_FUNCTIONS[which][1]
    names = [n for n in GRADIENT_CHECK_INPUTS if n == "X" or re.search(rf"\b{n}\b", source)]
    return dict(only(i, names), which=which, dX=dX, eps=eps)


# Notebook 07's row-form part: causal multi-head self-attention of x (B, T, D), as notebook 08 gives it, backwards.
MHA_WEIGHTS = ("W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o")   # notebook 08's names
MHA_BOOK_SIZES = dict(B=2, T=4, H=2, d=3)   # the notebook's example: D = 6 in 2 heads of 3


def mha_07(rng, B, T, H, d):
    """x (B, T, D), D = H d, the eight weights (W_. (D, D) of std 1/sqrt(D), b_. (D,) of std 0.3), num_heads = H,
    and the upstream gradient dout = dL/d(output) (B, T, D): the loss is L = sum(output * dout)."""
    D = H * d
    out = dict(x=rng.normal(size=(B, T, D)), num_heads=H)
    for name in MHA_WEIGHTS[:4]:
        out[name] = rng.normal(0, 1 / np.sqrt(D), size=(D, D))
    for name in MHA_WEIGHTS[4:]:
        out[name] = rng.normal(0, 0.3, size=D)
    out["dout"] = rng.normal(size=(B, T, D))  # (B, T, D)
    return out


def book_07_mha():
    """The notebook's example: 2 sequences of 4 tokens, D = 6 in 2 heads, drawn once from seed 700."""
    return mha_07(np.random.default_rng(700), **MHA_BOOK_SIZES)


def other_07_mha():
    """The notebook's second example, of other sizes: 3 sequences of 3 tokens, D = 8 in 4 heads (seed 701)."""
    return mha_07(np.random.default_rng(701), B=3, T=3, H=4, d=2)


def fresh_07_mha(rng):
    """Other sizes: never the example's D = 6 or T = 4; at least 2 heads (with one head, d = D and a scale of
    1/sqrt(D) would be right) and 2 sequences (with one, gradients not summed over the batch would be too)."""
    H, d = int(rng.choice((2, 3, 4))), int(rng.choice((2, 3, 4)))
    while H * d == MHA_BOOK_SIZES["H"] * MHA_BOOK_SIZES["d"]:
        H, d = int(rng.choice((2, 3, 4))), int(rng.choice((2, 3, 4)))
    B, T = int(rng.choice((2, 3))), int(rng.choice((2, 3, 5, 6)))
    return mha_07(rng, B, T, H, d)


def mha_params_07(i):
    """The weights of a case as the dict mha_backward takes."""
    return {name: i[name] for name in MHA_WEIGHTS}
