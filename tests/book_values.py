"""Values printed in the book's notebooks, as the seed documents show them (../shared/seeds).

Typed from the printouts, never from this project's code: tests check that the
reference implementation reproduces them, and (where the seeds are present)
that each printout really is in its seed.
"""
import numpy as np

SEED_12_1 = "003_8e978064b845029d.txt"   # notebook 12.1, self-attention
SEED_12_2 = "000_019ec01f2b691aa0.txt"   # notebook 12.2, multi-head self-attention

# name: (seed file, printed text, decimals printed)
PRINTED = {
    "12.1 x_prime_0": (SEED_12_1, "[[ 0.94744244 -0.24348429 -0.91310441 -0.44522983]]", 8),
    "12.1 x_prime_1": (SEED_12_1, "[[ 1.64201168 -0.08470004  4.02764044  2.18690791]]", 8),
    "12.1 x_prime_2": (SEED_12_1, "[[ 1.61949281 -0.06641533  3.96863308  2.15858316]]", 8),
    "12.1 attention": (SEED_12_1, """\
[[1.24326146e-13 2.79525306e-12 5.05707907e-03]
 [9.98281489e-01 5.85506360e-03 6.54776072e-03]
 [1.71851130e-03 9.94144936e-01 9.88395160e-01]]""", 8),
    "12.1 scaled X_prime": (SEED_12_1, """\
[[ 0.97411966  1.59622051  1.32638014]
 [-0.23738409 -0.09516106  0.13062402]
 [-0.72333202  3.70194096  3.02371664]
 [-0.34413007  2.01339538  1.6902419 ]]""", 8),
    "12.1 scaled attention": (SEED_12_1, """\
[[3.38843552e-07 1.55730194e-06 6.20418746e-02]
 [9.60161968e-01 7.12734969e-02 7.05962187e-02]
 [3.98376935e-02 9.28724946e-01 8.67361907e-01]]""", 8),
    "12.2 X_prime": (SEED_12_2, """\
[[-21.207  -5.373 -20.933  -9.179 -11.319 -17.812]
 [ -1.995   7.906 -10.516   3.452   9.863  -7.24 ]
 [  5.479   1.115   9.244   0.453   5.656   7.089]
 [ -7.413  -7.416   0.363  -5.573  -6.736  -0.848]
 [-11.261  -9.937  -4.848  -8.915 -13.378  -5.761]
 [  3.548  10.036  -2.244   1.604  12.113  -2.557]
 [  4.888  -5.814   2.407   3.228  -4.232   3.71 ]
 [  1.248  18.894  -6.409   3.224  19.717  -5.629]]""", 3),
}


def parse(printed):
    """A numpy printout (no commas) back into an array."""
    rows = [line.replace("[", " ").replace("]", " ").split() for line in printed.strip().splitlines()]
    return np.array([[float(t) for t in row] for row in rows])


def value(name):
    return parse(PRINTED[name][1])


def tolerance(name):
    """Half a unit in the last printed decimal."""
    return 0.5 * 10.0 ** -PRINTED[name][2]
