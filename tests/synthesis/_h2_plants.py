"""Continuous-time H2 synthesis plants with references computed with scipy (shared by
``test_h2syn_lmi.py`` and ``benchmarks/bench_h2syn_lmi.py``).

Each family returns ``(P, nmeas, ncon, reference)``: the Riccati optimum for regular
plants, the optimum of the loop-shifted plant (``D11 != 0``) or of a regularised plant
(relative size ``eps``) for singular ones, whose infimum it bounds from above.
"""

import control
import numpy as np
import scipy.linalg as sla

SINGULAR_KINDS = ("D12 = 0", "D21 = 0", "D11 != 0", "imaginary-axis zero")


def plant(A, B1, B2, C1, C2, D11, D12, D21, D22):
    return control.ss(
        A, np.hstack([B1, B2]), np.vstack([C1, C2]), np.block([[D11, D12], [D21, D22]])
    )


def riccati_optimum(A, B1, B2, C1, C2, D12, D21):
    """Optimal H2 cost of a regular plant (D11 = 0, D22 = 0) from scipy's CARE solver."""
    X = sla.solve_continuous_are(A, B2, C1.T @ C1, D12.T @ D12, s=C1.T @ D12)
    Y = sla.solve_continuous_are(A.T, C2.T, B1 @ B1.T, D21 @ D21.T, s=B1 @ D21.T)
    F = -np.linalg.solve(D12.T @ D12, B2.T @ X + D12.T @ C1)
    return float(np.sqrt(np.trace(B1.T @ X @ B1) + np.trace(D12.T @ D12 @ F @ Y @ F.T)))


def measured_noise_plant(k):
    """The k-th 2-state plant of a seeded sequence (w measured exactly: D21 = 1)."""
    rng = np.random.default_rng(0)
    for _ in range(k + 1):
        A = rng.standard_normal((2, 2))
        B1, B2 = rng.standard_normal((2, 1)), rng.standard_normal((2, 1))
        C1 = np.vstack([rng.standard_normal((1, 2)), np.zeros((1, 2))])
        C2 = rng.standard_normal((1, 2))
    D12, D21 = np.array([[0.0], [1.0]]), np.array([[1.0]])
    args = (A, B1, B2, C1, C2, np.zeros((2, 1)), D12, D21, np.zeros((1, 1)))
    return plant(*args), 1, 1, riccati_optimum(A, B1, B2, C1, C2, D12, D21)


def regular_plant(seed):
    """Random regular plant, 2 to 6 states; every third with D22 != 0, about half with
    D21 square (the noise is recovered from the measurement)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    m2, p2 = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    m1, p1 = p2 + int(rng.integers(0, 2)), m2 + 1 + int(rng.integers(0, 2))
    A = rng.standard_normal((n, n))
    B1, B2 = rng.standard_normal((n, m1)), rng.standard_normal((n, m2))
    C1, C2 = rng.standard_normal((p1, n)), rng.standard_normal((p2, n))
    D12, D21 = rng.standard_normal((p1, m2)), rng.standard_normal((p2, m1))
    D22 = rng.standard_normal((p2, m2)) if seed % 3 == 0 else np.zeros((p2, m2))
    P = plant(A, B1, B2, C1, C2, np.zeros((p1, m1)), D12, D21, D22)
    # D22 does not change the optimum (u -> y feedthrough is known to the controller)
    return P, p2, m2, riccati_optimum(A, B1, B2, C1, C2, D12, D21)


def singular_plant(kind, seed, eps=1e-6):
    """``(P, nmeas, ncon, limit)``: a singular plant and the Riccati optimum of its
    regularisation (``eps``), or of the loop-shifted plant when only ``D11 != 0``."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 5))
    m2, p2 = 1 + seed % 2, 1 + (seed // 2) % 2
    m1, p1 = p2 + 1, m2 + 1
    A = rng.standard_normal((n, n))
    B1, B2 = rng.standard_normal((n, m1)), rng.standard_normal((n, m2))
    C1, C2 = rng.standard_normal((p1, n)), rng.standard_normal((p2, n))
    D12, D21 = rng.standard_normal((p1, m2)), rng.standard_normal((p2, m1))
    D11 = np.zeros((p1, m1))
    if kind == "D12 = 0":
        D12 = np.zeros((p1, m2))
    elif kind == "D21 = 0":
        D21 = np.zeros((p2, m1))
    elif kind == "D11 != 0":
        # the only Dk with a strictly proper loop is -Q0 (D12, D21 of full rank); the loop
        # shift u = v - Q0 y gives a regular plant with D11 = 0 and the same optimum
        Q0 = rng.standard_normal((m2, p2))
        D11 = D12 @ Q0 @ D21
        As, B1s, C1s = A - B2 @ Q0 @ C2, B1 - B2 @ Q0 @ D21, C1 - D12 @ Q0 @ C2
        P = plant(A, B1, B2, C1, C2, D11, D12, D21, np.zeros((p2, m2)))
        return P, p2, m2, riccati_optimum(As, B1s, B2, C1s, C2, D12, D21)
    elif kind == "imaginary-axis zero":
        # modes at +-j w0 that z does not see: an invariant zero of (A, B2, C1, D12)
        w0 = 0.5 + rng.random()
        A = sla.block_diag([[0.0, w0], [-w0, 0.0]], A[: n - 2, : n - 2])
        C1[:, :2] = 0.0
    P = plant(A, B1, B2, C1, C2, D11, D12, D21, np.zeros((p2, m2)))
    e12 = eps * max(np.linalg.norm(C1), np.linalg.norm(B2), 1.0)
    e21 = eps * max(np.linalg.norm(B1), np.linalg.norm(C2), 1.0)
    ex = eps * max(np.linalg.norm(A), 1.0)
    B1r = np.hstack([B1, np.zeros((n, p2)), ex * np.eye(n)])
    D21r = np.hstack([D21, e21 * np.eye(p2), np.zeros((p2, n))])
    C1r = np.vstack([C1, np.zeros((m2, n)), ex * np.eye(n)])
    D12r = np.vstack([D12, e12 * np.eye(m2), np.zeros((n, m2))])
    return P, p2, m2, riccati_optimum(A, B1r, B2, C1r, C2, D12r, D21r)
