"""Notebook 09, a tiny transformer trained on a toy task (row convention): probes and check values."""
import numpy as np

from . import cases, mistakes, reference as ref
from ..shared import cases as shared_cases, steps as shared_steps, tiny_transformer as tiny
from ..shared.notebook_checks import _same
from ..shared.rounding import rounded
from ...engine.protocol import Case, Probe, kernel_source

N_FRESH = 3


def _cross_entropy_cases(rng):
    """The notebook's example, two fresh sizes, and one with logits of size 1000 (exp overflows there)."""
    out = [Case("book", cases.book_09_cross_entropy())]
    for large in (False, False, True):
        i = cases.fresh_09_cross_entropy(rng, large)
        out.append(Case("fresh", i, about=f"logits {i['logits'].shape}" + (", of size 1000" if large else "")))
    return out


def _adam_cases(rng):
    out = [Case("book", cases.book_09_adam())]
    for kind in ("first", "late", "hyper"):
        i = cases.fresh_09_adam(rng, kind)
        out.append(Case("fresh", i, about=f"shape {i['param'].shape}, t={i['t']}"
                                          + (f", beta1={i['beta1']:g}, beta2={i['beta2']:g}, eps={i['eps']:g}"
                                             if kind == "hyper" else "")))
    return out


def _train_step_cases(rng):
    """The book's case, then N_FRESH fresh ones, each drawn again until every catalogued mistake is clearly
    wrong on it (shared.cases.same_result: off by more than ten times the tolerance): a step counted after the
    update changes the bias correction little at t=12 (within the tolerance on some draws), and a mistake
    right on one case would earn part of the marks."""
    out = [Case("book", cases.book_09_train_step())]
    for _ in range(N_FRESH):
        while True:
            i = cases.fresh_09_train_step(rng)
            want = ref.train_step_result(i)
            # (each mistake computes: none raises or is about other inputs only; tests/test_mistakes.py plays them)
            if not any(shared_cases.same_result(m.compute(i), want) for m in mistakes.TRAIN_STEP_09):
                break
        D = i["params"][0].shape[1]
        out.append(Case("fresh", i, about=f"D={D}, {i['num_heads']} head(s), {len(i['tokens'])} sequence(s) of "
                                          f"{i['tokens'].shape[1] // 2} digits, t={i['t']}"))
    return out


# train_step is called on copies of the parameters and moments, in dicts as the notebook keeps them; it reports
# the loss, the new t and every array of the new state
TRAIN_STEP_CALL = (
    "(lambda p, s: [train_step(p, s, tokens, targets, weights, lr, num_heads), s['t']] + [p[n] for n in names]"
    " + [s['m'][n] for n in names] + [s['v'][n] for n in names])("
    "dict(zip(names, [a.copy() for a in params])), "
    "{'t': t, 'm': dict(zip(names, [a.copy() for a in m])), 'v': dict(zip(names, [a.copy() for a in v]))})")
TRAIN_STEP_OUTPUTS = (("loss", "adam_state['t']") + tuple(f"params[{n!r}]" for n in tiny.PARAMETERS)
                      + tuple(f"adam_state['m'][{n!r}]" for n in tiny.PARAMETERS)
                      + tuple(f"adam_state['v'][{n!r}]" for n in tiny.PARAMETERS))

# The model the trained-model part judges: trained again under the probe with the student's train_step (as
# the notebook's training cell does), from a start and on batches the grader drew now, so that no model
# pasted or trained elsewhere is judged. The state before each step is kept, and the parameters after the first:
# the grader checks that the first step and the last are ones it can account for (see _judge_training), so that
# a train_step that trains some other way until late in the run (round 8's attempt: a private Adam for the
# first 150 calls) is not judged by a last step that looks like a named mistake. Two steps between them, drawn at
# grading time (`watch`), are kept and checked too: attacks8's e09 was right on the first step and the last ones
# only, and trained the other way between.
TRAINING_PROGRAM = """\
import time
params = {n: np.array(a, dtype=float) for n, a in zip(names, init)}
adam_state = {"t": 0, "m": {n: np.zeros_like(a) for n, a in params.items()},
              "v": {n: np.zeros_like(a) for n, a in params.items()}}
rng = np.random.default_rng(batch_seed)
steps_done, start, watched = 0, time.perf_counter(), []
while steps_done < steps:
    tokens, targets, weights = reversal_batch(rng, batch_size)
    before_params = [np.array(params[n], dtype=float) for n in names]
    before_m = [np.array(adam_state["m"][n], dtype=float) for n in names]
    before_v = [np.array(adam_state["v"][n], dtype=float) for n in names]
    before_t = int(adam_state["t"])
    train_step(params, adam_state, tokens, targets, weights, lr, num_heads)
    steps_done += 1
    if steps_done == 1:
        first_params = [np.array(params[n], dtype=float) for n in names]
    if steps_done in watch:
        watched.append([before_params, before_m, before_v, before_t, [np.array(params[n], dtype=float) for n in names]])
    if time.perf_counter() - start > time_limit:
        break
trained = [params[n] for n in names]
"""


def _trained_cases(rng):
    sent, kept = cases.trained_09(rng)
    return [Case("fresh", sent, about=f"a fresh start, {sent['steps']} steps; judged on {len(kept['tokens'])} "
                                      "sequences", kept=kept)]


def _accounted(state, got, names):
    """Whether the parameters `got` after one step from `state` are a right step of training or one a mistake
    train_step's part names makes."""
    for step in [ref.train_step_result] + [m.compute for m in mistakes.TRAIN_STEP_09]:
        try:
            with np.errstate(all="ignore"):
                after = step(state)[2:2 + names]
        except Exception:  # a mistake that cannot be made from this state
            continue
        if all(_same(a, b) for a, b in zip(got, after)):
            return True
    return False


def _ordinal(n):
    """ "2nd", "11th", "57th" """
    return f"{n}{'th' if n % 100 in (11, 12, 13) else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _judge_training(i, report):
    """(share, what to say) for the probe's report of the training: the last step must be one the grader can
    account for (a right step of training, or a mistake train_step's part names: the student's own training,
    right or not), then the trained model is judged by its accuracy (reference.judge_trained)."""
    if not isinstance(report, list) or len(report) != 8 or \
            not all(isinstance(r, list) for r in report[:4] + report[6:]):
        return 0.0, "the probe's report of the training is malformed"
    trained, before_params, before_m, before_v, before_t, steps_done, first_params, watched = report
    why = ref.unusable(trained)
    if why:
        return 0.0, why
    steps_done = int(np.asarray(steps_done).item())
    names = len(i["names"])
    watch = [k for k in i["watch"] if k <= steps_done]  # (the steps drawn for it that the training reached)
    if steps_done < 1 or any(len(r) != names for r in (before_params, before_m, before_v, first_params)) or \
            len(watched) != len(watch) or any(not isinstance(w, list) or len(w) != 5 or any(
                not isinstance(r, list) or len(r) != names for r in w[:3] + w[4:]) for w in watched):
        return 0.0, "the probe's report of the training is malformed"
    tokens, targets, weights = ref.last_batch(i, steps_done)
    before = dict(names=i["names"], params=before_params, m=before_m, v=before_v, t=int(np.asarray(before_t).item()),
                  tokens=tokens, targets=targets, weights=weights, lr=i["lr"], num_heads=i["num_heads"])
    if all(np.array_equal(a, b) for a, b in zip(trained, before_params)):
        return 0.0, ("not trained: the last step your train_step took left the parameters as they were; section 4 "
                     "says what one step of training does")
    # The first step, from the start the grader drew (so known here), and the last, from the state kept before it
    tokens, targets, weights = ref.last_batch(i, 1)
    start = dict(names=i["names"], params=i["init"], m=[np.zeros_like(a) for a in i["init"]],
                 v=[np.zeros_like(a) for a in i["init"]], t=0, tokens=tokens, targets=targets, weights=weights,
                 lr=i["lr"], num_heads=i["num_heads"])
    checked = [("first", (start, first_params, 1)), ("last", (before, trained, steps_done))]
    for n, (p, m, v, t, after) in zip(watch, watched):
        tokens, targets, weights = ref.last_batch(i, n)
        checked.insert(-1, (_ordinal(n), (dict(names=i["names"], params=p, m=m, v=v, t=int(np.asarray(t).item()),
                                             tokens=tokens, targets=targets, weights=weights, lr=i["lr"],
                                             num_heads=i["num_heads"]), after, n)))
    for which, (state, got, n) in checked:
        if not _accounted(state, got, names):
            return 0.0, (f"not judged: the {which} step your train_step took (step {n}, from a fresh start with the "
                         "notebook's sizes) is not a step of training the grader can account for, so the model "
                         "cannot be told from one made another way. train_step's part says what to fix")
    share, said = ref.judge_trained(i, trained)
    if steps_done < i["steps"] and share < 1:
        said += (f" (training stopped after {steps_done} of {i['steps']} steps: past the time limit of "
                 f"{i['time_limit']} s)")
    return share, said


PROBES = {
    "test_cross_entropy": Probe(
        what="cross_entropy",
        call="cross_entropy(logits, targets, weights)",
        cases=_cross_entropy_cases,
        reference=lambda i: list(ref.cross_entropy(i["logits"], i["targets"], i["weights"])),
        steps=lambda i: shared_steps.cross_entropy(i["logits"], i["targets"], i["weights"]),
        outputs=("loss", "dlogits"),
        kernel_reference=kernel_source("cross_entropy", ref.cross_entropy),
        mistakes=mistakes.CROSS_ENTROPY_09,
    ),
    "test_adam_step": Probe(
        what="adam_step",
        call="adam_step(param, grad, m, v, t, lr, beta1=beta1, beta2=beta2, eps=eps)",
        cases=_adam_cases,
        reference=lambda i: list(ref.adam_step(i["param"], i["grad"], i["m"], i["v"], i["t"], i["lr"],
                                               i["beta1"], i["beta2"], i["eps"])),
        steps=lambda i: shared_steps.adam_step(i["param"], i["grad"], i["m"], i["v"], i["t"], i["lr"],
                                               i["beta1"], i["beta2"], i["eps"]),
        outputs=("param", "m", "v"),
        kernel_reference=kernel_source("adam_step", ref.adam_step),
        mistakes=mistakes.ADAM_09,
    ),
    "test_train_step": Probe(
        what="train_step",
        call=TRAIN_STEP_CALL,
        cases=_train_step_cases,
        reference=ref.train_step_result,
        outputs=TRAIN_STEP_OUTPUTS,
        uses={"cross_entropy": "test_cross_entropy", "adam_step": "test_adam_step"},
        steps=lambda i: shared_steps.train_step(i, ref.cross_entropy, ref.adam_step),
        mistakes=mistakes.TRAIN_STEP_09,
    ),
    "test_trained_model": Probe(
        what="the trained model",
        program=TRAINING_PROGRAM,
        from_kernel=("train_step", "reversal_batch"),
        outputs=("trained", "before_params", "before_m", "before_v", "before_t", "steps_done", "first_params",
                 "watched"),
        cases=_trained_cases,
        reference=ref.training_report,
        judge=_judge_training,
        uses={"cross_entropy": "test_cross_entropy", "adam_step": "test_adam_step"},
        answers_repeat=True,
    ),
}


# ---------------------------------------------------------------- generated cells

def _differing(shown, inputs, true):
    """{what a check says: the mistake's value} for the mistakes that give another answer here."""
    out = {}
    for m in shown:
        try:
            value = m.compute(inputs)
        except Exception:  # a mistake that cannot be made on these inputs
            continue
        if any(np.shape(a) != np.shape(b) or not np.allclose(a, b, equal_nan=True) for a, b in zip(value, true)):
            out[m.said] = value
    return out


def _cross_entropy_values():
    out = {}
    for suffix, i in (("ce", cases.book_09_cross_entropy()),
                      ("ce_large", dict(cases.book_09_cross_entropy(), logits=1000 * cases.book_09_cross_entropy()["logits"]))):
        true = list(ref.cross_entropy(i["logits"], i["targets"], i["weights"]))
        out.update({f"logits_{suffix}": i["logits"], f"targets_{suffix}": i["targets"], f"weights_{suffix}": i["weights"],
                    f"{suffix}_true": true, f"{suffix}_mistakes": _differing(mistakes.CROSS_ENTROPY_09, i, true)})
    del out["targets_ce_large"], out["weights_ce_large"]  # the same as the first example's
    return out


def _adam_values():
    # The notebook computes with the inputs as written, to 10 digits of each array's largest entry, so
    # the true values are computed from those: v's tiny entries (1e-12 of the rest) are written 0.
    i = {name: rounded(value) if isinstance(value, np.ndarray) else value
         for name, value in cases.book_09_adam().items()}
    true = list(ref.adam_step(i["param"], i["grad"], i["m"], i["v"], i["t"], i["lr"]))
    return {"param_adam": i["param"], "grad_adam": i["grad"], "m_adam": i["m"], "v_adam": i["v"], "t_adam": i["t"],
            "lr_adam": i["lr"], "adam_true": true, "adam_mistakes": _differing(mistakes.ADAM_09, i, true)}


STEP_SHOWN = ("W_q", "W_out")  # the arrays notebook 09's check of train_step compares, with the loss and t


def _shown(report, names):
    """{what: value} of a train_step report that the notebook's check compares."""
    where = {n: k for k, n in enumerate(names)}
    out = {"loss": report[0], "adam_state['t']": report[1]}
    for n in STEP_SHOWN:
        k = where[n]
        out[f"params[{n!r}]"] = report[2 + k]
        out[f"adam_state['m'][{n!r}]"] = report[2 + len(names) + k]
        out[f"adam_state['v'][{n!r}]"] = report[2 + 2 * len(names) + k]
    return out


def _train_step_values():
    """The true values of the check's items, and for each mistake the items it gets wrong (only those)."""
    i = cases.book_09_train_step()
    true = _shown(ref.train_step_result(i), i["names"])
    wrong = {}
    for m in mistakes.TRAIN_STEP_09:
        with np.errstate(all="ignore"):
            said = _shown(m.compute(i), i["names"])
        differ = {k: v for k, v in said.items() if np.shape(v) != np.shape(true[k])
                  or not np.allclose(v, true[k], equal_nan=True)}
        if differ:
            wrong[m.said] = differ
    return {"train_step_true": true, "train_step_mistakes": wrong}


VALUES = {
    "n09_cross_entropy": _cross_entropy_values,
    "n09_adam": _adam_values,
    "n09_train_step": _train_step_values,
}
