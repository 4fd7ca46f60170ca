"""Notebook 02, scaled dot-product attention (book 12.1, second half; eq. 12.9): probes and check values."""
import numpy as np

from .. import cases, mistakes, reference as ref
from ..protocol import Case, Probe

PARAMS = cases.PARAMETERS
N_FRESH = 3


def _softmax_cases(rng):
    """Fresh scores around +-1000: np.exp overflows (or underflows to 0/0) on every entry without the shift.

    Stability is what this part grades, so there is no book case here (the book's
    scores are small, and a naive softmax gets them right).
    """
    out = []
    for _ in range(N_FRESH + 1):
        rows, cols = int(rng.choice((2, 3, 4, 5, 6))), int(rng.choice((1, 2, 3, 4, 5)))
        centre = rng.choice((-1000.0, 1000.0), size=(1, cols))  # one sign per column
        scores = centre + rng.normal(scale=3.0, size=(rows, cols))
        out.append(Case("fresh", {"data_in": scores}, about=f"{rows}x{cols} scores near +-1000"))
    return out


def _attention_cases(rng):
    book = Case("book", cases.only(cases.book_12_1(), ("X",) + PARAMS))
    fresh = []
    for _ in range(N_FRESH):
        i = cases.fresh_12_1(rng)
        fresh.append(Case("fresh", cases.only(i, ("X",) + PARAMS), about=f"D={i['D']}, N={i['N']}"))
    return [book] + fresh


PROBES = {
    "test_softmax_cols": Probe(
        what="softmax_cols",
        call="softmax_cols(data_in)",
        cases=_softmax_cases,
        reference=lambda i: ref.softmax_cols(i["data_in"]),
        mistakes=[mistakes.SOFTMAX_OVERFLOWS, mistakes.SOFTMAX_COLS_ROWS],
    ),
    "test_scaled_attention": Probe(
        what="scaled_dot_product_self_attention",
        call="scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)",
        cases=_attention_cases,
        reference=lambda i: ref.scaled_dot_product_self_attention(*(i[n] for n in ("X",) + PARAMS)),
        mistakes=mistakes.SCALED_ATTENTION,
    ),
}


# ---------------------------------------------------------------- generated cells

def _softmax_large():
    scores = np.array([[1000.0, 3.0], [999.0, 1.0], [998.0, 2.0]])  # the overflow demo's scores
    i = {"data_in": scores}
    return {"large_scores": scores, "large_scores_true": ref.softmax_cols(scores),
            "softmax_mistakes": {m.said: m.compute(i) for m in (mistakes.SOFTMAX_OVERFLOWS, mistakes.SOFTMAX_COLS_ROWS)}}


def _scaled_book():
    i = cases.book_12_1()
    shown = [m for m in mistakes.SCALED_ATTENTION if m is not mistakes.GLOBAL_D]  # right on the book's case
    return {"X_prime_scaled_true": ref.scaled_dot_product_self_attention(*(i[n] for n in ("X",) + PARAMS)),
            "scaled_mistakes": {m.said: m.compute(i) for m in shown}}


VALUES = {
    "softmax_large": _softmax_large,
    "scaled_book": _scaled_book,
}
