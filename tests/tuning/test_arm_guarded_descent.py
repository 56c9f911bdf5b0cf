"""The local model of the arm's screen-guarded descent (``guarded_descent.py``).

* ``Loop.evaluate`` (closed loop assembled from the surface's blocks, AB13DD plus a zoomed
  grid) against python-control loops of the substituted plant and controller with
  ``control.norm`` (``gamma2_floor.verify``), on the stored design.
* ``Loop.piece``: the analytic gradient of the largest singular value of ``W_e S`` and
  ``W_T K S`` at a fixed frequency against central finite differences.
* ``Loop.pole_pieces``: the gradient of the closed-loop poles' real parts against finite
  differences of the eigenvalues.
* The stored design ``checkpoints/arm_lpv_guarded.json`` (sampled, not certified): its
  recorded check lies below the earlier stored design's, and its recorded worst loops and a
  3 x 3 (t1, t2) x 33 sample of its loops, rebuilt with python-control, stay within it.
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
def gd():
    return arm_script("guarded_descent.py")


@pytest.fixture(scope="module")
def x(gd):
    return gd.load_x(os.path.join(ARM_STUDY, "checkpoints", "arm_lpv_stacked.json"))


def _points(gd):
    pts = gd.grid_points(3)
    # the stored design's worst gamma2 (90, 135) deg, all low, and a spread of others
    worst = gd.grid_points(2, levels=[(-1,) * 5])[-1]
    return [worst] + pts[::23]


def test_evaluate_matches_python_control(gd, x):
    floor = arm_script("gamma2_floor.py")
    vals = {k: np.asarray(v) for k, v in gd.values_of(x).items()}
    ctrl = gd.PROB.controller.usubs(vals)
    for p in _points(gd):
        k = ctrl.usubs({"t1": p["t1"], "t2": p["t2"]})
        g = gd.PROB.plant.usubs(p)
        ref = floor.verify(control.ss(g.A, g.B, g.C, g.D), control.ss(k.A, k.B, k.C, k.D))
        g1, g2, mr, _, _ = gd.Loop(p).evaluate(x)
        assert mr == pytest.approx(ref[2], rel=1e-9, abs=1e-9)
        assert g1 == pytest.approx(ref[0], rel=1e-6)
        assert g2 == pytest.approx(ref[1], rel=1e-6)


@pytest.mark.parametrize("which", [1, 2])
def test_piece_gradient(gd, x, which):
    rng = np.random.default_rng(7)
    for p in _points(gd)[:4]:
        lp = gd.Loop(p)
        for w in (0.05, 2.0, 60.0):
            _, g = lp.piece(x, which, w)
            dx = rng.standard_normal(x.size) * 1e-5 * np.maximum(np.abs(x), 1)
            fd = (lp.piece(x + dx, which, w)[0] - lp.piece(x - dx, which, w)[0]) / 2
            assert g @ dx == pytest.approx(fd, rel=1e-4, abs=1e-12)


def test_pole_gradient(gd, x):
    rng = np.random.default_rng(8)
    lp = gd.Loop(_points(gd)[1])
    pieces = lp.pole_pieces(x, -np.inf)
    lam0 = np.linalg.eigvals(lp.mats(x)[0])
    dx = rng.standard_normal(x.size) * 1e-6 * np.maximum(np.abs(x), 1)
    lam1 = np.linalg.eigvals(lp.mats(x + dx)[0])
    lam2 = np.linalg.eigvals(lp.mats(x - dx)[0])
    # match each eigenvalue to its perturbed neighbours (distinct poles here)
    for v, g in pieces:
        k0 = np.argmin(np.abs(lam0.real - v))
        l1 = lam1[np.argmin(np.abs(lam1 - lam0[k0]))]
        l2 = lam2[np.argmin(np.abs(lam2 - lam0[k0]))]
        assert g @ dx == pytest.approx((l1.real - l2.real) / 2, rel=1e-3, abs=1e-10)


def _loop(prob, ctrl, pt):
    k = ctrl.usubs({"t1": pt["t1"], "t2": pt["t2"]})
    g = prob.plant.usubs(pt)
    return control.ss(g.A, g.B, g.C, g.D), control.ss(k.A, k.B, k.C, k.D)


def test_guarded_checkpoint(gd):
    floor = arm_script("gamma2_floor.py")
    folder = os.path.join(ARM_STUDY, "checkpoints")
    with open(os.path.join(folder, "arm_lpv_guarded.json")) as fh:
        d = json.load(fh)
    with open(os.path.join(folder, "arm_lpv_stacked.json")) as fh:
        before = json.load(fh)["checks"]["grid21x21x39"]
    assert d["provenance"].startswith("NOT a certified design")
    rec = d["checks"]["grid21x21x39"]
    assert rec["loops"] == 21 * 21 * 39 and rec["unstable"] == 0 and rec["max_pole_real"] < 0
    assert rec["gamma1"] < 1 and rec["gamma2"] < before["gamma2"]
    prob = gd.PROB
    ctrl = prob.controller.usubs({k: np.asarray(v, float) for k, v in d["values"].items()})
    # the recorded worst loops reproduce their values
    for key, i in (("where1", 0), ("where2", 1)):
        val = floor.verify(*_loop(prob, ctrl, rec[key]))[i]
        assert val == pytest.approx(rec[f"gamma{i + 1}"], rel=1e-6)
    # a sample of the checked grid (its corners and mid-lines) stays within the record
    for pt in gd.grid_points(3):
        g1, g2, mr = floor.verify(*_loop(prob, ctrl, pt))
        assert mr < 0
        assert g1 <= rec["gamma1"] * (1 + 1e-6) and g2 <= rec["gamma2"] * (1 + 1e-6)


def test_accept_rule_of_both_phases(gd):
    """Descent phase: lower gamma2 within the hard goal; feasibility phase (the reference
    gamma1 above ``--g1-max``): lower gamma1 with gamma2 under the cap; never a loop less
    stable than ``--decay``."""
    from types import SimpleNamespace

    a = SimpleNamespace(g1_max=0.99, decay=-0.3, g2_cap=4.0)

    def sc(g1, g2, mr=-0.5):
        return {"g1": np.array([g1, 0.1]), "g2": np.array([g2, 0.1]), "mr": np.array([mr, -1])}

    assert gd.accept(sc(0.98, 9.0), a, 0.97, 10.0)  # lower gamma2, hard goal met
    assert not gd.accept(sc(0.995, 9.0), a, 0.97, 10.0)  # hard goal lost
    assert not gd.accept(sc(0.98, 10.0), a, 0.97, 10.0)  # gamma2 not lower
    assert gd.accept(sc(1.5, 3.9), a, 1.6, 2.8)  # feasibility: gamma1 down, under the cap
    assert not gd.accept(sc(1.5, 4.1), a, 1.6, 2.8)  # over the cap
    assert not gd.accept(sc(1.6, 3.0), a, 1.6, 2.8)  # gamma1 not lower
    assert not gd.accept(sc(1.5, 3.0, mr=-0.2), a, 1.6, 2.8)  # a pole above the decay bound
    assert gd.accept(sc(1.5, 30.0), SimpleNamespace(g1_max=0.99, decay=-0.3, g2_cap=None),
                     1.6, 2.8)  # fmt: skip
