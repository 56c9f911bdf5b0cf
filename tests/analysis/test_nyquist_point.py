"""Discrete loops with a pole near ``z = -1``: the Nyquist point is a point of its own.

The sweeps work on the bilinear equivalent, ``nu = tan(w dt / 2)``.  ``z = -1`` is
``nu = inf``; the rounded Nyquist frequency mapped to ``nu = tan(pi / 2) = 1.6e16`` (a
point ``1e-16`` from ``z = -1``), and a finite ``nu`` above about ``1e14`` mapped back
within the sweeps' gap tolerance of ``pi / dt``, so ``z = -1`` was claimed without being
checked.  With a pole ``1e-13`` from ``-1`` the response there differs, and a real ``mu``
can peak at ``z = -1`` alone.  The bilinear map's error bound also solved at the rounded
``z``.  Data: ``tests/data/negone_*.npz`` (see tests/data/README.md, from a robustness
review of robstab).  References: an exact rational characteristic polynomial of the LFT
data and mpmath (no code of the package).
"""

import warnings
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

import robustmb as rmb
from robustmb.analysis.checked_response import CheckedResponse
from robustmb.analysis.circle_points import circle_points
from robustmb.analysis.frequency_intervals import (
    bilinear_map_errors,
    continuous_equivalent,
    to_equivalent_frequency,
    to_model_frequency,
)

DATA = Path(__file__).resolve().parents[1] / "data"
_S, _K, _W = sp.symbols("s k w")


def _rational(x):
    f = Fraction(float(x))
    return sp.Rational(f.numerator, f.denominator)


def _exact_discrete_margin(a, b1, c1, d11, dps=60):
    """Smallest ``|k|`` putting a root of ``det(zI - A - B1 k (I - k D11)^-1 C1)`` (one
    real scalar ``k``) on the unit circle: the roots in ``k`` at ``z = 1``, at ``z = -1``
    and of the resultant in ``w`` of the real and imaginary parts of the characteristic
    polynomial on ``s = j w`` (bilinear variable), each confirmed by the roots in ``z``."""
    n, r = a.shape[0], b1.shape[1]
    z = sp.symbols("z")
    mat = sp.zeros(n + r, n + r)
    for i in range(n):
        for j in range(n):
            mat[i, j] = (z if i == j else 0) - _rational(a[i, j])
        for j in range(r):
            mat[i, n + j] = -_rational(b1[i, j])
    for i in range(r):
        for j in range(n):
            mat[n + i, j] = -_K * _rational(c1[i, j])
        for j in range(r):
            mat[n + i, n + j] = (1 if i == j else 0) - _K * _rational(d11[i, j])
    p = sp.Poly(mat.det(method="berkowitz"), z, _K)
    deg = p.degree(z)
    q = sp.Poly(
        sp.expand(
            sum(
                c * (1 + _S) ** m[0] * (1 - _S) ** (deg - m[0]) * _K ** m[1]
                for m, c in zip(p.monoms(), p.coeffs(), strict=True)
            )
        ),
        _S,
        _K,
    )
    re_part, im_part = 0, 0
    for (ps, pk), c in zip(q.monoms(), q.coeffs(), strict=True):
        unit = [1, sp.I, -1, -sp.I][ps % 4]
        term = c * _W**ps * _K**pk
        if unit in (1, -1):
            re_part += unit * term
        else:
            im_part += (unit / sp.I) * term
    res = sp.resultant(sp.expand(re_part), sp.cancel(im_part / _W), _W)
    cands = []
    with mpmath.workdps(dps):
        for poly in (p.as_expr().subs(z, 1), p.as_expr().subs(z, -1), res):
            poly = sp.Poly(sp.expand(poly), _K)
            if poly.degree() < 1:
                continue
            coeffs = [mpmath.mpf(int(c.p)) / int(c.q) for c in poly.all_coeffs()]
            for root in mpmath.polyroots(coeffs, maxsteps=500, extraprec=2000):
                if abs(mpmath.im(root)) < mpmath.mpf(10) ** (-dps // 2) * (1 + abs(root)):
                    cands.append(mpmath.re(root))
        for kc in sorted(cands, key=abs):
            zc = [
                sum(
                    mpmath.mpf(int(cc.p)) / int(cc.q) * kc ** m[0]
                    for m, cc in zip(cp.monoms(), cp.coeffs(), strict=True)
                )
                if not cp.is_zero
                else mpmath.mpf(0)
                for cp in (sp.Poly(c, _K) for c in sp.Poly(p.as_expr(), z).all_coeffs())
            ]
            roots = mpmath.polyroots(zc, maxsteps=500, extraprec=2000)
            if min(abs(abs(rt) - 1) for rt in roots) < mpmath.mpf(10) ** (-dps // 4):
                return float(abs(kc))
    return float("inf")


def _rank_one_loop(name):
    data = np.load(DATA / name)
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    a = data["A0"] + k * np.outer(data["u"], data["v"])
    return rmb.uss(a, data["B"], data["C"], np.zeros((1, 1)), dt=float(data["dt"]))


def _margin_and_robstab(loop):
    ss, _ = rmb.lftdata(loop)
    a, b, c, d = (np.asarray(t) for t in (ss.A, ss.B, ss.C, ss.D))
    exact = _exact_discrete_margin(a, b[:, :1], c[:1, :], d[:1, :1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rmb.robstab(loop, sensitivity=False)
    return exact, res


@pytest.mark.slow
def test_pole_4e13_from_minus_one_lower_bound_is_not_false():
    # old code: lower 1.00959 certified (all of [-1, 1] robustly stable), exact 0.92779
    exact, res = _margin_and_robstab(_rank_one_loop("negone_pole_4e-13_dt100.npz"))
    assert 0.92 < exact < 0.93
    assert res.lower <= exact * (1 + 1e-12)
    assert res.upper >= exact * (1 - 1e-12)
    assert res.lower > 0.9 * exact  # still a useful certificate


@pytest.mark.slow
def test_real_mu_peak_at_minus_one_alone_is_not_missed():
    # old code: lower 0.67415 certified; exact 0.58565, set by M(-1) alone (|M| = 0.099
    # at theta = pi - 1e-12)
    exact, res = _margin_and_robstab(_rank_one_loop("negone_peak_at_minus_one_dt1e5.npz"))
    assert 0.58 < exact < 0.59
    assert res.lower <= exact * (1 + 1e-12)
    assert res.upper >= exact * (1 - 1e-12)


def test_nyquist_frequency_maps_to_minus_one_and_back():
    for dt in (1e-3, 1.0, 100.0, 1e5):
        top = np.pi / dt
        assert np.isinf(to_equivalent_frequency(top, dt))
        assert np.isinf(to_equivalent_frequency(np.array([0.5 * top, top]), dt)[1])
        assert to_model_frequency(np.inf, dt) == top
        # no finite nu reaches z = -1, nor within the sweeps' gap tolerance of it
        for nu in (1e10, 1e14, 1e16, 1e300):
            assert to_model_frequency(nu, dt) < top * (1 - 16 * np.finfo(float).eps)


def test_exact_images_of_nu():
    nus = np.array([0.0, 1e-12, 0.7, 1.0, 3.0, 3e9, 4e13, 1e16, 1e200, np.inf])
    z, z_lo = circle_points(nus)
    with mpmath.workdps(50):
        for k, nu in enumerate(nus):
            j_nu = mpmath.mpc(0, mpmath.mpf(nu))
            exact = mpmath.mpf(-1) if np.isinf(nu) else (1 + j_nu) / (1 - j_nu)
            got = mpmath.mpc(z[k]) + mpmath.mpc(z_lo[k])
            # relative to the distance from z = +-1 (where a pole can sit), and to eps^2
            dist = min(abs(exact - 1), abs(exact + 1))
            assert abs(got - exact) <= 1e-28 * dist + 4 * np.finfo(float).eps ** 2


def test_map_error_bounds_the_difference_at_the_exact_image():
    # old code: the bound (solved at the rounded z) was 13 % below |Md(z) - Mc(j nu)|
    data = np.load(DATA / "negone_weak_map_error.npz")
    a, b, c, d = (data[x] for x in "abcd")
    equiv = continuous_equivalent(a, b, c, d, 1.0)
    nus = np.concatenate([np.logspace(8, 16, 33), [np.inf]])
    mc, _ = CheckedResponse(equiv)(nus)
    err = bilinear_map_errors(equiv[0], nus, CheckedResponse(equiv))
    n = a.shape[0]
    with mpmath.workdps(60):
        ma, mb, mcm, md = (mpmath.matrix(x.tolist()) for x in (a, b, c, d))
        for k, nu in enumerate(nus):
            j_nu = mpmath.mpc(0, mpmath.mpf(nu))
            zk = mpmath.mpf(-1) if np.isinf(nu) else (1 + j_nu) / (1 - j_nu)
            exact = md + mcm * mpmath.inverse(zk * mpmath.eye(n) - ma) * mb
            exact = np.array(exact.tolist(), dtype=complex).reshape(d.shape)
            assert np.all(np.abs(exact - mc[k]) <= err[k])
