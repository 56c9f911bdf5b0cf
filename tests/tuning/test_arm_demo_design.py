"""``robustmb demo --lpv --design PATH``: a stored scheduled design instead of tuning.

The loading is checked against the surface formula evaluated by hand (``M = M0 + M1 s1 +
M2 s2`` with ``s_i`` the normalised ``t_i``, ``K(s) = 100 (D + C (sI - A)^-1 B)`` with the
tuning problem's output scale 100), against the tuning problem's own controller
(``arm_lpv_tuning_problem().controller``, the route of the case study and of the stored
designs' checks), and the loaded loop must be stable at the nominal point (the stored
design is, on every grid it was checked on).  Bad paths or files end with a one-line
error naming the file or key at fault.
"""

import json
import os

import numpy as np
import pytest

from robustmb.cli import main
from robustmb.errors import ArgumentError, DimensionError
from robustmb.examples import arm_lpv_tuning_problem
from robustmb.report.arm_lpv import arm_lpv_loop, load_arm_design, scheduling_elements

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STORED = os.path.join(ROOT, "case_studies", "robotic_arm", "checkpoints", "arm_lpv_hard.json")


@pytest.mark.slow
def test_stored_design_matches_the_surface_formula():
    design = load_arm_design(STORED)
    with open(STORED) as fh:
        values = {k: np.asarray(v) for k, v in json.load(fh)["values"].items()}
    assert design.certificates == {}
    assert "arm_lpv_hard.json" in design.method
    prob = arm_lpv_tuning_problem()
    reference = prob.controller.usubs(values)
    t1, t2 = scheduling_elements()
    n = values["K.M0"].shape[0] - 2
    for s1, s2 in ((-1.0, -1.0), (0.3, -0.7), (1.0, 1.0)):
        M = values["K.M0"] + s1 * values["K.M1"] + s2 * values["K.M2"]
        A, B, C, D = M[:n, :n], M[:n, n:], M[n:, :n], M[n:, n:]
        point = {
            "t1": t1.center + s1 * t1.half_width,
            "t2": t2.center + s2 * t2.half_width,
        }
        K = design.controller.usubs(point)
        Kref = reference.usubs(point)
        for w in (0.0, 0.7, 83.0):
            expected = 100.0 * (D + C @ np.linalg.solve(1j * w * np.eye(n) - A, B))
            tol = dict(rtol=1e-9, atol=1e-9 * np.abs(expected).max())
            np.testing.assert_allclose(np.asarray(K(1j * w)), expected, **tol)
            np.testing.assert_allclose(np.asarray(Kref(1j * w)), expected, **tol)
    loop, _ = arm_lpv_loop(design.controller)
    assert np.max(np.asarray(loop.nominal().poles()).real) < 0


def test_bad_design_files_give_clear_errors(tmp_path):
    with pytest.raises(ArgumentError, match="no file"):
        load_arm_design(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ArgumentError, match="not a JSON file"):
        load_arm_design(bad)
    m0 = np.eye(5).tolist()
    part = tmp_path / "part.json"
    part.write_text(json.dumps({"values": {"K.M0": m0, "K.M2": m0}}))
    with pytest.raises(ArgumentError, match=r"values\['K.M1'\]"):
        load_arm_design(part)
    shape = tmp_path / "shape.json"
    shape.write_text(json.dumps({"values": {"K.M0": m0, "K.M1": np.eye(4).tolist(), "K.M2": m0}}))
    with pytest.raises(DimensionError, match=r"K.M1.*shape \(4, 4\)"):
        load_arm_design(shape)


def test_cli_design_errors(tmp_path, capsys):
    missing = str(tmp_path / "missing.json")
    assert main(["demo", "--lpv", "--design", missing, "--out", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err
    assert "no file" in err and "missing.json" in err and "\n" == err[-1] and err.count("\n") == 1
    assert not (tmp_path / "r").exists()
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--design", missing])
    assert exc.value.code == 2
    assert "--design applies to the --lpv pipeline" in capsys.readouterr().err
