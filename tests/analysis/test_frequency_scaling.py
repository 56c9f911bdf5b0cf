"""Whole-axis certificates of a time-scaled loop (frequency normalisation of the sweep).

A flexible-spacecraft attitude loop (rigid body + two flexible modes, PD with a filter,
uncertain inertia, stiffness and damping) time-scaled by ``a``: the model ``T(s / a)``.
The scaling is exact, so the robust stability margin and the worst-case gain do not
depend on ``a``; only the frequencies are multiplied by ``a``.  Its physical realisation
(inertia ``1 / a^2``, stiffness ``a^2``) spreads the data over twenty orders of magnitude
at ``a = 1e6``.  The brute-force references below evaluate the loop's transfer function
from its formula with numpy, on a grid of the parameter box and of frequency.
"""

import control
import numpy as np
import pytest
import scipy.linalg

import robustmb as rmb
from robustmb.analysis.freqresp import freqresp
from robustmb.analysis.frequency_band import band_mu_peak
from robustmb.analysis.frequency_certificate import check_frequency_certificate
from robustmb.analysis.frequency_scaling import (
    frequency_unit,
    normalised_model,
    shift_scalings,
    sweep_frame,
)
from robustmb.analysis.mu_sweep import certified_mu_peak
from robustmb.report.worst_case import reverified_upper

KP, KD, TAU = 0.04, 0.3, 0.5
PHI1, PHI2, W2, Z2 = 0.5, -0.4, 3.0, 0.003
PCT = {"J": 0.2, "k1": 0.2, "c1": 0.3}


def nominal(a):
    """Physical parameters of the loop time-scaled by ``a``."""
    return dict(J=1.0 / a**2, k1=a**2, c1=0.006 * a, k2=(a * W2) ** 2, c2=a * 2 * Z2 * W2,
                phi1=a * PHI1, phi2=a * PHI2)  # fmt: skip


def loop(a):
    """``d -> y`` of the attitude loop, an uncertain model."""
    p = nominal(a)
    J = rmb.ureal("J", p["J"], percent=100 * PCT["J"])
    k1 = rmb.ureal("k1", p["k1"], percent=100 * PCT["k1"])
    c1 = rmb.ureal("c1", p["c1"], percent=100 * PCT["c1"])
    A = rmb.umat([[0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0],
                  [0, 0, -1 * k1, -1 * c1, 0, 0], [0, 0, 0, 0, 0, 1],
                  [0, 0, 0, 0, -p["k2"], -p["c2"]]])  # fmt: skip
    B = rmb.umat([[0], [1 / J], [0], [p["phi1"]], [0], [p["phi2"]]])
    C = np.array([[1.0, 0, p["phi1"], 0, p["phi2"], 0]])
    G = rmb.uss(A, B, C, np.zeros((1, 1)))
    s = control.tf("s")
    K = control.ss((KP + KD * s / a) / (TAU * s / a + 1))
    return rmb.feedback(G, K)


def values(a, dj, dk, dc):
    p = nominal(a)
    p["J"] *= 1 + PCT["J"] * dj
    p["k1"] *= 1 + PCT["k1"] * dk
    p["c1"] *= 1 + PCT["c1"] * dc
    return p


def gain(a, w, dj, dk, dc):
    """``|T(jw)|`` from the transfer functions (numpy only)."""
    p = values(a, dj, dk, dc)
    s = 1j * np.asarray(w, float)
    g = (1 / (p["J"] * s**2) + p["phi1"] ** 2 / (s**2 + p["c1"] * s + p["k1"])
         + p["phi2"] ** 2 / (s**2 + p["c2"] * s + p["k2"]))  # fmt: skip
    k = (KP + KD * s / a) / (TAU * s / a + 1)
    return np.abs(g / (1 + g * k))


def stable(dj, dk, dc):
    """Closed-loop stability at ``a = 1`` (the poles of the loop at ``a`` are ``a`` times
    these): roots of ``den_G den_K + num_G num_K``."""
    p = values(1.0, dj, dk, dc)
    m1, m2 = [1, p["c1"], p["k1"]], [1, p["c2"], p["k2"]]
    den_g = np.polymul([p["J"], 0, 0], np.polymul(m1, m2))
    num_g = np.polyadd(np.polymul(m1, m2), np.polyadd(
        np.polymul([p["J"] * p["phi1"] ** 2, 0, 0], m2),
        np.polymul([p["J"] * p["phi2"] ** 2, 0, 0], m1)))  # fmt: skip
    char = np.polyadd(np.polymul(den_g, [TAU, 1]), np.polymul(num_g, [KD, KP]))
    return bool(np.all(np.roots(char).real < 0))


GRID = np.linspace(-1.0, 1.0, 5)


@pytest.fixture(scope="module")
def brute_gain():
    """Largest ``|T(jw)|`` over the stable points of a 5^3 grid of the box (vertices
    included) and a log grid of ``nu = w / a``, refined around each member's peak."""
    nu = np.logspace(-3, 2, 4000)
    best = 0.0
    for dj in GRID:
        for dk in GRID:
            for dc in GRID:
                if not stable(dj, dk, dc):
                    continue
                g = gain(1.0, nu, dj, dk, dc)
                k = int(np.argmax(g))
                fine = np.linspace(nu[max(k - 1, 0)], nu[min(k + 1, nu.size - 1)], 2001)
                best = max(best, g.max(), gain(1.0, fine, dj, dk, dc).max())
    return best


@pytest.fixture(scope="module")
def brute_margin():
    """Smallest scale ``m`` of the box at which a point of its 3^3 grid is unstable
    (bisection): an upper bound of the stability margin, equal to it when the first
    crossing is at a grid point (here a vertex)."""

    def unstable(m):
        return any(not stable(m * dj, m * dk, m * dc)
                   for dj in (-1, 0, 1) for dk in (-1, 0, 1) for dc in (-1, 0, 1))  # fmt: skip

    lo, hi = 1.0, 4.9  # stable at 1; J <= 0 from m = 5
    assert not unstable(lo) and unstable(hi)
    while hi - lo > 1e-10 * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if unstable(mid) else (mid, hi)
    return hi


@pytest.fixture(scope="module")
def unit_results():
    T = loop(1.0)
    return rmb.robstab(T), rmb.wcgain(T)


@pytest.mark.parametrize("a", [1e-6, 1.0, 1e4, 1e6])
def test_time_scaled_loop_keeps_its_brackets(a, unit_results, brute_gain, brute_margin):
    rs1, wc1 = unit_results
    T = loop(a)
    # the model is the time-scaled one: |T_a(j a nu)| = |T_1(j nu)|
    nu = np.array([0.05, 0.3, 3.0])
    assert np.allclose(gain(a, a * nu, 0, 0, 0), gain(1.0, nu, 0, 0, 0), rtol=1e-9)
    freq = T.nominal()
    resp = np.abs(freqresp((freq.A, freq.B, freq.C, freq.D), a * nu)[:, 0, 0])
    assert np.allclose(resp, gain(1.0, nu, 0, 0, 0), rtol=1e-6)

    rs = rmb.robstab(T)
    assert rs.lower <= brute_margin * (1 + 1e-9)
    assert brute_margin <= rs.upper * (1 + 1e-9)
    gap1 = rs1.upper - rs1.lower
    assert abs(rs.lower - rs1.lower) <= gap1 and abs(rs.upper - rs1.upper) <= gap1
    assert rs.critical_frequency / a == pytest.approx(rs1.critical_frequency, rel=1e-3)

    wc = rmb.wcgain(T)
    assert np.isfinite(wc.upper)
    assert wc.lower <= brute_gain * (1 + 1e-9) and brute_gain <= wc.upper
    assert wc.lower == pytest.approx(brute_gain, rel=1e-6)  # the worst is a vertex
    gap1 = wc1.upper - wc1.lower
    assert abs(wc.lower - wc1.lower) <= gap1 and abs(wc.upper - wc1.upper) <= gap1
    assert wc.critical_frequency / a == pytest.approx(wc1.critical_frequency, rel=1e-3)


def test_stored_certificate_rechecks_on_the_original_model():
    # the report re-proves the certificate on the model as given (not the normalised one)
    T = loop(1e6)
    res = rmb.wcgain(T)
    assert res.mu is not None and res.mu.covered and res.mu.scalings is not None
    assert np.min(res.mu.omega[res.mu.omega > 0]) > 1.0  # in rad/s of the model
    level, why = reverified_upper(res, T)
    assert level == res.upper, why


def _first_order(w0, gain_b):
    """``M(s) = [[1/(s/w0 + 1), gain_b/(s/w0+1)], [1/(gain_b (s/w0 + 1)), 0.5]]``-like
    data: a real scalar and a complex block, with channel gains spread by ``gain_b``."""
    a = np.diag([-w0, -2 * w0])
    b = np.array([[w0, gain_b * w0], [2 * w0, 0.0]])
    c = np.array([[0.3, 0.2], [0.4 / gain_b, 0.1 / gain_b]])
    d = np.array([[0.0, 0.1 * gain_b], [0.2 / gain_b, 0.5]])
    return a, b, c, d


def test_normalised_model_is_a_block_similarity_of_m():
    blk = [(-1, 0), (1, 1)]
    data = _first_order(3e7, 1e9)
    w0 = frequency_unit(data[0])
    assert w0 == 2.0**25  # geometric mean 4.2e7
    scaled, log_p = normalised_model(data, w0, blk)
    nu = np.array([0.01, 0.7, 40.0])
    a, b, c, d = data
    m = np.array([c @ np.linalg.solve(1j * w0 * x * np.eye(2) - a, b) + d for x in nu])
    p = np.exp(log_p)
    want = p[None, :, None] * m / p[None, None, :]
    assert np.allclose(freqresp(scaled, nu), want, rtol=1e-12, atol=0)
    # powers of two only: the similarity is exact in floating point
    assert np.all(np.log2(p) == np.round(np.log2(p)))
    # the channel spread of 1e9 is balanced away
    assert np.max(np.abs(scaled[3])) <= 16 * np.min(np.abs(scaled[3][scaled[3] != 0]))


def test_shift_scalings_round_trip():
    rows = np.arange(6.0).reshape(2, 3)  # (-1,0) and (1,1): D params 0, 1; G param 2
    log_p = np.array([0.5, -2.0])
    out = shift_scalings(rows, [(-1, 0), (1, 1)], log_p)
    assert np.array_equal(out[:, :2], rows[:, :2] + log_p)
    assert np.array_equal(out[:, 2], rows[:, 2])
    assert np.array_equal(shift_scalings(out, [(-1, 0), (1, 1)], -log_p), rows)


@pytest.mark.parametrize("w0", [1e-6, 1e6])
def test_sweeps_agree_with_the_unit_model(w0):
    blk = [(-1, 0), (1, 1)]
    ref = certified_mu_peak(_first_order(1.0, 1.0), blk)
    got = certified_mu_peak(_first_order(w0, 1e8), blk)
    assert ref.covered and got.covered
    assert got.lower <= ref.upper and ref.lower <= got.upper
    assert got.lower_frequency / w0 == pytest.approx(ref.lower_frequency, rel=1e-3)
    # a fixed level's evidence re-checks on the model as given
    level = 1.05 * got.upper
    fixed = certified_mu_peak(_first_order(w0, 1e8), blk, level=level, lower=False)
    chk = check_frequency_certificate(_first_order(w0, 1e8), blk, level, fixed.omega,
                                      fixed.scalings)  # fmt: skip
    assert chk.covered, chk.gaps
    # the band path maps its band in and its frequencies out
    band = (0.1 * w0, 10.0 * w0)
    bp = band_mu_peak(_first_order(w0, 1e8), blk, 0.0, band)
    br = band_mu_peak(_first_order(1.0, 1.0), blk, 0.0, (0.1, 10.0))
    assert bp.covered and br.covered
    assert bp.lower <= br.upper and br.lower <= bp.upper
    assert np.all((bp.omega >= band[0] * (1 - 1e-12)) & (bp.omega <= band[1] * (1 + 1e-12)))


def test_discrete_and_unit_models_are_left_as_given():
    data = _first_order(1.0, 1.0)
    assert sweep_frame(data, [(-1, 0), (1, 1)])[1] == 1.0
    assert frequency_unit(np.diag([-1e6, -2e6]), dt=0.1) == 1.0


def _four_mode_loop(state_scale=None):
    """Four modes at 1e-5 ... 1e4 rad/s (damping 0.05) and a rank-one coupling scale k u v,
    k in [-1, 1]; its margin from numpy eigenvalues of A0 + c k u v on a fine grid of k.
    ``state_scale``: the states multiplied by these factors (an exact similarity)."""
    rng = np.random.default_rng(3)

    def osc(w):
        return np.array([[0.0, w], [-w, -0.1 * w]])

    ws = [1e-5, 1e-2, 1e1, 1e4]
    a0 = scipy.linalg.block_diag(*[osc(w) for w in ws])
    n = a0.shape[0]
    u = rng.standard_normal((n, 1)) * np.repeat(ws, 2)[:, None] ** 0.5
    v = rng.standard_normal((1, n)) * np.repeat(ws, 2)[None, :] ** 0.5

    def max_re(c):
        return np.linalg.eigvals(a0 + c * (u @ v)).real.max()

    cs = np.logspace(-8, 8, 1601)
    c_crit = next(c for c in cs if max_re(c) > 0 or max_re(-c) > 0)
    scale = c_crit * rng.uniform(0.6, 1.6)
    b, c = rng.standard_normal((n, 1)), rng.standard_normal((1, n))
    ks = np.linspace(-3.0, 3.0, 60001)
    margin = np.abs(ks[[max_re(scale * x) > 0 for x in ks]]).min()
    if state_scale is not None:
        t = np.asarray(state_scale, float)
        a0, u, b = t[:, None] * a0 / t[None, :], t[:, None] * u, t[:, None] * b
        v, c = v / t[None, :], c / t[None, :]
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    return rmb.uss(a0 + (scale * k) * (u @ v), b, c, np.zeros((1, 1))), margin


def test_a_narrow_gap_holding_an_isolated_real_mu_peak_is_not_covered():
    # In the time-normalised frame the intervals on either side of the isolated real-mu
    # peak at 9.77e-6 rad/s (M(jw) real there) ended 8.4e-13 apart, a gap the sweep took
    # for rounding: robstab certified 1.12291 above the true 1.12235.
    usys, margin = _four_mode_loop()
    assert margin == pytest.approx(1.1224, abs=2e-4)
    res = rmb.robstab(usys, sensitivity=False)
    assert res.lower <= margin * (1 + 1e-4) <= res.upper * (1 + 2e-4)


@pytest.mark.parametrize("spread", [4, 8])
def test_state_scaled_loop_keeps_a_tight_destabilising_witness(spread):
    # States scaled by 10^U(-spread, spread) (exact): the witness's pole check used the
    # rounding allowance 16 eps ||A||_1 of the scaled matrix, so no push past the crossing
    # passed it and robstab's upper bound was 21.92 (spread 4) or inf (spread 8); the
    # allowance is now the balanced matrix's, times the pole's condition number.
    t = 10.0 ** np.random.default_rng(5).uniform(-spread, spread, 8)
    usys, margin = _four_mode_loop(t)
    res = rmb.robstab(usys, sensitivity=False)
    assert res.lower <= margin * (1 + 1e-4) <= res.upper * (1 + 2e-4)
    assert res.upper <= 1.01 * margin
