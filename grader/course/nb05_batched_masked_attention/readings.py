"""Notebook 05's own reading of a result (Probe.readings): init_weight's weights read as draws."""
import numpy as np

from .reference import INIT_DRAWS


def init_draws(inputs, value):
    """A sentence when the weights are the generator's own standard normal draws, shifted and scaled by other
    amounts than the ones due (mean 0, standard deviation 1/sqrt(fan_in)); None otherwise. Every weight is
    then a + b z for the same z, so a and b are read off exactly, whatever the student's code looked like."""
    fan_in, fan_out = int(inputs["fan_in"]), int(inputs["fan_out"])
    rng = np.random.default_rng(inputs["seed"])
    for _ in range(inputs.get("draws", INIT_DRAWS)):  # the draws a right answer scales (the probe's last call's)
        z = rng.standard_normal((fan_in, fan_out))
    w = np.asarray(value, dtype=float)
    if w.shape != z.shape:
        return None
    (b, a), *_ = np.linalg.lstsq(np.stack([z.ravel(), np.ones(z.size)], axis=1), w.ravel(), rcond=None)
    if not np.allclose(a + b * z, w, rtol=1e-9, atol=1e-12):
        return None
    std = 1.0 / np.sqrt(fan_in)
    if abs(a) < 1e-12 and abs(abs(b) - std) < 1e-12:
        return None  # the weights due (or their negatives, which are as good a draw)

    def said(x):
        return f"{x:.4g}" + (" (1/sqrt(fan_in))" if abs(abs(x) - std) < 1e-9 else "")
    if abs(a) > 1e-12:
        return (f"your weights are the generator's normal draws with mean {said(a)} and standard deviation "
                f"{said(abs(b))}, where mean 0 and standard deviation 1/sqrt(fan_in) = {std:.4g} are due: rng.normal "
                "takes the mean (loc) first, then the standard deviation (scale)")
    return (f"your weights are the generator's normal draws with standard deviation {said(abs(b))}, where "
            f"1/sqrt(fan_in) = {std:.4g} is due")
