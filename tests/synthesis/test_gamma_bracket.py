"""The secant-guided bracket search on the optimal H-infinity level, and the cheap screen
of fallback controllers, against plain bisection, SLICOT SB10AD and independent norms."""

import importlib

import control
import numpy as np
import pytest
from _plants import independent_hinf

import robustmb as rmb
from robustmb.synthesis import hinf_riccati as ric
from robustmb.synthesis.gamma_bracket import bisect
from robustmb.synthesis.plant import Plant, partition_plant

hs = importlib.import_module("robustmb.synthesis.hinfsyn")


def _plain_bisection(N, gtol):
    """Geometric bisection on the existence test alone (the search before the secant)."""
    lo = ric.d_bound(N.plant)
    hi = max(2.0 * lo, 1.0)
    count = 1
    while not ric.gamma_test(N.plant, hi).feasible:
        lo, hi, count = hi, 2.0 * hi, count + 1
    while hi > lo * (1 + gtol):
        mid = np.sqrt(lo * hi) if lo > 0 else 0.5 * hi
        count += 1
        if ric.gamma_test(N.plant, mid).feasible:
            hi = mid
        else:
            lo = mid
    return lo, hi, count


def _random_plant(seed):
    rng = np.random.default_rng(seed)
    n = 5
    A = rng.standard_normal((n, n)) - 2.5 * np.eye(n)
    P = control.ss(A, rng.standard_normal((n, 4)), rng.standard_normal((4, n)),
                   0.3 * rng.standard_normal((4, 4)))  # fmt: skip
    return P


def test_scalar_plant_closed_form():
    # x' = -x + w1 + u, z = [x; u], y = x + w2: X = Y = 1 / (1 + sqrt(2 - g^-2)), and
    # rho(XY) < g^2 <=> g^2 + 2 g - 2 > 0, so gamma_opt = sqrt(3) - 1
    z, o = np.zeros((1, 1)), np.ones((1, 1))
    P = Plant(-o, np.hstack([o, z]), o, np.vstack([o, z]), o, np.zeros((2, 2)),
              np.vstack([z, o]), np.hstack([z, o]), z)  # fmt: skip
    N = ric.normalise(P)
    history = []
    lo, hi = bisect(N, 1e-9, history)
    # (the test accepts rho(XY) / g^2 up to 1 + 1e-10: its verdicts are fuzzy to ~1e-10)
    assert lo < (np.sqrt(3) - 1) * (1 + 1e-10) and hi > (np.sqrt(3) - 1) * (1 - 1e-10)
    assert hi <= lo * (1 + 1e-9)
    # every end is a verdict of the test: lo infeasible, hi feasible
    assert not ric.gamma_test(N.plant, lo).feasible and ric.gamma_test(N.plant, hi).feasible
    assert len(history) < _plain_bisection(N, 1e-9)[2]


@pytest.mark.parametrize("seed", range(8))
def test_bracket_agrees_with_plain_bisection_and_sb10ad(seed):
    P = _random_plant(seed)
    N = ric.normalise(partition_plant(P, 2, 2).with_d22_zero())
    gtol = 1e-8
    history = []
    lo, hi = bisect(N, gtol, history)
    plo, phi, count = _plain_bisection(N, gtol)
    assert hi <= lo * (1 + gtol) * (1 + 1e-15)
    # the two brackets overlap (both are verdicts of the same test)
    assert lo <= phi and plo <= hi
    # no level the search called infeasible lies above one plain bisection found feasible
    assert all(g <= phi for g, ok, _ in history if not ok)
    assert len(history) <= count
    # independent: SLICOT SB10AD through python-control
    _, _, gam, _ = control.hinfsyn(P, 2, 2)
    assert hi == pytest.approx(gam, rel=1e-6)


def _sp_example_2_11():
    G = control.tf([200.0], [10.0, 1.0]) * control.tf([1.0], [0.05, 1.0]) ** 2
    W1 = control.tf([1 / 1.5, 10.0], [1.0, 1e-3])
    return control.augw(control.ss(G), control.ss(W1), control.ss([], [], [], [[0.1]]))


def test_mixsyn_example_verifies_once_and_is_confirmed_independently(monkeypatch):
    # S&P Ex. 2.11 (W2 = 0.1): every Riccati controller is a fallback (the weight's pole at
    # -1e-3 stays in the loop), so they are verified in turn; the screen leaves the full
    # norm computation to a candidate that can pass
    P = _sp_example_2_11()
    calls = []
    real = hs.hinfnorm

    def counted(*args, **kwargs):
        calls.append(type(args[0]).__name__)
        return real(*args, **kwargs)

    monkeypatch.setattr(hs, "hinfnorm", counted)
    res = rmb.hinfsyn(P, 1, 1)
    # one candidate's closed loop (a StateSpace), certified at once: hinfnorm's pole
    # screen proves the nearly defective pair near -20 resolved by verified discs, so
    # no second (separated) realisation is needed
    assert calls == ["StateSpace"]
    assert res.method == "riccati"
    achieved = independent_hinf(P, res.controller)  # python-control lft + AB13DD
    assert np.max(P.lft(res.controller).poles().real) < 0
    assert achieved <= res.gamma and res.gamma <= achieved * (1 + 1e-5)
    # gamma_opt against SLICOT SB10AD's level on the same plant (S&P publish the optimum
    # 0.923430124918; this check is against SB10AD, not that figure)
    _, _, gam, _ = control.hinfsyn(P, 1, 1)
    assert res.gamma_opt == pytest.approx(gam, rel=1e-6)
    assert res.gamma <= res.gamma_opt * 1.01


def _mp_dc_sigma(P, K):
    """``sigma_max(Fl(P(0), K(0)))`` (one disturbance, one control, one measurement) of
    the float data of ``P`` and ``K`` in 40-digit mpmath (``P(0) = D - C A^-1 B``,
    likewise ``K(0)``), independent of the code's and LAPACK's rounding."""
    import mpmath as mp

    mp.mp.dps = 40

    def dc(a, b, c, d):
        a, b, c, d = (mp.matrix(np.atleast_2d(np.asarray(x, float)).tolist()) for x in (a, b, c, d))
        return d - c * mp.inverse(a) * b

    p0 = dc(P.A, P.B, P.C, P.D)
    k0 = dc(*K)[0, 0]  # one measurement, one control: the last row and column of P
    nz = P.noutputs - 1
    feedback = k0 * p0[nz, 0] / (1 - p0[nz, 1] * k0)
    return float(mp.sqrt(mp.fsum((p0[i, 0] + p0[i, 1] * feedback) ** 2 for i in range(nz))))


def test_screen_rejects_only_candidates_above_their_level():
    # The fallbacks of S&P Ex. 2.11 (backoffs 1e-6 .. 1e-2 above the bracket top): wherever
    # the screen says "exceeds", a dense grid of python-control's loop exceeds the level too.
    # Whether a candidate near the optimum lands above its own level g (1 + _SLACK) is a
    # matter of rounding (its controller nearly cancels the weight's pole at -1e-3, and
    # sigma at 0 rad/s moves by ~1e-7 between evaluations; in exact arithmetic the central
    # controller's norm is below g), so the hard case -- a candidate 1e-6 above its level
    # at 0 rad/s, as the first fallback was on some builds -- is made exact: the level is
    # set 1e-6 below the candidate's 40-digit DC value, which the screen must catch.
    P = _sp_example_2_11()
    plant = partition_plant(P, 1, 1)
    N = ric.normalise(plant.with_d22_zero())
    _, hi = bisect(N, 1e-7, [])
    w = np.r_[0.0, np.logspace(-6, 7, 4000)]

    def grid_peak(K):
        loop = P.lft(control.ss(*K))
        eye = np.eye(loop.nstates)
        resp = loop.C @ np.linalg.solve(1j * w[:, None, None] * eye - loop.A, loop.B) + loop.D
        return np.linalg.norm(resp, 2, axis=(1, 2)).max()

    verdicts = {}
    for b in (1e-6, 3e-6, 1e-5, 1e-4, 1e-2):
        g = hi * (1 + b)
        t = ric.gamma_test(N.plant, g)
        Ah, Bh, Ch, Dh, _ = ric.central_controller(N.plant, g, t)
        K = (Ah, Bh @ N.Ty, N.Tu @ Ch, N.Tu @ Dh @ N.Ty)
        cl = hs.closed_loop(plant, K)
        # the candidate at its own level: a rejection must be confirmed by the grid
        level = g * (1 + hs._SLACK)
        verdicts[b] = hs._exceeds(plant, K, cl, level, [0.0])
        if verdicts[b]:
            assert grid_peak(K) > level * (1 - 1e-9)
        # the hard case, exactly: 1e-6 above the level at 0 rad/s (the evaluations agree
        # to ~1e-7 there, so 1e-6 is a real excess on any build)
        low = _mp_dc_sigma(P, K) * (1 - 1e-6)
        assert hs._exceeds(plant, K, cl, low, [0.0])
        assert grid_peak(K) > low * (1 - 1e-9)
    # 1e-2 above the optimum the central controller's norm is 2.7e-4 below its level, far
    # beyond rounding: the screen leaves it to the full verification
    assert not verdicts[1e-2]


def _rescaled_pair(seed):
    """A random 4x4 plant (two controls, two measurements) in a well scaled realisation
    and in one with its states scaled by ``diag(logspace(0, 6, n))``."""
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(2, 8))
    A = rng.standard_normal((n, n)) - rng.uniform(-1, 3) * np.eye(n)
    T = np.diag(np.logspace(0, 6, n))
    Ti = np.linalg.inv(T)
    B = rng.standard_normal((n, 4))
    C = rng.standard_normal((4, n))
    D = rng.choice([0.01, 0.3, 1.0]) * rng.standard_normal((4, 4))
    return control.ss(A, B, C, D), control.ss(T @ A @ Ti, T @ B, C @ Ti, D)


@pytest.mark.parametrize("seed", [7, 27, 35])
def test_zero_optimum_stop_does_not_depend_on_the_realisation(seed):
    # The stop for an optimum of 0 was 1e-8 * ||[A B; C D]||, which a rescaled realisation
    # pushed above the optimum (seed 7 returned 0.7732 after one test). Both realisations
    # must bracket SB10AD's level on the well scaled one and agree with each other.
    P, Ps = _rescaled_pair(seed)
    _, _, gam, _ = control.hinfsyn(P, 2, 2)
    r, rs = rmb.hinfsyn(P, 2, 2), rmb.hinfsyn(Ps, 2, 2)
    for res in (r, rs):
        lo, hi = res.gamma_bracket
        assert lo * (1 - 1e-6) <= gam <= hi * (1 + 1e-6)
        assert res.gamma_opt == pytest.approx(gam, rel=1e-6)
        assert independent_hinf(Ps, res.controller) <= res.gamma * (1 + 1e-6)
        # the achieved level: 2e-6 above SB10AD on the rescaled realisations (measured);
        # the well scaled realisation of seed 35 takes a fallback 1e-3 above it
        assert res.gamma <= gam * (1 + (2e-3 if res is r else 1e-5))
    assert rs.gamma_opt == pytest.approx(r.gamma_opt, rel=1e-6)


def test_transfer_scale_is_realisation_independent():
    P, Ps = _rescaled_pair(7)
    N = partition_plant(P, 2, 2)
    Ns = partition_plant(Ps, 2, 2)
    from robustmb.synthesis.gamma_bracket import data_scale, transfer_scale

    assert data_scale(Ns) > 10 * data_scale(N)  # the old scale moves ...
    assert transfer_scale(Ns) == pytest.approx(transfer_scale(N), rel=1e-8)  # ... this not


@pytest.mark.parametrize("c", [0.5, 0.25, 2.0])
def test_an_undecided_midpoint_does_not_become_the_upper_end(c):
    # bisect's example plant with z scaled by a power of 2: levels 2c, c, c / 2 are
    # tested first and their geometric midpoint c / sqrt(2) is exactly where X stops
    # existing (2 - (gamma / c)^-2 = 0: a double Hamiltonian eigenvalue at 0, undecided).
    # The optimum is c (sqrt(3) - 1), the root of (gamma/c)^2 + 2 gamma/c - 2.
    z, o = np.zeros((1, 1)), np.ones((1, 1))
    P = Plant(-o, np.hstack([o, z]), o, np.vstack([c * o, z]), o, np.zeros((2, 2)),
              np.vstack([z, c * o]), np.hstack([z, o]), z)  # fmt: skip
    history = []
    lo, hi = bisect(ric.normalise(P), 1e-9, history)
    opt = c * (np.sqrt(3.0) - 1.0)
    assert lo < opt * (1 + 1e-12) and hi >= opt * (1 - 1e-12) and hi <= lo * (1 + 2e-9)
    assert any(not f and "undecided" in r for _, f, r in history)  # the midpoint was hit
