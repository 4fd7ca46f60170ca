"""Notebook 09's named mistakes: each a wrong answer the grader computes, and what to tell the student.

A mistake is recognised by computing the mistaken variant with the reference pieces on the same inputs
and finding the student's result equal to it.
"""
import numpy as np

from . import reference as ref
from ...engine.protocol import Mistake


def _cross_entropy_09(i, count="weights", one_hot=True, averaged=True, shift=True):
    """[loss, dlogits] of i's logits computed that way: `count` "weights" (the sum of the weights), "all"
    (B T, the weights still applied) or "ignored" (every position counted, weights unused); without `shift`,
    log p = logits - log(sum(exp(logits))), which overflows for logits above about 709."""
    logits, targets = i["logits"], i["targets"]
    weights = np.ones(targets.shape) if count == "ignored" else i["weights"]
    n = np.sum(weights) if count == "weights" else targets.size
    with np.errstate(all="ignore"):
        z = logits - np.max(logits, axis=-1, keepdims=True) if shift else logits  # (B, T, V)
        log_p = z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))  # (B, T, V)
        picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
        loss = -np.sum(weights * picked) / n
        d = np.exp(log_p) - (np.eye(logits.shape[-1])[targets] if one_hot else 0.0)  # (B, T, V)
        d = d * weights[..., None] / (n if averaged else 1.0)
    return [loss, d]


CE_COUNTED_ALL = Mistake(
    "divided by every position",
    "the sum was divided by the number of positions, B T; the mean is over the counted positions only, so "
    "divide the loss and the gradient by np.sum(weights)",
    lambda i: _cross_entropy_09(i, count="all"))

CE_WEIGHTS_IGNORED = Mistake(
    "weights not used",
    "every position was counted, those of weight 0 too: multiply each position's loss by "
    "its weight and divide by np.sum(weights), and weight the gradient the same way",
    lambda i: _cross_entropy_09(i, count="ignored"))

CE_NO_ONE_HOT = Mistake(
    "one-hot not subtracted",
    "your gradient is the softmax alone; the gradient of -log p(target) is softmax - one_hot(target): subtract "
    "1 at each position's target",
    lambda i: _cross_entropy_09(i, one_hot=False))

CE_NOT_AVERAGED = Mistake(
    "gradient not divided by the count",
    "the loss is a mean, so its gradient is divided by np.sum(weights) too",
    lambda i: _cross_entropy_09(i, averaged=False))

CE_NO_MAX = Mistake(
    "maximum not subtracted",
    "np.exp overflowed on large logits: subtract each position's largest logit first (the softmax does not "
    "change), or compute log p as logits - max - log(sum(exp(logits - max)))",
    lambda i: _cross_entropy_09(i, shift=False))

CROSS_ENTROPY_09 = [CE_COUNTED_ALL, CE_WEIGHTS_IGNORED, CE_NO_ONE_HOT, CE_NOT_AVERAGED, CE_NO_MAX]


def _adam_09(i, correct=True, eps_inside=False, square=True, sign=-1.0, swapped=False):
    """[param, m, v] after one Adam step on i, computed that way."""
    b1, b2, g = i["beta1"], i["beta2"], i["grad"]
    if swapped:
        m, v = b1 * g + (1 - b1) * i["m"], b2 * (g ** 2 if square else g) + (1 - b2) * i["v"]
    else:
        m, v = b1 * i["m"] + (1 - b1) * g, b2 * i["v"] + (1 - b2) * (g ** 2 if square else g)
    m_hat, v_hat = (m / (1 - b1 ** i["t"]), v / (1 - b2 ** i["t"])) if correct else (m, v)
    with np.errstate(invalid="ignore"):
        denominator = np.sqrt(v_hat + i["eps"]) if eps_inside else np.sqrt(v_hat) + i["eps"]
    return [i["param"] + sign * i["lr"] * m_hat / denominator, m, v]


ADAM_NO_CORRECTION = Mistake(
    "no bias correction",
    "m and v start at zero, so early on they are too small: divide them by 1 - beta1**t and 1 - beta2**t "
    "before the update (m and v themselves are stored as they are)",
    lambda i: _adam_09(i, correct=False))

ADAM_EPS_INSIDE = Mistake(
    "eps inside the square root",
    "you divided by np.sqrt(v_hat + eps); Adam divides by np.sqrt(v_hat) + eps, which matters where the "
    "gradient is tiny",
    lambda i: _adam_09(i, eps_inside=True))

ADAM_V_NOT_SQUARED = Mistake(
    "v averages the gradient, not its square",
    "v is the moving average of grad ** 2 (the second moment), so that np.sqrt(v) has the gradient's size",
    lambda i: _adam_09(i, square=False))

ADAM_ASCENT = Mistake(
    "step added",
    "the update went uphill: subtract lr * m_hat / (np.sqrt(v_hat) + eps) from the parameter",
    lambda i: _adam_09(i, sign=1.0))

ADAM_BETAS_SWAPPED = Mistake(
    "beta and 1 - beta swapped",
    "the moving averages keep beta of the old value and add 1 - beta of the new: m = beta1 * m + (1 - beta1) * "
    "grad, and likewise v with beta2",
    lambda i: _adam_09(i, swapped=True))

ADAM_09 = [ADAM_NO_CORRECTION, ADAM_EPS_INSIDE, ADAM_V_NOT_SQUARED, ADAM_ASCENT, ADAM_BETAS_SWAPPED]


def _train_step_09(i, t_shift=1, t_stored=True, moments_stored=True, loss_after=False, sgd=False):
    """train_step's report [loss, t, params..., m..., v...] on i, made that way: the update uses step
    t + t_shift, the state keeps t + 1 (or t), the new moments (or the old ones), and the loss is the one
    before the update (or after); `sgd` moves each parameter by lr * grad and keeps no moments."""
    names = i["names"]
    step_t = i["t"] + t_shift  # the t the update uses
    params = {n: np.array(a, dtype=float) for n, a in zip(names, i["params"])}
    logits, cache = ref.tiny.model_forward(params, i["tokens"], i["num_heads"])
    loss, dlogits = ref.cross_entropy(logits, i["targets"], i["weights"])
    grads = ref.tiny.model_backward(dlogits, cache)
    m, v = dict(zip(names, i["m"])), dict(zip(names, i["v"]))
    new_m, new_v = dict(m), dict(v)
    for n in names:
        if sgd:
            params[n] = params[n] - i["lr"] * grads[n]
        else:
            with np.errstate(all="ignore"):
                params[n], new_m[n], new_v[n] = ref.adam_step(params[n], grads[n], m[n], v[n], step_t, i["lr"])
    if not moments_stored or sgd:
        new_m, new_v = m, v
    if loss_after:
        loss = ref.cross_entropy(ref.tiny.model_forward(params, i["tokens"], i["num_heads"])[0], i["targets"],
                                 i["weights"])[0]
    t = i["t"] + 1 if t_stored else i["t"]
    return [loss, t] + [params[n] for n in names] + [new_m[n] for n in names] + [new_v[n] for n in names]


TRAIN_T_NOT_COUNTED = Mistake(
    "step not counted",
    "adam_state['t'] was never increased, so every step used the same t: add 1 to it before the update, "
    "and pass the new t to adam_step",
    lambda i: _train_step_09(i, t_shift=0, t_stored=False))

TRAIN_T_COUNTED_AFTER = Mistake(
    "step counted after the update",
    "the update used the old t (0 on the first step, where the bias correction divides by zero): add 1 to "
    "adam_state['t'] first, then update with the new t",
    lambda i: _train_step_09(i, t_shift=0))

TRAIN_MOMENTS_NOT_STORED = Mistake(
    "moments not stored",
    "adam_step returns the new m and v too: store them in adam_state['m'][name] and adam_state['v'][name], "
    "or the next step starts again from the old ones",
    lambda i: _train_step_09(i, moments_stored=False))

TRAIN_LOSS_AFTER = Mistake(
    "loss after the update",
    "return the loss the forward pass gave, before the parameters changed: that is the loss the gradients "
    "belong to",
    lambda i: _train_step_09(i, loss_after=True))

TRAIN_SGD = Mistake(
    "plain gradient descent",
    "the parameters moved by lr * grad; update each one with your adam_step, and keep its m and v in adam_state",
    lambda i: _train_step_09(i, sgd=True))

TRAIN_STEP_09 = [TRAIN_T_NOT_COUNTED, TRAIN_T_COUNTED_AFTER, TRAIN_MOMENTS_NOT_STORED, TRAIN_LOSS_AFTER, TRAIN_SGD]
