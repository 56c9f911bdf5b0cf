"""Norms of models whose stability only the exact integer test can prove.

``(s^2 + 2 zeta s + 1)^2`` with ``zeta = 1e-6`` is stable, but its computed poles scatter
by about ``sqrt(eps)`` around the defective pair, across the axis: the floating-point
verdict is undecided and the norms used to be ``inf`` without a word.  References,
computed without the code under test:

- closed forms on an exactly stored companion realisation (dyadic ``zeta``, so that
  every coefficient is a float): ``1 / (4 zeta^2 (1 - zeta^2))`` for the H-infinity
  norm (the square of the peak ``1 / (2 zeta sqrt(1 - zeta^2))``) and
  ``(1 + 4 zeta^2) / (32 zeta^3)`` for the squared H2 norm;
- for python-control's realisation of the transfer function (coefficients rounded):
  the response in 60-digit arithmetic (mpmath) and the Gramian from the Lyapunov
  equation solved in exact rational arithmetic, both of the stored matrices.
"""

import warnings
from fractions import Fraction

import control
import mpmath
import numpy as np
import pytest
import scipy.linalg

import robustmb as rmb
from robustmb.analysis.model_family import h2norm_stack, hinfnorm_stack

NOT_PROVED = "could not be proved"


def _modes(zeta, k):
    den = [1.0]
    for _ in range(k):
        den = np.polymul(den, [1.0, 2.0 * zeta, 1.0])
    return den


def _from_tf(zeta, k=2):
    return control.ss(control.tf([1.0], _modes(zeta, k)))


def _companion(zeta, k=2):
    """The controllable companion form of ``1 / (s^2 + 2 zeta s + 1)^k``, stored exactly
    when ``zeta`` is a power of 2."""
    a = _modes(zeta, k)
    n = a.size - 1
    A = np.diag(np.ones(n - 1), -1)
    A[0] = -a[1:]
    B = np.zeros((n, 1))
    B[0, 0] = 1.0
    C = np.zeros((1, n))
    C[0, -1] = 1.0
    return control.ss(A, B, C, 0.0)


def _mp_gain(G, w):
    """``|G(j w)|`` (discrete: ``|G(exp(j w dt))|``) of the stored matrices in 60-digit
    arithmetic."""
    with mpmath.workdps(60):
        n = G.A.shape[0]
        point = mpmath.expj(mpmath.mpf(w) * G.dt) if G.dt else 1j * mpmath.mpf(w)
        M = mpmath.matrix(n, n)
        for i in range(n):
            for j in range(n):
                M[i, j] = (point if i == j else 0) - mpmath.mpf(float(G.A[i, j]))
        X = mpmath.lu_solve(M, mpmath.matrix([mpmath.mpf(float(b)) for b in G.B[:, 0]]))
        value = sum(mpmath.mpf(float(G.C[0, i])) * X[i] for i in range(n))
        return float(abs(value + mpmath.mpf(float(G.D[0, 0]))))


def _mp_peak(G, lo, hi, samples=300):
    """The largest ``|G(j w)|`` on ``[lo, hi]``: a grid, then golden sections."""
    with mpmath.workdps(60):
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        grid = [lo + (hi - lo) * k / samples for k in range(samples + 1)]
        values = [_mp_gain(G, w) for w in grid]
        k = int(np.argmax(values))
        a, b = grid[max(k - 1, 0)], grid[min(k + 1, samples)]
        ratio = (mpmath.sqrt(5) - 1) / 2
        for _ in range(120):
            x1, x2 = b - ratio * (b - a), a + ratio * (b - a)
            if _mp_gain(G, x1) < _mp_gain(G, x2):
                a = x1
            else:
                b = x2
        return _mp_gain(G, (a + b) / 2)


def _exact_h2(G):
    """``sqrt(C P C^T)``, ``A P + P A^T + B B^T = 0`` (discrete: ``A P A^T - P + B B^T
    = 0``) solved in fractions."""
    n = G.A.shape[0]
    A = [[Fraction(float(x)) for x in row] for row in G.A]
    B = [Fraction(float(x)) for x in G.B[:, 0]]
    C = [Fraction(float(x)) for x in G.C[0]]
    unknowns = {(i, j): len({}) for i in range(n) for j in range(i, n)}
    unknowns = {key: index for index, key in enumerate(unknowns)}
    m = len(unknowns)

    def at(i, j):
        return unknowns[(min(i, j), max(i, j))]

    rows = []
    for i, j in unknowns:
        row = [Fraction(0)] * (m + 1)
        if G.dt:
            for k in range(n):
                for q in range(n):
                    row[at(k, q)] += A[i][k] * A[j][q]
            row[at(i, j)] -= 1
        else:
            for k in range(n):
                row[at(k, j)] += A[i][k]
                row[at(i, k)] += A[j][k]
        row[m] = -B[i] * B[j]
        rows.append(row)
    for c in range(m):  # Gauss-Jordan
        p = next(r for r in range(c, m) if rows[r][c] != 0)
        rows[c], rows[p] = rows[p], rows[c]
        rows[c] = [x / rows[c][c] for x in rows[c]]
        for r in range(m):
            if r != c and rows[r][c] != 0:
                f = rows[r][c]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[c], strict=True)]
    value = sum(C[i] * rows[at(i, j)][m] * C[j] for i in range(n) for j in range(n))
    return float(value) ** 0.5


def _norms(G):
    """The four routines on ``G``, and the warnings they gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gamma, fpeak = rmb.hinfnorm(G)
        h2 = rmb.h2norm(G)
        gammas, _ = hinfnorm_stack([G, G])
        h2s = h2norm_stack([G, G])
    return gamma, fpeak, h2, gammas, h2s, [str(w.message) for w in caught]


@pytest.mark.parametrize("exponent", [20, 23])  # zeta = 9.5e-7, 1.2e-7
def test_double_pole_exactly_stored_matches_the_closed_forms(exponent):
    zeta = 2.0**-exponent
    G = _companion(zeta)
    gamma, fpeak, h2, gammas, h2s, messages = _norms(G)
    peak = 1.0 / (4.0 * zeta**2 * (1.0 - zeta**2))
    assert gamma == pytest.approx(peak, rel=1e-8)
    assert fpeak == pytest.approx(np.sqrt(1.0 - 2.0 * zeta**2), abs=1e-8)
    assert h2 == pytest.approx(np.sqrt((1.0 + 4.0 * zeta**2) / (32.0 * zeta**3)), rel=1e-10)
    np.testing.assert_allclose(gammas, gamma, rtol=1e-8)
    np.testing.assert_allclose(h2s, h2, rtol=1e-12)
    assert not any(NOT_PROVED in m for m in messages)


@pytest.mark.parametrize("zeta", [1e-6, 1e-7])
def test_double_pole_from_a_transfer_function_matches_high_precision(zeta):
    G = _from_tf(zeta)
    gamma, fpeak, h2, gammas, h2s, messages = _norms(G)
    # the value is attained at fpeak (60 digits), and no higher peak exists nearby
    assert gamma == pytest.approx(_mp_gain(G, fpeak), rel=1e-9)
    assert gamma == pytest.approx(_mp_peak(G, 1.0 - 30 * zeta, 1.0 + 30 * zeta), rel=1e-8)
    assert h2 == pytest.approx(_exact_h2(G), rel=1e-10)
    np.testing.assert_allclose(gammas, gamma, rtol=1e-8)
    np.testing.assert_allclose(h2s, h2, rtol=1e-12)
    assert not any(NOT_PROVED in m for m in messages)


@pytest.mark.parametrize("method", ["zoh", "tustin"])
@pytest.mark.parametrize("zeta", [1e-6, 1e-7])
def test_discretised_double_pole_matches_high_precision(method, zeta):
    dt = 0.1
    G = control.c2d(_from_tf(zeta), dt, method=method)
    gamma, fpeak, h2, gammas, h2s, messages = _norms(G)
    # to rounding, not only to tol: exp(j w dt) rounded lies off the circle by ~eps,
    # 1e-8 relative against this double pole at 1e-8 from the circle, unless refined
    # at the point projected onto the circle (1.1e-8 before, 6e-14 measured)
    assert gamma == pytest.approx(_mp_gain(G, fpeak), rel=1e-12)
    # the resonance, mapped to the circle (ZOH: exp(p dt); Tustin: warped)
    assert gamma == pytest.approx(_mp_peak(G, fpeak - 60 * zeta, fpeak + 60 * zeta), rel=1e-12)
    assert h2 == pytest.approx(_exact_h2(G), rel=1e-10)
    np.testing.assert_allclose(gammas, gamma, rtol=1e-8)
    np.testing.assert_allclose(h2s, h2, rtol=1e-12)
    assert not any(NOT_PROVED in m for m in messages)


def test_three_modes_in_series_from_a_transfer_function():
    zeta = 1e-5
    G = _from_tf(zeta, 3)
    gamma, fpeak, _, gammas, _, messages = _norms(G)
    assert np.isfinite(gamma) and np.all(np.isfinite(gammas))
    # the refined solves at this defective triple reach about 4e-5: a warning says so
    warned = any("relative accuracy of only" in m for m in messages)
    rel = 1e-4 if warned else 1e-8
    assert gamma == pytest.approx(_mp_gain(G, fpeak), rel=rel)
    assert gamma == pytest.approx(_mp_peak(G, 1.0 - 30 * zeta, 1.0 + 30 * zeta), rel=rel)
    assert not any(NOT_PROVED in m for m in messages)


def test_three_modes_in_series_exactly_stored_match_the_closed_forms():
    zeta = 2.0**-17  # 7.6e-6
    gamma, _, h2, _, h2s, messages = _norms(_companion(zeta, 3))
    # ||1 / (s^2 + 2 zeta s + 1)^3||_2^2 = 3 (16 zeta^4 + 4 zeta^2 + 1) / (512 zeta^5)
    closed = np.sqrt(3.0 * (16.0 * zeta**4 + 4.0 * zeta**2 + 1.0) / (512.0 * zeta**5))
    assert h2 == pytest.approx(closed, rel=1e-12)
    np.testing.assert_allclose(h2s, closed, rtol=1e-12)
    # the peak to the accuracy the refined solves report (a warning gives it)
    assert gamma == pytest.approx((2.0 * zeta * np.sqrt(1.0 - zeta**2)) ** -3, rel=1e-4)
    assert not any(NOT_PROVED in m or "h2norm" in m for m in messages)


def test_three_modes_in_series_h2_from_a_transfer_function_is_exact():
    G = _from_tf(1e-5, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no accuracy warning: the Gramian is exact
        h2 = rmb.h2norm(G)
    assert h2 == pytest.approx(_exact_h2(G), rel=1e-13)


@pytest.mark.parametrize(
    "G",
    [
        control.ss(control.tf([1.0], [1.0, 0.0, 1.0])),  # +-j
        # (s + 1)(s^2 + 1) in companion form (python-control's realisation of the
        # transfer function rounds it to a stable matrix with a gain of 1e15)
        control.ss(
            [[-1.0, -1.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            [[1.0], [0.0], [0.0]],
            [[0.0, 1.0, 2.0]],
            0.0,
        ),
        control.ss([[0.0, 1.0], [-1.0, 0.0]], [[0.0], [1.0]], [[1.0, 0.0]], 0.0),
        control.ss([[-1.0, 1.0], [0.0, 0.5]], [[0.0], [1.0]], [[1.0, 0.0]], 0.0, 1.0),  # z=-1
    ],
)
def test_a_pole_exactly_on_the_boundary_is_inf_without_the_not_proved_warning(G):
    gamma, _, h2, gammas, h2s, messages = _norms(G)
    assert gamma == np.inf and h2 == np.inf
    assert np.all(gammas == np.inf) and np.all(h2s == np.inf)
    assert not any(NOT_PROVED in m for m in messages)


def test_an_undecided_model_too_large_for_the_exact_test_warns():
    # the zeta = 1e-6 double pole next to 22 well damped states: 26 > 24 states
    G = _from_tf(1e-6)
    rng = np.random.default_rng(0)
    fast = -np.diag(np.linspace(1.0, 5.0, 22)) + 0.1 * np.triu(rng.standard_normal((22, 22)), 1)
    big = control.ss(
        scipy.linalg.block_diag(G.A, fast),
        np.vstack([G.B, rng.standard_normal((22, 1))]),
        np.hstack([G.C, rng.standard_normal((1, 22))]),
        0.0,
    )
    gamma, _, h2, gammas, h2s, messages = _norms(big)
    assert gamma == np.inf and h2 == np.inf
    assert np.all(gammas == np.inf) and np.all(h2s == np.inf)
    # hinfnorm, h2norm and each member of both stacks
    assert sum(NOT_PROVED in m for m in messages) == 6
    with pytest.warns(RuntimeWarning, match=NOT_PROVED):
        rmb.hinfnorm(big)
    # and without the fast part (4 states) the exact test proves it stable
    assert np.isfinite(rmb.hinfnorm(G)[0])
