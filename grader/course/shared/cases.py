"""Inputs that two or more notebooks use: the book's parameter names and its 12.1 case, and fresh sizes for it."""
import numpy as np

from .notebook_checks import ATOL, RTOL


# Fresh sizes avoid the book's own (D=4, N=3), so an answer that leans on the
# notebook's globals or on the book's printed numbers cannot pass by chance, and
# D=2 (where dividing by D equals dividing by the book's sqrt(4)). N=4 is left out
# too (dividing by sqrt(N) would equal the book's sqrt(D)), and N never equals D
# (fresh_12_1 sees to it): a result transposed, or scaled by the number of tokens,
# then differs from the right one in shape or in value.
FRESH_D = (3, 5, 6, 7)
FRESH_N = (5, 6, 7)
PARAMETERS = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


def book_12_1():
    """Book notebook 12.1: N=3 tokens of size D=4 (seed 3), then the parameters (seed 0)."""
    N, D = 3, 4
    np.random.seed(3)
    all_x = [np.random.normal(size=(D, 1)) for _ in range(N)]
    np.random.seed(0)
    omega_q = np.random.normal(size=(D, D))
    omega_k = np.random.normal(size=(D, D))
    omega_v = np.random.normal(size=(D, D))
    beta_q = np.random.normal(size=(D, 1))
    beta_k = np.random.normal(size=(D, 1))
    beta_v = np.random.normal(size=(D, 1))
    return dict(N=N, D=D, all_x=all_x, X=np.hstack(all_x),
                omega_v=omega_v, omega_q=omega_q, omega_k=omega_k,
                beta_v=beta_v, beta_q=beta_q, beta_k=beta_k)


def fresh_12_1(rng, D=None, N=None):
    """Inputs like the book's, of another size, drawn from `rng`.

    Weights have standard deviation 1/sqrt(D), not the book's 1: the attention is
    then far from saturated, so a softmax over the wrong axis or a wrong scale
    changes the result visibly instead of hiding behind weights of 0 and 1.
    """
    if N is None:
        D = int(rng.choice(FRESH_D)) if D is None else D
        N = int(rng.choice([n for n in FRESH_N if n != D]))
    elif D is None:
        D = int(rng.choice([d for d in FRESH_D if d != N]))
    X = rng.normal(size=(D, N))
    params = {name: rng.normal(scale=1 / np.sqrt(D), size=(D, D)) if name.startswith("omega")
              else rng.normal(scale=0.5, size=(D, 1)) for name in PARAMETERS}
    return dict(N=N, D=D, all_x=[X[:, [n]] for n in range(N)], X=X, **params)


def other_12_1():
    """The notebooks' second example (D=5, N=3): a fixed draw of other sizes, for the checks a student sees."""
    return fresh_12_1(np.random.default_rng(2024), D=5, N=3)


def only(inputs, names):
    """The entries of `inputs` that a probe passes on."""
    return {name: inputs[name] for name in names}


# ---------------------------------------------------------------- drawing fresh cases that see every mistake

def same_result(a, b):
    """Results the grader may not tell apart: arrays, or lists of arrays item by item, within ten times the
    course's tolerance (what a fresh draw compares). A case is drawn where each mistake is not the same as the
    right result, so that the mistake is wrong there on every machine, not at the tolerance's edge, where
    rounding decides (09's train_step with the step counted after the update was within it at t=12)."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(same_result, a, b))
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=10 * RTOL, atol=10 * ATOL))


_last_results = (None, None, None)  # (probe, inputs, their results): a draw's checks all ask for the same


def results_of(probe, inputs):
    """[the reference's result, then each catalogued mistake's] on these inputs (not to be changed: the last
    ones asked for are kept, and a fresh case's checks each ask for them)."""
    global _last_results
    last_probe, last_inputs, results = _last_results
    if last_probe is not probe or last_inputs is not inputs:
        results = [probe.reference(inputs)] + [m.compute(inputs) for m in probe.mistakes]
        _last_results = (probe, inputs, results)
    return results


def every_mistake_shows(probe, inputs):
    """Whether each catalogued mistake of `probe` gives a wrong result on these inputs."""
    right, *wrong = results_of(probe, inputs)
    return not any(same_result(right, w) for w in wrong)


def every_mistake_shows_itself(probe, inputs):
    """Whether each catalogued mistake of a probe with several outputs gives, on these inputs, an output that
    no right output equals. Where a mistake's wrong outputs are only the right ones in other places, answers
    that put one output in another's place look like that mistake, and would be told its name (11's products of
    probabilities, divided by the length, gave the result without length normalisation on most cases, as a
    normalisation that changes nothing does)."""
    right, *wrong = results_of(probe, inputs)
    return all(any(not any(same_result(out, r) for r in right) for out in w) for w in wrong)


def helper_mistakes_show(probe, probes, inputs_list):
    """Whether each catalogued mistake of the parts `probe` calls (Probe.uses) that is written as a function
    (Mistake.function), put in place of the course's helper, changes `probe`'s result on one of these inputs.
    A student whose helper has that mistake is then told this part is right once the helper is fixed, on
    every draw, not on some draws only (10's learn_merges calls count_pairs: a pair counted once where it
    overlaps itself changes the merges learned from some corpora only)."""
    if probe.reference_with is None:
        return True
    for name, part in probe.uses.items():
        for mistake in probes[part].mistakes:
            if mistake.function is not None and all(
                    same_result(probe.reference(i), probe.reference_with(i, {name: mistake.function}))
                    for i in inputs_list):
                return False
    return True
