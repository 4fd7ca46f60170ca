"""Notebook 11's readings of a wrong result (Probe.readings): what the student's answer is, said as a fact.

`beam_path` follows the student's sequence through the rules' own search: the first step after which the
rules no longer keep it among the beams (with its rank and sum against the last beam kept), or, when the
rules keep it to the end, that it is one of their final beams but not the best. A search has no array a
trace could tie to a step; its steps are the beams kept after each step, and this is the first wrong one.
"""
import numpy as np

from . import mistakes, reference as ref

OUTPUTS = ("without length normalisation", "with length normalisation")
ROUNDING = 1e-9  # logits this close are one logit: 0.1 + 0.6 and 0.3 + 0.4 differ in their last bits


def _ids(ids, shown=12):
    """The ids as a list, the first `shown` of a longer one and how many more (a verdict never prints a whole
    long result)."""
    ids = [int(t) for t in ids]
    more = f", ... and {len(ids) - shown} more" if len(ids) > shown else ""
    return "[" + ", ".join(str(t) for t in ids[:shown]) + more + "]"


def _score(ids, total, n_prompt, norm):
    return total / (len(ids) - n_prompt) if norm else total


def beam_path(inputs, value):
    """beam_search: where the student's sequence leaves the rules' beams, on the first search it gets wrong."""
    prompt, end, width = [int(t) for t in inputs["prompt"]], int(inputs["end"]), int(inputs["beam_width"])
    for norm, got in zip((False, True), value):
        history = []
        want = ref.beam_search(mistakes.model_of(inputs), prompt, int(inputs["n_new"]), width, end, norm, history)
        got = np.asarray(got, dtype=float).reshape(-1)
        if not np.array_equal(got, np.round(got)):
            return None
        got = [int(t) for t in got]
        if got == [int(t) for t in want]:
            continue
        said = OUTPUTS[norm]
        if got[:len(prompt)] != prompt:
            return f"{said}: your sequence {_ids(got)} does not start with the prompt {_ids(prompt)}"
        new = got[len(prompt):]
        n_new = int(inputs["n_new"])
        if len(new) > n_new:  # (more than any beam can hold, finished or not: no finished beam's doing)
            return (f"{said}: your sequence has {len(new)} new tokens, where the search runs {n_new} steps, each "
                    "adding one token to a beam (each candidate needs a list of its own: ids + [token])")
        done = new.index(end) + 1 if end in new else len(new)  # new tokens up to and with the end token
        if done < len(new):
            return f"{said}: your sequence {_ids(got)} goes on after the end token {end}: a finished beam stays as it is"
        if len(new) < n_new and end not in new:
            return (f"{said}: your sequence has {len(new)} new tokens, where the search runs {n_new} steps and "
                    "only a beam that has produced the end token stops early")
        for step, ranked in enumerate(history, 1):
            start = got[:len(prompt) + min(step, done)]  # the student's beam after this step, in the rules' terms
            rank = next((k for k, (ids, _) in enumerate(ranked, 1) if list(ids) == start), None)
            if rank is None:  # (a candidate whenever the step before kept it: not reached)
                return None
            if rank > width:
                total = ranked[rank - 1][1]
                last_ids, last_total = ranked[width - 1]
                return (f"{said}: the rules drop your sequence's start {_ids(start)} at step {step}: its summed "
                        f"log-probability {total:.4g} ranks {rank} of {len(ranked)} candidates, below the "
                        f"{width} beams kept (the last, {_ids(last_ids)}, has {last_total:.4g})")
        final = history[-1][:width] if history else []
        scores = [(_score(ids, total, len(prompt), norm), ids) for ids, total in final]
        k = int(np.argmax([s for s, _ in scores]))  # the rules' best, beam k + 1 of those kept
        mine = [s for s, ids in scores if list(ids) == got]
        if mine:
            how = "summed log-probability divided by its number of new tokens" if norm else "summed log-probability"
            return (f"{said}: your sequence is one of the rules' {width} final beams, but not the best: its "
                    f"{how} is {mine[0]:.4g}, where {_ids(scores[k][1])}, beam {k + 1} of the {width} the last step "
                    f"keeps, has {scores[k][0]:.4g}")
        return None
    return None


def _sequence(value, prompt, n_new):
    """(the ids, None) of a decoder's result that is the prompt and n_new whole ids; else (None, what is wrong
    with it, or None when it is no sequence of ids at all)."""
    got = np.asarray(value, dtype=float).reshape(-1)
    if not np.array_equal(got, np.round(got)):
        return None, None
    got = [int(t) for t in got]
    if got[:len(prompt)] != prompt:
        return None, f"your sequence {_ids(got)} does not start with the prompt {_ids(prompt)}"
    if len(got) != len(prompt) + n_new:
        return None, f"your sequence has {len(got) - len(prompt)} new tokens where {n_new} are due"
    return got, None


def greedy_path(inputs, value):
    """greedy: the first new token that is not the rules' pick, with the logits behind it; and, when every token
    picked is the largest logit of the model given the last few ids alone, that fact."""
    model, prompt, n_new = mistakes.model_of(inputs), [int(t) for t in inputs["prompt"]], int(inputs["n_new"])
    got, said = _sequence(value, prompt, n_new)
    if got is None:
        return said
    V = len(model(prompt))
    if any(t < 0 or t >= V for t in got):
        return None
    # Facts of the student's own sequence, position by position: which picks have the largest logit given
    # every id before them (all of them: only the tie rule differs), which the model given fewer ids explains.
    largest = [model(got[:j])[got[j]] >= model(got[:j]).max() - ROUNDING for j in range(len(prompt), len(got))]
    k = next((j for j in range(len(prompt), len(got)) if got[j] != int(np.argmax(model(got[:j])))), None)
    if k is None:  # every pick the rules' own
        return None
    entry = f"new token {k - len(prompt) + 1} (entry {k + 1})"
    logits, due = model(got[:k]), int(np.argmax(model(got[:k])))
    if all(largest):
        return (f"every token you pick has the largest logit, but at {entry} your {got[k]} ties with {due} "
                f"({logits[due]:.4g}): on a tie the smaller id is due, as np.argmax gives")
    for m in range(1, min(4, len(prompt) + 1)):
        if all(got[j] == int(np.argmax(model(got[j - m:j]))) for j in range(len(prompt), len(got))):
            last = "the last id" if m == 1 else f"the last {m} ids"
            return (f"every new token you pick is the largest logit of the model given {last} alone, where it "
                    f"is given every id so far: at {entry}, {due} is due")
    j = len(prompt) + largest.index(False)  # the first pick that is no largest logit at all
    logits = model(got[:j])
    return (f"at new token {j - len(prompt) + 1} (entry {j + 1}) you pick {got[j]}, whose logit given {_ids(got[:j])} "
            f"is {logits[got[j]]:.4g}; the largest is {int(np.argmax(logits))}'s, {logits.max():.4g}")


def sample_path(inputs, value):
    """sample: the first new token that is not the draw the rules make from the generator given, along the
    student's own sequence (each draw takes one number from the generator, whatever its probabilities, so the
    rules' k-th draw is known after any k - 1)."""
    model, prompt, n_new = mistakes.model_of(inputs), [int(t) for t in inputs["prompt"]], int(inputs["n_new"])
    temperature = float(inputs["temperature"])
    got, said = _sequence(value, prompt, n_new)
    if got is None:
        return said
    # rng.choice(V, p=probs) takes one number u = rng.random() and returns the first token whose cumulative
    # probability passes u: the rules' k-th draw is known after any k - 1, and so is what u gives under other
    # probabilities (the same draw made without the temperature)
    numbers = np.random.default_rng(int(inputs["seed"])).random(len(got) - len(prompt))
    for j, u in zip(range(len(prompt), len(got)), numbers):
        logits = np.asarray(model(got[:j]), dtype=np.float64)
        with np.errstate(over="ignore"):
            probs = ref.softmax(logits / temperature)
        if not 0 <= got[j] < len(probs):
            return None
        draw = _drawn(probs, u)
        if got[j] == draw:
            continue
        entry = f"new token {j - len(prompt) + 1} (entry {j + 1})"
        if probs[got[j]] < 1e-12:
            return (f"at {entry} you have {got[j]}, whose probability given {_ids(got[:j])} at temperature "
                    f"{temperature:g} is {probs[got[j]]:.2g}: the probabilities are softmax(logits / temperature)")
        # every token from here on the generator's draw without the temperature (one could be chance)
        if temperature != 1 and all(got[m] == _drawn(ref.softmax(np.asarray(model(got[:m]), dtype=np.float64)), v)
                                    for m, v in zip(range(j, len(got)), numbers[j - len(prompt):])):
            return (f"from {entry} on, each of your tokens is the generator's draw from softmax(logits), without "
                    f"the temperature {temperature:g} (which gives {draw} there): every draw divides the logits by "
                    "the temperature")
        return (f"at {entry} the generator you are given draws {draw} (its call {j - len(prompt) + 1} of "
                f"rng.choice(V, p=softmax(logits / temperature))), where you have {got[j]}")
    return None


def _drawn(probs, u):
    """The token rng.choice(len(probs), p=probs) returns when its generator's number is u."""
    cdf = np.cumsum(probs)
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def _tokens(ts, probs):
    said = [f"{t} ({probs[t]:.4g})" for t in ts[:4]] + ([f"{len(ts) - 4} more"] if len(ts) > 4 else [])
    return ("token " if len(ts) == 1 else "tokens ") + (said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1])


def _kept(inputs, value, due):
    """(probabilities, the tokens the student keeps beyond the rules', those the rules keep and the student not),
    or None when the result is no distribution over the tokens or keeps the rules' own tokens."""
    probs = ref.softmax(np.asarray(inputs["logits"], dtype=np.float64))
    got = np.asarray(value, dtype=float).reshape(-1)
    if got.shape != probs.shape or not np.all(np.isfinite(got)):
        return None
    mine, due = set(np.flatnonzero(got > 0).tolist()), set(int(t) for t in due(probs))
    if mine == due:
        return None
    return probs, sorted(mine - due), sorted(due - mine)


def top_k_kept(inputs, value):
    """top_k_probs: which tokens it keeps that the k most likely are not, and which it leaves out (probabilities
    in brackets); equal probabilities on both sides are said as the tie rule."""
    k = int(inputs["k"])
    kept = _kept(inputs, value, lambda probs: np.argsort(-probs, kind="stable")[:k])
    if kept is None:
        return None
    probs, extra, missing = kept
    if extra and len(extra) == len(missing) and all(
            np.isclose(probs[e], probs[m], rtol=1e-12, atol=0) for e, m in zip(extra, missing)):
        return (f"you keep {_tokens(extra, probs)} and not {_tokens(missing, probs)}, which tie with "
                f"{'it' if len(extra) == 1 else 'them'}: on a tie the smaller id is kept, as "
                "np.argsort(-probs, kind=\"stable\")[:k] keeps")
    said = ([f"you keep {_tokens(extra, probs)}, which {'is' if len(extra) == 1 else 'are'} not among the {k} most "
             "likely"] if extra else []) + \
        ([f"you leave out {_tokens(missing, probs)}, among the {k} most likely"] if missing else [])
    n = k + len(extra) - len(missing)  # the tokens it keeps
    return "; ".join(said) + (f" (you keep {n} tokens where {k} are due)" if n != k else "")


def top_p_kept(inputs, value):
    """top_p_probs: which tokens it keeps past the nucleus, or leaves out of it, each with the sum of the more
    likely tokens before it: a token is in the nucleus exactly when that sum is still below p."""
    p = float(inputs["p"])
    kept = _kept(inputs, value, lambda probs: np.argsort(-probs, kind="stable")[:ref.nucleus_size(probs, p)])
    if kept is None:
        return None
    probs, extra, missing = kept
    order = np.argsort(-probs, kind="stable")
    before = {int(t): float(np.sum(probs[order[:n]])) for n, t in enumerate(order)}  # the sum above each token
    said = []
    if missing:
        t = missing[0]
        said.append(f"you leave out token {t} ({probs[t]:.4g}), though the more likely tokens before it sum to "
                    f"{before[t]:.4g}, below p = {p:g}, so it is in the nucleus (the token that reaches p is kept)")
    if extra:
        t = extra[0]
        said.append(f"you keep token {t} ({probs[t]:.4g}), though the more likely tokens before it already sum to "
                    f"{before[t]:.4g}, which reaches p = {p:g}")
    return "; ".join(said)
