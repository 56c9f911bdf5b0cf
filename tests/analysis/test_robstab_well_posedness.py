"""Loss of well-posedness inside the box is a destabilising event for robstab and wcgain.

The loops are ``G`` in negative feedback with a static gain ``K(params)`` where
``G(inf) = -1``: ``1 + G K`` loses its leading coefficient at ``K = 1``, where a pole
passes through infinity (not through the imaginary axis).  Every check is against a
closed form or a brute-force sweep of the closed-loop poles of the loop built here by
hand (numpy only, no robustmb code).
"""

import control
import numpy as np
import pytest
from scipy.optimize import brentq

import robustmb as rmb
from robustmb.analysis.boundary_crossing import ill_posed_scales, is_ill_posed, scan_crossings
from robustmb.analysis.gain_boxes import ill_posed_member
from robustmb.analysis.robust_stability import _verified_crossing
from robustmb.analysis.uncertain_problem import uncertain_problem

s = control.tf("s")
# G1 = -(s + 0.5)/(s + 1) = -1 + 0.5/(s + 1)
G1 = (np.array([[-1.0]]), np.array([[1.0]]), np.array([[0.5]]), -1.0)
# G2 = -(s + 0.5)(s + 2)/((s + 1)(s + 3)) = -1 + (1.5 s + 2)/(s^2 + 4 s + 3):
# 1 + G2 K = 0 is (1 - K) s^2 + (4 - 2.5 K) s + (3 - K) = 0, stable iff K < 1 or K > 3
G2 = (np.array([[0.0, 1.0], [-3.0, -4.0]]), np.array([[0.0], [1.0]]), np.array([[2.0, 1.5]]), -1.0)
C_ILL = (5.0 - np.sqrt(5.0)) / 10.0  # 5c - 5c^2 = 1, the smaller root


def _bad(plant, k):
    """Whether ``u = -k y`` around ``plant`` is ill-posed or unstable, for each gain."""
    a, b, c, d = plant
    k = np.asarray(k, float).ravel()
    den = 1.0 + d * k
    ill = np.abs(den) <= 1e-12 * (1.0 + np.abs(k))
    with np.errstate(divide="ignore", invalid="ignore"):
        acl = a[None] - (k / np.where(ill, 1.0, den))[:, None, None] * (b @ c)[None]
    return ill | (np.max(np.linalg.eigvals(acl).real, axis=1) >= 0)


def _plant_tf(plant):
    a, b, c, d = plant
    return control.ss2tf(a, b, c, np.array([[d]]))


@pytest.mark.parametrize("rng", [(-0.5, 0.9), (-10.0, 10.4)])
def test_quadratic_gain_window_found_1d(rng):
    # c = 0.2 is the centre; 0.5 (pole +1.5) is inside the box; the first scan point of
    # the search (0.83 times the range) steps over the unstable window (0.276, 0.724)
    lo, hi = rng
    centre, radius = (lo + hi) / 2, (hi - lo) / 2
    c = rmb.ureal("c", centre, range=rng)
    loop = rmb.feedback(_plant_tf(G1) * (5 * c - 5 * c * c), 1)
    res = rmb.robstab(loop, sensitivity=False)
    exact = (C_ILL - centre) / radius
    assert res.lower <= exact <= res.upper * (1 + 1e-12)
    # the sample lies just beyond the ill-posed point, where the pole is back unstable
    assert res.upper <= exact * (1 + 1e-6)
    assert np.isinf(res.critical_frequency)
    c_bad = res.destabilizing["c"]
    assert _bad(G1, 5 * c_bad - 5 * c_bad**2)[0]
    # brute force over the box: the first bad value agrees with the closed form
    grid = centre + radius * np.linspace(-1, 1, 400_001)
    bad = _bad(G1, 5 * grid - 5 * grid**2)
    first = np.min(np.abs(grid[bad] - centre)) / radius
    assert res.lower <= first and exact <= first <= exact + 2 * 2.0 / 400_000
    assert not np.any(bad[np.abs(grid - centre) / radius <= res.lower])
    # wcgain: the gain is infinite there
    wc = rmb.wcgain(loop)
    assert np.isinf(wc.lower) and np.isinf(wc.upper)
    assert _bad(G1, 5 * wc.worst["c"] - 5 * wc.worst["c"] ** 2)[0]


def test_tangential_loss_of_well_posedness_is_the_margin():
    # K = 4c - 4c^2 touches 1 at c = 0.5 and never exceeds it: every well-posed member is
    # stable (the pole goes to -inf and comes back), yet c = 0.5 is ill-posed: the margin
    # is (0.5 - 0.3) / 0.3 = 2/3, and mu(D) says so
    c = rmb.ureal("c", 0.3, range=(0.0, 0.6))
    loop = rmb.feedback(_plant_tf(G1) * (4 * c - 4 * c * c), 1)
    res = rmb.robstab(loop, sensitivity=False)
    exact = 2.0 / 3.0
    assert res.lower <= exact <= res.upper * (1 + 1e-12) <= exact * (1 + 1e-9)
    c_bad = res.destabilizing["c"]
    assert abs(1 - (4 * c_bad - 4 * c_bad**2)) <= 1e-12
    assert np.isinf(res.critical_frequency) and "not well-posed" in res.reason
    grid = np.append(np.linspace(0.0, 0.6, 200_001), 0.5)
    bad = _bad(G1, 4 * grid - 4 * grid**2)
    assert bad[-1] and np.all(np.abs(grid[bad] - 0.5) <= 1e-5)  # only next to c = 0.5
    # wcgain: no finite level holds (the feedthrough -K/(1-K) is unbounded near c = 0.5)
    wc = rmb.wcgain(loop)
    assert np.isinf(wc.upper) and not wc.certified and "ill-posed at c = 0.5" in wc.reason
    k = 4 * wc.worst["c"] - 4 * wc.worst["c"] ** 2
    # |T(jw)|^2 = k^2 (w^2 + 1/4) / ((1 - k)^2 w^2 + (1 - k/2)^2): peak at w = 0 or inf
    assert wc.lower == pytest.approx(max(abs(k / (1 - k)), abs(0.5 * k / (1 - k / 2))), rel=1e-6)


def test_two_parameter_window_against_an_exact_sweep():
    # K = 4 a (b - a): a in [-0.5, 0.9], b in [0.95, 1.05]; unstable/ill-posed iff K >= 1
    # (K stays below 3).  Exact margin: the smallest scaling whose box reaches K = 1.
    a = rmb.ureal("a", 0.2, range=(-0.5, 0.9))
    b = rmb.ureal("b", 1.0, range=(0.95, 1.05))
    res = rmb.robstab(rmb.feedback(_plant_tf(G2) * (4 * a * b - 4 * a * a), 1), sensitivity=False)

    def k_max(t):  # largest K over the box scaled by t (b at its top, a best in range)
        bt = 1 + 0.05 * t
        at = np.clip(bt / 2, 0.2 - 0.7 * t, 0.2 + 0.7 * t)
        return 4 * at * (bt - at)

    exact = brentq(lambda t: k_max(t) - 1.0, 0.0, 1.0, xtol=1e-15)
    assert res.lower <= exact <= res.upper * (1 + 1e-12)
    assert res.upper <= exact * (1 + 1e-6)
    bad_point = res.destabilizing
    assert _bad(G2, 4 * bad_point["a"] * (bad_point["b"] - bad_point["a"]))[0]
    # 2-D sweep of the closed-loop poles over the normalised square
    u = np.linspace(-1, 1, 1201)
    ua, ub = (x.ravel() for x in np.meshgrid(u, u))
    av, bv = 0.2 + 0.7 * ua, 1.0 + 0.05 * ub
    bad = _bad(G2, 4 * av * (bv - av))
    size = np.maximum(np.abs(ua), np.abs(ub))
    assert not np.any(bad[size <= res.lower])
    first = float(np.min(size[bad]))
    assert exact <= first <= exact + 4 * 2.0 / 1200


def test_ill_posed_scales_against_the_determinant():
    rng = np.random.default_rng(3)
    d = rng.standard_normal((3, 3))
    diags = rng.uniform(-1, 1, (50, 3))
    got = ill_posed_scales(d, diags)
    ts = np.linspace(0.0, 100.0, 20001)[1:]
    assert np.any(np.isfinite(got)) and np.any(np.isinf(got))
    for alpha, dg in zip(got, diags, strict=True):
        m = d * dg[None, :]
        dets = np.linalg.det(np.eye(3)[None] - ts[:, None, None] * m[None])
        if np.isfinite(alpha):
            # singular at alpha, and det(I - t D diag) keeps its sign (+1 at 0) before it
            sv = np.linalg.svd(np.eye(3) - alpha * m, compute_uv=False)
            assert sv[-1] <= 1e-12 * sv[0]
            assert np.all(dets[ts < alpha * (1 - 1e-9)] > 0)
        else:
            assert np.all(dets > 0)  # never singular for any real scaling


def test_scan_ends_at_the_ill_posed_scaling():
    k = rmb.ureal("k", 0.0, range=(-2.0, 2.0))
    problem = uncertain_problem(rmb.feedback(-(s + 0.5) / (s + 1) * k, 1))
    got = scan_crossings(problem.m11, 0.0, np.array([[1.0], [-1.0]]), 20.0)
    # k = 1 (scaling 0.5 of the range) is ill-posed, the loop unstable for 1 < k < 2
    # only; k < 0 is stable at every scaling
    assert got[0] == pytest.approx(0.5, rel=1e-12) and np.isnan(got[1])


def test_max_boxes_zero_is_the_plain_sweep_bound():
    # 1/(s^2 + c s + 1), c in [0, 2]: margin exactly 1; the polytope certifies it by
    # default; with max_boxes=0 neither it nor the branch and bound runs
    c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    loop = 1 / (s * s + c * s + 1)
    default = rmb.robstab(loop, sensitivity=False)
    assert default.boxes is not None and default.boxes.certified
    plain = rmb.robstab(loop, sensitivity=False, max_boxes=0)
    assert plain.boxes is None and "polytope" not in plain.reason
    assert plain.mu.covered and plain.lower == 1.0 / plain.mu.upper
    assert plain.lower <= 1.0 <= plain.upper <= 1.0 + 1e-9
    # every c in the box scaled by the sweep bound is stable (roots by hand)
    for cc in 1.0 + plain.lower * np.linspace(-1, 1, 2001)[1:-1]:
        assert np.max(np.roots([1.0, cc, 1.0]).real) < 0
    # wcgain has no polytope step: max_boxes=0 only turns its branch and bound off, which
    # test_gain_branch_and_bound.py checks on loops where the single box is loose (slow)


def _product_loop(big):
    # 1/(s + 1) x y / big^2, x, y in [0.5, 1.5] big: Dzw = [[0, ~big/2], [0, 0]] (units)
    x = rmb.ureal("x", big, range=(0.5 * big, 1.5 * big))
    y = rmb.ureal("y", big, range=(0.5 * big, 1.5 * big))
    return uncertain_problem(1 / (s + 1) * (x * y / big**2))


@pytest.mark.parametrize("big", [1.0, 1e8])
def test_ill_posedness_does_not_depend_on_units(big):
    # the product of two parameters of size 1e8: I - Dzw Delta is unit upper triangular
    # (det 1 for every Delta) yet its singular values spread by 1e16
    problem = _product_loop(big)
    dzw = problem.m11[3]
    assert np.linalg.det(np.eye(dzw.shape[0]) - dzw * 1.5) == pytest.approx(1.0)
    for xv, yv in [(1.5, 1.5), (1.2, 0.7), (0.5, 1.5)]:
        assert not is_ill_posed(problem, {"x": xv * big, "y": yv * big})
    # a stable, well-posed candidate (the loop is the pole -1 for every x, y) is never a
    # verified destabilising sample
    vals = lambda t: {"x": big * (1 + 0.3 * t), "y": big * (1 + 0.3 * t)}  # noqa: E731
    assert np.all(np.linalg.eigvals(np.asarray(problem.model.usubs(vals(1.0)).A)) < 0)
    assert _verified_crossing(problem, 0.6, vals) is None
    # in feedback with G1, K = 0.8 x y / big^2 reaches 1 (ill-posed) at scaling
    # 2 (sqrt(1.25) - 1), where 0.8 (1 + t/2)^2 = 1 (closed form)
    x = rmb.ureal("x", big, range=(0.5 * big, 1.5 * big))
    y = rmb.ureal("y", big, range=(0.5 * big, 1.5 * big))
    res = rmb.robstab(rmb.feedback(_plant_tf(G1) * (0.8 * x * y / big**2), 1), sensitivity=False)
    exact = 2 * (np.sqrt(1.25) - 1)
    assert res.lower <= exact <= res.upper * (1 + 1e-12) <= exact * (1 + 1e-6)
    k_bad = 0.8 * res.destabilizing["x"] * res.destabilizing["y"] / big**2
    # unstable by the closed form: the pole (0.5 K - 1) / (1 - K) is beyond 1 / (1 - K)
    assert _bad(G1, k_bad)[0]
    # a loop 1e-10 from singular (a simple eigenvalue) is well-posed: no such claim
    assert ("not well-posed" in res.reason) == (abs(1 - k_bad) <= 2e-12)


@pytest.mark.slow
def test_ill_posed_scales_rejects_a_pair_that_only_comes_near_the_real_axis():
    # K = 4c - 4c^2 - 1e-13 peaks at 1 - 1e-13 < 1: det(I - t Dzw Delta) never vanishes
    # for real t (its eigenvalues are a complex pair 3.2e-7 off the axis at the peak), so no
    # direction is ill-posed; K = 4c - 4c^2 touches 1 at c = 0.5 (a defective eigenvalue)
    c = rmb.ureal("c", 0.3, range=(0.0, 0.6))
    for gap, ill in [(1e-13, False), (0.0, True)]:
        problem = uncertain_problem(rmb.feedback(_plant_tf(G1) * (4 * c - 4 * c * c - gap), 1))
        got = ill_posed_scales(problem.m11[3], np.array([[1.0], [-1.0]]))
        assert np.isfinite(got[0]) == ill and np.isinf(got[1])
        if ill:
            assert got[0] == pytest.approx(2.0 / 3.0, rel=1e-7)
        assert is_ill_posed(problem, {"c": 0.5}) == ill
        found = ill_posed_member(problem)
        assert (found is not None) == ill
        # the scan does not end at a false scaling: the loop is stable up to c = 0.6
        # (K < 1 - 1e-13: 1 + G1 K keeps positive coefficients, closed form)
        scan = scan_crossings(problem.m11, 0.0, np.array([[1.0]]), 1.0)
        assert (scan[0] == pytest.approx(2.0 / 3.0, rel=1e-7)) if ill else np.isnan(scan[0])
        wc = rmb.wcgain(rmb.feedback(_plant_tf(G1) * (4 * c - 4 * c * c - gap), 1))
        assert ("ill-posed at" in wc.reason) == ill
