"""Brute-force real mu of a real matrix with non-repeated real scalars: the largest
positive real eigenvalue of ``M diag(v)`` over the sign vertices ``v`` (the reference the
exact real-scalar lower bounds are checked against; numpy only, no package code)."""

import itertools

import numpy as np


def vertex_mu(M):
    best = 0.0
    for v in itertools.product((-1.0, 1.0), repeat=M.shape[0]):
        lam = np.linalg.eigvals(M * np.array(v)[None, :])
        pos = lam[(np.abs(lam.imag) <= 1e-12 * np.abs(lam)) & (lam.real > 0)].real
        best = max(best, pos.max(initial=0.0))
    return best
