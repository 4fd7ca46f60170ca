"""Sample students of notebook 08 (the transformer block): the answer key, answers written another way, one mistake each."""
from grader.course.nb08_transformer_block import mistakes as mistakes08
from tests.students import MANUAL, Student

A08 = "08_transformer_block"
FULL_08 = {"test_layer_norm": 2, "test_mlp": 2, "test_transformer_block": 3, "test_post_norm": 1,
           "test_block_parameters": 1, "test_block_flops": 1, "why_pre_norm": MANUAL}


def _08(**changed):
    return dict(FULL_08, **changed)


HELPER_FIXED = "right once your"  # a part marked with the course's version of a helper the student got wrong

MEAN_LINE = "    mean = np.mean(x, axis=-1, keepdims=True)  # (B, T, 1)"
VAR_LINE = "    var = np.var(x, axis=-1, keepdims=True)  # (B, T, 1): divided by D"
X_HAT_LINE = "    x_hat = (x - mean) / np.sqrt(var + eps)  # (B, T, D)"
HIDDEN_LINE = "    hidden = np.maximum(0.0, x @ W1 + b1)  # (B, T, D_ff)"
OUT_LINE = "    out = hidden @ W2 + b2  # (B, T, D)"
PRE_ATTENTION = ('        h = x + multi_head_attention(layer_norm(x, params["gamma1"], params["beta1"]), params, '
                 'num_heads, mask)  # (B, T, D)')
PRE_MLP = ('        out = h + mlp(layer_norm(h, params["gamma2"], params["beta2"]), params["W1"], params["b1"],\n'
           '                      params["W2"], params["b2"])  # (B, T, D)')


def _layer_norm_wrong(**edits):
    """A student whose layer_norm makes one mistake: the block is marked with the course's layer_norm."""
    name = edits.pop("name")
    diagnoses = {"test_layer_norm": name}
    if edits.get("block_wrong", True):
        diagnoses.update(test_transformer_block=HELPER_FIXED, test_post_norm=HELPER_FIXED)
    return Student(A08, _08(test_layer_norm=0), edits={"layer_norm_def": edits["lines"]}, diagnoses=diagnoses)


def _mlp_wrong(name, lines):
    return Student(A08, _08(test_mlp=0), edits={"mlp_def": lines},
                   diagnoses={"test_mlp": name, "test_transformer_block": HELPER_FIXED, "test_post_norm": HELPER_FIXED})


# Right answers written another way: LayerNorm from its formula, the MLP as einsum, the block with helpers,
# the counts in closed form.
OTHER_LAYER_NORM = '''\
def layer_norm(x, gamma, beta, eps=1e-5):
    D = x.shape[-1]
    centred = x - x.sum(axis=-1, keepdims=True) / D  # (B, T, D)
    sigma = np.sqrt((centred ** 2).sum(axis=-1, keepdims=True) / D + eps)  # (B, T, 1)
    return centred / sigma * gamma + beta
'''

OTHER_MLP = '''\
def mlp(x, W1, b1, W2, b2):
    hidden = np.einsum("btd,df->btf", x, W1) + b1  # (B, T, D_ff)
    hidden[hidden < 0] = 0.0  # the ReLU, on the new array only
    return np.einsum("btf,fd->btd", hidden, W2) + b2
'''

OTHER_BLOCK = '''\
def transformer_block(x, params, num_heads, post_norm=False):
    mask = causal_mask(x.shape[1], x.shape[1])
    attend = lambda h: multi_head_attention(h, params, num_heads, mask)
    feed = lambda h: mlp(h, params["W1"], params["b1"], params["W2"], params["b2"])
    norm1 = lambda h: layer_norm(h, params["gamma1"], params["beta1"])
    norm2 = lambda h: layer_norm(h, params["gamma2"], params["beta2"])
    if post_norm:
        x = norm1(x + attend(x))
        return norm2(x + feed(x))
    x = x + attend(norm1(x))
    return x + feed(norm2(x))
'''

OTHER_COUNTS = '''\
def block_parameters(D, H, D_ff):
    return 4 * (D + 1) * D + (D + 1) * D_ff + (D_ff + 1) * D + 4 * D


def block_flops(D, H, T, D_ff):
    return T * D * (4 * D + 2 * T + 2 * D_ff)
'''

STUDENTS = {
    "correct": Student(A08, FULL_08),
    # A syntax error in layer_norm's cell: the cell never ran, so layer_norm is not defined. Its part says
    # so and nothing else; the block, marked with the course's layer_norm, keeps its marks.
    "syntax_error": Student(
        A08, _08(test_layer_norm=0), edits={"layer_norm_def": [(MEAN_LINE, MEAN_LINE + "\n    def broken(:")]},
        diagnoses={"test_layer_norm": "the cell that defines it did not run, a syntax error on line",
                   "test_transformer_block": HELPER_FIXED}),
    "untouched": Student(A08, {part: 0 for part in FULL_08}, untouched=True),
    "other_way": Student(A08, FULL_08, cells={"layer_norm_def": OTHER_LAYER_NORM, "mlp_def": OTHER_MLP,
                                              "block_def": OTHER_BLOCK, "counts_def": OTHER_COUNTS}),
    "ln_batch_axis": _layer_norm_wrong(name=mistakes08.LN_BATCH_AXIS.name, lines=[
        (MEAN_LINE, MEAN_LINE.replace("axis=-1", "axis=0")), (VAR_LINE, VAR_LINE.replace("axis=-1", "axis=0"))]),
    "ln_token_axis": _layer_norm_wrong(name=mistakes08.LN_TOKEN_AXIS.name, lines=[
        (MEAN_LINE, MEAN_LINE.replace("axis=-1", "axis=1")), (VAR_LINE, VAR_LINE.replace("axis=-1", "axis=1"))]),
    # The block's inputs hold no quiet token, so there this layer_norm is right and the block earns its marks as is
    "ln_eps_outside": _layer_norm_wrong(name=mistakes08.LN_EPS_OUTSIDE.name, block_wrong=False, lines=[
        (X_HAT_LINE, "    x_hat = (x - mean) / (np.sqrt(var) + eps)  # (B, T, D)")]),
    "ln_unbiased": _layer_norm_wrong(name=mistakes08.LN_UNBIASED.name, lines=[
        (VAR_LINE, VAR_LINE.replace("keepdims=True", "ddof=1, keepdims=True"))]),
    # T = D on the notebook's example, so the swapped axes run there; on fresh inputs with T != D they raise
    "mlp_across_tokens": _mlp_wrong(mistakes08.MLP_ACROSS_TOKENS.name, [
        (HIDDEN_LINE, "    hidden = np.maximum(0.0, x.swapaxes(1, 2) @ W1 + b1)  # (B, D, D_ff)"),
        (OUT_LINE, "    out = (hidden @ W2 + b2).swapaxes(1, 2)  # (B, T, D)")]),
    "relu_before_bias": _mlp_wrong(mistakes08.RELU_BEFORE_BIAS.name, [
        (HIDDEN_LINE, "    hidden = np.maximum(0.0, x @ W1) + b1  # (B, T, D_ff)")]),
    "relu_after_second_layer": _mlp_wrong(mistakes08.RELU_AFTER_SECOND_LAYER.name, [
        (HIDDEN_LINE, "    hidden = x @ W1 + b1  # (B, T, D_ff)"),
        (OUT_LINE, "    out = np.maximum(0.0, hidden @ W2 + b2)  # (B, T, D)")]),
    "residual_after_norm": Student(
        A08, _08(test_transformer_block=0),
        edits={"block_def": [
            (PRE_ATTENTION, '        h = layer_norm(x + multi_head_attention(x, params, num_heads, mask), '
                            'params["gamma1"], params["beta1"])  # (B, T, D)'),
            (PRE_MLP, '        out = layer_norm(h + mlp(h, params["W1"], params["b1"], params["W2"], params["b2"]), '
                      'params["gamma2"], params["beta2"])  # (B, T, D)')]},
        diagnoses={"test_transformer_block": mistakes08.RESIDUAL_AFTER_NORM.name}),
    "mask_forgotten": Student(
        A08, _08(test_transformer_block=0, test_post_norm=0),
        edits={"block_def": [("    mask = causal_mask(T, T)  # (T, T): token t sees tokens 0..t", "    mask = None")]},
        diagnoses={"test_transformer_block": mistakes08.MASK_FORGOTTEN.name,
                   "test_post_norm": mistakes08.MASK_FORGOTTEN.name}),
    "post_norm_ignored": Student(
        A08, _08(test_post_norm=0), edits={"block_def": [("    if post_norm:", "    if False:")]},
        diagnoses={"test_post_norm": mistakes08.POST_NORM_IGNORED.name}),
    "parameters_no_layer_norm": Student(
        A08, _08(test_block_parameters=0),
        edits={"counts_def": [("    count = attention + feed_forward + norms", "    count = attention + feed_forward")]},
        diagnoses={"test_block_parameters": mistakes08.PARAMETERS_NO_LAYER_NORM.name}),
    "flops_mlp_once": Student(
        A08, _08(test_block_flops=0),
        edits={"counts_def": [("    feed_forward = T * D * D_ff + T * D_ff * D  # x @ W1 and hidden @ W2",
                               "    feed_forward = T * D * D_ff  # x @ W1")]},
        diagnoses={"test_block_flops": mistakes08.FLOPS_MLP_ONCE.name}),
}
