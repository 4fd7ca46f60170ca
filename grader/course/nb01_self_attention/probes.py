"""Notebook 01, self-attention (book 12.1, first half): its probes and the values its checks show."""
import numpy as np

from . import mistakes, reference as ref, views
from ..shared import cases as shared_cases, reference as shared_ref, steps as shared_steps, views as shared_views
from ...engine.protocol import Case, Probe, Step, Trait, kernel_source

PARAMS = shared_cases.PARAMETERS
N_FRESH = 3


def _inputs(rng):
    """The book's case, then fresh cases of other sizes."""
    book = Case("book", shared_cases.book_12_1())
    fresh = []
    for _ in range(N_FRESH):
        i = shared_cases.fresh_12_1(rng)
        fresh.append(Case("fresh", i, about=f"D={i['D']}, N={i['N']}"))
    return [book] + fresh


def _with(names, extra=None):
    """Cases that pass on `names` (plus what `extra` derives from the full inputs)."""
    def make(rng):
        out = []
        for c in _inputs(rng):
            inputs = shared_cases.only(c.inputs, names)
            inputs.update(extra(c.inputs) if extra else {})
            out.append(Case(c.label, inputs, c.about))
        return out
    return make


def _qkv(i):
    return [[w @ x + b for x in i["all_x"]] for w, b in
            ((i["omega_q"], i["beta_q"]), (i["omega_k"], i["beta_k"]), (i["omega_v"], i["beta_v"]))]


# Said when a softmax is wrong on exactly the inputs of one form
DOT_PRODUCTS = Trait("items_in is a list of 1 x 1 dot products (as the loop calls it)", "items_in is a flat array",
                     note="the softmax is over all the numbers it is given, whatever their shape")


def _softmax_cases(rng):
    book = shared_cases.book_12_1()
    queries, keys, _ = _qkv(book)
    dots = [k.T @ queries[0] for k in keys]  # the book's first call: a list of (1, 1) arrays
    # Both forms the notebook gives it, fresh: a flat array (its own check) and a list of (1, 1) dot products
    # (the loop's call, the book's case), the third either; a softmax right on one form only is right on some.
    forms = ["flat", "dot products", ("flat", "dot products")[int(rng.integers(2))]]
    fresh = []
    for form, n in zip(forms, rng.choice((2, 4, 5, 6, 7), size=N_FRESH)):
        x = rng.normal(scale=2.0, size=int(n))
        listed = form == "dot products"
        fresh.append(Case("fresh", {"items_in": [v.reshape(1, 1) for v in x] if listed else x},
                          about=f"{len(x)} dot products, each 1 x 1" if listed else f"{len(x)} numbers",
                          traits={DOT_PRODUCTS: listed}))
    return [Case("book", {"items_in": dots}, traits={DOT_PRODUCTS: True})] + fresh


def _loop_inputs(i):
    queries, keys, values = _qkv(i)
    return {"all_queries": queries, "all_keys": keys, "all_values": values}


PROBES = {
    "test_qkv_loop": Probe(
        what="queries, keys and values",
        operations=("bias", "loop"),
        axes=("tokens", "features"),
        cell="qkv_loop",
        outputs=("all_queries", "all_keys", "all_values"),
        cases=_with(("N", "D", "all_x") + PARAMS),
        reference=_qkv,
        steps=shared_steps.qkv_columns,
        mistakes=[mistakes.QKV_BIAS_LEFT_OUT, mistakes.QK_WEIGHTS_SWAPPED],
    ),
    "test_softmax": Probe(
        what="softmax",
        operations=("loop",),
        call="softmax(items_in)",
        cases=_softmax_cases,
        reference=lambda i: shared_ref.softmax(i["items_in"]),
        # A student may shift before np.exp or not: the exponentials are no step every right answer has.
        steps=lambda i: [Step("softmax", "np.exp(items_in) / the sum of the exponentials",
                              shared_ref.softmax(i["items_in"]), ())],
        kernel_reference=kernel_source("softmax", shared_ref.softmax),
        mistakes=[mistakes.SOFTMAX_NOT_NORMALISED],
    ),
    "test_attention_loop": Probe(
        what="the loop of dot products and weighted sums",
        operations=("dot products", "loop"),
        axes=("tokens", "features"), views=(views.WEIGHTS_LOOP,),
        cell="attention_loop",
        outputs=("all_x_prime",),
        from_kernel=("softmax",),
        uses={"softmax": "test_softmax"},
        cases=_with(("N", "D"), extra=_loop_inputs),
        reference=lambda i: [ref.attention_loop(i["all_queries"], i["all_keys"], i["all_values"])],
        steps=lambda i: shared_steps.attention_columns(i["all_queries"], i["all_keys"], i["all_values"]),
        mistakes=[mistakes.KEYS_WEIGHTED],
    ),
    "test_self_attention": Probe(
        what="self_attention",
        operations=("dot products", "bias"),
        axes=("features", "tokens"), views=(shared_views.WEIGHTS_01,),
        call="self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)",
        cases=_with(("X",) + PARAMS),
        reference=lambda i: ref.self_attention(*(i[n] for n in ("X",) + PARAMS)),
        steps=shared_steps.attention_12_1,
        mistakes=mistakes.SELF_ATTENTION,
    ),
}


# ---------------------------------------------------------------- generated cells

def _qkv_book():
    i = shared_cases.book_12_1()
    V, Q, K = shared_ref.queries_keys_values(i["X"], *(i[n] for n in shared_cases.PARAMETERS))
    # Each mistake's queries, keys and values on the book's inputs, one column per token
    shown = {m.said: [np.hstack(vs) for vs in m.compute(i)]
             for m in (mistakes.QKV_BIAS_LEFT_OUT, mistakes.QK_WEIGHTS_SWAPPED)}
    out = {"queries_true": Q, "keys_true": K, "values_true": V}
    for k, name in enumerate(("queries", "keys", "values")):  # a mistake is shown where it changes the result
        out[f"{name}_mistakes"] = {said: qkv[k] for said, qkv in shown.items()
                                   if not np.allclose(qkv[k], out[f"{name}_true"])}
    return out


def _softmax_example():
    items = np.array([-1.0, 0.0, 2.5, 1.0])
    return {"softmax_example": items, "softmax_example_true": shared_ref.softmax(items),
            "NOT_NORMALISED": mistakes.SOFTMAX_NOT_NORMALISED.said,
            "softmax_not_normalised": mistakes.SOFTMAX_NOT_NORMALISED.compute({"items_in": items})}


def _self_attention_book():
    i = shared_cases.book_12_1()
    out = {"X_prime_true": ref.self_attention(i["X"], *(i[n] for n in shared_cases.PARAMETERS)),
           "keys_weighted": np.hstack(mistakes.KEYS_WEIGHTED.compute(_loop_inputs(i))[0]),
           "KEYS_WEIGHTED": mistakes.KEYS_WEIGHTED.said}
    # The mistakes whose result has the right shape (a check names only those)
    out["self_attention_mistakes"] = {m.said: m.compute(i) for m in mistakes.SELF_ATTENTION
                                      if np.shape(m.compute(i)) == np.shape(i["X"])}
    return out


def _self_attention_other():
    """The second example: inputs of other sizes (D=5, N=3), the true X' and the mistakes' X'."""
    i = shared_cases.other_12_1()
    return {**{f"{name}_other": i[name] for name in ("X",) + PARAMS},
            "X_prime_other_true": ref.self_attention(i["X"], *(i[n] for n in PARAMS)),
            "other_mistakes": {m.said: m.compute(i) for m in mistakes.SELF_ATTENTION
                               if np.shape(m.compute(i)) == np.shape(i["X"])}}


VALUES = {
    "qkv_book": _qkv_book,
    "softmax_example": _softmax_example,
    "self_attention_book": _self_attention_book,
    "self_attention_other": _self_attention_other,
}
