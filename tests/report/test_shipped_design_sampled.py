"""The shipped arm design, sampled independently of its certificates (slow).

The shipped evidence certifies, over the whole (t1, t2) square and the +-20 % box of the
five physical parameters, robust stability and a level per channel (``meta.json`` of each
evidence folder).  Here the design is checked without any of that machinery: plant and
controller substituted separately at a dense (t1, t2) grid (edges included) and at the
nominal point, the 32 vertices and random points of the five parameters, the
error-feedback loop closed by python-control, stability from the eigenvalues and the peak
gains by SLICOT AB13DD (``control.norm``).  No sampled loop may be unstable or exceed a
certified level; a sample above it would make the certificate false.
"""

import itertools
import json

import control
import numpy as np
import pytest

from robustmb.examples import arm_lpv_tuning_problem
from robustmb.report.arm_certificate import evidence_folders, load_shipped_design

PHYSICAL = ["m1", "J1", "rho1", "L2", "m3"]


def _levels():
    out = {}
    for channel, folder in evidence_folders().items():
        with open(f"{folder}/meta.json") as fh:
            out[channel] = json.load(fh)["gamma"]
    return out


@pytest.mark.slow
def test_no_sampled_loop_exceeds_the_certified_levels():
    levels = _levels()
    assert set(levels) == {"tracking", "effort"}
    prob = arm_lpv_tuning_problem()
    els = prob.closed_loop.uncertainty
    values = load_shipped_design()["values"]
    ctrl = prob.controller.usubs({k: np.asarray(v, float) for k, v in values.items()})
    we2 = control.append(control.ss(prob.We), control.ss(prob.We))
    eye = control.ss([], [], [], np.eye(2))
    verts = [
        {n: float(els[n].range[i]) for n, i in zip(PHYSICAL, idx, strict=True)}
        for idx in itertools.product((0, 1), repeat=5)
    ]
    rng = np.random.default_rng(7)
    rand = [{n: float(rng.uniform(*els[n].range)) for n in PHYSICAL} for _ in range(4)]
    points = [{n: float(els[n].nominal) for n in PHYSICAL}, *verts, *rand]
    grid = [np.linspace(*els[n].range, 9) for n in ("t1", "t2")]
    worst = {"tracking": 0.0, "effort": 0.0}
    loops = 0
    for t1, t2 in itertools.product(*grid):
        sched = {"t1": float(t1), "t2": float(t2)}
        k = ctrl.usubs(sched)
        for pt in points:
            g = prob.plant.usubs(sched | pt)
            s = control.feedback(eye, control.series(k, g))  # (I + G K)^-1
            loops += 1
            assert np.max(np.linalg.eigvals(s.A).real) < 0, (sched, pt)
            worst["tracking"] = max(worst["tracking"], control.norm(control.series(s, we2), "inf"))
            worst["effort"] = max(
                worst["effort"], control.norm(control.series(s, k), "inf") * prob.WT
            )
    assert loops == 81 * 37
    for channel, level in levels.items():
        assert worst[channel] < level, (channel, worst[channel], level)
    # the samples are realised values: with a certificate at most a few % above them,
    # they bracket the worst case
    print({c: (round(worst[c], 4), levels[c]) for c in levels})
