"""Notebook 02, scaled dot-product attention (book 12.1, second half; eq. 12.9): probes and check values."""
import numpy as np

from . import mistakes
from ..shared import cases as shared_cases, reference as shared_ref, steps as shared_steps, views as shared_views
from ...engine.protocol import Case, Probe, kernel_source

PARAMS = shared_cases.PARAMETERS
N_FRESH = 3


# Far past what np.exp holds in any precision numpy has: float64's e^709, and long double's e^11356 (round 9's
# attempts to game the grader: a softmax without the shift, in long double, is right near +-1000).
MAGNITUDE = 20000


def _softmax_cases(rng):
    """Fresh scores around +-MAGNITUDE: np.exp overflows (or underflows to 0/0) on every entry without the shift.

    Stability is what this part grades, so there is no book case here (the book's
    scores are small, and a naive softmax gets them right). Every matrix has columns
    near +MAGNITUDE and columns near -MAGNITUDE, so one maximum for the whole matrix (not one
    per column) leaves the low columns at 0 / 0, and the mistakes differ from each other;
    the last but one has a column with scores near both, where only a shift by the column's maximum is
    stable. The last has a column of small scores too, where a softmax without the shift is right: code that
    only overflows is told there from a mistake that is wrong everywhere (the maximum subtracted in the
    numerator only), which on overflowing columns gives the same zeros and infs. (One case only: a column
    right in every case would leave no case wholly wrong, and a finding on the whole result, such as "all
    zeros", would fit none.) None is square, so rows and columns are told apart.
    The last scores are integers, as an integer array: scores are numbers of any dtype, and a result
    stored in an array made like the input (np.zeros_like) would hold integers, every weight cut to 0 or 1.
    """
    out = []
    for k in range(N_FRESH + 1):
        rows = int(rng.choice((2, 3, 4, 5, 6)))
        # never square: rows and columns told apart (the last case gets one more column, below)
        # (the case with a column near both has 3 or more, so that a column near -MAGNITUDE is left beside it)
        cols = int(rng.choice([c for c in ((3, 4, 5) if k == N_FRESH - 1 else (2, 3, 4, 5))
                               if c + (k == N_FRESH) != rows]))
        signs = rng.permutation([-1.0, 1.0] + list(rng.choice((-1.0, 1.0), size=cols - 2)))  # both signs
        centre = np.repeat(MAGNITUDE * signs[np.newaxis, :], rows, axis=0)  # (rows, cols): one sign per column
        about = f"{rows}x{cols} scores near +-{MAGNITUDE}"
        if k == N_FRESH - 1:
            # and one column that holds both: np.exp cannot hold e^(2 MAGNITUDE), so there a shift by the
            # column's minimum overflows, where the book's shift by its maximum cannot
            # one of a sign that another column has too: columns near +MAGNITUDE and -MAGNITUDE are left beside it,
            # so one maximum for the whole matrix is wrong here too
            mixed = int(rng.choice([j for j in range(cols) if np.count_nonzero(signs == signs[j]) > 1]))
            centre[:, mixed] = MAGNITUDE * rng.permutation([-1.0, 1.0] + list(rng.choice((-1.0, 1.0), size=rows - 2)))
            about += f", column {mixed + 1} near both"
        scores = centre + rng.normal(scale=3.0, size=(rows, cols))
        if k == N_FRESH:
            small = int(rng.integers(cols + 1))
            scores = np.rint(np.insert(scores, small, 5.0 + rng.normal(scale=3.0, size=rows), axis=1)).astype(np.int64)
            if scores[:, small].max() == 0:  # (a maximum of 0 would make the numerator-only shift right there)
                scores[:, small] += 1
            about = f"{rows}x{cols + 1} scores near +-{MAGNITUDE}, column {small + 1} small, integers"
        out.append(Case("fresh", {"data_in": scores}, about=about))
    return out


def _attention_cases(rng):
    book = Case("book", shared_cases.only(shared_cases.book_12_1(), ("X",) + PARAMS))
    fresh = []
    for _ in range(N_FRESH):
        i = shared_cases.fresh_12_1(rng)
        fresh.append(Case("fresh", shared_cases.only(i, ("X",) + PARAMS), about=f"D={i['D']}, N={i['N']}"))
    return [book] + fresh


SOFTMAX_COLS_MISTAKES = [mistakes.SOFTMAX_OVERFLOWS, mistakes.SOFTMAX_COLS_ROWS,
                         mistakes.SOFTMAX_SHIFT_NUMERATOR_ONLY, mistakes.SOFTMAX_GLOBAL_MAX]

PROBES = {
    "test_softmax_cols": Probe(
        what="softmax_cols",
        operations=(),
        axes=("keys", "queries"),
        call="softmax_cols(data_in)",
        cases=_softmax_cases,
        reference=lambda i: shared_ref.softmax_cols(i["data_in"]),
        steps=lambda i: shared_steps.softmax_cols(i["data_in"]),
        kernel_reference=kernel_source("softmax_cols", shared_ref.softmax_cols),
        mistakes=SOFTMAX_COLS_MISTAKES,
    ),
    "test_scaled_attention": Probe(
        what="scaled_dot_product_self_attention",
        operations=("dot products", "bias"),
        axes=("features", "tokens"), views=(shared_views.WEIGHTS_01,),
        call="scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)",
        cases=_attention_cases,
        reference=lambda i: shared_ref.scaled_dot_product_self_attention(*(i[n] for n in ("X",) + PARAMS)),
        steps=lambda i: shared_steps.attention_12_1(i, scale=True),
        uses={"softmax_cols": "test_softmax_cols"},
        mistakes=mistakes.SCALED_ATTENTION,
    ),
}


# ---------------------------------------------------------------- generated cells

def _softmax_large():
    scores = np.array([[1000.0, 3.0], [999.0, 1.0], [998.0, 2.0]])  # the overflow demo's scores
    i = {"data_in": scores}
    small = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.0]])  # scores of everyday size, for the attention check
    return {"small_scores": small, "small_scores_true": shared_ref.softmax_cols(small),
            "large_scores": scores, "large_scores_true": shared_ref.softmax_cols(scores),
            "softmax_mistakes": {m.said: m.compute(i) for m in SOFTMAX_COLS_MISTAKES}}


def _scaled_book():
    i = shared_cases.book_12_1()
    shown = [m for m in mistakes.SCALED_ATTENTION if m is not mistakes.GLOBAL_D]  # right on the book's case
    return {"X_prime_scaled_true": shared_ref.scaled_dot_product_self_attention(*(i[n] for n in ("X",) + PARAMS)),
            "scaled_mistakes": {m.said: m.compute(i) for m in shown}}


def _scaled_other():
    """The second example: inputs of other sizes (D=5, N=3), the true X' and every mistake's X' (the global D's too)."""
    i = shared_cases.other_12_1()
    return {**{f"{name}_other": i[name] for name in ("X",) + PARAMS},
            "X_prime_scaled_other_true": shared_ref.scaled_dot_product_self_attention(*(i[n] for n in ("X",) + PARAMS)),
            "scaled_other_mistakes": {m.said: m.compute(i) for m in mistakes.SCALED_ATTENTION}}


VALUES = {
    "softmax_large": _softmax_large,
    "scaled_book": _scaled_book,
    "scaled_other": _scaled_other,
}
