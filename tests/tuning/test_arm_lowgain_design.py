"""The arm's continuation driver pieces and the stored low-gain min-max checkpoint.

``scheduled_continuation.surface_from_lti`` writes an LTI controller as a scheduled surface
with ``M1 = M2 = 0``: substituted at any ``(t1, t2)`` it must give back the controller.
``checkpoints/arm_lpv_lowgain_minmax.json`` records, from ``check_design.py`` on 21 x 21 x 39
loops, its worst ``||W_e S||`` (1.8350, so the hard goal is NOT met) at one point; the
value is recomputed there by python-control + AB13DD.
"""

import json
import os

import control
import numpy as np
import pytest
from _scripts import load_script

from robustmb.examples import arm_lpv_tuning_problem

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUDY = os.path.join(ROOT, "case_studies", "robotic_arm")


def _script(name):
    return load_script("case_studies", "robotic_arm", name, name=f"arm_{name[:-3]}_script")


def _frozen(prob, values, t1, t2):
    k = prob.controller.usubs({k: np.asarray(v, float) for k, v in values.items()})
    k = k.usubs({"t1": t1, "t2": t2})
    return control.ss(k.A, k.B, k.C, k.D)


def test_surface_from_lti_gives_back_the_controller_everywhere():
    sc = _script("scheduled_continuation.py")
    prob = arm_lpv_tuning_problem()
    with open(os.path.join(STUDY, "checkpoints", "arm_lpv_soft_phase.json")) as fh:
        stored = json.load(fh)["values"]
    t1, t2 = np.tan(np.radians([45.0, 135.0]) / 2)
    k = _frozen(prob, stored, t1, t2)
    values = sc.surface_from_lti(k.A, k.B, k.C, k.D)
    w = 1j * np.logspace(-2, 3, 7)
    ref = k(w)
    for a, b in [(0.45, 0.5), (1.0, 2.4), (t1, t2)]:
        got = _frozen(prob, values, a, b)(w)
        assert np.max(np.abs(got - ref)) <= 1e-10 * np.max(np.abs(ref))


@pytest.mark.slow  # imports active_set_driver (builds its screen grid)
def test_samples_at_is_nominal_and_the_32_vertices():
    sc = _script("scheduled_continuation.py")
    els = arm_lpv_tuning_problem().closed_loop.uncertainty
    pts = sc.samples_at((60.0, 100.0))
    assert len(pts) == 33
    assert len({tuple(sorted(p.items())) for p in pts}) == 33
    for p in pts:
        assert p["t1"] == pytest.approx(np.tan(np.radians(30.0)))
        assert p["t2"] == pytest.approx(np.tan(np.radians(50.0)))
    for p in pts[1:]:
        for n in sc.PHYSICAL:
            assert p[n] in (pytest.approx(els[n].range[0]), pytest.approx(els[n].range[1]))


@pytest.mark.slow
def test_lowgain_checkpoint_worst_recorded_point():
    cd = _script("check_design.py")
    path = os.path.join(STUDY, "checkpoints", "arm_lpv_lowgain_minmax.json")
    with open(path) as fh:
        record = json.load(fh)
    assert "NOT certified" in record["provenance"] and "NOT met" in record["provenance"]
    # the recorded worst point: theta1 = 90 deg, the 21 x 21 grid level of theta2 at 63.1 deg
    t1, t2 = 1.0, 0.6142135623730951
    r = cd.check(record["values"], grid=1, n_random=0, ranges=((t1, t1), (t2, t2)))
    assert r["loops"] == 33 and r["unstable"] == 0
    assert r["gamma1"] == pytest.approx(1.8350, abs=1e-4)
    worst = {"t1": t1, "t2": t2, "m1": 3.6, "J1": 0.24, "rho1": 0.36, "L2": 0.8, "m3": 4.0}
    assert r["where1"] == pytest.approx(worst)
