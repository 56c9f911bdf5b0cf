"""The arm's stored soft-phase design, as the case study loads it (no tuning).

``case_studies/robotic_arm/lpv_synthesis.py --design`` evaluates the goals on the stored
active set through the LFT of the whole closed loop (``usubs`` then ``hinfnorm``).  Here
the same values are recomputed by a second route: plant and controller substituted
separately, the error-feedback loop closed by python-control and the norms by SLICOT
AB13DD (``control.norm``).  The samples are the three the driver's screen added last
(its worst ``||W_e S||``, recorded in the file) and the nominal point.
"""

import json
import os

import control
import numpy as np
import pytest
from _scripts import load_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUDY = os.path.join(ROOT, "case_studies", "robotic_arm")
DESIGN = os.path.join(STUDY, "checkpoints", "arm_lpv_soft_phase.json")


def load_synthesis_script():
    return load_script(
        "case_studies", "robotic_arm", "lpv_synthesis.py", name="arm_lpv_synthesis_script"
    )


def python_control_values(prob, values, pts):
    """Worst ``||W_e S||`` and ``||W_T K S||`` at ``pts``: python-control loops, AB13DD."""
    ctrl = prob.controller.usubs({k: np.asarray(v, float) for k, v in values.items()})
    we2 = control.append(control.ss(prob.We), control.ss(prob.We))
    eye = control.ss([], [], [], np.eye(2))
    g1 = g2 = 0.0
    for pt in pts:
        k = ctrl.usubs({"t1": pt["t1"], "t2": pt["t2"]})
        s = control.feedback(eye, control.series(k, prob.plant.usubs(pt)))  # (I + G K)^-1
        assert np.max(np.linalg.eigvals(s.A).real) < 0
        g1 = max(g1, control.norm(control.series(s, we2), "inf"))
        g2 = max(g2, control.norm(control.series(s, k), "inf") * prob.WT)
    return g1, g2


def test_stored_soft_phase_design_values_by_two_routes():
    script = load_synthesis_script()
    design, record, prob = script.load_design(DESIGN)
    assert sorted(design.controller.blocks) == ["t1", "t2"]
    assert design.controller.input_names == ["e1", "e2"]
    pts = [record["active_set"][0], *record["active_set"][-3:]]
    g1, g2 = script.active_set_values(prob, design.values, pts)
    h1, h2 = python_control_values(prob, design.values, pts)
    assert g1 == pytest.approx(h1, rel=1e-6)
    assert g2 == pytest.approx(h2, rel=1e-6)
    # the screen's worst value recorded in the file (the driver's own evaluation route)
    assert g1 == pytest.approx(record["checks"]["driver_screen"]["gamma1"], abs=1e-4)
    assert g1 < 1.0
    with open(DESIGN) as fh:
        assert json.load(fh)["certified"] is None  # sampled only: no certificate recorded


def test_shipped_design_gets_the_rechecked_levels_of_whole_square_certificates(
    tmp_path, monkeypatch
):
    """The certified column of ``--design`` for the shipped design comes from the replay
    of its evidence, a level only where the re-checked evidence covers the whole square;
    another design gets None (and no replay)."""
    from robustmb.report import arm_certificate

    script = load_synthesis_script()
    calls = []

    def fake_demo(out):
        calls.append(out)
        return {
            "channels": {
                "tracking W_e S": {"certified_coverage_exact": "1", "certified_level": 1.0},
                "effort W_T K S": {"certified_coverage_exact": "63/64", "certified_level": 10.3},
            }
        }

    monkeypatch.setattr(arm_certificate, "certified_demo", fake_demo)
    with open(os.path.join(STUDY, "checkpoints", "arm_lpv_guarded.json")) as fh:
        shipped = json.load(fh)["values"]
    cert = script.rechecked_certificates(shipped, tmp_path / "c")
    assert cert["gamma1"] == 1.0 and "gamma2" not in cert  # 63/64 covered: no level
    assert calls == [str(tmp_path / "c")] and "re-checked" in cert["note"]
    with open(DESIGN) as fh:
        other = json.load(fh)["values"]
    assert script.rechecked_certificates(other, tmp_path / "d") is None
    assert len(calls) == 1
