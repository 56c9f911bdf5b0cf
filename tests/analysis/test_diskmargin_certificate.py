"""The certified multiloop disk margin never exceeds an exactly destabilising perturbation.

Reference: a perturbation ``Delta = diag(d1, d2)`` with ``det(I - M(jw) Delta) = 0`` built
and checked in 50-digit arithmetic (mpmath) from the loop matrices, ``M = S - a I``.
"""

import control
import mpmath as mp
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.norms import _hinfnorm_bracket, hinfnorm


def _satellite(spin):
    return control.ss([[0, spin], [-spin, 0]], np.eye(2), [[1, spin], [-spin, 1]], 0)


def _m_matrix(spin, a, w):
    """``S(jw) - a I`` of the spinning satellite with ``K = I``, in mpmath."""
    s = mp.mpc(0, w)
    A = mp.matrix([[0, spin], [-spin, 0]])
    C = mp.matrix([[1, spin], [-spin, 1]])
    L = C * mp.inverse(s * mp.eye(2) - A)
    return mp.inverse(mp.eye(2) + L) - a * mp.eye(2)


def _balanced_destabiliser(M):
    """``(d1, d2)`` with ``|d1| = |d2|`` and ``det(I - M diag(d1, d2)) = 0``, the smallest
    such over the phase of ``d1`` (golden-section search on a coarse-scan bracket)."""
    m11, m12, m21, m22 = M[0, 0], M[0, 1], M[1, 0], M[1, 1]
    det = m11 * m22 - m12 * m21

    def d2_of(d1):
        return (1 - m11 * d1) / (m22 - det * d1)

    def radius(theta):
        e = mp.expj(theta)
        return mp.findroot(lambda r: abs(d2_of(r * e)) - r, mp.mpf("0.02"))

    thetas = [2 * mp.pi * k / 90 for k in range(90)]
    values = []
    for t in thetas:
        try:
            values.append(radius(t))
        except (ValueError, ZeroDivisionError):
            values.append(mp.inf)
    k = min(range(90), key=lambda i: values[i])
    lo, hi = thetas[k] - 2 * mp.pi / 90, thetas[k] + 2 * mp.pi / 90
    g = (mp.sqrt(5) - 1) / 2
    for _ in range(80):
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if radius(x1) < radius(x2):
            hi = x2
        else:
            lo = x1
    theta = (lo + hi) / 2
    d1 = radius(theta) * mp.expj(theta)
    return d1, d2_of(d1)


def test_multiloop_lower_below_exact_destabiliser():
    # spin 50, skew 0.5: hinfnorm's attained value of ||S - a I|| lies 8e-9 (relative)
    # below sup mu, which the former certificate 1 / gamma exceeded
    mp.mp.dps = 50
    spin, skew = 50, 0.5
    a = (1 - skew) / 2
    dm = rmb.diskmargin(_satellite(spin), skew=skew)
    assert dm.multiloop.certified
    M = _m_matrix(spin, a, mp.mpf("0.014988822205551389"))
    d1, d2 = _balanced_destabiliser(M)
    residual = mp.det(mp.eye(2) - M * mp.diag([d1, d2]))
    assert abs(residual) < mp.mpf(10) ** -40
    size = max(abs(d1), abs(d2))
    assert dm.lower <= float(size)
    assert dm.lower <= dm.upper


def test_hinfnorm_bracket_contains_norm():
    # closed form: ||1/(s^2 + 2 z s + 1)||_inf = 1 / (2 z sqrt(1 - z^2))
    z = 0.05
    G = control.tf([1.0], [1.0, 2 * z, 1.0])
    exact = 1 / (2 * z * np.sqrt(1 - z**2))
    gamma, _, upper = _hinfnorm_bracket(G, tol=1e-6)
    assert gamma == hinfnorm(G, tol=1e-6)[0]
    assert gamma <= exact * (1 + 1e-14)
    assert exact <= upper <= gamma * (1 + 1e-6) * (1 + 1e-14)


def test_stewart_multiloop_certified_without_internal_warning():
    # ||S - a I||_inf of this loop meets a Hamiltonian cluster the level-set test cannot
    # certify; the interval covering of mu certifies the bound, so no warning is due
    import warnings

    sp = rmb.examples.stewart_platform()
    P = sp.plant()
    P = control.ss(P.A, P.B, P.C, P.D)
    K = control.ss(-np.eye(6), np.linalg.pinv(P.D), 5 * np.eye(6), np.zeros((6, 6)))
    L = control.ss(P * K)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dm = rmb.diskmargin(L)
    assert dm.multiloop.certified
    # independent check: Delta = delta I is a diagonal perturbation, so a closed-loop pole
    # reaches j w at |delta| = 1 / rho(S(jw) - I / 2) (python-control responses)
    w = np.logspace(-1, 3, 400)
    Lw = np.moveaxis(L.frequency_response(w).frdata, -1, 0)
    M = np.linalg.inv(np.eye(6) + Lw) - 0.5 * np.eye(6)
    rho = np.max(np.abs(np.linalg.eigvals(M)), axis=1)
    assert dm.lower <= np.min(1.0 / rho)
    assert dm.lower <= dm.upper


def test_unstable_loop_frequency_is_that_of_the_pole_nearest_the_axis():
    # L = (s^2 - 3 s) / (s^2 + 4): 1 + L = (2 s^2 - 3 s + 4) / (s^2 + 4), closed-loop poles
    # (3 +- j sqrt(23)) / 4, so |Im p| = sqrt(23) / 4 (documented for unstable loops)
    dm = rmb.diskmargin(control.ss(control.tf([1, -3, 0], [1, 0, 4])))
    assert not dm.stable and dm.alpha == 0.0
    assert dm.frequency == pytest.approx(np.sqrt(23) / 4, rel=1e-12)
    assert dm.loop_at_a_time.frequency[0] == pytest.approx(np.sqrt(23) / 4, rel=1e-12)


def test_single_loop_bounds_bracket_the_exact_margin():
    # L = 25 / (s^3 + 10 s^2 + 10 s + 10), skew 0: margin 1 / max_w |S(jw) - 1/2|, the
    # maximum located in 50-digit mpmath (S = p / (p + 25), p the denominator)
    mp.mp.dps = 50

    def mag(w):
        s = mp.mpc(0, w)
        p = s**3 + 10 * s**2 + 10 * s + 10
        return abs(p / (p + 25) - mp.mpf(1) / 2)

    w0 = mp.findroot(lambda w: mp.diff(mag, w), mp.mpf("1.955"))
    exact = 1 / mag(w0)
    dm = rmb.diskmargin(control.tf(25, [1, 10, 10, 10]))
    assert dm.multiloop.certified
    assert dm.lower <= float(exact) <= dm.upper * (1 + 1e-13)  # upper: rounded gain
