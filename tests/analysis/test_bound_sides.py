"""Bounds on the right side: robgain's lower bound is certified or 0, robstab's upper bound
is a verified destabilising point whatever the frequencies, and the margin of a loop whose
centre already reaches gamma is 0.

Every reference is independent of the package: closed-loop matrices built by hand, peak
gains from a dense frequency grid refined by a bounded scalar search, the Routh condition
of a third-order polynomial in closed form.
"""

import control
import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar

import robustmb as rmb
from robustmb.errors import ArgumentError


def _peak(a, b, c, grid):
    """Peak gain of ``c (jw I - a)^-1 b`` (``inf`` if unstable): grid, then refined."""
    n = a.shape[0]
    if np.max(np.linalg.eigvals(a).real) >= 0:
        return np.inf

    def gain(w):
        return float(np.linalg.norm(c @ np.linalg.solve(1j * w * np.eye(n) - a, b), 2))

    vals = np.array([gain(w) for w in grid])
    i = int(np.argmax(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best = vals[i]
    if hi > lo:
        r = minimize_scalar(lambda w: -gain(w), bounds=(lo, hi), method="bounded",
                            options={"xatol": 1e-12})  # fmt: skip
        best = max(best, -r.fun)
    return best


# --------------------------------------------------------------- third-order loop
# x''' + a x'' + b x' + c x = u, y = x: stable iff a, b > 0 and a b > c (Routh)


def _third_order(a, b, c):
    return np.array([[0, 1, 0], [0, 0, 1], [-c, -b, -a]], float), np.array([[0], [0], [1.0]])


def _third_order_usys(ranges):
    a, b, c = (rmb.ureal(n, sum(r) / 2, range=r) for n, r in zip("abc", ranges, strict=True))
    return rmb.uss([[0, 1, 0], [0, 0, 1], [-c, -b, -a]], [[0], [0], [1]], [[1, 0, 0]], [[0]])


_RANGES_WIDE = ((1.0, 3.0), (0.5, 3.0), (0.5, 3.5))
_RANGES_NARROW = ((1.75, 2.25), (1.4375, 2.0625), (1.625, 2.375))
_GRID3 = np.r_[0.0, np.logspace(-2, 2, 8000)]


def _point(ranges, x):
    """Physical (a, b, c) at normalised coordinates ``x`` in [-1, 1]^3."""
    return [0.5 * (lo + hi) + 0.5 * (hi - lo) * xi for (lo, hi), xi in zip(ranges, x, strict=True)]


def _peak3(ranges, x):
    a, b = _third_order(*_point(ranges, x))
    return _peak(a, b, np.array([[1.0, 0, 0]]), _GRID3)


def _scaling(ranges, values):
    return max(
        abs(values[n] - 0.5 * (lo + hi)) / (0.5 * (hi - lo))
        for n, (lo, hi) in zip("abc", ranges, strict=True)
    )


def _check_robgain_3(ranges, gamma, corner):
    """robgain's bounds against the gain along a corner ray and samples of the lower box."""
    res = rmb.robgain(_third_order_usys(ranges), gamma)
    # the corner ray reaches gamma at t_c (brentq on the independent peak): margin <= t_c
    t_c = brentq(lambda t: _peak3(ranges, t * np.asarray(corner)) - gamma, 0.0, 3.0, xtol=1e-10)
    assert res.lower <= res.upper
    assert res.lower <= t_c
    # worst lies at scaling upper and its peak gain (by hand) reaches gamma
    assert _scaling(ranges, res.worst) == pytest.approx(res.upper, rel=1e-9)
    vals = [res.worst[n] for n in "abc"]
    a, b = _third_order(*vals)
    assert _peak(a, b, np.array([[1.0, 0, 0]]), _GRID3) >= gamma * (1 - 1e-6)
    # the certified box: its corners and random points stay below gamma
    rng = np.random.default_rng(0)
    pts = [np.array(s, float) for s in np.ndindex(2, 2, 2)]
    pts = [2 * p - 1 for p in pts] + list(rng.uniform(-1, 1, (20, 3)))
    assert res.certified
    for x in pts:
        assert _peak3(ranges, res.lower * x) < gamma
    return res, t_c


@pytest.mark.slow
def test_robgain_lower_not_above_a_corner_reaching_gamma():
    # a corner of the declared box has peak gain 12.75 > 11: the margin is below 1 (the
    # grid alone once gave 1.249 as lower, with an unstable worst case at upper)
    res, t_c = _check_robgain_3(_RANGES_NARROW, 11.0, (-1, -1, 1))
    assert _peak3(_RANGES_NARROW, (-1, -1, 1)) > 11.0
    assert res.upper < 1.0 and res.lower > 0.95 * t_c
    # the robust stability margin bounds the performance margin from above
    assert res.upper <= rmb.robstab(_third_order_usys(_RANGES_NARROW)).upper


@pytest.mark.slow
def test_robgain_lower_not_above_the_robust_stability_margin():
    # gamma = 5 is reached at scaling 0.20606 on the corner ray (a-, b-, c+), below the
    # Routh crossing a b = c on that ray (0.27763): the grid alone once gave 0.278
    res, t_c = _check_robgain_3(_RANGES_WIDE, 5.0, (-1, -1, 1))
    routh = (5.75 - np.sqrt(5.75**2 - 4 * 1.25 * 1.5)) / 2.5
    assert res.upper < routh and res.lower > 0.95 * t_c


# --------------------------------------------------------------- resonant product
# G = 1/(s^2 + 0.1 s + 1) * 1/(s^2 + 0.1 w s + w^2), w in [0.8, 1.3]


def _resonant_usys():
    w = rmb.ureal("w", 1.1, range=(0.8, 1.3))
    s = control.tf("s")
    return (1 / (s * s + 0.1 * s + 1)) * rmb.uss(
        [[0, 1], [-w * w, -0.1 * w]], [[0], [1]], [[1, 0]], [[0]]
    )


def _resonant_peak(w):
    a = np.array([[0, 1, 0, 0], [-1, -0.1, 1, 0], [0, 0, 0, 1], [0, 0, -w * w, -0.1 * w]])
    b = np.array([[0], [0], [0], [1.0]])
    c = np.array([[1.0, 0, 0, 0]])
    return _peak(a, b, c, np.linspace(0.3, 2.0, 6001))


@pytest.mark.slow
def test_robgain_lower_certified_on_a_narrow_resonance():
    # gamma = 80 is reached when w comes down to the other resonance (w = 1.04066)
    gamma = 80.0
    w_star = brentq(lambda x: _resonant_peak(x) - gamma, 0.99, 1.05, xtol=1e-12)
    margin = (1.05 - w_star) / 0.25
    res = rmb.robgain(_resonant_usys(), gamma)
    assert res.certified
    assert res.lower <= margin <= res.upper * (1 + 1e-5)
    assert res.lower >= 0.99 * margin
    assert _resonant_peak(res.worst["w"]) >= gamma * (1 - 1e-6)


def test_robgain_centre_above_gamma_has_margin_zero():
    # the centre w = 1.05 already has peak gain 73.6 > 60
    assert _resonant_peak(1.05) > 60.0
    res = rmb.robgain(_resonant_usys(), 60.0)
    assert res.lower == 0.0 and res.upper == 0.0 and res.certified
    assert res.worst["w"] == pytest.approx(1.05, rel=1e-12)
    assert "centre" in res.reason and "margin is 0" in res.reason


# --------------------------------------------------------------- robstab on a grid


@pytest.mark.parametrize(
    "omega", [[0.1, 10.0], [0.5, 3.0], np.logspace(-1, 1, 5)], ids=["two", "band", "log5"]
)
def test_robstab_on_given_frequencies_keeps_the_destabilising_point(omega):
    # on the ray (a-, b-, c+) the Routh condition a b = c gives
    # 1.25 t^2 - 5.75 t + 1.5 = 0: t = 0.277625, inside the declared box
    routh = (5.75 - np.sqrt(5.75**2 - 4 * 1.25 * 1.5)) / 2.5
    corner = _third_order(1.0, 0.5, 3.5)[0]
    assert np.max(np.linalg.eigvals(corner).real) > 0
    res = rmb.robstab(_third_order_usys(_RANGES_WIDE), omega=omega)
    assert not res.is_robustly_stable
    assert res.lower <= res.upper <= routh * (1 + 1e-6)
    p = res.destabilizing
    a = _third_order(p["a"], p["b"], p["c"])[0]
    assert np.max(np.linalg.eigvals(a).real) >= -1e-9
    assert _scaling(_RANGES_WIDE, p) == pytest.approx(res.upper, rel=1e-6)


def test_robstab_of_a_static_matrix_is_an_argument_error():
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    with pytest.raises(ArgumentError, match="usys has no states"):
        rmb.robstab(rmb.umat([[k]]))


def test_static_gain_margins_are_exact():
    # a static k in [0.5, 1.5]: the gain |k| reaches 1.25 at k = 1.25, scaling 0.5
    # (robgain), and the worst-case gain is the range end 1.5 (wcgain)
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    res = rmb.robgain(rmb.umat([[k]]), 1.25)
    assert res.lower <= 0.5 <= res.upper * (1 + 1e-6) and res.lower >= 0.49
    wc = rmb.wcgain(rmb.umat([[k]]))
    assert wc.lower == pytest.approx(1.5, rel=1e-12) and wc.lower <= wc.upper <= 1.51


def test_robgain_without_a_whole_axis_certificate_returns_lower_zero(monkeypatch):
    # every whole-axis sweep fails (no interval, no point): the grid's scaling is no
    # bound, so lower is 0 and says why; upper stays realised (k = 1.25 reaches 1.25)
    from robustmb.analysis import robust_gain
    from robustmb.analysis.mu_sweep import MuPeak

    def failing(*args, **kwargs):
        empty = np.zeros(0)
        return MuPeak(np.inf, 0.0, np.nan, None, [], False, empty, empty, empty)

    monkeypatch.setattr(robust_gain, "_certify_level", failing)
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    res = rmb.robgain(k / (s + 1), 1.25)
    assert res.lower == 0.0 and not res.certified
    assert "no positive scaling is certified" in res.reason
    assert 0.5 <= res.upper <= 0.5 * (1 + 1e-5)


@pytest.mark.parametrize("kind", ["ureal", "ucomplex"])
def test_robgain_at_a_large_gamma_uses_the_stability_witness(kind):
    # G = 1 / (s + c): gain 1 / |c| at s = 0 only when c is real; the margin is where c
    # reaches 1 / gamma, i.e. the robust stability margin for gamma = 1e12 (c = 1 - 0.5 t
    # for the ureal: t = 2 (1 - 1e-12)).  The witness along robstab's destabilising
    # direction used to fail on scalar elements (AttributeError: no .shape).
    s = control.tf("s")
    if kind == "ureal":
        c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
        exact = 2.0 * (1.0 - 1e-12)
    else:
        c = rmb.ucomplex("c", 1.0, radius=0.5)
        exact = 2.0 * (1.0 - 1e-12)  # the nearest point to 1/gamma in the disc is real
    res = rmb.robgain(1 / (s + c), 1e12)
    assert res.lower <= exact <= res.upper * (1 + 1e-12)
    assert res.upper <= exact * (1 + 1e-6)


def test_mussv_real_blocks_on_a_badly_scaled_complex_matrix():
    # det(I - M diag(d1, d2)) = (1 - d1 m11)(1 - d2 m22) has no real root when m11, m22
    # are not real: real mu = 0 exactly.  A normwise singularity test accepted the
    # search's delta here (sigma_min 1.5e-20 against ||M|| = 1e12) and gave lower
    # 0.99999999 above the certified upper bound 0.498 of the balanced D M D^-1.
    M = np.array([[1 + 1e-9j, 1e12], [0, 0.5 + 1e-9j]])
    D = np.diag([1.0, 1e12])
    for A in (M, D @ M @ np.linalg.inv(D)):
        res = rmb.mussv(A, [(-1, 0), (-1, 0)])
        assert res.lower == 0.0 and res.upper >= 0.0
    # an exactly singular real perturbation still counts: M real in its first column
    # block-triangular with m11 = 2 exactly (delta = diag(0.5, 0))
    res = rmb.mussv(np.array([[2.0 + 0j, 1e12], [0, 0.5 + 1e-9j]]), [(-1, 0), (-1, 0)])
    assert res.lower == pytest.approx(2.0, rel=1e-12) and res.lower <= res.upper
