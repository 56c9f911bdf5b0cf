"""Disk margins at the edges of the disk model: infinite margins and the ``gmin = 0`` edge.

References are closed forms.  For skew ``sigma`` the factors are
``f = (1 + a d)/(1 - b d)``, ``a = (1 - sigma)/2``, ``b = (1 + sigma)/2``; the lower
real-axis intercept ``(1 - a alpha)/(1 + b alpha)`` is 0 exactly at ``alpha = 1/a``.
"""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb

s = control.tf("s")


def test_zero_loop_with_skew_minus_one_has_an_infinite_margin():
    # L = 0: 1 + L f = 1 never vanishes, so every factor is tolerated.  With skew -1
    # (a = 1, b = 0) the factors are f = 1 + d: the whole plane, gain margin (-inf, inf).
    dm = rmb.diskmargin(control.tf(0, 1), skew=-1.0)
    assert dm.alpha == np.inf
    assert dm.gain_margin == (-np.inf, np.inf)
    assert dm.phase_margin == pytest.approx(180.0)
    assert np.isnan(dm.multiloop.delta[0])
    assert "gain_margin=[-inf, inf]" in repr(dm.multiloop)


def test_decoupled_zero_channel_with_skew_minus_one():
    # diag(0, 1/(s + 1)): channel 0 never destabilises; channel 1 has T = 1/(s + 2), whose
    # peak 1/2 (at w = 0) gives the skew -1 margin 1/||T||_inf = 2.
    L = control.append(control.ss(control.tf(0, 1)), control.ss(1 / (s + 1)))
    dm = rmb.diskmargin(L, skew=-1.0)
    lat = dm.loop_at_a_time
    assert lat.alpha[0] == np.inf
    assert lat.alpha[1] == pytest.approx(2.0, rel=1e-9)
    first, second = lat[0], lat[1]
    assert first.alpha == np.inf and np.isnan(first.delta[0])
    assert second.alpha == pytest.approx(2.0, rel=1e-9)
    # the diagonal multiloop margin is that of the worse channel
    assert dm.lower <= 2.0 <= dm.upper * (1 + 1e-9)
    assert dm.upper == pytest.approx(2.0, rel=1e-9)


@pytest.mark.parametrize(
    ("L", "skew", "alpha", "gmax"),
    [
        # 1/s: S - a = ((1 - a) s - a)/(s + 1) peaks at w = 0 with |.| = a (a > 1/2)
        (1 / s, -0.7, 1 / 0.85, 2 * 0.85 / 0.7),
        (1 / s, -3.0, 0.5, 4.0 / 3.0),
        # skew -1 is 1/||T||: T = 1/(s + 1) peaks 1 at w = 0; T = 4/(s^2 + 2 s + 5)
        # peaks 1 at w = sqrt(3); the disk is |f - 1| < 1, gain margin [0, 2]
        (1 / s, -1.0, 1.0, 2.0),
        (4 / (s + 1) ** 2, -1.0, 1.0, 2.0),
    ],
)
def test_lower_gain_margin_is_zero_on_the_edge(L, skew, alpha, gmax):
    dm = rmb.diskmargin(L, skew=skew)
    assert dm.lower <= alpha <= dm.upper * (1 + 1e-12)
    assert dm.upper == pytest.approx(alpha, rel=1e-9)
    gmin, gmax_got = dm.gain_margin
    assert gmin == 0.0
    assert gmax_got == pytest.approx(gmax, rel=1e-9)
    assert dm.gain_margin_db[0] == -np.inf
    assert dm.loop_at_a_time.gain_margin[0, 0] == 0.0
    # every real gain in (0, gmax) keeps the loop stable (closed-loop poles by numpy)
    num, den = (np.asarray(c[0][0], float) for c in control.tfdata(L))
    for g in np.linspace(1e-3, gmax * (1 - 1e-3), 50):
        assert np.all(np.roots(np.polyadd(den, g * num)).real < 0)


def test_a_bracket_away_from_the_edge_is_not_snapped():
    # 3/(s + 1), skew 0.5: alpha = 4/3 is the half-plane edge 1/b (gmax = inf) but not
    # the edge 1/a = 4: gmin = (1 - a alpha)/(1 + b alpha) = 1/3.
    dm = rmb.diskmargin(3 / (s + 1), skew=0.5)
    gmin, gmax = dm.gain_margin
    assert gmax == np.inf
    assert gmin == pytest.approx(1 / 3, rel=1e-8)


def _two_channel_mu_peak(A, B, C, D, skew, w):
    """``max_w mu(S(jw) - a I)`` for two complex scalars, by numpy: for this structure
    ``mu(M) = max_theta rho(M diag(1, exp(j theta)))`` (Packard & Doyle 1993), so a dense
    sweep of ``theta`` gives ``mu`` from below and one over the peak is at or above the
    true multiloop margin."""
    n = A.shape[0]
    L = np.array([C @ np.linalg.solve(1j * x * np.eye(n) - A, B) + D for x in w])
    M = np.linalg.inv(np.eye(2) + L) - 0.5 * (1 - skew) * np.eye(2)
    theta = np.exp(1j * np.linspace(0.0, 2 * np.pi, 1440, endpoint=False))
    a, b = M[:, None, 0, 0], M[:, None, 0, 1] * theta[None]
    c, d = M[:, None, 1, 0], M[:, None, 1, 1] * theta[None]
    root = np.sqrt((a - d) ** 2 + 4 * b * c)
    rho = np.maximum(np.abs(a + d + root), np.abs(a + d - root)) / 2
    return float(rho.max())


def test_complex_coefficient_multiloop_bound_is_certified_by_mu():
    # A two-channel loop with complex coefficients (its critical frequency is negative):
    # the multiloop lower bound was 1/||S - I/2||_inf (0.7334, 1.3 % below the margin)
    # because the mu covering was not run for complex data; it covers both half axes.
    from robustmb.lft.complex_statespace import ComplexStateSpace

    A = np.array(
        [
            [-2.2 - 0.4j, -1.1 - 0.1j, 0.4 + 1.3j],
            [-1.1 - 0.5j, -2.5 - 1.3j, 0.6 - 1.8j],
            [-1.2 - 0.2j, -0.3 - 0.4j, -1.2 + 0.3j],
        ]
    )
    B = np.array(
        [[-0.5 + 0.1j, -0.5 + 1.0j], [-0.7 + 0.2j, -0.5 - 0.8j], [0.2 + 0.9j, -0.4 + 0.2j]]
    )
    C = np.array([[-0.9, 0.9, 0.0], [-0.6, -0.6, -1.0]])
    D = np.array([[0.0, 0.2], [-0.1, 0.1]])
    dm = rmb.diskmargin(ComplexStateSpace(A, B, C, D))
    assert dm.multiloop.certified
    w = np.concatenate([-np.geomspace(1e3, 1e-3, 1201), [0.0], np.geomspace(1e-3, 1e3, 1201)])
    w = np.concatenate([w, np.linspace(-3.3, -3.0, 301)])  # around the critical frequency
    reference = 1.0 / _two_channel_mu_peak(A, B, C, D, 0.0, w)
    assert dm.lower <= reference * (1 + 1e-9)
    assert dm.lower >= reference * (1 - 2e-3)
    assert dm.upper <= dm.lower * (1 + 2e-3)


@pytest.mark.parametrize("skew", [1e300, -1e300, 2.0**52, -(2.0**60), 2**1100, 1e6 * (1 + 1e-15)])
def test_huge_skew_is_refused_naming_the_argument(skew):
    # Beyond 2**52, a = (1 - skew)/2 and b = (1 + skew)/2 no longer sum to 1; at 1e300 the
    # phase margin raised OverflowError (skew**2) after diskmargin had returned; beyond
    # 1e6 the intercepts amplify the margin's 1e-12 rounding by |skew| (next test).
    from robustmb.analysis import dm2gm
    from robustmb.errors import DimensionError

    L = 4 / (s + 1) ** 2
    with pytest.raises(DimensionError, match="skew"):
        rmb.diskmargin(L, skew=skew)
    with pytest.raises(DimensionError, match="skew"):
        dm2gm(0.5, skew)
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    with pytest.raises(DimensionError, match="skew"):
        rmb.wcdiskmargin(k * L, skew=skew)


def test_large_skew_below_the_limit_keeps_the_closed_form():
    # 3/(s + 1), skew 1e6: S = (s + 1)/(s + 4) runs from 1/4 to 1 and a = (1 - 1e6)/2 < 0,
    # so |S - a| peaks as w -> inf at 1 - a: alpha = 1/(1 + (1e6 - 1)/2).
    dm = rmb.diskmargin(3 / (s + 1), skew=1e6)
    assert dm.upper == pytest.approx(1 / (1 + (1e6 - 1) / 2), rel=1e-9)
    assert np.isfinite(dm.phase_margin)


@pytest.mark.parametrize(
    "loop, skew",
    [(5 / (s - 1), -1e15), (4 / (s * (s + 1)), -1e14), (2 / (s + 1) ** 3, 1e15)],
)
def test_skews_whose_gain_margins_rounding_decides_are_refused(loop, skew):
    # At these skews the old code reported gmin = 0 for 5/(s - 1) (stable only for gains
    # above 0.2: closed loop s - 1 + 5 g), gmin = 0 for 4/(s(s + 1)) (disk intercept 0.25)
    # and gmax = inf for 2/(s + 1)^3 (unstable from g = 4, Routh): the snap to the edge
    # and the intercepts were decided by the margin's rounding amplified by |skew|.
    from robustmb.errors import DimensionError

    with pytest.raises(DimensionError, match="skew"):
        rmb.diskmargin(loop, skew=skew)


@pytest.mark.parametrize("skew", [-1e6, -1e3, 1e3, 1e6])
def test_gain_margins_at_large_allowed_skews_are_inside_the_true_ranges(skew):
    # the disk's real intercepts must lie inside the range of gains the loop tolerates:
    # 5/(s - 1): g > 0.2; 2/(s + 1)^3: 0 <= g < 4 (Routh: 1 + 2 g stable iff g < 4)
    lo, hi = rmb.diskmargin(5 / (s - 1), skew=skew).gain_margin
    assert lo >= 0.2
    lo, hi = rmb.diskmargin(2 / (s + 1) ** 3, skew=skew).gain_margin
    assert lo >= -0.5 and hi <= 4.0


def test_fast_complex_loop_gives_no_divide_warning():
    # a 3-state complex-coefficient loop with poles at 5e4 times O(1): the H-infinity
    # pencil's kept eigenvalues included one with beta = 0 (alpha / beta warned "divide by
    # zero" to the user); an infinite eigenvalue is simply no crossing
    from robustmb.lft.complex_statespace import ComplexStateSpace

    rng = np.random.default_rng(3)

    def cplx(*shape):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)

    for _ in range(10):  # the tenth draw of this generator is the one that warned
        poles = -rng.uniform(0.2, 3, 3) + 1j * rng.uniform(-5, 5, 3)
        t = cplx(3, 3)
        a = t @ np.diag(poles) @ np.linalg.inv(t)
        b, c = cplx(3, 2) * 0.3, cplx(2, 3)
    loop = ComplexStateSpace(a * 5e4, b * 5e4, c, np.zeros((2, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        dm = rmb.diskmargin(loop, skew=3.0)
    assert 0 < dm.lower <= dm.upper < np.inf
