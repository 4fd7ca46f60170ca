"""Notebook 03's reference implementations: where the expected values of its graded functions come from
(float64 throughout).
"""
import numpy as np


def permutation_matrices(n):
    """All n! permutation matrices of size n x n, in itertools order: X @ P puts column order[j] of X in place j."""
    import itertools
    identity = np.eye(n)
    return [identity[:, list(order)] for order in itertools.permutations(range(n))]  # n! x (n, n)


def distinct_matrices(matrices):
    """The distinct matrices of a list, each once and sorted: the list compared as a set, whatever its order."""
    return np.unique(np.array(matrices, dtype=np.float64), axis=0)  # (k, n, n)


def equivariance_violation(f, X):
    """The largest |f(X P) - f(X) P| over every permutation matrix P: zero (up to rounding) iff f is equivariant."""
    f_X = f(X)  # (D', N)
    return max(np.max(np.abs(f(X @ P) - f_X @ P)) for P in permutation_matrices(X.shape[1]))


def is_permutation_equivariant(f, X, tolerance=1e-6):
    """Whether f(X P) == f(X) P, within `tolerance`, for every N x N permutation matrix P."""
    return bool(equivariance_violation(f, X) <= tolerance)


def same_columns_for_every_permutation(f, X, tolerance=1e-4):
    """Seed 003's weaker check: f(X P) holds the same set of columns, in any order, for every P."""
    def same_set(A, B):
        if A.shape != B.shape:
            return False
        if A.ndim == 2 and np.isfinite(A).all() and np.isfinite(B).all():
            # np.allclose(a, b, atol=tolerance)'s rule, |a - b| <= atol + rtol |b|, for every pair of columns at once
            a, b = A.T[:, np.newaxis, :], B.T[np.newaxis, :, :]  # (N, 1, D), (1, N, D)
            close = (np.abs(a - b) <= tolerance + 1e-5 * np.abs(b)).all(axis=2)  # (N, N)
        else:
            close = np.array([[np.allclose(a, b, atol=tolerance) for b in B.T] for a in A.T])  # (N, N)
        return bool(close.any(axis=1).all() and close.any(axis=0).all())
    outputs = [f(X @ P) for P in permutation_matrices(X.shape[1])]
    return all(same_set(outputs[0], B) for B in outputs[1:])


def position_encoding(D, N):
    """Sinusoidal position encodings, one column per position, (D, N): rows 2i and 2i+1 hold
    sin and cos of n / 10000^(2i/D) (Vaswani et al., 2017, in the book's column convention)."""
    positions = np.arange(N)[np.newaxis, :]  # (1, N)
    rows = np.arange(D)[:, np.newaxis]  # (D, 1)
    angles = positions / 10000.0 ** (2 * (rows // 2) / D)  # (D, N)
    return np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))  # (D, N)
