"""Notebook 09's reference implementations: where the expected values of its graded functions come from
(float64 throughout).
"""
import numpy as np

from ..shared import tiny_transformer as tiny


ADAM = dict(beta1=0.9, beta2=0.999, eps=1e-8)   # Adam's defaults (Kingma and Ba, 2015, Algorithm 1)


def cross_entropy(logits, targets, weights):
    """(loss, dlogits): the mean of -log p(target) over the positions of weight 1, and its gradient
    (softmax - one-hot) * weight / (sum of the weights), for logits (B, T, V)."""
    shifted = logits - np.max(logits, axis=-1, keepdims=True)  # (B, T, V)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))  # (B, T, V)
    count = np.sum(weights)
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)[..., 0]  # (B, T)
    loss = -np.sum(weights * picked) / count
    dlogits = np.exp(log_p)  # (B, T, V): the softmax
    np.put_along_axis(dlogits, targets[..., None], np.take_along_axis(dlogits, targets[..., None], -1) - 1, -1)
    return loss, dlogits * (weights / count)[..., None]


def adam_step(param, grad, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    """One Adam step for one array: (new param, new m, new v); t counts steps from 1."""
    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad ** 2
    m_hat = m / (1 - beta1 ** t)  # bias correction: m and v start at 0
    v_hat = v / (1 - beta2 ** t)
    return param - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


def train_step(params, adam_state, tokens, targets, weights, lr, num_heads,
               loss_fn=cross_entropy, step_fn=adam_step):
    """One step of training: forward, loss, backward, then Adam on every parameter. Updates params and
    adam_state (t, m, v) in place and returns the loss before the step."""
    logits, cache = tiny.model_forward(params, tokens, num_heads)
    loss, dlogits = loss_fn(logits, targets, weights)
    grads = tiny.model_backward(dlogits, cache)
    adam_state["t"] += 1
    for name in params:
        params[name], adam_state["m"][name], adam_state["v"][name] = step_fn(
            params[name], grads[name], adam_state["m"][name], adam_state["v"][name], adam_state["t"], lr)
    return loss


def train_step_result(i, loss_fn=cross_entropy, step_fn=adam_step):
    """What notebook 09's train_step probe reports for the inputs i: [loss, t, params..., m..., v...] after
    one step, in the order of i["names"]."""
    names = i["names"]
    params = {n: np.array(a, dtype=float) for n, a in zip(names, i["params"])}
    state = {"t": i["t"], "m": {n: np.array(a, dtype=float) for n, a in zip(names, i["m"])},
             "v": {n: np.array(a, dtype=float) for n, a in zip(names, i["v"])}}
    loss = train_step(params, state, i["tokens"], i["targets"], i["weights"], i["lr"], i["num_heads"],
                      loss_fn, step_fn)
    return ([loss, state["t"]] + [params[n] for n in names] + [state["m"][n] for n in names]
            + [state["v"][n] for n in names])


def train(seed=None, steps=None, step=train_step):
    """The model trained as notebook 09 trains it: (params, the loss at each step)."""
    cfg = dict(tiny.TRAINING, **({} if seed is None else {"seed": seed}), **({} if steps is None else {"steps": steps}))
    rng = np.random.default_rng(cfg["seed"])
    params = tiny.init_model(rng, D=cfg["D"], D_ff=cfg["D_ff"])
    state = tiny.adam_init(params)
    losses = []
    for _ in range(cfg["steps"]):
        tokens, targets, weights = tiny.reversal_batch(rng, cfg["batch_size"])
        losses.append(step(params, state, tokens, targets, weights, cfg["lr"], cfg["num_heads"]))
    return params, losses


def training_report(i, step=train_step):
    """What notebook 09's trained-model probe reports when `step` trains the model from the case's start
    (i["init"]) on batches drawn from i["batch_seed"]: [trained, params, m and v before the last step, t
    before it, the steps done, params after the first step, [params, m, v and t before each step of i["watch"],
    and params after it]] (see probes.TRAINING_PROGRAM). One right answer, for the tests."""
    names = i["names"]
    params = {n: np.array(a, dtype=float) for n, a in zip(names, i["init"])}
    state = tiny.adam_init(params)
    rng = np.random.default_rng(i["batch_seed"])
    first, watched = None, []
    for k in range(1, i["steps"] + 1):
        tokens, targets, weights = tiny.reversal_batch(rng, i["batch_size"])
        before = ([params[n].copy() for n in names], [state["m"][n].copy() for n in names],
                  [state["v"][n].copy() for n in names], state["t"])
        step(params, state, tokens, targets, weights, i["lr"], i["num_heads"])
        first = first if first is not None else [params[n].copy() for n in names]
        if k in i["watch"]:
            watched.append([*before, [params[n].copy() for n in names]])
    return [[params[n] for n in names], *before, i["steps"], first, watched]


def last_batch(i, steps_done):
    """The batch of the last step when the probe trained for `steps_done` steps: drawn again here, as the
    notebook's reversal_batch draws it from i["batch_seed"]."""
    rng = np.random.default_rng(i["batch_seed"])
    for _ in range(steps_done):
        batch = tiny.reversal_batch(rng, i["batch_size"])
    return batch


def trained_parameters():
    """The course's trained model, as the list of its parameters in tiny.PARAMETERS order (one right answer
    to notebook 09's last part, for the tests); trained once per process."""
    global _TRAINED
    if _TRAINED is None:
        params, _ = train()
        _TRAINED = [params[n] for n in tiny.PARAMETERS]
    return _TRAINED


_TRAINED = None
FULL_MARKS_ACCURACY = 0.95   # notebook 09's trained model: full marks from this token accuracy on fresh sequences,
HALF_MARKS_ACCURACY = 0.60   # half marks from this one, none below (a model that guesses a digit gets 0.10)


def unusable(value):
    """Why `value` cannot be a trained model's parameters (a list in tiny.PARAMETERS order), or None."""
    if not isinstance(value, list) or len(value) != len(tiny.PARAMETERS):
        return f"params should hold the model's {len(tiny.PARAMETERS)} arrays, as init_model made them"
    shapes = {n_: np.shape(a) for n_, a in zip(tiny.PARAMETERS, value)}
    cfg = tiny.TRAINING  # the shapes init_model gives with the notebook's sizes: nothing is trained to know them
    want = {n_: np.shape(a) for n_, a in tiny.init_model(np.random.default_rng(0), D=cfg["D"], D_ff=cfg["D_ff"]).items()}
    if shapes != want:
        wrong = next(n_ for n_ in tiny.PARAMETERS if shapes[n_] != want[n_])
        return (f"after training, params[{wrong!r}] has shape {shapes[wrong]}, not {want[wrong]}: train_step "
                "must keep every parameter's shape")
    if not all(np.all(np.isfinite(a)) for a in value):
        return ("the trained parameters hold nan or inf, so the training diverged: look at the loss curve "
                "and at the checks of adam_step and train_step")
    return None


def judge_trained(i, value):
    """(share of the marks, what to say) for a trained model's parameters `value`, by the token accuracy of the
    course's model_forward with them on the fresh sequences of i. Two steps, not a slope: a score that does
    not move with the sequences drawn."""
    n = len(i["tokens"])
    why = unusable(value)
    if why:
        return 0.0, why
    params = dict(zip(tiny.PARAMETERS, value))
    accuracy = tiny.token_accuracy(params, i["tokens"], i["targets"], i["weights"], tiny.TRAINING["num_heads"])
    said = f"token accuracy {accuracy:.1%} on {n} fresh sequences drawn at grading time"
    if accuracy >= FULL_MARKS_ACCURACY:
        return 1.0, said
    share = 0.5 if accuracy >= HALF_MARKS_ACCURACY else 0.0
    return share, (said + f"; full marks need {FULL_MARKS_ACCURACY:.0%}, half marks {HALF_MARKS_ACCURACY:.0%}. "
                   "Does your loss curve fall? The checks of cross_entropy, adam_step and train_step say where to look")
