"""Notebook 08, the transformer block (the book's section 12.4, row convention): probes and check values."""
import numpy as np

from . import cases, mistakes, reference as ref
from ..shared import steps as shared_steps
from ...engine.protocol import Case, Probe, Step, Trait, kernel_source

N_FRESH = 3

# The block's parameters as the dict the student's transformer_block takes, built in the kernel from the inputs.
PARAMS = "dict(" + ", ".join(f"{n}={n}" for n in ref.BLOCK_PARAMETERS) + ")"


def _layer_norm_cases(rng):
    """The notebook's example, then fresh sizes; the last with eps=1e-3 (the argument must be used), the others
    with the default eps (1e-5), as the block calls it."""
    out = [Case("book", cases.book_08_layer_norm(), traits={DEFAULT_EPS: True})]
    for eps in (1e-5, 1e-5, 1e-3):
        i = cases.fresh_08_layer_norm(rng, eps)
        out.append(Case("fresh", i, about=f"x {i['x'].shape}, eps={eps:g}", traits={DEFAULT_EPS: eps == 1e-5}))
    return out


DEFAULT_EPS = Trait("eps is left to its default (layer_norm(x, gamma, beta), as transformer_block calls it)",
                    "eps=1e-3 is passed", note="the notebook's def gives eps the default 1e-5")


def _mlp_cases(rng):
    """The notebook's example (T = D = 4), then fresh sizes: one with T = D, two with T != D."""
    out = [Case("book", cases.book_08_mlp())]
    for square in (True, False, False):
        i = cases.fresh_08_mlp(rng, square)
        out.append(Case("fresh", i, about=f"x {i['x'].shape}, D_ff={i['W1'].shape[1]}"))
    return out


def _block_cases(rng):
    out = [Case("book", cases.book_08_block())]
    for _ in range(N_FRESH):
        i = cases.fresh_08_block(rng)
        out.append(Case("fresh", i, about=f"x {i['x'].shape}, {i['num_heads']} heads, D_ff={i['W1'].shape[1]}"))
    return out


BOOK_SIZES = dict(D=8, H=2, T=6, D_ff=32)


def _parameter_steps(i):
    """block_parameters' parts, each a number every right count adds (inline or not): the count of a part
    left out, or of one counted twice, is then told by name."""
    D, D_ff = int(i["D"]), int(i["D_ff"])
    v = shared_steps._v
    attention = v("attention's parameters", 4 * D * D + 4 * D)
    weights, biases = v("MLP's weights", 2 * D * D_ff), v("MLP's biases", D_ff + D)
    mlp = v("MLP's parameters", weights + biases)
    norms = v("LayerNorms' parameters", 4 * D)
    return [Step("attention's parameters", "W_q, W_k, W_v, W_o and their biases: 4 D^2 + 4 D", attention, (), ()),
            Step("MLP's weights", "W1 and W2: 2 D D_ff", weights, (), ()),
            Step("MLP's biases", "b1 and b2: D_ff + D", biases, (), ()),
            Step("MLP's parameters", "2 D D_ff + D_ff + D", mlp, (), ("MLP's weights", "MLP's biases")),
            Step("LayerNorms' parameters", "two gammas and two betas: 4 D", norms, (), ()),
            Step("result", "attention + MLP + LayerNorms", attention + mlp + norms, (),
                 ("attention's parameters", "MLP's parameters", "LayerNorms' parameters"))]


def _flop_steps(i):
    """block_flops' parts, each a number every right count adds (inline or not)."""
    D, T, D_ff = int(i["D"]), int(i["T"]), int(i["D_ff"])
    v = shared_steps._v
    projections = v("projections' multiply-adds", 4 * T * D * D)
    # The weighted sums cost what the scores cost, T^2 D: one step, since a student's array equal to one
    # would be "right" for both, whichever of the two it counts
    scores = v("scores' multiply-adds", T * T * D)
    attention = v("attention's multiply-adds", projections + 2 * scores)
    mlp = v("MLP's multiply-adds", 2 * T * D * D_ff)
    return [Step("projections' multiply-adds", "Q, K, V and the output projection: 4 T D^2", projections, (), ()),
            Step("scores' multiply-adds", "every head's Q @ K.T, T^2 D in all (the weighted sums cost as much)",
                 scores, (), ()),
            Step("attention's multiply-adds", "4 T D^2 + 2 T^2 D", attention, (),
                 ("projections' multiply-adds", "scores' multiply-adds")),
            Step("MLP's multiply-adds", "two matrices: 2 T D D_ff", mlp, (), ()),
            Step("result", "attention + MLP", attention + mlp, (), ("attention's multiply-adds", "MLP's multiply-adds"))]


def _count_cases(rng, with_T):
    sizes = [BOOK_SIZES]
    # Each fresh case has its own MLP width, never the book's 4 D (2, 5 and 6 times D, in a drawn order): a count
    # that takes D_ff as 4 D, or fits the notebook's printed numbers, is then right on the book's case only; and a
    # count that holds by chance at one width holds on one case only, so the verdict does not say it. Not 3 D:
    # one MLP matrix, T D D_ff, is then 3 T D^2, the projections without the output one (a count that leaves it out
    # reads as right there), and an MLP counted as 8 T D^2 is the projections' 4 T D^2 put in for the MLP's
    widths = [int(w) for w in rng.permutation((2, 5, 6))]
    for n in range(N_FRESH):
        # two heads at least: with one, a count made for one head where every head is due would be right
        H, d = int(rng.integers(2, 9)), int(rng.choice((4, 8, 16, 64)))
        while H * d == BOOK_SIZES["D"]:  # never the book's width: an answer that ignores D would show
            H, d = int(rng.integers(2, 9)), int(rng.choice((4, 8, 16, 64)))
        sizes.append(dict(D=H * d, H=H, T=int(rng.integers(2, 2049)), D_ff=widths[n % len(widths)] * H * d))
    out = []
    for n, s in enumerate(sizes):
        i = dict(s) if with_T else {k: v for k, v in s.items() if k != "T"}
        out.append(Case("book" if n == 0 else "fresh", i, about=", ".join(f"{k}={v}" for k, v in i.items())))
    return out


def _block_steps(i, post_norm):
    params = cases.block_params_08(i)
    T = np.shape(i["x"])[1]
    return shared_steps.transformer_block(
        i["x"], params, i["num_heads"], post_norm, ref.layer_norm,
        lambda h, mask: ref.block_attention_masked(h, params, i["num_heads"], mask),
        lambda h: ref.mlp(h, params["W1"], params["b1"], params["W2"], params["b2"]),
        mask=np.tril(np.ones((T, T))))  # the notebook's causal_mask(T, T)


BLOCK_USES = {"layer_norm": "test_layer_norm", "mlp": "test_mlp"}
LAYER_NORM_KERNEL = kernel_source("layer_norm", ref.layer_norm)
MLP_KERNEL = kernel_source("mlp", ref.mlp)

PROBES = {
    "test_layer_norm": Probe(
        what="layer_norm",
        axes=("sequences", "tokens", "features"),
        # eps 1e-5, the notebook's default, is left to the default, as transformer_block calls it: a default of
        # another size then shows here, in its own part; the case with eps=1e-3 passes it
        call="(layer_norm(x, gamma, beta) if eps == 1e-5 else layer_norm(x, gamma, beta, eps=eps))",
        cases=_layer_norm_cases,
        reference=lambda i: ref.layer_norm(i["x"], i["gamma"], i["beta"], i["eps"]),
        steps=lambda i: shared_steps.layer_norm(i["x"], i["gamma"], i["beta"], i["eps"]),
        kernel_reference=LAYER_NORM_KERNEL,
        mistakes=mistakes.LAYER_NORM_08,
    ),
    "test_mlp": Probe(
        what="mlp",
        axes=("sequences", "tokens", "features"),
        call="mlp(x, W1, b1, W2, b2)",
        cases=_mlp_cases,
        reference=lambda i: ref.mlp(i["x"], i["W1"], i["b1"], i["W2"], i["b2"]),
        steps=lambda i: shared_steps.mlp(i["x"], i["W1"], i["b1"], i["W2"], i["b2"]),
        kernel_reference=MLP_KERNEL,
        mistakes=mistakes.MLP_08,
    ),
    "test_transformer_block": Probe(
        what="transformer_block (pre-norm)",
        axes=("sequences", "tokens", "features"),
        call=f"transformer_block(x, {PARAMS}, num_heads)",
        cases=_block_cases,
        reference=lambda i: ref.transformer_block(i["x"], cases.block_params_08(i), i["num_heads"]),
        steps=lambda i: _block_steps(i, post_norm=False),
        uses=BLOCK_USES,
        mistakes=mistakes.BLOCK_08,
    ),
    "test_post_norm": Probe(
        what="transformer_block with post_norm=True",
        axes=("sequences", "tokens", "features"),
        call=f"transformer_block(x, {PARAMS}, num_heads, post_norm=True)",
        cases=_block_cases,
        reference=lambda i: ref.transformer_block(i["x"], cases.block_params_08(i), i["num_heads"], post_norm=True),
        steps=lambda i: _block_steps(i, post_norm=True),
        uses=BLOCK_USES,
        mistakes=mistakes.POST_NORM_08,
    ),
    "test_block_parameters": Probe(
        what="block_parameters",
        call="block_parameters(D, H, D_ff)",
        cases=lambda rng: _count_cases(rng, with_T=False),
        reference=lambda i: ref.block_parameters(i["D"], i["H"], i["D_ff"]),
        steps=_parameter_steps,
        mistakes=[mistakes.PARAMETERS_NO_LAYER_NORM],
    ),
    "test_block_flops": Probe(
        what="block_flops",
        call="block_flops(D, H, T, D_ff)",
        cases=lambda rng: _count_cases(rng, with_T=True),
        reference=lambda i: ref.block_flops(i["D"], i["H"], i["T"], i["D_ff"]),
        steps=_flop_steps,
        mistakes=[mistakes.FLOPS_MLP_ONCE],
    ),
}


# ---------------------------------------------------------------- generated cells

def _differing(shown, inputs, true):
    """{what a check says: the mistake's value} for the mistakes that can be made here and give another answer."""
    out = {}
    for m in shown:
        try:
            value = np.asarray(m.compute(inputs), dtype=float)
        except Exception:  # a mistake that cannot be made on these inputs
            continue
        if value.shape != np.shape(true) or not np.allclose(value, true):
            out[m.said] = value
    return out


def _layer_norm_values():
    i = cases.book_08_layer_norm()
    true = ref.layer_norm(i["x"], i["gamma"], i["beta"])
    return {"x_ln": i["x"], "gamma_ln": i["gamma"], "beta_ln": i["beta"], "layer_norm_true": true,
            "layer_norm_mistakes": _differing(mistakes.LAYER_NORM_08, i, true)}


def _mlp_values():
    i = cases.book_08_mlp()
    true = ref.mlp(i["x"], i["W1"], i["b1"], i["W2"], i["b2"])
    return {"x_mlp": i["x"], "W1_mlp": i["W1"], "b1_mlp": i["b1"], "W2_mlp": i["W2"], "b2_mlp": i["b2"],
            "mlp_true": true, "mlp_mistakes": _differing(mistakes.MLP_08, i, true)}


def _block_values():
    i = cases.book_08_block()
    params = cases.block_params_08(i)
    pre = ref.transformer_block(i["x"], params, i["num_heads"])
    post = ref.transformer_block(i["x"], params, i["num_heads"], post_norm=True)
    return {"x_block": i["x"], "params_block": params, "num_heads_block": i["num_heads"],
            "block_true": pre, "block_mistakes": _differing(mistakes.BLOCK_08, i, pre),
            "post_norm_true": post, "post_norm_mistakes": _differing(mistakes.POST_NORM_08, i, post)}


GPT2 = dict(D=768, H=12, T=1024, D_ff=3072)  # GPT-2 small: 768 features, 12 heads, context 1024, MLP 4 x 768


def _count_values():
    out = {}
    for name, s in (("small", BOOK_SIZES), ("gpt2", GPT2)):
        p = {k: v for k, v in s.items() if k != "T"}
        out[f"parameters_{name}_true"] = ref.block_parameters(**p)
        out[f"parameters_{name}_mistakes"] = _differing([mistakes.PARAMETERS_NO_LAYER_NORM], p,
                                                        out[f"parameters_{name}_true"])
        out[f"flops_{name}_true"] = ref.block_flops(**s)
        out[f"flops_{name}_mistakes"] = _differing([mistakes.FLOPS_MLP_ONCE], s, out[f"flops_{name}_true"])
    return out


VALUES = {
    "n08_layer_norm": _layer_norm_values,
    "n08_mlp": _mlp_values,
    "n08_block": _block_values,
    "n08_counts": _count_values,
}
