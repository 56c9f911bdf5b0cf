"""The two multibody case studies run end to end and write their figures (slow: a few s each)."""

import numpy as np
import pytest
from _scripts import load_script


def _load(name):
    return load_script("case_studies", name, "run.py", name=f"case_study_{name}")


def _figures(path, names):
    pngs = {p.name for p in path.glob("*.png")}
    assert set(names) <= pngs
    assert all((path / n).stat().st_size > 10_000 for n in names)


@pytest.mark.slow
def test_balloon_case_study_runs_and_writes_figures(tmp_path):
    out = _load("balloon").main(tmp_path, t_end=10.0)
    _figures(tmp_path, ["dof.png", "energy.png"])
    # Digest 001 gives E(0) = -106.8422 J for the Table 1 state.
    np.testing.assert_allclose(out["energy0"], -106.8422, atol=1e-4)
    # Zero damping: energy conserved; buoyancy = weight and zero momentum: CoM at rest.
    assert out["energy_drift_rel"] < 1e-6
    assert out["com_motion"] < 1e-8
    pytest.importorskip("pinocchio")
    _figures(tmp_path, ["error_vs_pinocchio.png"])
    assert out["pinocchio_error"] < 1e-8


@pytest.mark.slow
def test_lin_yae_case_study_runs_and_writes_figures(tmp_path):
    out = _load("lin_yae").main(tmp_path)
    _figures(tmp_path, ["small_deviation.png", "large_deviation.png", "linearisation_cost.png"])
    # Lin & Yae Eq. 33 as printed (4-5 significant digits; B with the paper's torque sign).
    eq33_a = [[0, 0, 1, 0], [0, 0, 0, 1], [-5.191, 3.4612, 0, 0], [1.1537, -4.0380, 0, 0]]
    eq33_b = [[0, 0], [0, 0], [-0.0824, 0.0294], [0.0294, -0.0176]]
    np.testing.assert_allclose(out["A"], eq33_a, atol=1e-3)
    np.testing.assert_allclose(out["B"], eq33_b, atol=1e-4)
    # The linear prediction holds for a small deviation and visibly fails for 1 rad.
    assert out["gap_small"] < 1e-4
    assert out["gap_large"] > 1e-2
    assert len(out["t_analytic"]) == len(out["sizes"]) == len(out["t_fd"])
