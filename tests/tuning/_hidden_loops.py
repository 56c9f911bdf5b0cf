"""Loops whose computed poles lie on the wrong side of the axis (shared test helper)."""

import numpy as np
from scipy.linalg import block_diag


def hidden_loop(seed, zeta, cond):
    """Modes at 3.7 rad/s (damping ``zeta``; ``< 0`` is unstable) and 50 rad/s (0.3),
    seen through a random non-diagonal change of coordinates of condition number
    ``cond``: ``(A, B, C, D)``."""
    w, z = (3.7, 50.0), (zeta, 0.3)
    a = block_diag(
        *[np.array([[0.0, wi], [-wi, -2 * zi * wi]]) for wi, zi in zip(w, z, strict=True)]
    )
    b, c, d = np.array([[0.0], [1.0], [0.0], [1.0]]), np.array([[1.0, 0, 1.0, 0]]), np.zeros((1, 1))
    rng = np.random.default_rng(seed)
    u, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    v, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    t = u @ np.diag(np.logspace(0, np.log10(cond), 4)) @ v
    ti = np.linalg.inv(t)
    return ti @ a @ t, ti @ b, c @ t, d
