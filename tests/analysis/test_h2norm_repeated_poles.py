"""h2norm on repeated (defective) lightly damped poles, against closed forms and mpmath.

A defective pole makes the eigenvector matrix nearly singular: the modal sum's error
grows like ``eps ||V|| ||V^-1||^2`` and the computed poles scatter by ``eps^(1/m)``.
References: ``||1/(s + a)^2||_2^2 = 1/(4 a^3)``, ``||1/(s + a)^3||_2^2 = 3/(16 a^5)``
(from ``int dw / (w^2 + a^2)^n``), and the Lyapunov equation of the same realisation
solved in 60-digit arithmetic.
"""

import warnings

import control
import mpmath as mp
import numpy as np
import pytest

import robustmb as rmb

S = control.tf("s")


def _mp_h2(A, B, C):
    """``sqrt(trace(C P C^T))`` with ``A P + P A^T + B B^T = 0`` solved at 60 digits."""
    with mp.workdps(60):
        A, B, C = (mp.matrix(np.asarray(X, float).tolist()) for X in (A, B, C))
        n = A.rows
        K = mp.zeros(n * n, n * n)
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    K[i * n + j, k * n + j] += A[i, k]
                    K[i * n + j, i * n + k] += A[j, k]
        Q = B * B.T
        p = mp.lu_solve(K, mp.matrix([-Q[i, j] for i in range(n) for j in range(n)]))
        total = sum(
            C[r, i] * p[i * n + j] * C[r, j]
            for r in range(C.rows)
            for i in range(n)
            for j in range(n)
        )
        return float(mp.sqrt(total))


def _series(k, zeta):
    """``k`` identical oscillators ``1 / (s^2 + 2 zeta s + 1)`` in series."""
    G1 = control.ss([[0.0, 1.0], [-1.0, -2.0 * zeta]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]])
    G = G1
    for _ in range(k - 1):
        G = G * G1
    return G


def _quiet_h2norm(G):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return rmb.h2norm(G)


@pytest.mark.parametrize("a", [3e-5, 1e-4, 1e-2, 1.0])
def test_double_real_pole_matches_closed_form(a):
    exact = np.sqrt(1.0 / (4.0 * a**3))
    assert _quiet_h2norm(control.ss(1 / (S + a) ** 2)) == pytest.approx(exact, rel=1e-10)


@pytest.mark.parametrize("a", [1e-4, 1e-3, 0.5])
def test_triple_real_pole_matches_closed_form(a):
    # a Jordan realisation is exactly 1/(s + a)^3 for the float a
    A = -a * np.eye(3) + np.diag([1.0, 1.0], 1)
    B, C = np.array([[0.0], [0.0], [1.0]]), np.array([[1.0, 0.0, 0.0]])
    exact = np.sqrt(3.0 / (16.0 * a**5))
    assert _quiet_h2norm((A, B, C, np.zeros((1, 1)))) == pytest.approx(exact, rel=1e-10)


@pytest.mark.parametrize("a", [1e-4, 1e-2])
def test_triple_real_pole_companion_form_matches_mpmath(a):
    # the companion form's rounded coefficients are not exactly (s + a)^3: same-data reference
    G = control.ss(1 / (S + a) ** 3)
    assert _quiet_h2norm(G) == pytest.approx(_mp_h2(G.A, G.B, G.C), rel=1e-10)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("zeta", [1e-3, 1e-5])
def test_identical_oscillators_in_series_match_mpmath(k, zeta):
    G = _series(k, zeta)
    exact = _mp_h2(G.A, G.B, G.C)
    assert _quiet_h2norm(G) == pytest.approx(exact, rel=1e-10)


def test_single_oscillator_closed_form():
    # ||1/(s^2 + 2 zeta s + 1)||_2^2 = 1 / (4 zeta)
    zeta = 1e-5
    assert _quiet_h2norm(_series(1, zeta)) == pytest.approx(np.sqrt(1 / (4 * zeta)), rel=1e-10)


def test_family_of_repeated_pole_models_matches_closed_forms():
    a = np.array([3e-5, 1e-3, 1.0])
    values = rmb.h2norm([control.ss(1 / (S + x) ** 2) for x in a])
    np.testing.assert_allclose(values, np.sqrt(1.0 / (4.0 * a**3)), rtol=1e-10)
