"""The two case studies run end to end and write their figures (slow: about 15 s each)."""

import numpy as np
import pytest
from _scripts import load_script


def _load(name):
    return load_script("case_studies", name, "run.py", name=f"case_study_{name}")


@pytest.mark.slow
def test_gravimeter_case_study_runs_and_writes_figures(tmp_path):
    out = _load("gravimeter").main(tmp_path)
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert {
        "gershgorin_radii.png",
        "rga_number.png",
        "transmissibility.png",
        "robust_coupling.png",
        "svd_damping.png",
        "jacobian_frames.png",
    } <= set(pngs)
    assert all((tmp_path / p).stat().st_size > 10_000 for p in pngs)
    assert out["stable"] == (True, True) and out["moved_stable"] == (True, True)
    np.testing.assert_allclose(out["G0_cen"], [3.9613e4, 3.9242e4, 1.1034e4], rtol=1e-3)


@pytest.mark.slow
def test_stewart_case_study_runs_and_writes_figures(tmp_path):
    out = _load("stewart_platform").main(tmp_path)
    pngs = {p.name for p in tmp_path.glob("*.png")}
    assert {"gershgorin_radii.png", "transmissibility.png", "robust_coupling.png"} <= pngs
    assert out["stable"] == (True, True)
    assert out["table17_error"] < 5e-3
    assert -7e-3 < out["z_fit"] < -5e-3
