"""Notebook 09's inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time.
"""
import numpy as np


def cross_entropy_09(rng, B, T, V, scale=2.0):
    """Logits (B, T, V) of size `scale`, integer targets (B, T), and weights (B, T) of 0 and 1: the first
    positions of each sequence 0 (as in the reversal task), at least one 1."""
    first = int(rng.integers(1, T))  # positions 0 .. first-1 are not counted
    weights = np.zeros((B, T))
    weights[:, first:] = 1.0
    return dict(logits=scale * rng.normal(size=(B, T, V)), targets=rng.integers(0, V, size=(B, T)),
                weights=weights)


def book_09_cross_entropy():
    """The notebook's example: 2 sequences of 4 positions over 5 tokens, drawn once from seed 9."""
    return cross_entropy_09(np.random.default_rng(9), 2, 4, 5)


def fresh_09_cross_entropy(rng, large=False):
    """Other sizes; `large`: logits of size 1000, where exp overflows unless the maximum is subtracted first."""
    B, T, V = int(rng.integers(2, 5)), int(rng.integers(3, 9)), int(rng.integers(3, 13))
    return cross_entropy_09(rng, B, T, V, scale=1000.0 if large else 3.0 * rng.random() + 0.5)


def adam_09(rng, shape, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """One parameter array with its gradient and moments, as after t - 1 steps; a few gradient entries and
    their moments are tiny (1e-6 of the rest), where eps's place in the update shows."""
    grad = rng.normal(size=shape)
    tiny = rng.random(shape) < 0.25
    tiny.flat[int(rng.integers(tiny.size))] = True  # at least one
    grad[tiny] *= 1e-6
    m = np.zeros(shape) if t == 1 else 0.5 * rng.normal(size=shape) * np.where(tiny, 1e-6, 1.0)
    v = np.zeros(shape) if t == 1 else rng.random(shape) * np.where(tiny, 1e-12, 1.0)
    return dict(param=0.1 * rng.normal(size=shape), grad=grad, m=m, v=v, t=t, lr=lr, beta1=beta1, beta2=beta2, eps=eps)


def book_09_adam():
    """The notebook's example: a (3, 4) parameter at step t = 3, drawn once from seed 90."""
    return adam_09(np.random.default_rng(90), (3, 4), t=3, lr=1e-2)


def fresh_09_adam(rng, kind):
    """kind "first": step 1 from zero moments; "late": a step between 50 and 5000; "hyper": other
    beta1, beta2, eps and lr, which the function must take from its arguments."""
    shape = tuple(int(n) for n in rng.integers(2, 7, size=int(rng.integers(1, 3))))
    if kind == "first":
        return adam_09(rng, shape, t=1, lr=float(rng.choice([1e-3, 3e-3, 1e-2])))
    if kind == "late":
        return adam_09(rng, shape, t=int(rng.integers(50, 501)), lr=float(rng.choice([1e-3, 3e-3, 1e-2])))
    return adam_09(rng, shape, t=int(rng.integers(2, 20)), lr=0.05, beta1=float(rng.choice([0.8, 0.85])),
                   beta2=float(rng.choice([0.98, 0.99])), eps=float(rng.choice([1e-6, 1e-4])))


def train_step_09(rng, D, H, D_ff, length, B, t):
    """A fresh model of width D (H heads, MLP width D_ff) for sequences of `length` digits, with Adam's
    moments as after t steps, and a batch of the reversal task."""
    from ..shared.tiny_transformer import PARAMETERS, init_model, reversal_batch
    params = init_model(rng, D=D, D_ff=D_ff, T=2 * length)
    params = {n: p + 0.05 * rng.normal(size=p.shape) for n, p in params.items()}  # not at the initial values
    tokens, targets, weights = reversal_batch(rng, B, length)
    names = list(PARAMETERS)
    m = [0.01 * rng.normal(size=params[n].shape) for n in names]
    v = [1e-4 * rng.random(size=params[n].shape) for n in names]
    return dict(names=names, params=[params[n] for n in names], m=m, v=v, t=t, tokens=tokens, targets=targets,
                weights=weights, lr=float(rng.choice([1e-3, 3e-3])), num_heads=H)


BOOK_09_STEP = dict(seed=99, D=8, D_ff=16, length=3, batch_size=2, lr=0.01, num_heads=2)


def book_09_train_step():
    """The notebook's example, which the notebook makes itself with the course's functions: a new model of
    width 8 in 2 heads (MLP width 16) for 3 digits, Adam's first step, a batch of 2 (BOOK_09_STEP)."""
    from ..shared.tiny_transformer import PARAMETERS, init_model, reversal_batch
    s = BOOK_09_STEP
    rng = np.random.default_rng(s["seed"])
    params = init_model(rng, D=s["D"], D_ff=s["D_ff"], T=2 * s["length"])
    tokens, targets, weights = reversal_batch(rng, s["batch_size"], s["length"])
    names = list(PARAMETERS)
    return dict(names=names, params=[params[n] for n in names], m=[np.zeros_like(params[n]) for n in names],
                v=[np.zeros_like(params[n]) for n in names], t=0, tokens=tokens, targets=targets, weights=weights,
                lr=s["lr"], num_heads=s["num_heads"])


def fresh_09_train_step(rng):
    H = int(rng.choice([1, 2, 4]))
    D = H * int(rng.choice([2, 3, 4]))
    while D == 8:
        H = int(rng.choice([1, 2, 4]))
        D = H * int(rng.choice([2, 3, 4]))
    return train_step_09(rng, D, H, int(rng.choice([2, 3])) * D, int(rng.integers(2, 6)), int(rng.integers(1, 4)),
                         int(rng.integers(0, 30)))


def trained_09(rng, n=500):
    """A fresh start for the trained-model probe, and the n fresh sequences the model it trains is judged on.

    (sent to the kernel, kept by the grader): the probe trains a new model with the student's train_step
    from parameters init_model draws here and on batches drawn from a seed drawn here, with the notebook's
    sizes, steps, learning rate and time limit; the sequences never leave the grader."""
    from ..shared import tiny_transformer as tiny
    cfg = tiny.TRAINING
    init = tiny.init_model(np.random.default_rng(int(rng.integers(2**32))), D=cfg["D"], D_ff=cfg["D_ff"])
    sent = dict(names=list(tiny.PARAMETERS), init=[init[name] for name in tiny.PARAMETERS],
                batch_seed=int(rng.integers(2**32)), steps=cfg["steps"], batch_size=cfg["batch_size"],
                lr=cfg["lr"], num_heads=cfg["num_heads"], time_limit=cfg["time_limit"])
    tokens, targets, weights = tiny.reversal_batch(rng, n)
    # two steps between the first and the last, drawn now, whose states the probe keeps too (see probes._judge_training)
    sent["watch"] = sorted(int(k) for k in rng.choice(np.arange(2, cfg["steps"]), size=2, replace=False))
    return sent, dict(tokens=tokens, targets=targets, weights=weights)
