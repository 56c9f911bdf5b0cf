"""The continuation pieces of the arm's stacked scheduled driver (``scheduled_stacked.py``).

* The ``goal="max"`` terms (``||W_e S|| / margin`` and ``||W_T K S|| / g`` as two engine
  terms per point) evaluated by the tuning engine on the stored soft-phase design agree
  with python-control loops and SLICOT AB13DD (``gamma2_floor.verify``).
* ``DampedProblem``'s barrier accepts the design exactly when the damping ratios of the
  python-control closed loop's eigenvalues reach the threshold.
* The stored checkpoint ``checkpoints/arm_lpv_stacked.json`` (sampled, not certified): its
  recorded check figures and its four nominal corner loops, rebuilt independently.
"""

import json
import os

import control
import numpy as np
import pytest
from _scripts import ARM_STUDY, arm_script

# Importing the script builds the arm's tuning problem (seconds): every test here is slow.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ss():
    return arm_script("scheduled_stacked.py")


@pytest.fixture(scope="module")
def stored():
    with open(os.path.join(ARM_STUDY, "checkpoints", "arm_lpv_soft_phase.json")) as fh:
        return {k: np.asarray(v, float) for k, v in json.load(fh)["values"].items()}


def _frozen(ss, values, pt):
    k = ss.PROB.controller.usubs(values).usubs({"t1": pt["t1"], "t2": pt["t2"]})
    return control.ss(k.A, k.B, k.C, k.D)


def _problem(ss, values, points, g, margin, decay, damping):
    """The engine problem ``tune(goal="max")`` builds, assembled without running it."""
    from robustmb.lft.algebra import lft_lower
    from robustmb.lft.model import as_model
    from robustmb.tuning.hinfstruct import _balanced
    from robustmb.tuning.parametrization import ParameterVector, TunableLFT
    from robustmb.tuning.tuning_term import Term

    ss.set_values(values)
    params = ParameterVector(ss.PROB.controller.tunables)

    def loop(pt, P):
        kc = ss.PROB.controller.usubs({"t1": pt["t1"], "t2": pt["t2"]})
        return TunableLFT(lft_lower(as_model(_balanced(P)), kc), params)

    w2 = control.ss([], [], [], np.eye(2) * float(ss.PROB.WT))
    t1 = [Term(loop(p, control.augw(ss.plant(p), ss.WE2)), scale=1 / margin) for p in points]
    t2 = [Term(loop(p, control.augw(ss.plant(p), None, w2)), scale=1 / g) for p in points]
    guard = [loop(p, control.augw(ss.plant(p), None, w2)) for p in points]
    prob = ss.DampedProblem(params, t1 + t2, loops=guard, min_decay=decay)
    prob.damping = damping
    return prob, params.initial(), t1, t2


def test_max_goal_terms_match_python_control(ss, stored):
    points = [
        ss.sched(45.0, 94.5) | ss.physical((1, 1, 1, 1, 1)),
        ss.sched(90.0, 135.0) | ss.physical((-1, -1, -1, -1, -1)),
    ]
    g, margin = 11.5, 0.97
    prob, x0, t1, t2 = _problem(ss, stored, points, g, margin, 0.2, 0.1)
    for p, a, b in zip(points, t1, t2, strict=True):
        g1, g2, mr = ss.verify(ss.plant(p), _frozen(ss, stored, p))
        assert mr < 0
        assert a.evaluate(x0, gradient=False)[0] == pytest.approx(g1 / margin, rel=1e-6)
        assert b.evaluate(x0, gradient=False)[0] == pytest.approx(g2 / g, rel=1e-6)


def test_damping_barrier_against_python_control_poles(ss, stored):
    pt = ss.sched(45.0, 135.0) | ss.physical((1, 1, 1, 1, 1))
    k = _frozen(ss, stored, pt)
    s = control.feedback(control.ss([], [], [], np.eye(2)), control.series(k, ss.plant(pt)))
    lam = np.linalg.eigvals(s.A)
    zeta = float(np.min(-lam.real / np.abs(lam)))
    decay = float(np.min(-lam.real))
    assert 0 < zeta < 1
    for z, expect in [(0.9 * zeta, True), (1.1 * zeta, False)]:
        prob, x0, *_ = _problem(ss, stored, [pt], 11.5, 0.97, 0.5 * decay, z)
        assert prob._stable(x0) is expect
    # the decay barrier alone (damping 0) against the same poles
    prob, x0, *_ = _problem(ss, stored, [pt], 11.5, 0.97, 1.1 * decay, 0.0)
    assert prob._stable(x0) is False


def test_stacked_checkpoint_corner_loops():
    """``checkpoints/arm_lpv_stacked.json``: its check figures, and its four nominal corner
    loops rebuilt here (python-control + AB13DD, and a frequency grid of ``G(jw)``,
    ``K(jw)`` that must come within 0.5 % of the stored norms from below)."""
    from robustmb.examples import arm_lpv_tuning_problem

    with open(os.path.join(ARM_STUDY, "checkpoints", "arm_lpv_stacked.json")) as fh:
        d = json.load(fh)
    assert d["provenance"].startswith("NOT a certified design")
    grids = [v for k, v in d["checks"].items() if k.startswith("grid")]
    assert grids
    for g in grids:
        assert g["unstable"] == 0 and g["max_pole_real"] < 0
        assert g["gamma1"] < 1 and g["gamma2"] < 13.59  # the soft-phase design's 13.59
    prob = arm_lpv_tuning_problem()
    els = prob.closed_loop.uncertainty
    nominal = {n: float(els[n].nominal) for n in ("m1", "J1", "rho1", "L2", "m3")}
    ctrl = prob.controller.usubs({k: np.asarray(v, float) for k, v in d["values"].items()})
    we2 = control.append(control.ss(prob.We), control.ss(prob.We))
    w = np.logspace(-3, 4, 6000)
    assert len(d["checks"]["corners_nominal"]) == 4
    for rec in d["checks"]["corners_nominal"]:
        sched = {"t1": rec["t1"], "t2": rec["t2"]}
        k = ctrl.usubs(sched)
        k = control.ss(k.A, k.B, k.C, k.D)
        g = prob.plant.usubs(sched | nominal)
        g = control.ss(g.A, g.B, g.C, g.D)
        s = control.feedback(control.ss([], [], [], np.eye(2)), control.series(k, g))
        assert np.max(np.linalg.eigvals(s.A).real) < 0
        g1 = control.norm(control.series(s, we2), "inf")
        g2 = control.norm(control.series(s, k), "inf") * float(prob.WT)
        assert g1 == pytest.approx(rec["gamma1"], rel=1e-6)
        assert g2 == pytest.approx(rec["gamma2"], rel=1e-6)
        # S = (I + G K)^-1 from the open-loop responses, no closed-loop state space
        gw = np.moveaxis(g(1j * w), -1, 0)
        kw = np.moveaxis(k(1j * w), -1, 0)
        sw = np.linalg.inv(np.eye(2) + gw @ kw)
        wew = np.asarray(prob.We(1j * w)).reshape(-1)[:, None, None]
        s1 = np.linalg.svd(wew * sw, compute_uv=False)[:, 0].max()
        s2 = np.linalg.svd(kw @ sw, compute_uv=False)[:, 0].max() * float(prob.WT)
        assert rec["gamma1"] * (1 - 5e-3) <= s1 <= rec["gamma1"] * (1 + 1e-8)
        assert rec["gamma2"] * (1 - 5e-3) <= s2 <= rec["gamma2"] * (1 + 1e-8)
