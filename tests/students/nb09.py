"""Sample students of notebook 09 (a tiny transformer, trained): the answer key, answers written another way,
one mistake each. The trained model's part is the model the student's train_step trains under the probe: a
mistake in train_step that still lets the model learn the task keeps those marks, one that stops it (or makes
it diverge) loses them; a mistake in cross_entropy or adam_step costs marks once, in its own part (the model
is then trained with the course's version in place of the student's)."""
from grader.course.nb09_tiny_transformer import mistakes as mistakes09
from tests.students import Student

A09 = "09_tiny_transformer"
FULL_09 = {"test_cross_entropy": 3, "test_adam_step": 3, "test_train_step": 2, "test_trained_model": 4}


def _09(**changed):
    return dict(FULL_09, **changed)


HELPER_FIXED = "right once your"  # train_step marked with the course's version of a helper the student got wrong
DIVERGED = "nan or inf"           # the trained model's verdict when training diverged
NOT_LEARNED = "token accuracy"    # ... when the model did not learn the task

SHIFTED = "    shifted = logits - np.max(logits, axis=-1, keepdims=True)  # (B, T, V)"
COUNT = "    count = np.sum(weights)"
LOSS = "    loss = -np.sum(weights * picked) / count"
DLOGITS = "    dlogits = (np.exp(log_p) - one_hot) * (weights / count)[..., None]  # (B, T, V)"
NEW_M = "    new_m = beta1 * m + (1 - beta1) * grad  # same shape as param"
NEW_V = "    new_v = beta2 * v + (1 - beta2) * grad ** 2"
M_HAT = "    m_hat = new_m / (1 - beta1 ** t)"
V_HAT = "    v_hat = new_v / (1 - beta2 ** t)"
NEW_PARAM = "    new_param = param - lr * m_hat / (np.sqrt(v_hat) + eps)"
COUNT_STEP = '    adam_state["t"] += 1\n'
UPDATE = ('    for name in params:\n'
          '        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(\n'
          '            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)')


def _cross_entropy_wrong(mistake, lines):
    """A student whose cross_entropy makes one mistake; train_step and the model are marked with the course's
    cross_entropy."""
    return Student(A09, _09(test_cross_entropy=0), edits={"cross_entropy_def": lines},
                   diagnoses={"test_cross_entropy": mistake.name, "test_train_step": HELPER_FIXED,
                              "test_trained_model": HELPER_FIXED})


def _adam_wrong(mistake, lines):
    return Student(A09, _09(test_adam_step=0), edits={"adam_step_def": lines},
                   diagnoses={"test_adam_step": mistake.name, "test_train_step": HELPER_FIXED,
                              "test_trained_model": HELPER_FIXED})


def _train_step_wrong(mistake, lines, trained=4, why=None):
    diagnoses = {"test_train_step": mistake.name}
    if why:
        diagnoses["test_trained_model"] = why
    return Student(A09, _09(test_train_step=0, test_trained_model=trained), edits={"train_step_def": lines},
                   diagnoses=diagnoses)


# Right answers written another way: cross_entropy on flattened positions with fancy indexing, Adam in the
# "efficient" form of Kingma and Ba's section 2 (the corrections folded into the step size and eps), and
# train_step looping over the gradients.
OTHER_CROSS_ENTROPY = '''\
def cross_entropy(logits, targets, weights):
    B, T, V = logits.shape
    z = logits.reshape(B * T, V)
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))  # (B T, V)
    rows, y, w = np.arange(B * T), targets.reshape(-1), weights.reshape(-1)
    loss = -(w * log_p[rows, y]).sum() / w.sum()
    d = np.exp(log_p)
    d[rows, y] -= 1.0
    return loss, (d * (w / w.sum())[:, None]).reshape(B, T, V)
'''

OTHER_ADAM = '''\
def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * np.square(grad)
    step = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    return param - step * m / (np.sqrt(v) + eps * np.sqrt(1 - beta2 ** t)), m, v
'''

OTHER_TRAIN_STEP = '''\
def train_step(params, adam_state, tokens, targets, weights, lr, num_heads):
    logits, cache = model_forward(params, tokens, num_heads)
    loss, dlogits = cross_entropy(logits, targets, weights)
    t = adam_state["t"] = adam_state["t"] + 1
    for name, grad in model_backward(dlogits, cache).items():
        new = adam_step(params[name], grad, adam_state["m"][name], adam_state["v"][name], t, lr)
        params[name], adam_state["m"][name], adam_state["v"][name] = new
    return loss
'''

STUDENTS = {
    "correct": Student(A09, FULL_09),
    "untouched": Student(A09, {part: 0 for part in FULL_09}, untouched=True),
    "other_way": Student(A09, FULL_09, cells={"cross_entropy_def": OTHER_CROSS_ENTROPY, "adam_step_def": OTHER_ADAM,
                                              "train_step_def": OTHER_TRAIN_STEP}),
    # cross_entropy
    "ce_counted_all": _cross_entropy_wrong(mistakes09.CE_COUNTED_ALL, [(COUNT, "    count = weights.size")]),
    "ce_weights_ignored": _cross_entropy_wrong(mistakes09.CE_WEIGHTS_IGNORED, [
        (COUNT, "    count = weights.size"), (LOSS, "    loss = -np.sum(picked) / count"),
        (DLOGITS, "    dlogits = (np.exp(log_p) - one_hot) / count  # (B, T, V)")]),
    # the gradient pushes every logit up: trained with it, the model would learn nothing
    "ce_no_one_hot": _cross_entropy_wrong(mistakes09.CE_NO_ONE_HOT, [
        (DLOGITS, "    dlogits = np.exp(log_p) * (weights / count)[..., None]  # (B, T, V)")]),
    "ce_not_averaged": _cross_entropy_wrong(mistakes09.CE_NOT_AVERAGED, [
        (DLOGITS, "    dlogits = (np.exp(log_p) - one_hot) * weights[..., None]  # (B, T, V)")]),
    # A syntax error in cross_entropy's cell (issue 27): the cell never ran, so the training cell stops at once.
    # cross_entropy's part says so; train_step and the model, marked with the course's cross_entropy, keep theirs.
    "ce_syntax_error": Student(A09, _09(test_cross_entropy=0), edits={"cross_entropy_def": [
        (COUNT, COUNT + "\n    if count = 0:")]},
        diagnoses={"test_cross_entropy": "the cell that defines it did not run, a syntax error on line",
                   "test_train_step": HELPER_FIXED, "test_trained_model": HELPER_FIXED}),
    # right wherever the logits are small (the training's are): 7/9 of the part, and train_step is right as it runs
    "ce_no_max": Student(A09, _09(test_cross_entropy=2.33), edits={"cross_entropy_def": [(SHIFTED, "    shifted = logits")]},
                         diagnoses={"test_cross_entropy": mistakes09.CE_NO_MAX.name}),
    # adam_step
    "adam_no_correction": _adam_wrong(mistakes09.ADAM_NO_CORRECTION, [(M_HAT, "    m_hat = new_m"),
                                                                    (V_HAT, "    v_hat = new_v")]),
    "adam_eps_inside": Student(A09, _09(test_adam_step=0), edits={"adam_step_def": [
        (NEW_PARAM, "    new_param = param - lr * m_hat / np.sqrt(v_hat + eps)")]},
        diagnoses={"test_adam_step": mistakes09.ADAM_EPS_INSIDE.name}),
    "adam_v_not_squared": _adam_wrong(mistakes09.ADAM_V_NOT_SQUARED, [
        (NEW_V, "    new_v = beta2 * v + (1 - beta2) * grad")]),
    "adam_ascent": _adam_wrong(mistakes09.ADAM_ASCENT, [
        (NEW_PARAM, "    new_param = param + lr * m_hat / (np.sqrt(v_hat) + eps)")]),
    "adam_betas_swapped": _adam_wrong(mistakes09.ADAM_BETAS_SWAPPED, [
        (NEW_M, "    new_m = (1 - beta1) * m + beta1 * grad"), (NEW_V, "    new_v = (1 - beta2) * v + beta2 * grad ** 2")]),
    # train_step
    "step_not_counted": _train_step_wrong(mistakes09.TRAIN_T_NOT_COUNTED, [(COUNT_STEP, "")], trained=0, why=DIVERGED),
    "step_counted_after": _train_step_wrong(mistakes09.TRAIN_T_COUNTED_AFTER, [
        (COUNT_STEP, ""), (UPDATE, UPDATE + '\n    adam_state["t"] += 1')], trained=0, why=DIVERGED),
    "moments_not_stored": _train_step_wrong(mistakes09.TRAIN_MOMENTS_NOT_STORED, [
        ('        params[name], adam_state["m"][name], adam_state["v"][name] = adam_step(',
         '        params[name], _, _ = adam_step(')]),
    "loss_after_update": _train_step_wrong(mistakes09.TRAIN_LOSS_AFTER, [
        (UPDATE, UPDATE + "\n    loss, _ = cross_entropy(model_forward(params, tokens, num_heads)[0], targets, weights)")]),
    # 200 steps of plain gradient descent at Adam's learning rate: the model stays near a quarter right
    "plain_gradient_descent": _train_step_wrong(mistakes09.TRAIN_SGD, [
        (UPDATE, "    for name in params:\n        params[name] = params[name] - lr * grads[name]")],
        trained=0, why=NOT_LEARNED),
}
