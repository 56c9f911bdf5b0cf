"""Models with complex coefficients (a ``ucomplex`` with a complex nominal value, a ``uss``
with complex entries) are analysed exactly, on the whole frequency axis.

References: closed-loop poles swept over the complex disc (brute force), and margins
and critical frequencies derived by hand in the docstrings.
"""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.lft.complex_statespace import ComplexStateSpace

s = control.tf("s")


@pytest.fixture(autouse=True)
def _no_complex_warning():
    """A ComplexWarning means an imaginary part was dropped somewhere."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        yield


def test_lftdata_keeps_the_imaginary_part():
    c = rmb.ucomplex("c", 1 + 2j, radius=0.5)
    M, blocks = rmb.lftdata(c / (s + 1))
    assert isinstance(M, ComplexStateSpace)
    assert blocks == [("c", "complex", 1, (1, 1))]
    delta = 0.3 - 0.2j
    for x in (0.5j, 2.0 + 1.0j, -3.0j):
        Mx = M(x)
        fu = Mx[1, 1] + Mx[1, 0] * delta * Mx[0, 1] / (1 - Mx[0, 0] * delta)
        assert fu == pytest.approx((1 + 2j + 0.5 * delta) / (x + 1), rel=1e-12)


def _brute_margin(c0, radius, n_theta=20000):
    """Smallest |delta| on the disc with a pole of (s+1)^3 + c0 + radius delta in Re s >= 0."""
    theta = np.linspace(0, 2 * np.pi, n_theta, endpoint=False)

    def unstable(r):
        c = c0 + radius * r * np.exp(1j * theta)
        # poles s = -1 + cube roots of -c
        roots = (-c)[:, None] ** (1 / 3) * np.exp(2j * np.pi * np.arange(3) / 3)[None, :]
        return np.max(roots.real) >= 1.0

    lo, hi = 0.0, 2.0
    assert unstable(hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if unstable(mid) else (mid, hi)
    return hi


def test_robstab_complex_nominal_matches_brute_force():
    c = rmb.ucomplex("c", 0.5 + 1j, radius=1)
    res = rmb.robstab(rmb.feedback(c / (s + 1) ** 3, 1))
    brute = _brute_margin(0.5 + 1j, 1.0)
    assert brute == pytest.approx(0.711, abs=1e-3)
    assert res.certified
    assert res.lower <= brute * (1 + 1e-7)
    assert res.upper >= brute * (1 - 1e-7)
    assert res.upper <= 1.01 * res.lower
    # the destabilising value puts a closed-loop pole at j * critical_frequency
    cval = res.destabilizing["c"]
    poles = np.roots(np.poly1d([1, 3, 3, 1]).coeffs + np.array([0, 0, 0, cval]))
    k = np.argmax(poles.real)
    assert abs(poles[k].real) <= 1e-6
    assert poles[k].imag == pytest.approx(res.critical_frequency, abs=1e-6)
    assert res.critical_frequency < 0


def test_robstab_pole_crossing_at_negative_frequency():
    """1/(s + 1 + c), c = j + 0.1 delta: the pole -1 - j - 0.1 delta reaches the axis
    first at delta = -10, at s = -j: margin 10, critical frequency -1 rad/s."""
    c = rmb.ucomplex("c", 1j, radius=0.1)
    res = rmb.robstab(1 / (s + 1 + c))
    assert res.certified
    assert res.lower == pytest.approx(10.0, rel=2e-3) and res.lower <= 10.0
    # the witness is pushed 1e-9 beyond the crossing so its poles are verifiably unstable
    assert res.upper == pytest.approx(10.0, rel=2e-9)
    assert res.critical_frequency == pytest.approx(-1.0, abs=1e-9)
    assert res.destabilizing["c"] == pytest.approx(-1 + 1j, abs=2e-9)


@pytest.mark.parametrize("imag", [2.0, -2.0])
def test_uss_with_complex_state_matrix(imag):
    """A = -1 + j imag + a, a in [-2, 2]: the pole reaches the axis at a = 1 (half the
    range, margin 0.5) at the frequency ``imag``."""
    a = rmb.ureal("a", 0.0, range=(-2.0, 2.0))
    G = rmb.uss([[-1 + 1j * imag + a]], [[1.0]], [[1.0]], [[0.0]])
    res = rmb.robstab(G)
    assert res.certified
    assert res.lower == pytest.approx(0.5, rel=2e-3) and res.lower <= 0.5
    # the witness is pushed 1e-9 beyond the crossing so its poles are verifiably unstable
    assert res.upper == pytest.approx(0.5, rel=2e-9)
    assert res.critical_frequency == pytest.approx(imag, abs=1e-9)


def test_wcgain_with_ucomplex():
    """|1/(jw + 1 + j + 0.1 delta)| is largest at w = -1, delta = -1: 1/0.9."""
    c = rmb.ucomplex("c", 1j, radius=0.1)
    res = rmb.wcgain(1 / (s + 1 + c))
    assert res.certified
    assert res.lower == pytest.approx(1 / 0.9, rel=1e-9)
    assert 1 / 0.9 <= res.upper <= 1.002 / 0.9
    assert res.critical_frequency == pytest.approx(-1.0, abs=1e-6)


def test_hinfnorm_and_freqresp_of_a_complex_model():
    """1/(s + 0.1 + j) peaks at w = -1 with gain 10 (a real-coefficient sweep of w >= 0
    would see at most 1/|0.1 + 2j| there)."""
    G = ComplexStateSpace([[-0.1 - 1j]], [[1.0]], [[1.0]], [[0.0]])
    gamma, fpeak = rmb.hinfnorm(G)
    assert gamma == pytest.approx(10.0, rel=1e-8)
    assert fpeak == pytest.approx(-1.0, abs=1e-6)
    w = np.array([-2.0, -1.0, 0.0, 1.0])
    H = rmb.freqresp(G, w)[:, 0, 0]
    np.testing.assert_allclose(H, 1 / (1j * w + 0.1 + 1j), rtol=1e-13)
    # mu of a complex matrix with a real block: det(1 - m delta) = 0 needs delta = 1/m real
    assert rmb.mussv(np.array([[2.0 + 0.0j]]), [(-1, 0)]).lower == pytest.approx(2.0)
