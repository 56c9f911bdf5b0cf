"""Disk margins: oracles, closed forms, disk geometry and certificates.

References checked against:
- Seiler, Packard & Gahinet, "An introduction to disk margins", IEEE CSM 2020 (oracle
  ``diskmargin_siso_seiler_packard_gahinet``), with python-control's classical
  ``stability_margins`` as a second algorithm for the S-based (skew 1) margin;
- the spinning satellite (``diskmargin_mimo_spinning_satellite``) and the discrete loop
  L3 (``diskmargin_julia_L3_discrete_loop``) of RobustAndOptimalControl.jl;
- closed forms (``L = k/s``, static loops) and brute-force membership tests of the disk.
"""

from __future__ import annotations

import control
import numpy as np
import pytest
from _oracles import load_oracle

from robustmb.analysis.disk_geometry import Disk, dm2gm, gm2dm
from robustmb.analysis.disk_margin_results import DiskMargin, LoopMargins, WorstCaseDiskMargin
from robustmb.analysis.diskmargin import diskmargin
from robustmb.analysis.norms import hinfnorm
from robustmb.analysis.worst_case_disk_margin import wcdiskmargin
from robustmb.errors import (
    ArgumentError,
    DimensionError,
    IllPosedError,
    SignalError,
    UncertainTypeError,
)

s = control.tf("s")


def _dense_alpha(S_entry, omega, skew=0.0, dt=0.0):
    """1 / max |S(jw) + (skew - 1)/2| on a dense grid, evaluated by python-control."""
    points = np.exp(1j * omega * dt) if dt else 1j * omega
    values = np.abs(np.asarray(S_entry(points)).reshape(-1) + (skew - 1) / 2)
    k = int(np.argmax(values))
    return 1.0 / values[k], omega[k]


def _satellite():
    d = load_oracle("diskmargin_mimo_spinning_satellite")["system"]
    return control.ss(d["A"], d["B"], d["C"], d["D"])


def _l3():
    d = load_oracle("mu_julia_L3_discrete_3_complex_scalars")["system"]
    return control.ss(d["A"], d["B"], d["C"], d["D"], d["Ts"])


# ---------------------------------------------------------------------------- SISO oracle
def test_siso_oracle_seiler_packard_gahinet():
    oracle = load_oracle("diskmargin_siso_seiler_packard_gahinet")
    sysd = oracle["system"]["L"]
    L = control.tf(sysd["num"], sysd["den"])
    dm = diskmargin(L)
    tight = oracle["expected"]["computed_here_for_tighter_tolerance"]
    paper = oracle["expected"]["sigma0_balanced"]
    tol = oracle["tolerance"]
    assert dm.alpha == pytest.approx(tight["alpha"], abs=1e-5)
    assert dm.alpha == pytest.approx(paper["alpha"], abs=tol["alpha_abs"])
    assert dm.frequency == pytest.approx(tight["omega0"], abs=2e-3)
    assert dm.frequency == pytest.approx(paper["omega0"], abs=tol["omega_abs"])
    gmin, gmax = dm.gain_margin
    assert gmin == pytest.approx(tight["gmin"], abs=1e-5)
    assert gmax == pytest.approx(tight["gmax"], abs=1e-5)
    assert gmin == pytest.approx(paper["gain_margin_low"], abs=0.01)
    assert gmax == pytest.approx(paper["gain_margin_high"], abs=0.01)
    low_db, high_db = dm.gain_margin_db
    assert high_db == pytest.approx(tight["dB"], abs=1e-3)
    assert -low_db == pytest.approx(paper["disk_gain_margin_dB"], abs=tol["dB_abs"])
    assert dm.phase_margin == pytest.approx(tight["dpm_deg"], abs=1e-3)
    assert dm.phase_margin == pytest.approx(paper["disk_phase_margin_deg"], abs=tol["deg_abs"])
    # Single loop: exact to hinfnorm's tolerance (lower from the certified end of its
    # bracket, upper from the attained gain), and the multiloop result is the loop result.
    assert dm.lower <= dm.upper <= dm.lower * (1 + 1.1e-12)
    assert dm.lower == dm.loop_at_a_time.alpha[0] and dm.upper == dm.loop_at_a_time.upper[0]
    assert dm.stable and dm.multiloop.certified


def test_siso_whole_axis_matches_dense_grid():
    L = control.tf(25, [1, 10, 10, 10])
    S = control.feedback(1, L)
    omega = np.linspace(0.0, 20.0, 200001)
    for skew in (-0.7, 0.0, 0.4, 1.0):
        alpha_grid, w_grid = _dense_alpha(S, omega, skew)
        dm = diskmargin(L, skew=skew)
        # Whole axis: never above any grid value, and the grid is fine enough to agree.
        assert dm.alpha <= alpha_grid * (1 + 1e-10)
        assert dm.alpha == pytest.approx(alpha_grid, rel=1e-7)
        assert dm.frequency == pytest.approx(w_grid, abs=1e-3)


def test_siso_oracle_extra_case_alpha_above_two():
    oracle = load_oracle("diskmargin_siso_seiler_packard_gahinet")["extra_case"]
    L = 6.25 * (s + 3) * (s + 5) / (s * (s + 1) ** 2 * (s**2 + 0.18 * s + 100))
    dm = diskmargin(L, omega=[oracle["evaluated_at_single_frequency_rad_s"]])
    assert dm.alpha > 2
    gmin, gmax = dm.gain_margin
    # Beyond alpha = 2 the disk is the outside of a circle: every gain increase is fine.
    assert gmin == pytest.approx(0.0, abs=1e-6)
    assert gmax == np.inf
    assert dm.phase_margin == pytest.approx(90.0, abs=1e-4)
    assert dm.phase_margin == pytest.approx(np.degrees(2 * np.arctan(dm.alpha / 2)), abs=1e-12)


def test_skew_one_is_the_classical_stability_margin():
    # python-control's stability margin sm = min_w |1 + L(jw)| = 1/||S||_inf (own algorithm).
    for L in (control.tf(25, [1, 10, 10, 10]), 3 * (s + 2) / (s * (s + 1) * (s + 4))):
        gm, pm, sm, *_ = control.stability_margins(L)
        dm = diskmargin(L, skew=1.0)
        assert dm.alpha == pytest.approx(sm, rel=1e-6)
        gmin, gmax = dm.gain_margin
        assert gmin == pytest.approx(1 / (1 + sm), rel=1e-6)
        assert gmax == pytest.approx(1 / (1 - sm), rel=1e-6)
        # Disk margins are never larger than the classical ones.
        for skew in (-0.5, 0.0, 1.0):
            d = diskmargin(L, skew=skew)
            assert d.gain_margin[1] <= gm * (1 + 1e-9)
            assert d.phase_margin <= pm + 1e-9


def test_skew_minus_one_is_one_over_peak_of_T():
    L = control.tf(25, [1, 10, 10, 10])
    T = control.feedback(L, 1)
    omega = np.linspace(0.0, 20.0, 200001)
    peak = np.max(np.abs(T(1j * omega)))
    dm = diskmargin(L, skew=-1.0)
    assert dm.alpha == pytest.approx(1 / peak, rel=1e-7)
    gmin, gmax = dm.gain_margin
    assert (gmin, gmax) == pytest.approx((1 - dm.alpha, 1 + dm.alpha), rel=1e-12)


# ---------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("skew", [-0.5, 0.0, 0.7])
@pytest.mark.parametrize("k", [0.3, 5.0])
def test_integrator_closed_form(k, skew):
    # S = s/(s + k) lies on the circle of centre 1/2 and radius 1/2, so
    # sup |S - (1 - skew)/2| = (1 + |skew|)/2 and alpha = 2/(1 + |skew|).
    dm = diskmargin(k / s, skew=skew)
    assert dm.alpha == pytest.approx(2 / (1 + abs(skew)), rel=1e-7)
    if skew == 0.0:
        gmin, gmax = dm.gain_margin
        assert gmin == pytest.approx(0.0, abs=1e-7)
        assert gmax > 1e6
        assert dm.phase_margin == pytest.approx(90.0, abs=1e-5)


@pytest.mark.parametrize("k", [0.5, 3.0, -0.5])
def test_static_loop_closed_form(k):
    dm = diskmargin(np.array([[k]]))
    alpha = 1.0 / abs(1 / (1 + k) - 0.5)
    assert dm.alpha == pytest.approx(alpha, rel=1e-12)
    assert dm.frequency == 0.0
    # The critical factor is the real gain that closes 1 + f k = 0.
    assert dm.worst_perturbation[0] == pytest.approx(-1.0 / k, rel=1e-12)


@pytest.mark.parametrize("skew", [-0.5, 0.0, 0.6])
def test_pure_gain_margin_case_all_pass_loop(skew):
    # L = k (1 - s)/(1 + s): |L| = k at every frequency, so only the gain can destabilise
    # (at w = inf, where L = -k).  S maps the imaginary axis onto the circle with diameter
    # [1/(1 + k), 1/(1 - k)], so sup |S - a| is reached at one of these real points.
    k = 0.4
    L = k * (1 - s) / (1 + s)
    a = (1 - skew) / 2
    alpha = 1 / max(abs(1 / (1 + k) - a), abs(1 / (1 - k) - a))
    dm = diskmargin(L, skew=skew)
    assert dm.alpha == pytest.approx(alpha, rel=1e-8)
    if skew == 0.0:
        # Balanced disk: the gain interval is exactly the classical one, [k, 1/k].
        assert dm.gain_margin == pytest.approx((k, 1 / k), rel=1e-8)
        assert np.isinf(dm.frequency)
        assert dm.worst_perturbation[0] == pytest.approx(1 / k, rel=1e-8)


def test_disk_gain_margin_below_classical_for_every_skew():
    L = 2.0 / (s + 1) ** 3
    gm, *_ = control.stability_margins(L)
    assert gm == pytest.approx(4.0, rel=1e-6)
    highs = [diskmargin(L, skew=sk).gain_margin[1] for sk in (-0.9, 0.0, 1.0, 3.0, 50.0)]
    assert all(h <= gm * (1 + 1e-9) for h in highs)
    assert np.all(np.diff(highs) > 0)


# ---------------------------------------------------------------------------- certificates
@pytest.mark.parametrize("skew", [-0.3, 0.0, 0.8])
def test_worst_perturbation_destabilises(skew):
    L = control.tf(25, [1, 10, 10, 10])
    dm = diskmargin(L, skew=skew)
    f0 = dm.worst_perturbation[0]
    delta0 = dm.multiloop.delta[0]
    assert abs(delta0) == pytest.approx(dm.alpha, rel=1e-10)
    assert dm.disk.factor(delta0) == pytest.approx(f0, rel=1e-12)
    # f0 is on the boundary of the disk and puts a closed-loop pole at j * frequency.
    a, b = (1 - skew) / 2, (1 + skew) / 2
    assert abs(f0 - 1) == pytest.approx(dm.alpha * abs(a + b * f0), rel=1e-10)
    assert abs(1 + f0 * L(1j * dm.frequency)) < 1e-8
    # Slightly smaller factors (inside the disk) keep 1 + f L away from zero there.
    inner = dm.disk.factor(0.999 * delta0)
    assert bool(dm.disk.contains(inner))


def test_unstable_and_marginal_loops_have_zero_margin():
    for L in (10 / (s + 1) ** 3, control.tf(1, [1, -1]), control.tf(1, [1, -2])):
        dm = diskmargin(L)
        assert not dm.stable
        assert dm.alpha == dm.lower == dm.upper == 0.0
        assert dm.gain_margin == (1.0, 1.0)
        assert dm.phase_margin == 0.0
        assert dm.loop_at_a_time.alpha.tolist() == [0.0]


def test_unstable_open_loop_with_stable_closed_loop():
    # L = 2/(s - 1): closed loop s + 1; disk margin from S = (s - 1)/(s + 1).
    L = control.tf(2, [1, -1])
    dm = diskmargin(L)
    assert dm.stable
    # S - 1/2 = (s - 3)/(2(s + 1)): peak 3/2 at w = 0, so alpha = 2/3.
    assert dm.alpha == pytest.approx(2 / 3, rel=1e-8)
    assert dm.frequency == pytest.approx(0.0, abs=1e-6)


# ---------------------------------------------------------------------------- discrete time
def test_discrete_oracle_l3_loop1():
    oracle = load_oracle("diskmargin_julia_L3_discrete_loop")
    expected = oracle["expected"]["loop1_alpha_at_w_4p05"]
    L3 = _l3()
    at_w = _loops_only(L3, [oracle["expected"]["frequency_rad_s"]])
    assert at_w.alpha[0] == pytest.approx(expected, rel=oracle["tolerance"]["rel"])
    # Independent evaluation of 1/|S_11 - 1/2| at z = exp(j 4.05 Ts), S = (I + L)^-1, in
    # 50-digit mpmath on the same float data.  (python-control's evaluation of the
    # feedback system is 2.5e-10 off it, beyond this tolerance.)
    import mpmath as mp

    with mp.workdps(50):
        z = mp.exp(mp.mpc(0, 4.05 * mp.mpf(L3.dt)))
        res = (z * mp.eye(L3.nstates) - mp.matrix(L3.A.tolist())) ** -1
        loop = mp.matrix(L3.C.tolist()) * res * mp.matrix(L3.B.tolist()) + mp.matrix(L3.D.tolist())
        S11 = complex(((mp.eye(3) + loop) ** -1)[0, 0])
    assert at_w.alpha[0] == pytest.approx(1 / abs(S11 - 0.5), rel=1e-10)
    # The whole-axis loop-1 margin lies below every sampled value; the oracle figure
    # coincides with it to 1e-6 (the Julia test tolerance is 1e-3).
    whole = diskmargin(L3).loop_at_a_time
    S = control.feedback(control.ss([], [], [], np.eye(3), L3.dt), L3)
    omega = np.linspace(1e-3, np.pi / L3.dt, 100001)
    grid_alpha, _ = _dense_alpha(lambda z: S(z)[0, 0], omega, 0.0, L3.dt)
    assert whole.alpha[0] <= grid_alpha * (1 + 1e-10)
    assert whole.alpha[0] == pytest.approx(grid_alpha, rel=1e-6)
    assert whole.alpha[0] == pytest.approx(expected, rel=1e-6)


def _loops_only(L, omega=None):
    """Loop-at-a-time margins without the multiloop mu computation."""
    from robustmb.analysis.disk_loops import _loop_data
    from robustmb.analysis.diskmargin import _margins_of_loop

    omega = None if omega is None else np.asarray(omega, float)
    loops, _ = _margins_of_loop(_loop_data(L, None), 0.0, omega, multiloop=False)
    return loops


def test_discrete_siso_matches_unit_circle_grid():
    Ld = control.c2d(control.tf(25, [1, 10, 10, 10]), 0.05, method="zoh")
    dm = diskmargin(Ld)
    S = control.feedback(1, Ld)
    omega = np.linspace(0.0, np.pi / 0.05, 100001)
    grid_alpha, w_grid = _dense_alpha(S, omega, 0.0, 0.05)
    assert dm.alpha <= grid_alpha * (1 + 1e-10)
    assert dm.alpha == pytest.approx(grid_alpha, rel=1e-7)
    assert dm.frequency == pytest.approx(w_grid, abs=1e-2)
    f0 = dm.worst_perturbation[0]
    assert abs(1 + f0 * Ld(np.exp(1j * dm.frequency * 0.05))) < 1e-8


# ---------------------------------------------------------------------------- loop-at-a-time
def _broken_loop(L, j):
    """SISO loop seen at input j of L with the other loops closed (python-control)."""
    n = L.ninputs
    others = [i for i in range(n) if i != j]
    A, B, C, D = L.A, L.B, L.C, L.D
    Bo, Co, Do = B[:, others], C[others], D[np.ix_(others, others)]
    E = np.linalg.inv(np.eye(n - 1) + Do)
    # u_o = -y_o with y_o = Co x + Do u_o + D[o, j] u_j.
    Acl = A - Bo @ E @ Co
    Bcl = B[:, [j]] - Bo @ E @ D[np.ix_(others, [j])]
    Ccl = C[[j]] - D[np.ix_([j], others)] @ E @ Co
    Dcl = D[j, j] - D[np.ix_([j], others)] @ E @ D[np.ix_(others, [j])]
    return control.ss(Acl, Bcl, Ccl, Dcl, L.dt)


@pytest.mark.parametrize("K", [np.eye(2), np.array([[1.0, -2.0], [0.0, 1.0]])])
def test_loop_at_a_time_equals_broken_loops(K):
    P = _satellite()
    for L in (P * control.ss([], [], [], K), control.ss([], [], [], K) * P):
        loops = diskmargin(L).loop_at_a_time
        for j in range(2):
            lj = _broken_loop(L, j)
            single = diskmargin(lj)
            assert loops.alpha[j] == pytest.approx(single.alpha, rel=1e-7)
        if np.array_equal(K, np.eye(2)):
            # Each broken loop of the satellite with K = I is 1/s (oracle): alpha = 2.
            expected = load_oracle("diskmargin_mimo_spinning_satellite")["cases"][0]
            assert loops.alpha == pytest.approx(
                [expected["expected"]["loop_at_a_time_alpha"]] * 2, rel=1e-7
            )
            assert loops.phase_margin == pytest.approx([90.0, 90.0], abs=1e-5)


# ---------------------------------------------------------------------------- disk geometry
def test_disk_gain_and_phase_margins_by_membership():
    rng = np.random.default_rng(1)
    for alpha, skew in zip(rng.uniform(0.05, 3.0, 25), rng.uniform(-1.5, 1.5, 25), strict=True):
        disk = Disk(float(alpha), float(skew))
        gmin, gmax = disk.gain_margin
        reals = np.linspace(-5, 50, 55001)
        inside = disk.contains(reals)
        # The connected component of the real set around 1 is (gmin, gmax).
        expected = (reals > gmin) & (reals < gmax)
        component = np.zeros_like(inside)
        one = int(np.argmin(np.abs(reals - 1.0)))
        lo = one
        while lo > 0 and inside[lo - 1]:
            lo -= 1
        hi = one
        while hi < reals.size - 1 and inside[hi + 1]:
            hi += 1
        component[lo : hi + 1] = True
        assert np.array_equal(component, expected)
        # Phase margin: e^{j phi} is in the disk exactly for |phi| < pm.
        phi = np.linspace(0.0, np.pi, 20001)
        on_circle = disk.contains(np.exp(1j * phi))
        pm = np.radians(disk.phase_margin)
        assert np.array_equal(on_circle, phi < pm) or np.sum(on_circle != (phi < pm)) <= 1


def test_disk_boundary_and_shape():
    for alpha, skew in ((0.5, 0.0), (1.2, 0.3), (2.0, 0.0), (3.0, 0.0), (0.8, -0.6)):
        disk = Disk(alpha, skew)
        pts = disk.boundary(101)
        finite = pts[np.isfinite(pts)]
        if disk.kind != "half-plane":
            assert np.abs(finite - disk.center) == pytest.approx(
                np.full(finite.size, disk.radius), rel=1e-9
            )
        # Points just inside the boundary (in delta coordinates) are in the disk.
        assert np.all(disk.contains(disk.factor(0.99 * alpha * np.exp(1j * np.linspace(0, 6, 7)))))
    assert Disk(2.0, 0.0).kind == "half-plane"
    assert Disk(3.0, 0.0).kind == "exterior"
    assert Disk(0.5, 0.0).kind == "disk"


def test_balanced_disk_formulas_of_the_paper():
    alpha = np.linspace(0.0, 1.99, 50)
    gm, pm = dm2gm(alpha)
    assert gm[:, 0] == pytest.approx((2 - alpha) / (2 + alpha), rel=1e-12)
    assert gm[:, 1] == pytest.approx((2 + alpha) / (2 - alpha), rel=1e-12)
    assert pm == pytest.approx(np.degrees(2 * np.arctan(alpha / 2)), abs=1e-10)
    # Skewed: the oracle README formula for the gain interval.
    for skew in (-0.4, 0.6):
        gm, _ = dm2gm(alpha, skew)
        low = (1 - alpha * (1 - skew) / 2) / (1 + alpha * (1 + skew) / 2)
        high = (1 + alpha * (1 - skew) / 2) / (1 - alpha * (1 + skew) / 2)
        finite = alpha * (1 + skew) / 2 < 1
        assert gm[:, 0] == pytest.approx(low, rel=1e-12)
        assert gm[finite, 1] == pytest.approx(high[finite], rel=1e-12)
        assert np.all(np.isinf(gm[~finite, 1]))
    # The disk phase margin from the intercepts: cos(pm) = (1 + gmin gmax)/(gmin + gmax).
    gm, pm = dm2gm(0.7, 0.35)
    assert np.cos(np.radians(pm)) == pytest.approx((1 + gm[0] * gm[1]) / (gm[0] + gm[1]))


def test_mathworks_documentation_values():
    # gm2dm(db2mag(6)) = 0.6646 and getDPM([0.3, 2]) = +-45.9208 (MathWorks pages).
    alpha, skew = gm2dm(10 ** (6 / 20))
    assert alpha == pytest.approx(0.6646, abs=5e-5)
    assert skew == 0.0
    alpha, skew = gm2dm([0.3, 2.0])
    gm, pm = dm2gm(alpha, skew)
    assert gm == pytest.approx([0.3, 2.0], rel=1e-12)
    assert float(pm) == pytest.approx(45.9208, abs=5e-5)


def test_gm2dm_inverts_dm2gm():
    rng = np.random.default_rng(7)
    for _ in range(50):
        gmin = rng.uniform(0.0, 0.95)
        gmax = rng.choice([np.inf, rng.uniform(1.05, 20.0)])
        alpha, skew = gm2dm([gmin, gmax])
        gm, _ = dm2gm(alpha, skew)
        assert gm[0] == pytest.approx(gmin, rel=1e-10, abs=1e-12)
        if np.isinf(gmax):
            assert np.isinf(gm[1]) or gm[1] > 1e12
        else:
            assert gm[1] == pytest.approx(gmax, rel=1e-10)


def test_dm2gm_limits():
    gm, pm = dm2gm([0.0, np.inf])
    assert gm[0].tolist() == [1.0, 1.0] and pm[0] == 0.0
    assert gm[1, 0] == -1.0 and np.isinf(gm[1, 1]) and pm[1] == 180.0


# ---------------------------------------------------------------------------- half plane
def test_half_plane_gain_margin_is_zero_to_infinity():
    # alpha = 2 (skew 0) is the half plane Re f > 0: every gain in (0, inf) is tolerated.
    # hinfnorm's bracket around 2 is 1e-12 wide; the gain margin is the half plane's.
    ref = dm2gm(2.0)[0].tolist()
    assert ref == [0.0, np.inf]
    for L in (control.tf(2, [1, 1]), 3 / s):
        dm = diskmargin(L)
        assert dm.lower <= 2.0 <= dm.upper
        assert list(dm.gain_margin) == ref
        assert dm.gain_margin_db == (-np.inf, np.inf)
        assert dm.loop_at_a_time.gain_margin.tolist() == [ref]
        assert "gain_margin=[0, inf]" in repr(dm.multiloop)
    # Spinning satellite, loop at a time: alpha = 2 on both channels.
    lat = diskmargin(_satellite()).loop_at_a_time
    assert lat.gain_margin.tolist() == [ref, ref]
    assert [list(lat[j].gain_margin) for j in range(2)] == [ref, ref]
    # Skewed half plane 1/b = 2/(1 + skew): k/s has alpha = 2/(1 + |skew|), that value for
    # skew > 0, with gmin = skew/(1 + skew) (closed form of the intercept).
    dm = diskmargin(3 / s, skew=0.6)
    assert dm.gain_margin[1] == np.inf
    assert dm.gain_margin[0] == pytest.approx(0.6 / 1.6, rel=1e-9)
    assert list(dm.gain_margin) == dm2gm(2 / 1.6, 0.6)[0].tolist()


def test_half_plane_rule_needs_an_exact_bracket_containing_it():
    # A bracket below the half plane, or one too wide to decide, keeps lower's intercepts.
    below = DiskMargin(1.999, 1.999, 1.999, 1.0, 0.0, ("u",))
    assert list(below.gain_margin) == dm2gm(1.999)[0].tolist()
    assert np.isfinite(below.gain_margin[1])
    wide = DiskMargin(2 - 1e-6, 2 - 1e-6, 2.0, 1.0, 0.0, ("u",))
    assert list(wide.gain_margin) == dm2gm(2 - 1e-6)[0].tolist()
    exact = DiskMargin(2 - 2e-12, 2 - 2e-12, 2.0, 1.0, 0.0, ("u",))
    assert list(exact.gain_margin) == [0.0, np.inf]
    lat = LoopMargins(
        ("a", "b"),
        np.array([2 - 2e-12, 1.5]),
        np.ones(2),
        np.ones(2),
        0.0,
        upper=np.array([2.0, 1.5 + 1e-13]),
    )
    assert lat.gain_margin.tolist() == [[0.0, np.inf], dm2gm(1.5)[0].tolist()]
    # A worst-case bracket is as wide as its certificate: 2 inside it is not enough.
    wc = WorstCaseDiskMargin(1.96, 2.0, 1.0, {}, None, None, ("u",), 0.0, True)
    assert list(wc.gain_margin) == dm2gm(1.96)[0].tolist()


# ---------------------------------------------------------------------------- input checks
def test_loop_margins_channel_keys():
    lat = diskmargin(_satellite()).loop_at_a_time
    assert lat.channels == ("u[0]", "u[1]")
    assert lat["u[1]"].channels == lat[1].channels == lat[-1].channels == ("u[1]",)
    with pytest.raises(SignalError, match=r"'y1'.*\['u\[0\]', 'u\[1\]'\]"):
        lat["y1"]
    with pytest.raises(DimensionError, match=r"index 2 .*\['u\[0\]', 'u\[1\]'\]"):
        lat[2]
    with pytest.raises(DimensionError, match="index -3"):
        lat[-3]
    with pytest.raises(ArgumentError, match=r"1\.5"):
        lat[1.5]


def test_bad_input_raises_clear_errors():
    with pytest.raises(DimensionError, match="square"):
        diskmargin(control.ss([[-1.0]], [[1.0, 0.0]], [[1.0]], [[0.0, 0.0]]))
    with pytest.raises(DimensionError, match="skew"):
        diskmargin(control.tf(1, [1, 1]), skew=np.nan)
    with pytest.raises(IllPosedError, match="not well posed"):
        diskmargin(np.array([[-1.0]]))
    with pytest.raises(DimensionError, match="improper"):
        diskmargin(control.tf([1, 0, 0], [1, 1]))
    with pytest.raises(DimensionError, match="controller"):
        diskmargin(_satellite(), np.ones((3, 2)))
    with pytest.raises(DimensionError, match="alpha"):
        dm2gm(-1.0)
    with pytest.raises(DimensionError, match="gmin"):
        gm2dm([1.2, 3.0])
    import robustmb as rmb

    k = rmb.ureal("k", 1.0)
    with pytest.raises(UncertainTypeError, match="wcdiskmargin"):
        diskmargin(rmb.uss(control.tf(1, [1, 1])) * k)
    with pytest.raises(UncertainTypeError, match="diskmargin"):
        wcdiskmargin(control.tf(1, [1, 1]))


def test_repr_is_readable():
    text = repr(diskmargin(control.tf(25, [1, 10, 10, 10])))
    assert "alpha=0.4581" in text and "phase_margin=+-25.8 deg" in text
    assert "u[0]" in text


# ---------------------------------------------------------------------------- multiloop (mu)
def _assert_singular_at(L, dm, rtol=1e-6):
    """I + L(j w0) diag(f) is singular for the worst perturbation."""
    w0 = dm.frequency
    point = np.exp(1j * w0 * L.dt) if L.dt else 1j * w0
    Lw = np.atleast_2d(L(point))
    M = np.eye(Lw.shape[0]) + Lw @ np.diag(dm.worst_perturbation)
    smin = np.linalg.svd(M, compute_uv=False)[-1]
    assert smin <= rtol * (1 + np.linalg.norm(Lw, 2) * np.max(np.abs(dm.worst_perturbation)))
    assert np.max(np.abs(dm.delta)) == pytest.approx(dm.upper, rel=1e-6)


def test_satellite_multiloop_identity_controller():
    oracle = load_oracle("diskmargin_mimo_spinning_satellite")
    case = oracle["cases"][0]
    P = _satellite()
    K = control.ss([], [], [], np.eye(2))
    atol = oracle["tolerance"]["alpha_abs"]
    for L, key in ((K * P, "multiloop_input_alpha"), (P * K, "multiloop_output_alpha")):
        dm = diskmargin(L)
        assert dm.lower <= dm.upper
        assert dm.upper <= np.min(dm.loop_at_a_time.alpha) * (1 + 1e-12)
        assert dm.lower == pytest.approx(case["expected"][key], abs=atol)
        # Two complex scalars: the D-scaling bound is exact, so the bounds meet.
        assert dm.lower == pytest.approx(case["computed_here"]["multiloop_alpha"], rel=2e-3)
        assert dm.upper == pytest.approx(dm.lower, rel=3e-3)
        assert dm.multiloop.certified
        _assert_singular_at(L, dm.multiloop)
    both = diskmargin(P, np.eye(2))
    assert both.lower == pytest.approx(
        case["expected"]["simultaneous_input_output_alpha"], abs=atol
    )
    assert both.lower <= both.upper
    assert both.input.lower == pytest.approx(case["expected"]["multiloop_input_alpha"], abs=atol)
    assert both.output.lower == pytest.approx(case["expected"]["multiloop_output_alpha"], abs=atol)
    assert both.loop_at_a_time.channels == tuple(P.output_labels + P.input_labels)


def test_satellite_multiloop_triangular_controller():
    oracle = load_oracle("diskmargin_mimo_spinning_satellite")
    case = oracle["cases"][1]
    P = _satellite()
    K = control.ss([], [], [], np.array([[1.0, -2.0], [0.0, 1.0]]))
    for L in (P * K, K * P):
        dm = diskmargin(L)
        # Published 0.3754 (a lower bound); AB13MD at DC gives 0.37615.
        assert 0.3754 - 1e-3 <= dm.lower <= dm.upper
        assert dm.upper == pytest.approx(case["computed_here"]["multiloop_alpha_at_DC"], rel=2e-3)
        assert dm.frequency == pytest.approx(0.0, abs=1e-2)
        assert 20 * np.log10(dm.gain_margin[1]) == pytest.approx(
            case["expected"]["disk_gain_margin_dB"], abs=0.1
        )
        assert dm.phase_margin == pytest.approx(case["expected"]["disk_phase_margin_deg"], abs=0.1)
        _assert_singular_at(L, dm.multiloop)


def test_multiloop_discrete_l3_against_grid_mu():
    oracle = load_oracle("mu_julia_L3_discrete_3_complex_scalars")
    L3 = _l3()
    dm = diskmargin(L3)
    assert dm.lower <= dm.upper <= np.min(dm.loop_at_a_time.alpha) * (1 + 1e-12)
    _assert_singular_at(L3, dm.multiloop)
    # mu(T) on the Julia grid peaks at 2.5031: the balanced margin is another function,
    # but the skew -1 margin is exactly 1/sup mu(T) (T = I - S).
    dm_t = diskmargin(L3, skew=-1.0)
    peak = oracle["expected"]["part2"]["max_over_grid"]
    assert dm_t.lower <= 1 / peak * (1 + 1e-3)
    assert dm_t.upper <= 1 / peak * (1 + 1e-3)


# ---------------------------------------------------------------------------- worst case
def test_wcdiskmargin_siso_real_gain():
    import robustmb as rmb

    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    G = 2 / (s + 1) ** 2
    res = wcdiskmargin(rmb.uss(G) * k)
    # Brute force over the range (independent of the mu machinery).
    ks = np.linspace(0.5, 2.0, 61)
    brute = min(diskmargin(kk * G).alpha for kk in ks)
    assert res.lower <= brute * (1 + 1e-9)
    assert res.upper >= res.lower
    assert res.upper == pytest.approx(brute, rel=1e-3)
    assert res.certified
    # The upper bound is realised: the loop at `worst` has that margin.
    assert diskmargin(G * res.worst["k"]).alpha == pytest.approx(res.upper, rel=1e-9)
    assert res.lower == pytest.approx(res.upper, rel=2e-2)


@pytest.mark.slow
def test_wcdiskmargin_integrator_is_gain_independent():
    # k/s has disk margin 2 for every k > 0, at every frequency (a flat mu: slow to cover).
    import robustmb as rmb

    k = rmb.ureal("k", 2.0, range=(1.0, 4.0))
    res = wcdiskmargin(rmb.uss(1 / s) * k)
    assert res.upper == pytest.approx(2.0, rel=1e-6)
    assert res.lower == pytest.approx(2.0, rel=3e-2)
    assert res.lower <= res.upper


def test_wcdiskmargin_dynamic_uncertainty():
    import robustmb as rmb

    L0 = control.tf(25, [1, 10, 10, 10])
    Delta = rmb.ultidyn("Delta", (1, 1))
    Lu = rmb.uss(L0) * (1 + 0.2 * Delta)
    res = wcdiskmargin(Lu)
    nominal = diskmargin(L0).alpha
    assert res.nominal.alpha == pytest.approx(nominal, rel=1e-9)
    assert 0 < res.lower <= res.upper <= nominal
    assert res.certified
    # The worst value is a stable system within the bound, and realises the upper bound.
    worst = res.worst["Delta"]
    gain, _ = hinfnorm(worst)
    assert gain <= 1 + 1e-9
    assert diskmargin(Lu.usubs(res.worst)).alpha == pytest.approx(res.upper, rel=1e-9)
    # Samples of the uncertainty never fall below the certified bound.
    samples, _ = Lu.usample(12, seed=3)
    assert min(diskmargin(x).alpha for x in samples) >= res.lower
    # At the critical frequency Delta(j w0) = d ranges over the closed unit disk and
    # |S_d - 1/2| (S_d = 1/(1 + L0 (1 + 0.2 d))) is a Moebius function of d, largest on
    # |d| = 1: a dense search on the circle gives the exact pointwise worst margin.
    w0 = res.frequency
    L0w = complex(L0(1j * w0))
    d = np.exp(1j * np.linspace(0, 2 * np.pi, 3601))
    S = 1 / (1 + L0w * (1 + 0.2 * d))
    alpha_w = 1 / np.max(np.abs(S - 0.5))
    assert res.lower <= alpha_w * (1 + 1e-9)
    assert res.upper == pytest.approx(alpha_w, rel=5e-3)


@pytest.mark.slow
def test_wcdiskmargin_mimo_satellite_uncertain_spin():
    import robustmb as rmb

    a = rmb.ureal("a", 10.0, range=(9.0, 11.0))
    P = rmb.uss(
        rmb.umat([[0, a], [-a, 0]]), np.eye(2), rmb.umat([[1, a], [-a, 1]]), np.zeros((2, 2))
    )
    res = wcdiskmargin(P)
    brute = min(diskmargin(P.usubs({"a": x})).upper for x in np.linspace(9, 11, 21))
    assert res.lower <= brute * (1 + 1e-9)
    assert res.upper == pytest.approx(brute, rel=1e-3)
    assert res.lower == pytest.approx(res.upper, rel=3e-2)
    both = wcdiskmargin(P, np.eye(2))
    assert both.channels == ("y[0]", "y[1]", "u[0]", "u[1]")
    assert both.lower <= both.upper <= res.upper
