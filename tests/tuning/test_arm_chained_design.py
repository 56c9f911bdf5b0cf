"""The stored scheduled arm design grown from a 3-state order-study controller, re-checked.

``case_studies/robotic_arm/checkpoints/arm_lpv_chained_subbox.json`` (``chained_schedule.py``)
records a sampled check of ``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)``: worst
``gamma1 = ||W_e S||``, ``gamma2 = ||W_T K S||`` and where they occur, on the box the
design was grown to (``checks.independent.box``: the arm's box scaled by ``lam`` about
one frozen plant, every point ``p`` moved to ``centre + lam (p - centre)``; NOT the whole
box when ``lam < 1``).  Here the
controller is rebuilt from the stored matrices (``s_i`` the scheduling variables
normalised to ``[-1, 1]``, torques 100 times the surface's output), the loop is closed
with python-control, the poles come from numpy and both norms from SLICOT AB13DD
(``control.norm``, tol 1e-6 and 1e-8, the larger kept) and a numpy 3000-point frequency
grid; ``W_e = (s + 1)/(2 s + 0.02)`` and ``W_T = 1/1500`` are written out here.  Only the
frozen plant comes from the package (``arm_lpv_tuning_problem().plant``).  Sampled: this
certifies nothing between the points.
"""

import json
import os

import control
import numpy as np
import pytest
from _scripts import ARM_STUDY

pytestmark = pytest.mark.slow

PATH = os.path.join(ARM_STUDY, "checkpoints", "arm_lpv_chained_subbox.json")
SCALE = 100.0
WT = 1.0 / 1500.0
# state space first: a transfer-function weight turns the series loop into a transfer
# function in python-control, whose norm is wrong (see test_arm_order_study.py)
WE = control.ss(control.tf([1.0, 1.0], [2.0, 0.02]))
TOLS = (1e-6, 1e-8)
GRID = np.logspace(-4, 4, 3000)
PHYSICAL = ("m1", "J1", "rho1", "L2", "m3")


@pytest.fixture(scope="module")
def design():
    with open(PATH) as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def prob():
    from robustmb.examples import arm_lpv_tuning_problem

    return arm_lpv_tuning_problem()


def _controller(values, prob, t1, t2):
    els = prob.closed_loop.uncertainty
    s = []
    for name, t in (("t1", t1), ("t2", t2)):
        lo, hi = els[name].range
        s.append((2 * t - lo - hi) / (hi - lo))
    M = sum(np.asarray(values[f"K.M{i}"], float) * f for i, f in enumerate((1.0, *s)))
    return control.ss(M[:3, :3], M[:3, 3:], SCALE * M[3:, :3], SCALE * M[3:, 3:])


#: The order study's frozen plants (deg, levels of +-20 % of the nominal value).
CENTRES = {
    "a": ((45.0, 135.0), (1, 1, 1, -1, 1)),
    "b": ((45.0, 135.0), (0, 0, 0, 0, 0)),
    "c": ((67.5, 90.0), (0, 0, 0, 0, 0)),
    "d": ((90.0, 135.0), (0, 0, 0, 0, 0)),
}
NOMINAL = {"m1": 3.0, "J1": 0.2, "rho1": 0.3, "L2": 1.0, "m3": 5.0}


def _box(design):
    """``(centre point, lam)`` of the checked box (the whole box: any centre, ``lam = 1``)."""
    box = design["checks"]["independent"].get("box") or {}
    if box.get("centre") is None:
        return {}, 1.0
    (th1, th2), lv = CENTRES[box["centre"]]
    c = {n: v * (1 + 0.2 * s) for (n, v), s in zip(NOMINAL.items(), lv, strict=True)}
    c |= {"t1": np.tan(np.radians(th1) / 2), "t2": np.tan(np.radians(th2) / 2)}
    return c, float(box["lam"])


def test_nominal_values_are_the_arm_s(prob):
    els = prob.closed_loop.uncertainty
    for n, v in NOMINAL.items():
        assert float(els[n].nominal) == pytest.approx(v, rel=1e-12)
        assert els[n].range == pytest.approx((0.8 * v, 1.2 * v), rel=1e-12)


def test_recorded_points_lie_in_the_checked_box(design, prob):
    centre, lam = _box(design)
    if not centre:
        centre, lam = {}, 1.0
    els = prob.closed_loop.uncertainty
    chk = design["checks"]["independent"]
    for part in ("grid", "random"):
        for key in ("where1", "where2"):
            for n, v in chk[part][key].items():
                lo, hi = els[n].range
                assert lo - 1e-12 <= v <= hi + 1e-12
                if centre:
                    reach = lam * max(hi - centre[n], centre[n] - lo)
                    assert abs(v - centre[n]) <= reach + 1e-12


def _plant(prob, point):
    G = prob.plant.usubs(point)
    return control.ss(G.A, G.B, G.C, G.D)


def _resp(P, w):
    A, B, C, D = (np.asarray(m, float) for m in (P.A, P.B, P.C, P.D))
    jw = 1j * w[:, None, None]
    return D + C @ np.linalg.solve(jw * np.eye(A.shape[0]) - A, B)


def _check(G, K):
    """``(max pole real part, gamma1, gamma2, grid gamma1, grid gamma2)``."""
    eye = control.ss([], [], [], np.eye(2))
    S = control.feedback(eye, control.series(K, G))
    KS = control.feedback(K, G)
    mr = max(float(np.max(np.linalg.eigvals(np.asarray(M.A)).real)) for M in (S, KS))
    if mr >= 0:
        return mr, np.inf, np.inf, np.inf, np.inf
    g1 = max(control.norm(control.series(S, control.append(WE, WE)), "inf", tol=t) for t in TOLS)
    g2 = WT * max(control.norm(KS, "inf", tol=t) for t in TOLS)
    Gw, Kw = _resp(G, GRID), _resp(K, GRID)
    Sw = np.linalg.inv(np.eye(2) + Gw @ Kw)
    we = np.abs((1j * GRID + 1) / (2j * GRID + 0.02))
    gg1 = float(np.max(we * np.linalg.norm(Sw, 2, axis=(1, 2))))
    gg2 = WT * float(np.max(np.linalg.norm(Kw @ Sw, 2, axis=(1, 2))))
    return mr, float(g1), float(g2), gg1, gg2


def test_controller_matches_the_tuned_surface(design, prob):
    """The stored matrices mean the problem's controller: same frequency response."""
    ctrl = prob.controller.usubs({k: np.asarray(v, float) for k, v in design["values"].items()})
    els = prob.closed_loop.uncertainty
    for t1, t2 in ((els["t1"].range[0], els["t2"].range[1]), (0.7, 1.1)):
        Kp = ctrl.usubs({"t1": t1, "t2": t2})
        Kp = control.ss(Kp.A, Kp.B, Kp.C, Kp.D)
        Kt = _controller(design["values"], prob, t1, t2)
        w = np.logspace(-3, 3, 40)
        assert np.allclose(_resp(Kp, w), _resp(Kt, w), rtol=1e-10, atol=1e-10)


def test_recorded_worst_points_reproduce(design, prob):
    chk = design["checks"]["independent"]
    for part in ("grid", "random"):
        rec = chk[part]
        assert rec["unstable"] == 0
        for key, idx in (("where1", 1), ("where2", 2)):
            p = rec[key]
            r = _check(_plant(prob, p), _controller(design["values"], prob, p["t1"], p["t2"]))
            assert r[0] < 0
            value = max(r[idx], r[idx + 2])
            assert value == pytest.approx(rec[f"gamma{idx}"], rel=1e-6)
            # the grid is a lower bound of the norm and close to it on these loops
            assert r[idx + 2] <= r[idx] * (1 + 1e-9)
            assert r[idx + 2] >= 0.99 * r[idx]
    worst1 = max(chk[p]["gamma1"] for p in ("grid", "random"))
    assert worst1 * (1 + 2e-6) < 1


def test_corners_and_fresh_random_points_stay_within_the_record(design, prob):
    chk = design["checks"]["independent"]
    worst2 = max(chk[p]["gamma2"] for p in ("grid", "random"))
    els = prob.closed_loop.uncertainty
    rng = np.random.default_rng(2026)
    nominal = {n: float(els[n].nominal) for n in PHYSICAL}
    points = [
        {"t1": float(a), "t2": float(b)} | nominal for a in els["t1"].range for b in els["t2"].range
    ]
    points += [
        {n: float(rng.uniform(*els[n].range)) for n in ("t1", "t2", *PHYSICAL)} for _ in range(16)
    ]
    _check_points_in_box(design, prob, points, worst2)


def _check_points_in_box(design, prob, points, worst2):
    """Move ``points`` into the design's checked box and check each loop: stable,
    ``gamma1 < 1`` and ``gamma2`` within 5 % of the recorded sampled worst ``worst2``."""
    centre, lam = _box(design)
    points = [{k: centre[k] + lam * (v - centre[k]) for k, v in p.items()} for p in points]
    for p in points:
        r = _check(_plant(prob, p), _controller(design["values"], prob, p["t1"], p["t2"]))
        assert r[0] < 0, p
        g1, g2 = max(r[1], r[3]), max(r[2], r[4])
        assert g1 * (1 + 2e-6) < 1, p
        # fresh points off the recorded samples: within the sampled worst up to a margin
        # for the gaps between samples (the record is sampled, not a bound)
        assert g2 <= 1.05 * worst2, p
