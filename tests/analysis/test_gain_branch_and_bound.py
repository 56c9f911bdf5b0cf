"""Branch and bound over the parameter box for wcgain and robgain.

Reference loop with a closed-form worst-case gain: ``x'' + p x' + (1 - c d1 d2) x = u``,
``y = x``, with ``d1, d2`` in ``[-1, 1]`` (a product of two real parameters, on which the
single-box D,G bound of real mu is loose).  With ``k = 1 - c d1 d2`` the peak gain over
frequency is ``1 / (p sqrt(k - p^2 / 4))`` when ``k > p^2 / 2`` (else ``1 / k``), and it
decreases with ``k``: the worst case over the box scaled by ``a`` is at ``d1 d2 = a^2``.
Brute-force checks evaluate the hand-written frequency response on a dense parameter x
frequency grid; nothing here calls the analysis code for the reference values.
"""

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.analysis.branch_and_bound import certify_scaled_box, recentre_system
from robustmb.analysis.uncertain_problem import uncertain_problem
from robustmb.errors import ArgumentError


def _loop(c=0.3, p=1.0):
    s = control.tf("s")
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    g = rmb.uss(control.ss(1 / (s * s + p * s + 1)))
    return rmb.feedback(g, -(c * d1 * d2))


def _gain(c, p, d1, d2, w):
    """|G(jw)| written out: 1 / |1 - c d1 d2 - w^2 + j p w| (broadcasting)."""
    return 1.0 / np.abs(1.0 - c * d1 * d2 - w * w + 1j * p * w)


def _peak_closed_form(k, p):
    return 1.0 / (p * np.sqrt(k - p * p / 4)) if k > p * p / 2 else 1.0 / k


def _brute_max(c, p, scale=1.0, n=81):
    """Largest gain on an ``n x n`` parameter grid times a dense frequency grid."""
    t = np.linspace(-1.0, 1.0, n) * scale
    d1, d2 = np.meshgrid(t, t, indexing="ij")
    w = np.concatenate([np.linspace(0.0, 3.0, 3001), np.geomspace(3.0, 1e3, 200)])
    return float(_gain(c, p, d1[..., None], d2[..., None], w[None, None, :]).max())


def _margin_closed_form(c, p, gamma):
    """Scaling at which the worst-case peak gain reaches ``gamma`` (resonant branch)."""
    k = 1.0 / (gamma * p) ** 2 + p * p / 4
    return np.sqrt((1.0 - k) / c)


def _lft_at(m, nw, nz, diag):
    """Fu(M, diag(diag)) for a constant matrix M (uncertainty channels first)."""
    m11, m12, m21, m22 = m[:nz, :nw], m[:nz, nw:], m[nz:, :nw], m[nz:, nw:]
    dd = np.diag(diag)
    return m22 + m21 @ dd @ np.linalg.solve(np.eye(nz) - m11 @ dd, m12)


def _response(sysdata, w):
    a, b, c, d = sysdata
    return c @ np.linalg.solve(1j * w * np.eye(a.shape[0]) - a, b) + d


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 4), st.integers(1, 3), st.integers(1, 3))
def test_recentred_system_is_the_same_closed_loop(seed, n, nw, nu):
    # Fu(M, Dc + Dr D') = Fu(M', D') for the performance channels at any frequency
    rng = np.random.default_rng(seed)
    ny = nu + 1
    sysdata = (
        rng.standard_normal((n, n)) - 3 * np.eye(n),
        rng.standard_normal((n, nw + nu)),
        rng.standard_normal((nw + ny, n)),
        0.3 * rng.standard_normal((nw + ny, nw + nu)),
    )
    centre = 0.5 * rng.uniform(-1, 1, nw)
    radius = 0.5 * rng.uniform(0.1, 1, nw)
    inner = rng.uniform(-1, 1, nw)
    sub = recentre_system(sysdata, nw, nw, centre, radius)
    w = float(rng.uniform(0.1, 10.0))
    want = _lft_at(_response(sysdata, w), nw, nw, centre + radius * inner)
    got = _lft_at(_response(sub, w), nw, nw, inner)
    assert np.allclose(got, want, atol=1e-8 * (1 + np.abs(want).max()))


@pytest.mark.slow
def test_wcgain_branch_and_bound_tightens_a_loose_single_box():
    c, p = 0.3, 1.0
    exact = _peak_closed_form(1.0 - c, p)
    single = rmb.wcgain(_loop(c, p), max_boxes=0)
    res = rmb.wcgain(_loop(c, p))
    brute = _brute_max(c, p)
    # the single box is loose by more than 10 %; split boxes certify within 0.5 %
    assert single.boxes is None and single.upper / single.lower - 1 > 0.1
    assert res.boxes is not None and res.boxes.certified and res.certified
    assert res.upper < single.upper
    assert res.upper / res.lower - 1 <= 5e-3 + 1e-12
    # sound: never below the brute-force maximum nor the closed form
    assert res.upper >= brute and res.upper >= exact
    # the lower bound is realised: the gain of worst, written out, reaches it
    v = res.worst
    w = np.linspace(0.0, 3.0, 30001)
    realised = _gain(c, p, v["d1"], v["d2"], w).max()
    assert res.lower <= exact * (1 + 1e-9)
    assert realised == pytest.approx(res.lower, rel=1e-6)
    assert "branch and bound certified" in res.reason


@pytest.mark.slow
def test_robgain_branch_and_bound_tightens_a_loose_single_box():
    c, p, gamma = 0.3, 1.0, 1.3
    exact = _margin_closed_form(c, p, gamma)
    single = rmb.robgain(_loop(c, p), gamma, max_boxes=0)
    res = rmb.robgain(_loop(c, p), gamma)
    assert single.boxes is None and single.upper / single.lower - 1 > 0.1
    assert res.boxes is not None and res.boxes.certified
    assert res.lower > single.lower
    assert "from the branch and bound" in res.reason and "from mu" in single.reason
    assert res.lower <= exact <= res.upper * (1 + 1e-9)
    assert res.upper / res.lower - 1 <= 5e-3 + 1e-12
    # sound: on the certified box the brute-force gain stays below gamma
    assert _brute_max(c, p, res.lower) < gamma
    # the witness reaches gamma (written-out response)
    v = res.worst
    w = np.linspace(0.0, 3.0, 30001)
    assert _gain(c, p, v["d1"], v["d2"], w).max() >= gamma * (1 - 1e-6)


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(st.floats(0.1, 0.6), st.floats(0.4, 1.2), st.integers(0, 2**31 - 1))
def test_certified_gain_is_never_below_sampled_gains(c, p, seed):
    rng = np.random.default_rng(seed)
    res = rmb.wcgain(_loop(c, p), max_boxes=6)
    d = rng.uniform(-1, 1, (400, 2))
    w = np.concatenate([rng.uniform(0, 3, 300), [0.0]])
    sampled = _gain(c, p, d[:, :1], d[:, 1:], w[None, :]).max()
    assert res.upper >= sampled
    assert res.upper >= _peak_closed_form(1.0 - c, p) * (1 - 1e-12)
    assert res.lower <= _peak_closed_form(1.0 - c, p) * (1 + 1e-9)


@pytest.mark.slow
@settings(max_examples=5, deadline=None)
@given(st.floats(0.2, 0.6), st.floats(1.05, 1.6), st.integers(0, 2**31 - 1))
def test_certified_margin_box_has_no_sampled_gain_above_gamma(c, ratio, seed):
    p = 1.0
    gamma = ratio * _peak_closed_form(1.0, p)
    res = rmb.robgain(_loop(c, p), gamma, max_boxes=6)
    rng = np.random.default_rng(seed)
    d = res.lower * rng.uniform(-1, 1, (400, 2))
    w = np.concatenate([rng.uniform(0, 3, 300), [0.0]])
    assert _gain(c, p, d[:, :1], d[:, 1:], w[None, :]).max() < gamma


@settings(max_examples=3, deadline=None)
@given(st.floats(0.8, 1.3))
def test_a_certified_gain_level_holds_on_the_whole_box(ratio):
    c, p = 0.3, 1.0
    exact = _peak_closed_form(1.0 - c, p)
    problem = uncertain_problem(_loop(c, p))
    cover = certify_scaled_box(problem, problem.blocks, 1.0, max_boxes=4, gamma=ratio * exact)
    if cover.certified:
        assert cover.gamma >= _brute_max(c, p, n=41)
    if ratio < 1.0:
        assert not cover.certified


@pytest.mark.parametrize("fn", [rmb.wcgain, lambda u, **kw: rmb.robgain(u, 1.3, **kw)])
@pytest.mark.parametrize(
    ("option", "bad"),
    [("max_boxes", -1), ("max_boxes", 1.5), ("max_boxes", True), ("gap_tol", -0.1)],
)
def test_branch_and_bound_options_are_checked(fn, option, bad):
    with pytest.raises(ArgumentError, match=option):
        fn(_loop(), **{option: bad})


def _discrete_loop(c=0.3, p=0.3, dt=0.1):
    s = control.tf("s")
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    g = control.c2d(control.ss(1 / (s * s + p * s + 1)), dt, "zoh")
    return rmb.feedback(rmb.uss(g), -(c * d1 * d2)), g


def _discrete_gain(g, q, theta):
    """|G / (1 - q G)| at ``z = exp(j theta)``, G written out from its state-space data."""
    a, b, cc, d = (np.asarray(x, float) for x in (g.A, g.B, g.C, g.D))
    z = np.exp(1j * np.asarray(theta, float))
    n = a.shape[0]
    # 2 x 2 resolvent by the adjugate: (zI - A)^-1 = adj / det
    det = (z - a[0, 0]) * (z - a[1, 1]) - a[0, 1] * a[1, 0]
    assert n == 2
    gz = (
        cc[0, 0] * ((z - a[1, 1]) * b[0, 0] + a[0, 1] * b[1, 0])
        + cc[0, 1] * (a[1, 0] * b[0, 0] + (z - a[0, 0]) * b[1, 0])
    ) / det + d[0, 0]
    q = np.asarray(q, float)[..., None]
    return np.abs(gz / (1.0 - q * gz))


@pytest.mark.slow
def test_wcgain_runs_the_branch_and_bound_when_the_single_box_gives_no_finite_level():
    # a light damping: the single-box D,G bound of real mu reaches 1 near the resonance,
    # yet the loop is robustly stable (k = 1 - c d1 d2 >= 0.7) with a finite worst case
    c, p = 0.3, 0.3
    exact = _peak_closed_form(1.0 - c, p)
    single = rmb.wcgain(_loop(c, p), max_boxes=0)
    assert single.upper == np.inf and not single.certified
    assert "max_boxes = 0" in single.reason and "neither proved nor disproved" in single.reason
    res = rmb.wcgain(_loop(c, p))
    assert res.certified and res.boxes is not None and res.boxes.certified
    assert np.isfinite(res.upper) and res.upper == res.boxes.gamma
    # sound: never below the closed form nor a brute-force grid maximum
    assert res.upper >= exact and res.upper >= _brute_max(c, p)
    assert res.lower <= exact * (1 + 1e-9)
    # the gap is the one reported, within gap_tol
    assert res.upper / res.lower - 1 <= 5e-3 + 1e-12
    assert f"certified the level {res.upper:.6g}" in res.reason
    w = np.linspace(0.0, 3.0, 300001)
    assert _gain(c, p, res.worst["d1"], res.worst["d2"], w).max() == pytest.approx(
        res.lower, rel=1e-6
    )


@pytest.mark.slow
def test_wcgain_branch_and_bound_closes_the_bound_of_a_discrete_loop():
    c, p = 0.3, 0.3
    usys, g = _discrete_loop(c, p)
    res = rmb.wcgain(usys)
    assert res.certified and res.boxes is not None and res.boxes.certified
    assert np.isfinite(res.upper) and res.upper / res.lower - 1 <= 5e-3 + 1e-12
    # brute force: parameter grid x dense grid of z on the unit circle
    t = np.linspace(-1.0, 1.0, 41)
    q = c * np.multiply.outer(t, t).ravel()
    theta = np.linspace(0.0, np.pi, 20001)
    brute = _discrete_gain(g, q, theta).max()
    assert res.upper >= brute
    # the lower bound is realised by worst (written-out response)
    qw = c * res.worst["d1"] * res.worst["d2"]
    realised = _discrete_gain(g, [qw], np.linspace(0.0, np.pi, 400001)).max()
    assert realised == pytest.approx(res.lower, rel=1e-6)


def test_wcgain_budget_too_small_says_the_bound_is_not_closed():
    res = rmb.wcgain(_loop(0.3, 0.3), max_boxes=1)
    assert res.upper == np.inf and not res.certified and np.isfinite(res.lower)
    # one whole sweep at most; sub-boxes rejected by the cheap probe at their parent's
    # failing frequency are not counted, but at most 4 x max_boxes are examined
    cover = res.boxes
    assert cover is not None and cover.evaluated <= 1
    assert cover.evaluated + cover.probed <= 4
    assert f"did not close the bound within {cover.evaluated} sub-box sweeps" in res.reason
    assert "neither proved nor disproved" in res.reason


def test_wcgain_of_a_loop_not_robustly_stable_is_infinite_with_the_unstable_point():
    # k = 1 - c d1 d2 < 0 for d1 d2 > 1 / c: unstable on part of the box
    c, p = 1.5, 0.3
    res = rmb.wcgain(_loop(c, p))
    assert res.upper == np.inf and res.lower == np.inf
    assert "not robustly stable" in res.reason
    v = res.worst
    assert 1.0 - c * v["d1"] * v["d2"] <= 0  # written out: a pole at or right of 0
    assert f"d1 = {v['d1']:.6g}" in res.reason
