"""Notebook 04's inputs: the book's cases (its seeds, its sizes) and fresh ones drawn at grading time.
"""
import numpy as np


def book_12_2():
    """Book notebook 12.2: N=6 tokens of size D=8 (seed 3), two heads of size 4 (seed 0)."""
    N, D, H = 6, 8, 2
    np.random.seed(3)
    X = np.random.normal(size=(D, N))
    H_D = D // H
    np.random.seed(0)
    out = dict(N=N, D=D, H=H, X=X)
    for h in (1, 2):
        for name, size in (("omega_q", (H_D, D)), ("omega_k", (H_D, D)), ("omega_v", (H_D, D)),
                           ("beta_q", (H_D, 1)), ("beta_k", (H_D, 1)), ("beta_v", (H_D, 1))):
            out[f"{name}{h}"] = np.random.normal(size=size)
    out["omega_c"] = np.random.normal(size=(D, D))
    return out
