"""Notebook 07, backpropagation through attention (book 12.1's scaled attention, eq. 12.9, run backwards).

Three parts are probed. `softmax_backward(A, dA)` is compared with A * (dA - column sums of A * dA) on the
book's attention weights and on fresh matrices that are not square (so a sum over the wrong axis shows).
`attention_backward(..., dX_prime)` returns a dict of seven gradients; the probe reads them back as a list
in reference.ATTENTION_GRADIENTS's order, on the book's inputs with the notebook's upstream gradient and on
fresh sizes. It calls the student's softmax_backward, so a wrong one is replaced by the course's
(`uses`) and costs marks once. `gradient_check(f, X, dX, eps)` is tried on test functions of fresh X
(cases.GRADIENT_CHECK_FUNCTIONS), with eps of 1e-3 to 1e-1 and gradients right or wrong, so that one-sided
differences and an absolute error each give a clearly different number from the relative error asked for.
`mha_backward(x, params, num_heads, dout)`, the same backward pass for causal multi-head attention in rows
(B, T, D), returns (dx, grads); the probe builds params from the case's eight weights in the kernel and reads
back [dx, grads["W_q"], ..., grads["b_o"]], on the notebook's example and on fresh sizes with at least two
heads and two sequences (so that 1/sqrt(D) for 1/sqrt(d), or gradients not summed over the batch, show).
"""
import numpy as np

from . import cases, mistakes, reference as ref
from ..shared import cases as shared_cases, reference as shared_ref, steps as shared_steps
from ...engine.protocol import Case, Probe, Step, Trait, kernel_source

PARAMS = shared_cases.PARAMETERS
GRADIENTS = ref.ATTENTION_GRADIENTS
N_FRESH = 3


# ---------------------------------------------------------------- softmax_backward

def _book_softmax_inputs():
    """The book's scaled attention weights A (N, N) and dA = V^T dX_prime, the gradient reaching them."""
    i = cases.book_07()
    V, Q, K = shared_ref.queries_keys_values(*(i[n] for n in ("X",) + PARAMS))
    A = shared_ref.softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))  # (N, N)
    return {"A": A, "dA": V.T @ i["dX_prime"]}


def _fresh_softmax_inputs(rng):
    """A softmax of fresh scores, rows != columns (a sum over the wrong axis then shows), and a fresh dA."""
    rows = int(rng.integers(3, 8))
    cols = int(rng.choice([n for n in range(2, 8) if n != rows]))
    A = shared_ref.softmax_cols(rng.normal(scale=1.5, size=(rows, cols)))  # (rows, cols)
    return {"A": A, "dA": rng.normal(size=(rows, cols))}


def _softmax_cases(rng):
    fresh = [_fresh_softmax_inputs(rng) for _ in range(N_FRESH)]
    return [Case("book", _book_softmax_inputs(), about="the book's weights")] + [
        Case("fresh", i, about=f"{i['A'].shape[0]}x{i['A'].shape[1]}") for i in fresh]


# ---------------------------------------------------------------- attention_backward

ATTENTION_CALL = ("(lambda g: [g[name] for name in " + repr(GRADIENTS) + "])"
                  "(attention_backward(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, dX_prime))")
ATTENTION_INPUTS = ("X",) + PARAMS + ("dX_prime",)


def _attention_cases(rng):
    book = Case("book", shared_cases.only(cases.book_07(), ATTENTION_INPUTS))
    fresh = []
    for _ in range(N_FRESH):
        i = cases.fresh_07(rng)
        fresh.append(Case("fresh", shared_cases.only(i, ATTENTION_INPUTS), about=f"D={i['D']}, N={i['N']}"))
    # last, as for mha_backward (LARGE_SIZES): a layer of realistic size, with a time budget (round 9's attempts:
    # derivatives taken numerically in long double reach the precision asked for on small inputs)
    large = cases.fresh_07(rng, **LARGE_ATTENTION)
    fresh.append(Case("fresh", shared_cases.only(large, ATTENTION_INPUTS), budget=LARGE_BUDGET,
                      about=f"D={large['D']}, N={large['N']}, a layer of realistic size"))
    return [book] + fresh


def attention_gradients(i):
    """The seven gradients, in GRADIENTS's order."""
    g = ref.attention_backward(*(i[n] for n in ATTENTION_INPUTS))
    return [g[name] for name in GRADIENTS]


# ---------------------------------------------------------------- gradient_check

# Every test function's lambda, one of which the case picks; softmax_down and np are the probe's own.
GRADIENT_CHECK_CALL = (
    "(lambda np: (lambda softmax_down: gradient_check(["
    + ", ".join(source for _, source in cases.GRADIENT_CHECK_FUNCTIONS)
    + "][int(which)], X, dX, eps))"
      "(lambda S: np.exp(S - S.max(axis=0)) / np.exp(S - S.max(axis=0)).sum(axis=0)))(__import__('numpy'))")


def _book_gradient_check():
    """The book's attention loss as a function of X, its true gradient, eps = 0.01."""
    i = cases.book_07()
    i["G"] = i["dX_prime"]
    return cases.gradient_check_case(i, 0, cases.gradient_check_true_gradient(dict(i, which=0)), 0.01)


# Said when a gradient check is wrong on exactly the inputs of three axes (one that moves X[i, j] of a matrix)
THREE_AXES = Trait("X has three axes", "X is a matrix",
                   note="a central difference moves one entry of X at a time, whatever X's shape")


def _gradient_check_cases(rng):
    """The book's case, then every test function on fresh inputs: right gradients checked with a large eps
    (where the truncation error of central differences is well above rounding, and one-sided differences
    are far off), and a gradient 5% wrong entry by entry."""
    out = [Case("book", _book_gradient_check(), about="the attention loss, the book's X, eps=0.01",
                traits={THREE_AXES: False})]

    def fresh(i, which, eps, wrong, sizes, three_axes):
        dX = cases.gradient_check_true_gradient(dict(i, which=which))
        if wrong:
            dX = dX * (1 + 0.05 * rng.normal(size=dX.shape))
        name = cases.GRADIENT_CHECK_FUNCTIONS[which][0]
        out.append(Case("fresh", cases.gradient_check_case(i, which, dX, eps),
                        about=f"{name}, {sizes}, eps={eps:g}{', a wrong gradient' if wrong else ''}",
                        traits={THREE_AXES: three_axes}))

    for which, eps, wrong in ((1, 0.1, False), (2, 1e-3, True), (3, 0.01, False), (0, 0.01, True)):
        i = cases.fresh_07(rng)
        D, N = i["D"], i["N"]
        i.update(W=rng.normal(scale=1 / np.sqrt(D), size=(D, D)), G=rng.normal(size=(D, N)))
        fresh(i, which, eps, wrong, f"D={D}, N={N}", False)
    # X of three axes, as the notebook's own mha_backward check passes it (x of shape (B, T, D)): "every entry
    # of X" is every entry of any shape, not X[i, j] of a matrix
    for which, eps, wrong in ((1, 0.1, False), (2, 1e-3, True)):
        shape = (int(rng.integers(2, 4)), int(rng.integers(2, 5)), int(rng.integers(2, 5)))
        fresh({"X": rng.normal(size=shape), "G": rng.normal(size=shape)}, which, eps, wrong, f"X of shape {shape}",
              True)
    return out


def _gradient_check_reference(i):
    return np.array(ref.gradient_check(cases.gradient_check_function(i), i["X"], i["dX"], float(i["eps"])))


# ---------------------------------------------------------------- mha_backward (rows, batched, multi-head)

MHA_GRADIENTS = ref.MHA_GRADIENTS
# The weights as the dict the student's mha_backward takes, built in the kernel from the case's inputs.
MHA_PARAMS = "dict(" + ", ".join(f"{n}={n}" for n in MHA_GRADIENTS) + ")"
MHA_CALL = ("(lambda r: [r[0]] + [r[1][name] for name in " + repr(MHA_GRADIENTS) + "])"
            f"(mha_backward(x, {MHA_PARAMS}, num_heads, dout))")
MHA_OUTPUTS = ("dx",) + tuple(f'grads["{n}"]' for n in MHA_GRADIENTS)


def _mha_about(i):
    B, T, D = i["x"].shape
    return f"x {(B, T, D)}, {i['num_heads']} heads"


# A layer of realistic size, last: a backward pass takes milliseconds on it (the course's, about 5 ms here), and
# any derivative taken numerically needs a forward pass for each of its ~74,000 inputs and weights (minutes, or,
# all at once, gigabytes). Past LARGE_BUDGET seconds its call is stopped and the part earns nothing: finite
# differences are caught by their precision already, derivatives by complex steps are exact to rounding and are
# not (round 8's attempts to game the grader).
LARGE_SIZES = dict(B=2, T=32, H=4, d=32)
LARGE_ATTENTION = dict(D=128, N=64)  # attention_backward's: 57,000 inputs and weights; the course's takes about 1 ms
LARGE_BUDGET = 5.0
BUDGET_HINT = ("A backward pass costs about what its forward pass costs; one forward pass for each entry of the "
               "inputs, as derivatives taken numerically need, cannot finish on a layer of this size: write the "
               "backward pass itself, as the notebook derives it.")


def _mha_cases(rng):
    book = cases.book_07_mha()
    fresh = [cases.fresh_07_mha(rng) for _ in range(N_FRESH)]
    large = cases.mha_07(rng, **LARGE_SIZES)
    return [Case("book", book, about=_mha_about(book))] + [Case("fresh", i, about=_mha_about(i)) for i in fresh] + \
        [Case("fresh", large, about=_mha_about(large) + ", a layer of realistic size", budget=LARGE_BUDGET)]


def mha_results(i):
    """[dx, grads["W_q"], ..., grads["b_o"]]: mha_backward's results in the order the probe reads them."""
    dx, grads = ref.mha_backward(i["x"], cases.mha_params_07(i), i["num_heads"], i["dout"])
    return [dx] + [grads[name] for name in MHA_GRADIENTS]


# A backward pass derived with the chain rule and computed in float64 agrees with the course's to about 1e-15
# of the result's largest entry; central differences of the forward pass reach about 1e-11 at best, at any
# step from 1e-3 to 1e-7 (tests/test_reference.py measures both), and float32 about 1e-7. 1e-12 tells them
# apart with a factor of ten to a thousand on either side.
BACKWARD_PRECISION = 1e-12
BACKWARD_HINT = (f"A backward pass written with the chain rule in float64 agrees to {BACKWARD_PRECISION:.0e} or better, which finite "
                 "differences (about 1e-11 at best, at any step) and float32 (about 1e-7) cannot reach: write the "
                 "backward pass itself, as the notebook derives it.")
BACKWARD = dict(precision=BACKWARD_PRECISION, precision_hint=BACKWARD_HINT)

PROBES = {
    "test_softmax_backward": Probe(
        what="softmax_backward",
        axes=("keys", "queries"),
        call="softmax_backward(A, dA)",
        cases=_softmax_cases,
        reference=lambda i: ref.softmax_backward(i["A"], i["dA"]),
        steps=lambda i: shared_steps.softmax_backward(i["A"], i["dA"]),
        kernel_reference=kernel_source("softmax_backward", ref.softmax_backward),
        mistakes=mistakes.SOFTMAX_BACKWARD,
        **BACKWARD,
    ),
    "test_attention_backward": Probe(
        what="attention_backward",
        call=ATTENTION_CALL,
        outputs=GRADIENTS,
        cases=_attention_cases,
        reference=attention_gradients,
        steps=lambda i: shared_steps.attention_backward_12_1(*(i[n] for n in ATTENTION_INPUTS)),
        uses={"softmax_backward": "test_softmax_backward"},
        exact_shape=True,  # a gradient has its argument's shape: (D, 1) for a bias, as the TODO asks
        mistakes=mistakes.ATTENTION_BACKWARD,
        budget_hint=BUDGET_HINT,
        **BACKWARD,
    ),
    "test_gradient_check": Probe(
        what="gradient_check",
        call=GRADIENT_CHECK_CALL,
        cases=_gradient_check_cases,
        reference=_gradient_check_reference,
        # The relative error is one number: its one step is the central differences, entry by entry.
        steps=lambda i: [Step("numeric gradient", "(f(X + eps) - f(X - eps)) / (2 * eps), one entry of X at a time",
                              ref.numerical_gradient(cases.gradient_check_function(i), i["X"], float(i["eps"])),
                              ("rows", "columns"), ())],
        mistakes=mistakes.GRADIENT_CHECK,
    ),
    "test_mha_backward": Probe(
        what="mha_backward",
        axes=("sequences", "tokens", "features"),
        call=MHA_CALL,
        outputs=MHA_OUTPUTS,
        cases=_mha_cases,
        reference=mha_results,
        steps=lambda i: shared_steps.mha_backward_rows(i["x"], cases.mha_params_07(i), i["num_heads"], i["dout"]),
        exact_shape=True,  # each gradient has its weight's shape, as the TODO asks
        mistakes=mistakes.MHA_BACKWARD,
        budget_hint=BUDGET_HINT,
        **BACKWARD,
    ),
}


# ---------------------------------------------------------------- the gradient norms against D_q

NORM_SIZES = [4, 8, 16, 32, 64, 128, 256, 512]
NORM_TOKENS, NORM_TRIALS = 8, 20
SCALINGS = ("no scaling", "divided by sqrt(D_q)", "divided by D_q")


def gradient_norms(backward, sizes=NORM_SIZES, n_tokens=NORM_TOKENS, trials=NORM_TRIALS):
    """Median norms of d_omega_q and d_omega_v for each scaling (rows) and size D_q (columns), by `backward`
    with the notebook's draws (seed 0); the notebook's plot cell computes the same with the student's."""
    rng = np.random.default_rng(0)
    query, value = np.zeros((3, len(sizes))), np.zeros((3, len(sizes)))
    for j, D in enumerate(sizes):
        norms_q, norms_v = [[] for _ in SCALINGS], [[] for _ in SCALINGS]
        for _ in range(trials):
            X = rng.normal(size=(D, n_tokens)) / np.sqrt(D)  # (D, N): tokens of length about 1
            omega_v, omega_q, omega_k = (rng.normal(size=(D, D)) for _ in range(3))
            beta = np.zeros((D, 1))
            dX_prime = np.zeros((D, n_tokens))  # (D, N): the loss reads the first token's output only,
            dX_prime[:, 0] = rng.normal(size=D) / np.sqrt(D)  # so the gradient passes one column's softmax
            for s, c in enumerate((1.0, 1 / np.sqrt(D), 1 / D)):
                k = c * np.sqrt(D)  # queries k times larger: scores k K^T Q / sqrt(D_q) = c K^T Q
                g = backward(X, omega_v, k * omega_q, omega_k, beta, k * beta, beta, dX_prime)
                norms_q[s].append(k * np.linalg.norm(g["d_omega_q"]))  # chain rule: d(k omega_q)/d omega_q = k
                norms_v[s].append(np.linalg.norm(g["d_omega_v"]))
        query[:, j] = np.median(norms_q, axis=1)
        value[:, j] = np.median(norms_v, axis=1)
    return query, value


# ---------------------------------------------------------------- generated cells

def _softmax_book():
    i = _book_softmax_inputs()
    other = _fresh_softmax_inputs(np.random.default_rng(7))
    return {"A_book": i["A"], "dA_book": i["dA"], "dS_true": ref.softmax_backward(i["A"], i["dA"]),
            "softmax_backward_mistakes": {m.said: m.compute(i) for m in mistakes.SOFTMAX_BACKWARD},
            "A_other": other["A"], "dA_other": other["dA"],
            "dS_other_true": ref.softmax_backward(other["A"], other["dA"]),
            "softmax_backward_other_mistakes": {m.said: m.compute(other) for m in mistakes.SOFTMAX_BACKWARD}}


def _by_name(values):
    return dict(zip(GRADIENTS, values))


def _attention_book():
    i, other = cases.book_07(), cases.other_07()
    return {"dX_prime": i["dX_prime"],
            "gradients_true": _by_name(attention_gradients(i)),
            "gradient_mistakes": {m.said: _by_name(m.compute(i)) for m in mistakes.ATTENTION_BACKWARD},
            **{f"{name}_other": other[name] for name in ATTENTION_INPUTS},
            "gradients_other_true": _by_name(attention_gradients(other)),
            "gradient_other_mistakes": {m.said: _by_name(m.compute(other)) for m in mistakes.ATTENTION_BACKWARD}}


def _gradient_check_book():
    i = _book_gradient_check()
    book = shared_cases.book_12_1()
    cube = cases.gradient_check_case({"X": book["X"]}, 1, 3 * book["X"] ** 2, 0.1)
    # the same on X of three axes (as mha_backward's x): the relative error is the same number, any shape
    X_3 = book["X"].reshape(2, 2, 3)
    cube_3 = cases.gradient_check_case({"X": X_3}, 1, 3 * X_3 ** 2, 0.1)
    return {"error_attention_true": _gradient_check_reference(i),
            "error_attention_mistakes": {m.said: m.compute(i) for m in mistakes.GRADIENT_CHECK},
            "error_cube_true": _gradient_check_reference(cube),
            "error_cube_mistakes": {m.said: m.compute(cube) for m in mistakes.GRADIENT_CHECK},
            "error_cube_3_true": _gradient_check_reference(cube_3)}


def _mha_values(i, suffix):
    """An example's inputs, its true (dx, grads) by name, and each mistake's that differs from them there."""
    def by_name(values):
        return dict(zip(("dx",) + MHA_GRADIENTS, values))
    true = mha_results(i)
    shown = {}
    for m in mistakes.MHA_BACKWARD:
        wrong = m.compute(i)
        if any(np.shape(a) != np.shape(b) or not np.allclose(a, b) for a, b in zip(wrong, true)):
            shown[m.said] = by_name(wrong)
    return {f"x_mha{suffix}": i["x"], f"params_mha{suffix}": cases.mha_params_07(i),
            f"num_heads_mha{suffix}": i["num_heads"], f"dout_mha{suffix}": i["dout"],
            f"mha{suffix}_true": by_name(true), f"mha{suffix}_mistakes": shown}


def _mha_book():
    return {**_mha_values(cases.book_07_mha(), ""), **_mha_values(cases.other_07_mha(), "_other")}


def _norms():
    query, value = gradient_norms(ref.attention_backward)
    return {"norm_sizes": np.array(NORM_SIZES), "query_norms_true": query, "value_norms_true": value}


VALUES = {
    "backprop_softmax": _softmax_book,
    "backprop_attention": _attention_book,
    "backprop_gradient_check": _gradient_check_book,
    "backprop_mha": _mha_book,
    "backprop_norms": _norms,
}
