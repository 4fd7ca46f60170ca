"""Notebook 04, multi-head self-attention (book notebook 12.2; figure 12.6): probes and check values."""
import numpy as np

from . import cases, mistakes, reference as ref, views
from ..shared import cases as shared_cases, reference as shared_ref, steps as shared_steps
from ...engine.protocol import Case, Probe, kernel_source

NAMES = shared_cases.PARAMETERS  # omega_v, omega_q, omega_k, beta_v, beta_q, beta_k
N_FRESH = 3
HEAD_SIZES = (2, 3, 5)  # D = H * head size, never the book's 8, and the head size never the book's 4
FRESH_N = (3, 4, 5, 7)


def _fresh(rng, H):
    """Inputs of another size with H heads, as the general version takes them (lists per head).

    The head size is never H (dividing by it would equal dividing by sqrt(D)) and D is never
    the book's 8; N is neither D nor the head size, so no two mistakes meet by coincidence.
    """
    head = int(rng.choice([h for h in HEAD_SIZES if h * H != 8 and h != H]))
    return _fresh_of(rng, H, head, int(rng.choice([n for n in FRESH_N if n not in (H * head, head)])))


def _fresh_of(rng, H, head, N):
    """H heads of size `head`, N tokens, drawn from `rng`."""
    D = H * head
    out = {"X": rng.normal(size=(D, N)), "omega_c": rng.normal(size=(D, D))}
    for name in NAMES:
        size = (head, D) if name.startswith("omega") else (head, 1)
        # Queries and keys of D features drawn at 1/sqrt(D): their scaled dot products stay of order one,
        # so no head's softmax saturates into weights that a wrong query or key would not change
        # (tests/test_steps.py: every step must move the result on every case drawn).
        scale = 1 / np.sqrt(D) if name in ("omega_q", "omega_k") else 1.0
        out[mistakes.plural(name)] = [rng.normal(size=size) * scale for _ in range(H)]
    return out, f"D={D}, N={N}, H={H}"


def _as_two_heads(lists):
    """The general inputs of two heads as the book's 14 arguments."""
    out = {"X": lists["X"], "omega_c": lists["omega_c"]}
    for name in NAMES:
        out[f"{name}1"], out[f"{name}2"] = lists[mistakes.plural(name)]
    return out


def _head_cases(rng):
    book = cases.book_12_2()
    out = [Case("book", {"X": book["X"], **{n: book[f"{n}1"] for n in ("omega_q", "omega_k", "beta_q", "beta_k")}})]
    # Never the book's two heads, so a head size taken as D / 2 (the book's) is wrong on every fresh input; three
    # and four both, so what a size written into the code gives changes from one fresh input to the next
    for H in rng.permutation((3, 4, int(rng.choice((3, 4)))))[:N_FRESH]:
        lists, about = _fresh(rng, int(H))
        head = {n: lists[mistakes.plural(n)][0] for n in ("omega_q", "omega_k", "beta_q", "beta_k")}
        out.append(Case("fresh", {"X": lists["X"], **head},
                        about=about.rsplit(",", 1)[0] + f", head size {head['omega_q'].shape[0]}"))
    return out


def _two_head_cases(rng):
    book = cases.book_12_2()
    out = [Case("book", {k: book[k] for k in ["X", "omega_c"] + [f"{n}{h}" for h in (1, 2) for n in NAMES]})]
    for _ in range(N_FRESH):
        lists, about = _fresh(rng, 2)
        out.append(Case("fresh", _as_two_heads(lists), about=about))
    return out


def _general_cases(rng):
    out = [Case("book", mistakes.two_heads(cases.book_12_2()))]
    for H in rng.permutation((2, 3, 4))[:N_FRESH]:
        lists, about = _fresh(rng, int(H))
        out.append(Case("fresh", lists, about=about))
    return out


def _multihead_reference(i):
    lists = i if "omegas_v" in i else mistakes.two_heads(i)
    heads = list(zip(*(lists[mistakes.plural(n)] for n in NAMES)))
    return ref.multihead_self_attention(lists["X"], heads, lists["omega_c"])


def _multihead_steps(i):
    lists = i if "omegas_v" in i else mistakes.two_heads(i)
    heads = list(zip(*(lists[mistakes.plural(n)] for n in NAMES)))
    return shared_steps.multihead_12_1(lists["X"], heads, lists["omega_c"])


TWO_HEADS = ", ".join(f"{n}{h}" for h in (1, 2) for n in NAMES)

PROBES = {
    "test_attention_weights": Probe(
        what="attention_weights",
        operations=("dot products", "bias"),
        axes=("keys", "queries"),
        call="attention_weights(X, omega_q, omega_k, beta_q, beta_k)",
        cases=_head_cases,
        reference=lambda i: ref.head_attention_weights(i["X"], i["omega_q"], i["omega_k"], i["beta_q"], i["beta_k"]),
        steps=lambda i: [s for s in shared_steps.attention_12_1(dict(i, omega_v=i["omega_q"], beta_v=i["beta_q"]),
                                                                scale=True, output=False) if s.name != "values"],
        kernel_reference=kernel_source("attention_weights", ref.head_attention_weights, shared_ref.softmax_cols),
        mistakes=mistakes.HEAD_WEIGHTS,
    ),
    "test_multihead": Probe(
        what="multihead_scaled_self_attention",
        operations=("dot products", "bias"),
        axes=("features", "tokens"), views=(views.HEADS_04,),
        call=f"multihead_scaled_self_attention(X, {TWO_HEADS}, omega_c)",
        cases=_two_head_cases,
        reference=_multihead_reference,
        steps=_multihead_steps,
        uses={"attention_weights": "test_attention_weights"},
        mistakes=mistakes.MULTIHEAD,
    ),
    "test_multihead_general": Probe(
        what="multihead_self_attention",
        operations=("dot products", "bias"),
        axes=("features", "tokens"), views=(views.HEADS_04,),
        call="multihead_self_attention(X, omegas_v, omegas_q, omegas_k, betas_v, betas_q, betas_k, omega_c)",
        cases=_general_cases,
        reference=_multihead_reference,
        steps=_multihead_steps,
        uses={"attention_weights": "test_attention_weights"},
        mistakes=mistakes.MULTIHEAD_GENERAL,
    ),
}


# ---------------------------------------------------------------- generated cells

def _head_weights_book():
    case = _head_cases(np.random.default_rng(0))[0].inputs
    return {"head1_attention_true": PROBES["test_attention_weights"].reference(case),
            "head_mistakes": {m.said: m.compute(case) for m in mistakes.HEAD_WEIGHTS}}


def _multihead_book():
    book = cases.book_12_2()
    return {"X_prime_multihead_true": _multihead_reference(book),
            "multihead_mistakes": {m.said: m.compute(book) for m in mistakes.MULTIHEAD if m.compute}}


def _multihead_three_heads():
    """The general version's second example: 3 heads of size 2 (D=6, N=4), the true X' and the mistakes' X'."""
    lists, _ = _fresh_of(np.random.default_rng(2024), H=3, head=2, N=4)
    shown = {}
    for m in mistakes.MULTIHEAD_GENERAL:
        try:
            shown[m.said] = m.compute(lists)
        except Exception:  # raises on three heads, as the student's code does: the check shows the error
            continue
    return {**{f"{name}_3": value for name, value in lists.items()},
            "X_prime_3_heads_true": _multihead_reference(lists),
            "three_heads_mistakes": shown}


VALUES = {
    "head_weights_book": _head_weights_book,
    "multihead_book": _multihead_book,
    "multihead_three_heads": _multihead_three_heads,
}
