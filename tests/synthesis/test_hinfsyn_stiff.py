"""hinfsyn on stiff and singular plants: the reported norm against an mpmath reference.

The reference evaluates ``Fl(P, K)(j w)`` in 30-digit arithmetic from the plant's and the
controller's matrices separately (never from a closed-loop realisation, which is what a
stiff controller makes inaccurate in double precision), on a grid plus a local
refinement of its best point.
"""

import importlib

import control
import mpmath as mp
import numpy as np
import pytest
import scipy.optimize

import robustmb as rmb
from robustmb.errors import IllPosedError
from robustmb.synthesis.plant import lft_response, normalised_performance, partition_plant

hs = importlib.import_module("robustmb.synthesis.hinfsyn")  # the module, not the function


def _mp_tf(S, s):
    A, B, C, D = (mp.matrix(np.asarray(M, float).tolist()) for M in (S.A, S.B, S.C, S.D))
    if S.nstates == 0:
        return D
    return C * ((s * mp.eye(S.nstates) - A) ** -1) * B + D


def mp_fl_sigma(P, K, nmeas, ncon, w, dps=30):
    """``sigma_max(Fl(P, K))`` at ``s = j w`` (``exp(j w dt)``), mpmath from P and K."""
    with mp.workdps(dps):
        s = mp.exp(mp.mpc(0, w * P.dt)) if P.dt else mp.mpc(0, w)
        G, Kw = _mp_tf(P, s), _mp_tf(K, s)
        p1, m1 = P.noutputs - nmeas, P.ninputs - ncon
        P11, P12 = G[0:p1, 0:m1], G[0:p1, m1 : P.ninputs]
        P21, P22 = G[p1 : P.noutputs, 0:m1], G[p1 : P.noutputs, m1 : P.ninputs]
        F = P11 + P12 * Kw * ((mp.eye(nmeas) - P22 * Kw) ** -1) * P21
        Fn = np.array([[complex(F[i, j]) for j in range(m1)] for i in range(p1)])
    return float(np.linalg.svd(Fn, compute_uv=False)[0])


def mp_fl_peak(P, K, nmeas, ncon, w=None):
    """Peak of ``mp_fl_sigma`` over a log grid (plus the closed-loop natural frequencies
    from python-control's ``lft``), refined between the best point's neighbours."""
    w = np.r_[0.0, np.logspace(-3, 5, 161)] if w is None else w
    w = np.unique(np.r_[w, np.abs(P.lft(K).poles())])
    vals = [mp_fl_sigma(P, K, nmeas, ncon, x) for x in w]
    k = int(np.argmax(vals))
    lo, hi = w[max(k - 1, 0)], w[min(k + 1, len(w) - 1)]
    res = scipy.optimize.minimize_scalar(
        lambda x: -mp_fl_sigma(P, K, nmeas, ncon, x),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-9 * hi},
    )
    return max(vals[k], -res.fun)


def _random_singular_plant():
    # the third draw of default_rng(0) (D12 = 0, D21 = 0): its regularised Riccati
    # controller at eps = 1e-6 has poles at 3.2e8 and its realisation's hinfnorm was
    # 29.728697 against a 60-digit peak of 29.729073 (the review's reproducer)
    rng = np.random.default_rng(0)
    for _ in range(3):
        A, B1, B2 = (rng.standard_normal(s) for s in ((3, 3), (3, 2), (3, 1)))
        C1, C2 = rng.standard_normal((2, 3)), rng.standard_normal((1, 3))
    return control.ss(A, np.hstack([B1, B2]), np.vstack([C1, C2]), np.zeros((3, 3)))


def test_lft_response_matches_mpmath_from_plant_and_controller():
    rng = np.random.default_rng(3)
    for dt in (0, 0.1):
        A = rng.standard_normal((4, 4)) - (3 * np.eye(4) if not dt else 0)
        A = A if not dt else 0.4 * A / max(np.abs(np.linalg.eigvals(A)))
        P = control.ss(A, rng.standard_normal((4, 3)), rng.standard_normal((3, 4)),
                       rng.standard_normal((3, 3)), dt)  # fmt: skip
        K = control.ss(-2 * np.eye(2) if not dt else 0.3 * np.eye(2), rng.standard_normal((2, 1)),
                       rng.standard_normal((1, 2)), [[0.1]], dt)  # fmt: skip
        w = np.array([0.0, 0.37, 2.5, 11.0]) if not dt else np.array([0.0, 3.0, 20.0])
        F = lft_response(partition_plant(P, 1, 1), (K.A, K.B, K.C, K.D), w)
        for x, Fx in zip(w, F, strict=True):
            ref = mp_fl_sigma(P, K, 1, 1, x)
            assert np.linalg.norm(Fx, 2) == pytest.approx(ref, rel=1e-12)


@pytest.mark.slow
def test_regularised_controller_norm_is_an_upper_bound_of_the_mpmath_peak():
    P = _random_singular_plant()
    res = rmb.hinfsyn(P, 1, 1)
    K = res.controller
    peak = mp_fl_peak(P, K, 1, 1)
    # reported norm and bracket top are true upper bounds of the returned loop's norm
    assert res.gamma_bracket[1] == res.gamma
    assert peak <= res.gamma
    assert res.gamma <= peak * (1 + 2e-6)  # and not loose (rounding allowance 1e-6)
    # a stiff controller (pole spread above 1e6) is returned only when its realisation's
    # norm can be trusted: since the regularised controllers are balanced and put in
    # Schur form, this one (spread 2e6) is, and hinfsyn's own closed loop (the one it
    # verifies) has the 30-digit norm
    mags = np.abs(np.linalg.eigvals(K.A))
    if mags.max() / mags.min() > 1e6:
        cl = hs.closed_loop(partition_plant(P, 1, 1), (K.A, K.B, K.C, K.D))
        assert rmb.hinfnorm(cl)[0] == pytest.approx(peak, rel=1e-6)
    # the lower end is a lower bound: at most the norm of this (stabilising) controller
    assert np.max(P.lft(K).poles().real) < 0
    assert res.gamma_bracket[0] <= peak


def test_pole_spread_of_controllers_with_known_poles():
    # the spread test itself, on controllers whose poles are known in closed form
    assert hs._pole_spread((np.diag([-1.0, -1e7]),), 0) == pytest.approx(1e7)
    assert hs._pole_spread((np.diag([-1.0, -10.0]),), 0) == pytest.approx(10.0)
    assert hs._pole_spread((np.zeros((0, 0)),), 0) == 1.0
    # discrete: z = 0.5 and z = -0.5 map to s = -1/3 and s = -3 (spread 9)
    assert hs._pole_spread((np.diag([0.5, -0.5]),), 0.1) == pytest.approx(9.0)


def test_lmi_failure_is_chained_into_the_final_error(monkeypatch):
    # a singular plant (D12 = D21 = 0) on which both routes are made to fail: the SDP
    # error must survive as the cause and in the message
    P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], np.zeros((2, 2)))

    def no_sdp(_):
        raise IllPosedError("SDP solver failed: infeasible (test)")

    monkeypatch.setattr(hs, "hinf_level_lmi", no_sdp)
    monkeypatch.setattr(hs, "_regularised", lambda *a: (None, [], np.inf))
    with pytest.raises(IllPosedError, match="SDP solver failed: infeasible") as info:
        rmb.hinfsyn(P, 1, 1)
    assert isinstance(info.value.__cause__, IllPosedError)


def test_lmi_lower_end_is_the_parrott_bound():
    # x' = -x + w + u, z = [x; 0.5 x + 0.3 w], y = x (D12 = 0, D21 = 0).  At infinity
    # P12 = D12 = 0, so Fl(P, K)(inf) = D11 for every K: no controller beats
    # ||D11|| = 0.3 (at finite frequencies the direction [0.5, -1] / sqrt(1.25), orthogonal
    # to P12 = [1; 0.5] / (s + 1), gives only 0.3 / sqrt(1.25)).  The lower end is that
    # bound, not the SDP level.
    P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [0.5], [1.0]],
                   [[0.0, 0.0], [0.3, 0.0], [0.0, 0.0]])  # fmt: skip
    res = rmb.hinfsyn(P, 1, 1, method="lmi")
    assert res.gamma_bracket[0] == pytest.approx(0.3, rel=1e-12)
    assert res.gamma_bracket[1] == res.gamma
    assert mp_fl_peak(P, res.controller, 1, 1) <= res.gamma


def test_too_stiff_decides_from_the_evaluations_verify_made(monkeypatch):
    # _too_stiff must not evaluate the norm again: hinfnorm and fl_peak are disabled
    def boom(*a, **k):
        raise AssertionError("evaluated again")

    monkeypatch.setattr(hs, "hinfnorm", boom)
    monkeypatch.setattr(hs, "fl_peak", boom)
    stiff = (np.diag([-1.0, -1e7]),)  # pole spread 1e7 > 1e6
    mild = (np.diag([-1.0, -10.0]),)

    def cand(K, evals):
        return (K, None, max(evals), 1.0, 0.0, evals)

    assert hs._too_stiff(Plant0, cand(stiff, (1.0, 1.0 + 1e-5)))  # disagree by 1e-5
    assert not hs._too_stiff(Plant0, cand(stiff, (1.0, 1.0 + 1e-8)))  # agree to 1e-8
    assert not hs._too_stiff(Plant0, cand(mild, (1.0, 2.0)))  # not stiff at all


class Plant0:
    dt = 0.0


def test_verify_reports_both_evaluations_it_takes_the_larger_bound_of():
    # SB10FD example plant and its central controller at gamma = 15: the two evaluations
    # against an independent norm (python-control lft + SLICOT AB13DD) and each other
    from _plants import independent_hinf, slicot_plant

    from robustmb.synthesis import hinf_riccati as ric
    from robustmb.synthesis.plant import shift_back

    G, nmeas, ncon = slicot_plant("hinfsyn_slicot_sb10fd_central_controller_gamma15")
    plant = partition_plant(G, nmeas, ncon)
    N = ric.normalise(plant.with_d22_zero())
    t = ric.gamma_test(N.plant, 15.0)
    Ah, Bh, Ch, Dh, _ = ric.central_controller(N.plant, 15.0, t)
    K = shift_back((Ah, Bh @ N.Ty, N.Tu @ Ch, N.Tu @ Dh @ N.Ty), plant.D22)
    cl, norm, ok, peak, (hnorm, fl) = hs._verify(plant, K, 15.0)
    ref = independent_hinf(G, control.ss(*K))
    assert ok and hnorm == pytest.approx(ref, rel=1e-6) and fl == pytest.approx(ref, rel=1e-6)
    assert ref <= norm <= ref * (1 + 1e-5)  # the reported norm bounds the independent one


def test_ill_conditioned_fallbacks_are_verified_only_when_needed(monkeypatch):
    # cond_max = 1: no central controller is well conditioned, so every feasible level is
    # a fallback; the first (lowest level) that passes verification is returned and is
    # the only one verified.  Its norm is checked with python-control + AB13DD.
    from _plants import independent_hinf, slicot_plant

    G, nmeas, ncon = slicot_plant("hinfsyn_slicot_sb10fd_central_controller_gamma15")
    calls = []
    real = hs._verify

    def counted(*a, **k):
        calls.append(a[2])
        return real(*a, **k)

    monkeypatch.setattr(hs, "_verify", counted)
    res = rmb.hinfsyn(G, nmeas, ncon, cond_max=1.0)
    # the synthesis runs on the plant with z and w normalised (levels times `scale`)
    _, scale = normalised_performance(partition_plant(G, nmeas, ncon))
    assert len(calls) == 1 and res.gamma_design == calls[0] / scale
    hi = res.gamma_opt
    assert res.gamma_design == pytest.approx(hi * (1 + 10 * 1e-7), rel=1e-12)  # first backoff
    assert independent_hinf(G, res.controller) == pytest.approx(res.gamma, rel=3e-6)
    # with the default cond_max the well-conditioned controller is found without them
    calls.clear()
    default = rmb.hinfsyn(G, nmeas, ncon)
    assert default.gamma <= res.gamma * 1.01 and len(calls) >= 1


def test_lft_response_drops_frequencies_where_the_loop_is_singular():
    # every plant block 1 / (s + 1), K = 1: I - P22 K = s / (s + 1) is singular at s = 0,
    # elsewhere Fl = g / (1 - g) = 1 / s (closed form)
    from robustmb.synthesis.plant import Plant

    o = np.ones((1, 1))
    P = Plant(-o, o, o, o, o, 0 * o, 0 * o, 0 * o, 0 * o)
    w = np.array([0.0, 0.5, 1.0, 20.0])
    F = lft_response(P, (np.zeros((0, 0)), np.zeros((0, 1)), np.zeros((1, 0)), o), w)
    assert np.isnan(F[0]).all()
    assert np.allclose(F[1:, 0, 0], 1 / (1j * w[1:]), rtol=1e-13)


def _scripted_regularised(monkeypatch, script):
    """Run ``_regularised`` on a singular plant with ``_riccati`` replaced by ``script``:
    one ``(bracket top, verified norm or None)`` per regularisation size."""
    P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], np.zeros((2, 2)))
    plant = partition_plant(P, 1, 1)
    steps = iter(script)

    def fake(plant_, Pe, rtol, gtol, cond_max, history, balance=False):
        hi, norm = next(steps)
        K = (-np.eye(1), np.ones((1, 1)), np.ones((1, 1)), np.zeros((1, 1)))
        cand = None if norm is None else (K, None, norm, hi, 1.0, (norm, norm))
        return 0.0, hi, cand

    monkeypatch.setattr(hs, "_riccati", fake)
    return hs._regularised(plant, plant, 0.01, 1e-7, 1e6)


def test_unconfirmed_regularised_tops_are_reported_as_nan(monkeypatch):
    # a top with no verified controller within rtol says nothing about the plant (0.797
    # where the optimum is about 29.7): nan, and not used in gamma_opt
    best, runs, top = _scripted_regularised(
        monkeypatch,
        [(30.0, 30.1), (0.797, None), (29.0, 29.9), (29.5, 29.6), (29.5, 29.7), (29.5, 29.7)],
    )
    assert [r[0] for r in runs] == [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
    assert runs[0][1] == 30.0 and np.isnan(runs[1][1]) and np.isnan(runs[2][1])
    assert runs[3][1] == 29.5 and top == 29.5 and best[2] == 29.6
    assert runs[1][2] == np.inf and runs[2][2] == 29.9  # the verified norms stay


def test_regularised_sequence_stops_once_the_tops_converge(monkeypatch):
    # consecutive confirmed tops within 1e-4 and a controller within 1e-4 of the last: stop
    best, runs, top = _scripted_regularised(
        monkeypatch, [(1.0, 1.004), (0.99995, 0.99996), (0.9999, 0.9999)]
    )
    assert len(runs) == 2 and best[2] == 0.99996 and top == 0.99995
    # tops still moving by more than 1e-4: the sequence goes on (until two sizes bring
    # no progress)
    best, runs, top = _scripted_regularised(
        monkeypatch, [(1.0, 1.004), (0.998, 0.99801), (0.997, 0.9975), (0.9965, 0.9971),
                      (0.9964, 0.9971), (0.9963, 0.9972)],
    )  # fmt: skip
    assert len(runs) >= 4 and best[2] == 0.9971


def _mp_controller_response(K, w, dps=40):
    with mp.workdps(dps):
        A, B, C, D = (mp.matrix(np.asarray(M, float).tolist()) for M in K)
        G = C * ((mp.mpc(0, w) * mp.eye(A.rows) - A) ** -1) * B + D
        return np.array([[complex(G[i, j]) for j in range(G.cols)] for i in range(G.rows)])


def test_balanced_controller_keeps_the_transfer_function_of_badly_scaled_controllers():
    # Schur before balancing lost up to 0.25 relative on such controllers; the balanced
    # realisation must give the same response as the original, both in 40 digits
    from robustmb.synthesis.plant import balanced_controller

    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(8):
        n, nu, ny = rng.integers(2, 7), rng.integers(1, 4), rng.integers(1, 4)
        T = np.diag(np.logspace(0, rng.uniform(2, 9), n))
        Ti = np.linalg.inv(T)
        Ak = T @ (rng.standard_normal((n, n)) - 2 * np.eye(n)) @ Ti
        Ck = rng.standard_normal((nu, n)) @ Ti * rng.uniform(1, 1e6)
        K = (Ak, T @ rng.standard_normal((n, ny)), Ck, rng.standard_normal((nu, ny)))
        Kb = balanced_controller(K)
        assert np.allclose(np.tril(Kb[0], -2), 0)  # (quasi-)triangular: Schur form
        for w in (0.0, 0.1, 1.0, 10.0, 1e3):
            G0, G1 = _mp_controller_response(K, w), _mp_controller_response(Kb, w)
            worst = max(worst, np.linalg.norm(G1 - G0, 2) / np.linalg.norm(G0, 2))
    assert worst <= 1e-10
