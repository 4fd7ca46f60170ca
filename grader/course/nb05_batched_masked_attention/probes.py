"""Notebook 05, batched masked multi-head attention (row convention, d2l 11.3-11.5): probes and check values."""
import numpy as np

from . import cases, mistakes, readings, reference as ref
from ..shared import cases as shared_cases, reference as shared_ref, steps as shared_steps, views as shared_views
from ...engine.protocol import Case, Probe, Step, Trait, kernel_source

N_FRESH = 3
SHOWN = 8  # the visible checks compare the first 8 features of the (B, T, 100) outputs
WEIGHTS = ("W_q", "W_k", "W_v", "W_o", "b_q", "b_k", "b_v", "b_o")

# The class built with the grader's weights: the constructor runs, then every weight is overwritten.
MHA_CALL = ("(lambda m: [setattr(m, name, w) for name, w in zip(" + repr(WEIGHTS) + ", ("
            + ", ".join(WEIGHTS) + "))] and m.forward(queries, keys, values, valid_lens))"
            "(MultiHeadAttention(num_hiddens, num_heads, bias=True))")


def _mha_reference(i):
    return shared_ref.multi_head_attention(i["queries"], i["keys"], i["values"], i["valid_lens"], i["num_heads"],
                                    *(i[n] for n in WEIGHTS))


def _mha_steps(i):
    return shared_steps.rows_attention(i["queries"], i["keys"], i["values"], i["valid_lens"], i["num_heads"],
                                       *(i[n] for n in WEIGHTS))


def _shared_kv_steps(i):
    return shared_steps.loop_heads(i["q"], i["k"], i["v"], i["H"], i["proj"])


def _about_mha(i, mask):
    B, Tq, _ = i["queries"].shape
    about = f"B={B}, {Tq} queries, {i['keys'].shape[1]} keys, {i['num_heads']} heads"
    if mask in ("lengths", "empty"):
        about += f", valid_lens {i['valid_lens'].tolist()}"
    if mask == "empty":
        about += ": a sequence with no valid key"
    if mask.startswith("causal"):
        about += f", {mask} valid_lens (B, T)"
    return about + (", with biases" if np.any(i["b_q"]) else "")


# Said when a part is wrong on exactly the inputs with a length per query (code made for one per sequence)
PER_QUERY = Trait("valid_lens gives one length per query (B, Tq)", "valid_lens gives one length per sequence (B,)",
                  note="valid_lens may be either, as the notebook says")


def _mha_cases(rng):
    """The seed's cross-attention (lengths [3, 2], no bias), then fresh sizes with all-different lengths."""
    book = Case("book", cases.book_05())
    fresh = []
    for self_attention, bias in ((False, True), (True, True), (False, False)):
        i = cases.fresh_05(rng, "lengths", self_attention, bias)
        fresh.append(Case("fresh", i, about=_about_mha(i, "lengths")))
    return [book] + fresh


def _mask_cases(rng):
    """Fresh only: an empty sequence (valid length 0) first, then causal masks (2-D valid_lens)."""
    out = []
    for mask, self_attention, bias in (("empty", False, True), ("causal", True, True),
                                       ("empty", True, False), ("causal padded", True, True)):
        i = cases.fresh_05(rng, mask, self_attention, bias)
        out.append(Case("fresh", i, about=_about_mha(i, mask), traits={PER_QUERY: np.ndim(i["valid_lens"]) == 2}))
    return out


def _softmax_cases(rng):
    """d2l's example with one length per sequence (the notebook shows the rest), then fresh ones, each with a 0."""
    book = [Case("book", cases.book_05_softmax()[0], traits={PER_QUERY: False})]
    fresh = []
    for per_query in (False, True, False, True):
        i = cases.fresh_05_softmax(rng, per_query)
        fresh.append(Case("fresh", i, about=f"scores {i['scores'].shape}, valid_lens {i['valid_lens'].tolist()}",
                          traits={PER_QUERY: np.ndim(i["valid_lens"]) == 2}))
    return book + fresh


def _small_split():
    """A batch small enough to read: 2 sequences of 3 tokens with 4 features 0..23, 2 heads."""
    return np.arange(24.0).reshape(2, 3, 4), 2


def _split_cases(rng):
    X, H = _small_split()
    out = [Case("book", {"X": X, "num_heads": H})]
    for _ in range(N_FRESH):
        B, T, H, d = int(rng.choice((2, 3))), int(rng.choice((4, 5))), int(rng.choice((2, 3, 4))), int(rng.choice((2, 3)))
        out.append(Case("fresh", {"X": rng.normal(size=(B, T, H * d)), "num_heads": H},
                        about=f"X {(B, T, H * d)}, {H} heads"))
    return out


def _merge_cases(rng):
    X, H = _small_split()
    out = [Case("book", {"X": shared_ref.transpose_qkv(X, H), "num_heads": H})]
    for _ in range(N_FRESH):
        B, T, H, d = int(rng.choice((2, 3))), int(rng.choice((4, 5))), int(rng.choice((2, 3, 4))), int(rng.choice((2, 3)))
        out.append(Case("fresh", {"X": rng.normal(size=(B * H, T, d)), "num_heads": H},
                        about=f"X {(B * H, T, d)}, {H} heads"))
    return out


def _loop_cases(rng):
    out = [Case("book", cases.book_05_loop())]
    for _ in range(N_FRESH):
        i = cases.fresh_05_loop(rng)
        out.append(Case("fresh", i, about=f"q {i['q'].shape}, k and v {i['k'].shape}, H={i['H']} heads"))
    return out


def _init_steps(i):
    """init_weight's standard deviation (a number), then the weights drawn with it."""
    std = shared_steps._v("standard deviation", 1.0 / np.sqrt(i["fan_in"]))
    W = shared_steps._v("result", init_reference(i))
    return [Step("standard deviation", "1 / np.sqrt(fan_in)", std, (), ()),
            Step("result", "rng.normal(0.0, the standard deviation, size=(fan_in, fan_out))", W,
                 ("rows", "columns"))]


# init_weight is called twice with one generator, and the second call's weights are marked: each call must
# draw from the generator it is given and leave it moved on, as rng.normal does (round 9's attempts to game the
# grader: one that drew the right weights, then set the generator's state back, was right on any single call).
INIT_CALL = ("(__import__('numpy').random.seed(seed), (lambda r: [init_weight(fan_in, fan_out, r) "
             f"for _ in range({ref.INIT_DRAWS})][-1])(np.random.default_rng(seed)))[1]")


def init_reference(i):
    """The weights the last of the probe's calls with one generator gives."""
    rng = np.random.default_rng(i["seed"])
    for _ in range(i.get("draws", ref.INIT_DRAWS)):
        W = ref.init_weight(i["fan_in"], i["fan_out"], rng)
    return W


def _init_cases(rng):
    out = [Case("book", {"fan_in": 4, "fan_out": 3, "seed": 0})]
    for _ in range(N_FRESH):
        fan_in = int(rng.integers(5, 13))
        fan_out = int(rng.choice([n for n in range(2, 13) if n != fan_in]))
        out.append(Case("fresh", {"fan_in": fan_in, "fan_out": fan_out, "seed": int(rng.integers(2**31))},
                        about=f"fan_in={fan_in}, fan_out={fan_out}"))
    return out


def _about_masks(i):
    return (f"valid_lens {i['valid_lens'].tolist()} of {i['num_keys']} keys, causal mask of "
            f"{i['num_queries']} queries")


def _boolean_masks_cases(rng):
    """d2l's sizes (lengths [2, 3] of 4 keys, 2 queries), then fewer queries than keys, more, and as many."""
    out = [Case("book", cases.book_05_masks())]
    for shape in ("wide", "tall", "square"):
        i = cases.fresh_05_masks(rng, shape)
        out.append(Case("fresh", i, about=_about_masks(i)))
    return out


def _boolean_mask_steps(i):
    """The two masks, each computed from the inputs alone (neither from the other). Nothing before them is
    common to every right answer: np.arange(num_keys) and an array of True are the notebook's way, a loop
    that sets True where j < valid_lens[b] (or j <= t) is another, so each mask is its own only step."""
    return [Step("key padding mask", "np.arange(num_keys) < valid_lens[:, None, None], (B, 1, Tk)",
                 ref.key_padding_mask(i["valid_lens"], i["num_keys"]), ("items", "queries", "keys"), ()),
            Step("causal mask", "np.tril of a (Tq, Tk) array of True: query t sees keys 0..t",
                 ref.causal_mask(i["num_queries"], i["num_keys"]), ("queries", "keys"), ())]


def _bool_softmax_cases(rng):
    """d2l's scores with the padding mask of lengths [3, 0] and with the causal mask, then fresh scores with a
    padding mask (lengths 0 and Tk among them), causal masks of more and of fewer queries than keys, and both."""
    out = [Case("book", i) for i in cases.book_05_bool_softmax()]
    for kind in ("padding", "causal tall", "causal wide", "both"):
        i = cases.fresh_05_bool_softmax(rng, kind)
        out.append(Case("fresh", i, about=f"scores {i['scores'].shape}, {kind} mask {i['mask'].shape}"))
    return out


# MultiHeadAttention.forward calls three graded functions of the student's.
MHA_USES = {"masked_softmax": "test_masked_softmax", "transpose_qkv": "test_transpose_qkv",
            "transpose_output": "test_transpose_output"}

PROBES = {
    "test_masked_softmax": Probe(
        what="masked_softmax",
        operations=("mask",),
        axes=("sequences", "queries", "keys"),
        call="masked_softmax(scores, valid_lens)",
        cases=_softmax_cases,
        reference=lambda i: shared_ref.masked_softmax(i["scores"], i["valid_lens"]),
        # The value a masked score gets is the student's choice: only the result is a step.
        steps=lambda i: [Step("weights", "the masked softmax over the keys",
                              shared_ref.masked_softmax(i["scores"], i["valid_lens"]), ("items", "queries", "keys"))],
        kernel_reference=kernel_source("masked_softmax", shared_ref.masked_softmax, f"MASK_VALUE = {ref.MASK_VALUE!r}",
                                       shared_ref.softmax_cols, shared_ref.softmax_rows, shared_ref.sequence_mask),
        mistakes=mistakes.MASKED_SOFTMAX_05,
    ),
    "test_loop_heads": Probe(
        what="the loop over heads",
        axes=("sequences", "queries", "features"),
        cell="loop_heads",
        outputs=("attention",),
        from_kernel=("softmax", "masked_softmax"),
        cases=_loop_cases,
        reference=lambda i: [ref.multihead_shared_kv(i["q"], i["k"], i["v"], i["H"], i["proj"])],
        steps=_shared_kv_steps,
        mistakes=[mistakes.HEAD_SCALED_BY_E],
    ),
    "test_transpose_qkv": Probe(
        what="transpose_qkv",
        operations=(),
        axes=("(sequence, head) pairs", "positions", "features"),
        call="transpose_qkv(X, num_heads)",
        cases=_split_cases,
        reference=lambda i: shared_ref.transpose_qkv(i["X"], i["num_heads"]),
        steps=lambda i: shared_steps.split_heads_rows(i["X"], i["num_heads"]),
        kernel_reference=kernel_source("transpose_qkv", shared_ref.transpose_qkv),
        mistakes=[mistakes.SPLIT_NO_TRANSPOSE],
    ),
    "test_transpose_output": Probe(
        what="transpose_output",
        operations=(),
        axes=("sequences", "positions", "features"),
        call="transpose_output(X, num_heads)",
        cases=_merge_cases,
        reference=lambda i: shared_ref.transpose_output(i["X"], i["num_heads"]),
        steps=lambda i: shared_steps.merge_heads_rows(i["X"], i["num_heads"]),
        kernel_reference=kernel_source("transpose_output", shared_ref.transpose_output),
        mistakes=[mistakes.MERGE_NO_TRANSPOSE],
    ),
    "test_init_weight": Probe(
        what="init_weight",
        operations=(),
        # np.random is seeded first, so that weights drawn from it (not from rng) can be reproduced and named
        call=INIT_CALL,
        cases=_init_cases,
        steps=_init_steps,
        readings=(readings.init_draws,),  # the weights read as the generator's draws, shifted and scaled
        reference=init_reference,
        mistakes=mistakes.INIT_05,
    ),
    "test_mha": Probe(
        what="MultiHeadAttention.forward",
        axes=("sequences", "queries", "features"), views=(shared_views.HEADS_ROWS, shared_views.WEIGHTS_ROWS),
        call=MHA_CALL,
        cases=_mha_cases,
        steps=_mha_steps,
        reference=_mha_reference,
        uses=MHA_USES,
        # every valid length here is at least 1, where masking with -inf is right: test_mha_masks names it
        mistakes=[m for m in mistakes.MHA_05 if m.name != mistakes.MASK_NEG_INF.name],
    ),
    "test_mha_masks": Probe(
        what="MultiHeadAttention.forward with an empty sequence or a causal mask",
        axes=("sequences", "queries", "features"), views=(shared_views.HEADS_ROWS, shared_views.WEIGHTS_ROWS),
        call=MHA_CALL,
        cases=_mask_cases,
        steps=_mha_steps,
        reference=_mha_reference,
        uses=MHA_USES,
        mistakes=mistakes.MHA_05,
    ),
    "test_boolean_masks": Probe(
        what="key_padding_mask and causal_mask",
        operations=("mask",),
        call="[key_padding_mask(valid_lens, num_keys), causal_mask(num_queries, num_keys)]",
        outputs=("key_padding_mask", "causal_mask"),  # what the verdict calls the two results
        cases=_boolean_masks_cases,
        reference=lambda i: [ref.key_padding_mask(i["valid_lens"], i["num_keys"]),
                             ref.causal_mask(i["num_queries"], i["num_keys"])],
        exact_shape=True,  # (B, 1, Tk) and (Tq, Tk): the axis of length 1 is what makes the mask broadcast
        steps=_boolean_mask_steps,
        mistakes=mistakes.BOOLEAN_MASKS_05,
    ),
    "test_masked_softmax_bool": Probe(
        what="masked_softmax_bool",
        operations=("mask",),
        axes=("sequences", "queries", "keys"),
        call="masked_softmax_bool(scores, mask)",
        cases=_bool_softmax_cases,
        reference=lambda i: ref.masked_softmax_bool(i["scores"], i["mask"]),
        steps=lambda i: [Step("weights", "the softmax over the keys where the mask is True",
                              ref.masked_softmax_bool(i["scores"], i["mask"]), ("items", "queries", "keys"))],
        mistakes=mistakes.MASKED_SOFTMAX_BOOL_05,
    ),
}


# ---------------------------------------------------------------- generated cells

def _differing(shown, inputs, true, keep=lambda a: a, index=None):
    """{what a check says: the mistake's value} for the mistakes that can be made here and give another answer."""
    out = {}
    for m in shown:
        try:
            value = m.compute(inputs)
        except Exception:  # a mistake that cannot be made on these inputs (e.g. a shape that does not fit)
            continue
        value = keep(np.asarray(value[index] if index is not None else value, dtype=float))
        if value.shape != np.shape(true) or not np.allclose(value, true):
            out[m.said] = value
    return out


def _book_12_1():
    i = shared_cases.book_12_1()
    out = {"X_book": i["X"]}
    out.update({n: i[n] for n in ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")})
    out["X_prime_book_true"] = shared_ref.scaled_dot_product_self_attention(i["X"], *(i[n] for n in shared_cases.PARAMETERS))
    return out


def _masked_softmax_values():
    books = cases.book_05_softmax()
    scores = books[0]["scores"]
    out = {"scores_example": scores}
    shown = mistakes.MASKED_SOFTMAX_05
    for name, lens in (("lengths", books[0]["valid_lens"]), ("per_query", books[1]["valid_lens"]),
                       ("empty", np.array([3, 0]))):
        i = {"scores": scores, "valid_lens": lens}
        true = shared_ref.masked_softmax(scores, lens)
        out[f"masked_{name}_true"] = true
        out[f"masked_{name}_mistakes"] = _differing(shown, i, true)
    return out


def _transpose_values():
    X, H = _small_split()
    split = shared_ref.transpose_qkv(X, H)
    # A second batch whose sizes all differ (B=2, T=4, H=3, d=5): on X_small, H = d = 2, and a reshape
    # that swaps the head count with the head size goes unnoticed there.
    X_other = np.arange(120.0).reshape(2, 4, 15)
    return {"X_small": X, "X_small_split_true": split,
            "X_other": X_other, "X_other_split_true": shared_ref.transpose_qkv(X_other, 3),
            "split_mistakes": {mistakes.SPLIT_NO_TRANSPOSE.said: mistakes.SPLIT_NO_TRANSPOSE.compute({"X": X, "num_heads": H})},
            "merge_mistakes": {mistakes.MERGE_NO_TRANSPOSE.said: mistakes.MERGE_NO_TRANSPOSE.compute({"X": split, "num_heads": H})}}


def _loop_values():
    i = cases.book_05_loop()
    true = ref.multihead_shared_kv(i["q"], i["k"], i["v"], i["H"], i["proj"])
    return {"attention_loop_true": true,
            "loop_mistakes": _differing([mistakes.HEAD_SCALED_BY_E], i, true, index=0)}


def _init_values():
    i = {"fan_in": 4, "fan_out": 3, "seed": 0, "draws": 1}  # the check seeds np.random with 0 too, as the probe does
    true = ref.init_weight(4, 3, np.random.default_rng(0))
    return {"init_weight_true": true, "init_mistakes": _differing(mistakes.INIT_05, i, true)}


def _mha_values():
    i = cases.book_05()
    first = lambda a: a[:, :, :SHOWN]  # noqa: E731
    out = {}
    padded = dict(i, valid_lens=np.array([3, 0]))
    for name, case in (("output", i), ("output_padded", padded)):
        true = first(_mha_reference(case))
        out[f"{name}_true"] = true
        out[f"{name}_mistakes"] = _differing(mistakes.MHA_05, case, true, keep=first)
    # The second example, of other sizes (10 hiddens, 2 heads, biases): cross-attention, then causal self-attention
    small = cases.small_05()
    X = small["queries"]
    small_causal = dict(small, keys=X, values=X, valid_lens=shared_ref.causal_valid_lens(*X.shape[:2]))
    out["small_inputs"] = {n: small[n] for n in ("queries", "keys", "values", "valid_lens")}
    out["small_weights"] = {n: small[n] for n in WEIGHTS}
    for name, case in (("output_small", small), ("output_small_causal", small_causal)):
        true = _mha_reference(case)
        out[f"{name}_true"] = true
        out[f"{name}_mistakes"] = _differing(mistakes.MHA_05, case, true)
    return out


def _boolean_masks_values():
    """The checks of section 8: the masks of d2l's sizes and of 4 queries against 3 keys, then
    masked_softmax_bool on d2l's scores with the course's masks (so a wrong mask of yours does not spread)."""
    out = {}
    for name, i in (("book", cases.book_05_masks()),
                    ("other", dict(valid_lens=np.array([0, 3, 1]), num_queries=4, num_keys=3))):
        true = [ref.key_padding_mask(i["valid_lens"], i["num_keys"]), ref.causal_mask(i["num_queries"], i["num_keys"])]
        out[f"padding_{name}_true"] = true[0]
        out[f"padding_{name}_mistakes"] = _differing(mistakes.BOOLEAN_MASKS_05, i, true[0], index=0)
        out[f"causal_{name}_true"] = true[1]
        out[f"causal_{name}_mistakes"] = _differing(mistakes.BOOLEAN_MASKS_05, i, true[1], index=1)
    padded, causal = cases.book_05_bool_softmax()
    out["scores_masks"] = padded["scores"]  # d2l's scores again: a masked_softmax that wrote into scores_example did not reach these
    out["mask_padded_example"] = padded["mask"]  # key_padding_mask(np.array([3, 0]), 4), (2, 1, 4)
    out["mask_causal_example"] = causal["mask"]  # causal_mask(2, 4), (2, 4)
    for name, i in (("padded", padded), ("causal", causal)):
        true = ref.masked_softmax_bool(i["scores"], i["mask"])
        out[f"bool_{name}_true"] = true
        out[f"bool_{name}_mistakes"] = _differing(mistakes.MASKED_SOFTMAX_BOOL_05, i, true)
    return out


VALUES = {
    "n05_book_12_1": _book_12_1,
    "n05_masked_softmax": _masked_softmax_values,
    "n05_transpose": _transpose_values,
    "n05_loop": _loop_values,
    "n05_init": _init_values,
    "n05_mha": _mha_values,
    "n05_boolean_masks": _boolean_masks_values,
}
