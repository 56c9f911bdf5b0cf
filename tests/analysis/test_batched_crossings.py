"""Batched boundary crossings of small all-real loops, and the order of robstab's stages.

References written out here, none computed by robustmb: the roots of hand-written
characteristic polynomials and closed-form crossings.

- Lag loop ``K / (s (s + 1) (s / p + 1))`` in unit negative feedback, ``K = 2 (1 + 0.5 x)``,
  ``p = 5 (1 + 0.4 y)``: characteristic polynomial ``s^3 / p + (1 + 1/p) s^2 + s + K``;
  along ``(x, y) = a (dK, dp)`` a pole reaches the axis at ``K = p + 1``
  (``a = 4 / (dK - 2 dp)``), at ``K = 0`` (``a = -2 / dK``, a pole at 0) or at ``p = 0``
  (``a = -2.5 / dp``, the lag's pole ``-p`` at 0), whichever positive one comes first.
- Discrete loop: closed-loop pole ``-0.7 + a (0.2 da - 0.24 dg)`` (dt = 0.1), which
  leaves the unit circle at ``+1`` or ``-1``.
- Product loop ``x'' + x' + (1 - d1 d2) x = 0``: margin 1, a crossing at ``w = 0`` only.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis import robust_stability
from robustmb.analysis.boundary_crossing import abscissae, scan_crossings
from robustmb.analysis.mu_sweep import certified_mu_peak
from robustmb.analysis.uncertain_problem import uncertain_problem


def _lag_loop():
    s = control.tf("s")
    k = rmb.ureal("K", 2.0, percent=50)
    p = rmb.ureal("p", 5.0, percent=40)
    lag = rmb.feedback(p * rmb.uss(control.ss(1 / s)), 1.0)
    return rmb.feedback(k * rmb.uss(control.ss(1 / (s * (s + 1)))) @ lag, 1.0)


def _lag_crossing(dk, dp):
    cands = [4.0 / (dk - 2.0 * dp) if dk - 2.0 * dp > 0 else np.inf]
    cands.append(-2.0 / dk if dk < 0 else np.inf)
    cands.append(-2.5 / dp if dp < 0 else np.inf)
    return min(cands)


def _diag(problem, values):
    diag = np.zeros(problem.nw)
    for bi in problem.blocks:
        diag[bi.w] = values[bi.name]
    return diag


def _product_loop():
    s = control.tf("s")
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    return rmb.feedback(rmb.uss(control.ss(1 / (s * s + s + 1))), -(d1 * d2))


def test_abscissae_are_the_largest_real_parts_of_the_polynomial_roots():
    problem = uncertain_problem(_lag_loop())
    rng = np.random.default_rng(3)
    pts = rng.uniform(-2.4, 2.4, (40, 2))
    got = abscissae(problem.m11, 0.0, np.array([_diag(problem, {"K": x, "p": y}) for x, y in pts]))
    for (x, y), f in zip(pts, got, strict=True):
        kv, pv = 2 * (1 + 0.5 * x), 5 * (1 + 0.4 * y)
        ref = np.max(np.roots([1 / pv, 1 + 1 / pv, 1.0, kv]).real)
        assert f == pytest.approx(ref, rel=1e-8, abs=1e-10)


def test_abscissae_of_a_singular_loop_is_inf_and_the_batch_goes_on():
    # I - Dzw Delta is singular at Delta = 1 (Dzw = 1): no well-posed loop there
    m11 = (-np.eye(1), np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)))
    got = abscissae(m11, 0.0, np.array([[0.5], [1.0], [-1.0]]))
    # A + Bw d (1 - d)^-1 Cz = -1 + d / (1 - d): 0 at d = 0.5, -1.5 at d = -1
    assert got[1] == np.inf
    assert got[0] == pytest.approx(0.0, abs=1e-15) and got[2] == pytest.approx(-1.5)


def test_scan_crossings_match_the_closed_form():
    problem = uncertain_problem(_lag_loop())
    rng = np.random.default_rng(0)
    dirs = rng.uniform(-1, 1, (60, 2))
    dirs /= np.max(np.abs(dirs), axis=1, keepdims=True)
    got = scan_crossings(
        problem.m11, 0.0, np.array([_diag(problem, {"K": x, "p": y}) for x, y in dirs]), 20.0
    )
    for (x, y), a in zip(dirs, got, strict=True):
        ref = _lag_crossing(x, y)
        if ref > 20.0:
            assert np.isnan(a)
        else:
            # the unstable end of a bisection closed to 1e-12 relative width
            assert ref <= a * (1 + 1e-12) and a == pytest.approx(ref, rel=1e-10)


def test_scan_crossings_of_a_discrete_loop_match_the_closed_form():
    z = control.tf([1, 0], [1], 0.1)
    a = rmb.ureal("a", 0.5, percent=40)
    g = rmb.ureal("g", 1.2, percent=20)
    plant = rmb.uss(control.ss(1 / z)) @ rmb.feedback(1.0, -a * rmb.uss(control.ss(1 / z)))
    problem = uncertain_problem(rmb.feedback(g * plant, 1.0))
    dirs = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [0.3, -1.0]])
    got = scan_crossings(
        problem.m11, 0.1, np.array([_diag(problem, {"a": x, "g": y}) for x, y in dirs]), 20.0
    )
    for (x, y), al in zip(dirs, got, strict=True):
        rate = 0.2 * x - 0.24 * y
        ref = 1.7 / rate if rate > 0 else 0.3 / -rate
        assert al == pytest.approx(ref, rel=1e-10)


def _sum_loop(n):
    """``1 / (s + 1)`` closed by ``sum k_i``, ``k_i = 1 +- 10 %``: pole ``-1 - sum k_i``."""
    s = control.tf("s")
    ks = [rmb.ureal(f"k{i}", 1.0, percent=10) for i in range(n)]
    gain = ks[0]
    for k in ks[1:]:
        gain = gain + k
    return uncertain_problem(rmb.feedback(rmb.uss(control.ss(1 / (s + 1))), gain))


def test_parameter_search_enumerates_corners_up_to_twelve_elements():
    # pole -1 - sum k_i = -(n + 1) - 0.1 a sum d_i reaches 0 only for sum d_i < 0, at
    # a = 10 (n + 1) / |sum d_i|: the smallest is the corner d = -1, a = 10 (n + 1) / n
    for n in (7, 12):
        alpha, d = robust_stability._parameter_search(_sum_loop(n), 200.0)
        assert alpha == pytest.approx(10.0 * (n + 1) / n, rel=1e-10)
        assert all(v == -1.0 for v in d.values())


def test_parameter_search_above_twelve_elements_has_no_corner_group():
    # thirteen elements: random directions only; the crossing found is exact along its
    # direction and cannot beat the corner
    alpha, d = robust_stability._parameter_search(_sum_loop(13), 400.0)
    total = sum(d.values())
    assert total < 0 and alpha == pytest.approx(140.0 / -total, rel=1e-10)
    assert alpha >= 140.0 / 13.0 * (1 - 1e-10)


def test_parameter_search_finds_the_exact_corner():
    problem = uncertain_problem(_lag_loop())
    alpha, d = robust_stability._parameter_search(problem, 20.0)
    # the worst direction is the corner (1, -1): 4 / 3
    assert alpha == pytest.approx(4.0 / 3.0, rel=1e-10)
    assert alpha >= _lag_crossing(d["K"], d["p"]) * (1 - 1e-10)


def test_a_failed_tight_level_skips_the_wider_one_only_where_it_fails(monkeypatch):
    levels = []
    real_peak = robust_stability.certified_mu_peak

    def spy_peak(*a, **kw):
        levels.append(kw.get("level"))
        return real_peak(*a, **kw)

    monkeypatch.setattr(robust_stability, "certified_mu_peak", spy_peak)
    # the sweep path (the vertex-polytope certificate would take this loop without it)
    monkeypatch.setattr(robust_stability, "polytope_margin", lambda *a, **k: None)
    res = rmb.robstab(_product_loop(), sensitivity=False)
    assert res.boxes is not None and res.boxes.certified
    assert res.lower <= 1.0 <= res.upper and res.upper / res.lower - 1 <= 5e-3 + 1e-12
    # the tight level failed; the wider one (1.005) was not swept, then the free sweep
    assert levels == [pytest.approx(1.0005, rel=1e-6), None]
    # skipping it lost nothing: a sweep at the wider level fails too
    problem = uncertain_problem(_product_loop())
    assert not certified_mu_peak(problem.m11, problem.blk, level=1.005, lower=False).covered
    # sound: the scaled box of the certificate is stable (roots of s^2 + s + 1 - d1 d2)
    t = np.linspace(-1, 1, 41) * res.lower
    assert max(np.max(np.roots([1.0, 1.0, 1.0 - x * y]).real) for x in t for y in t) < 0
