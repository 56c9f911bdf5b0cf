"""hinfnorm / h2norm with a pole within rounding of the imaginary axis.

A 2x2 transfer matrix with an integrator, realised and then rotated by an orthogonal
similarity: the stored ``A`` has a pole at about ``-4.9e-16``, so ``G(0)`` is about
``2e15`` and set by rounding.  References: the stored matrices evaluated in 60-digit
mpmath arithmetic (every double is exact there).
"""

import control
import mpmath as mp
import numpy as np
import pytest

from robustmb.analysis._exact_response import exact_response
from robustmb.analysis.norms import h2norm, hinfnorm


def _stored():
    G = control.ss(
        control.tf([[[1], [2, 1]], [[1, 0], [3]]], [[[1, 0], [1, 0.01, 4]], [[1, 2, 10], [1, 1]]])
    )
    A, B, C, D = (np.asarray(x, dtype=float) for x in (G.A, G.B, G.C, G.D))
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((A.shape[0],) * 2))[0]
    return Q.T @ A @ Q, Q.T @ B, C @ Q, D


def _mp(X):
    return mp.matrix([[mp.mpf(float(v)) for v in row] for row in np.atleast_2d(X)])


def _mp_response(A, B, C, D, p):
    n = A.shape[0]
    return _mp(C) * mp.inverse(p * mp.eye(n) - _mp(A)) * _mp(B) + _mp(D)


def _mp_sigma_max(M):
    S = mp.svd_c(M, compute_uv=False)
    return max(S[i] for i in range(S.rows))


def test_hinfnorm_exact_response_at_unresolved_peak():
    mp.mp.dps = 60
    A, B, C, D = _stored()
    reference = _mp_sigma_max(_mp_response(A, B, C, D, mp.mpc(0)))
    assert 1e15 < reference < 1e16  # the stored pole is within rounding of the axis
    with pytest.warns(RuntimeWarning, match="rounding distance of the imaginary axis"):
        gamma, fpeak = hinfnorm((A, B, C, D))
    assert fpeak == 0.0
    assert abs(gamma - float(reference)) <= 1e-12 * float(reference)


def test_h2norm_warns_on_pole_in_rounding_band():
    mp.mp.dps = 60
    A, B, C, D = _stored()
    n = A.shape[0]
    # Lyapunov equation A P + P A^T + B B^T = 0 as a Kronecker system, in mpmath
    Am, Bm, Cm = _mp(A), _mp(B), _mp(C)
    K = mp.zeros(n * n, n * n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                K[i * n + j, k * n + j] += Am[i, k]
                K[i * n + j, i * n + k] += Am[j, k]
    BB = Bm * Bm.T
    P = mp.lu_solve(K, mp.matrix([-BB[i, j] for i in range(n) for j in range(n)]))
    Pm = mp.matrix(n, n)
    for i in range(n):
        for j in range(n):
            Pm[i, j] = P[i * n + j]
    CPC = Cm * Pm * Cm.T
    reference = mp.sqrt(sum(CPC[i, i] for i in range(CPC.rows)))
    with pytest.warns(RuntimeWarning, match="rounding distance of the stability boundary"):
        value = h2norm((A, B, C, D))
    assert abs(value - float(reference)) <= 1e-10 * float(reference)


@pytest.mark.parametrize("point", [0.3j, 0.25 + 2.0j])
def test_exact_response_matches_mpmath(point):
    mp.mp.dps = 60
    A, B, C, D = _stored()
    got = exact_response(A, B, C, D, point)
    ref = _mp_response(A, B, C, D, mp.mpc(point.real, point.imag))
    for i in range(2):
        for k in range(2):
            assert abs(got[i, k] - complex(ref[i, k])) <= 1e-15 * abs(complex(ref[i, k]))


def test_exact_response_on_a_pole_is_none():
    A = np.array([[0.0, 1.0], [-4.0, 0.0]])  # poles +-2j
    assert exact_response(A, np.eye(2), np.eye(2), np.zeros((2, 2)), 2j) is None
