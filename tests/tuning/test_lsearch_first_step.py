"""The hard-goal phase no longer gives up at its first step from a steep start.

The start is a stored random stabilising 3-state controller of the arm's order study
(``case_studies/robotic_arm/checkpoints/order_study.json``, point ``a``: theta = (45, 135)
deg at the worst parameter vertex, record ``random``/``full``/``#0``), where the hard
goal ``||W_e S||`` is 558.8 with a gradient of norm about 1.6e5.  Every step of the
first line search (down to 2^-23 times the raw gradient, 0.02 in parameter space) made
the loop unstable, and the run stopped there with ``"line search found no decrease"``
although a step of 1e-3 lowers the value; continued, the phase meets the hard goal.
The values are checked here with python-control only (``S = (I + G K)^-1``, numpy
eigenvalues, SLICOT AB13DD through ``control.norm``); ``W_e = (s + 1)/(2 s + 0.02)`` is
written out here.
"""

import json
import os
import warnings

import control
import numpy as np
import pytest
from _scripts import ARM_STUDY

import robustmb as rmb
from robustmb.tuning import WeightedGain
from robustmb.tuning import nonsmooth_bfgs as nb

PATH = os.path.join(ARM_STUDY, "checkpoints", "order_study.json")
SCALE = 100.0  # the controller's output is scaled by 100 (torques)
WE = control.tf([1.0, 1.0], [2.0, 0.02])


def _start():
    with open(PATH) as fh:
        pt = json.load(fh)["points"]["a"]
    rec = [
        r
        for r in pt["records"]
        if (r["family"], r["form"], r["order"], r["label"]) == ("random", "full", 3, "#0")
    ]
    assert len(rec) == 1
    G = control.ss(*[np.asarray(M, float) for M in pt["plant"]])
    return G, [np.asarray(M, float) for M in rec[0]["K_scaled"]]


def _gamma1(G, Ks):
    """``||W_e S||`` by python-control; ``inf`` when the loop is unstable."""
    A, B, C, D = Ks
    K = control.ss(A, B, SCALE * C, SCALE * D)
    S = control.feedback(control.ss([], [], [], np.eye(2)), control.series(K, G))
    if np.max(np.linalg.eigvals(np.asarray(S.A)).real) >= 0:
        return np.inf
    we = control.ss(WE)
    T = control.series(S, control.append(we, we))
    return max(float(control.norm(T, "inf", tol=t)) for t in (1e-6, 1e-8))


def _tune(G, start):
    K = rmb.tunable_ss("K", 3, 2, 2)
    K.input_names, K.output_names = ["e1", "e2"], ["v1", "v2"]
    Gn = control.ss(G.A, G.B, G.C, G.D, inputs=["T1", "T2"], outputs=["y1", "y2"], name="G")
    sc = control.ss(
        [], [], [], SCALE * np.eye(2), inputs=["v1", "v2"], outputs=["T1", "T2"], name="sc"
    )
    sm = control.ss(
        [],
        [],
        [],
        np.hstack([np.eye(2), -np.eye(2)]),
        inputs=["r1", "r2", "y1", "y2"],
        outputs=["e1", "e2"],
        name="sum",
    )
    CL = rmb.connect([Gn, K, sc, sm], None, ["r1", "r2"], ["e1", "e2", "T1", "T2"])
    for name, M in zip(("K.A", "K.B", "K.C", "K.D"), start, strict=True):
        CL.tunables[name].value = M
    soft = [WeightedGain(["r1", "r2"], ["T1", "T2"], wl=1.0 / 1500.0)]
    hard = [WeightedGain(["r1", "r2"], ["e1", "e2"], wl=WE)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rmb.systune(CL, soft, hard, maxiter=5, random_start=0)
    v = res.values
    return res, [np.asarray(v[k], float) for k in ("K.A", "K.B", "K.C", "K.D")]


def test_hard_phase_goes_past_a_failed_first_step():
    G, start = _start()
    g0 = _gamma1(G, start)
    assert 558.0 < g0 < 560.0  # the stored start, checked independently
    res, Ks = _tune(G, start)
    g = _gamma1(G, Ks)
    # before the fix the run stopped at the start (558.8); now the hard goal is met
    assert g < 1.0
    assert abs(g - res.hard[0]) <= 1e-5 * g


def _steep(x):
    """Slope 1e6, infinite (outside the domain) for ``x <= -1e-3``; minimum at the edge."""
    if x[0] <= -1e-3:
        return np.inf, None
    return 1e6 * x[0], np.array([1e6])


def test_rescue_continues_the_backtracking_to_small_steps():
    r0 = nb.bfgs(_steep, np.array([0.0]))
    assert r0.message == "line search found no decrease" and r0.f == 0.0
    r1 = nb.bfgs(_steep, np.array([0.0]), rescue=True)
    # every step tried lies in (-1e-3, 0]: the value stays above -1e3
    assert -1e3 < r1.f < -900.0
    r2 = nb.continue_rescued(_steep, r0)
    assert -1e3 < r2.f <= r1.f
    assert r2.history[0] == 0.0 and r2.nfev > r0.nfev


@pytest.mark.parametrize("x0", [[3.0, 2.0], [-1.0, 5.0]])
def test_rescue_leaves_a_successful_run_unchanged(x0):
    def fun(x):
        return abs(x[0] - 1) + 2 * abs(x[1]), np.array([np.sign(x[0] - 1), 2 * np.sign(x[1])])

    a = nb.bfgs(fun, np.array(x0))
    b = nb.bfgs(fun, np.array(x0), rescue=True)
    assert a.message != "line search found no decrease"
    assert a.history == b.history and a.nfev == b.nfev and np.array_equal(a.x, b.x)
