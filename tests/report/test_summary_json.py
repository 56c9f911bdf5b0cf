"""The JSON summary holds every number of the report, equal to direct calls."""

import json

import control
import numpy as np
import pytest
from conftest import MIMO_CHANNELS

from robustmb.analysis.norms import hinfnorm
from robustmb.analysis.robust_stability import robstab
from robustmb.report.summary_data import jsonable


def _num(x):
    """Inverse of the JSON encoding of non-finite floats."""
    return {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}.get(x, x) if isinstance(x, str) else x


def test_robust_stability_numbers_equal_a_direct_call(mimo, mimo_report):
    data = json.loads(mimo_report.json_path.read_text())
    direct = robstab(mimo)
    rs = data["robust_stability"]
    assert (_num(rs["lower"]), _num(rs["upper"]), _num(rs["critical_frequency"])) == (
        direct.lower,
        direct.upper,
        direct.critical_frequency,
    )
    assert rs["certified"] == direct.certified
    assert rs["destabilizing"] == jsonable(direct.destabilizing)
    assert rs["sensitivity"] == direct.sensitivity
    assert rs["mu"]["mu_upper"] == direct.mu.mu_upper.tolist()
    assert rs["mu"]["mu_lower"] == direct.mu.mu_lower.tolist()
    assert rs["mu"]["omega"] == direct.mu.omega.tolist()
    assert rs["mu"]["intervals"] == [list(iv) for iv in jsonable(direct.mu.intervals)]
    # the destabilising values do put a pole on the imaginary axis
    poles = mimo.usubs(direct.destabilizing).poles()
    assert abs(max(poles.real)) < 1e-6 * max(1.0, max(abs(poles)))


def test_channel_numbers_and_worst_case_values(mimo, mimo_report):
    data = json.loads(mimo_report.json_path.read_text())
    ((name, (outs, ins)),) = MIMO_CHANNELS.items()
    (entry,) = data["channels"]
    wc = mimo_report.analysis.channels[0].wcgain
    assert (entry["name"], entry["outputs"], entry["inputs"]) == (name, outs, ins)
    got = entry["worst_case"]
    assert (_num(got["lower"]), _num(got["upper"]), _num(got["critical_frequency"])) == (
        wc.lower,
        wc.upper,
        wc.critical_frequency,
    )
    assert got["worst"] == jsonable(wc.worst) and got["certified"] == wc.certified
    # the worst case is realised: the substituted channel's peak gain is the lower bound
    sub = mimo[outs, ins]
    assert hinfnorm(sub.usubs(got["worst"]))[0] == pytest.approx(got["lower"], rel=1e-6)
    assert entry["nominal_peak"] == pytest.approx(hinfnorm(sub.nominal())[0], rel=1e-8)


def test_monte_carlo_samples_recomputed_independently(mimo, mimo_report):
    data = json.loads(mimo_report.json_path.read_text())
    mc = data["monte_carlo"]
    assert mc["n_samples"] == 12 and mc["seed"] == 1 and mc["n_unstable"] == 0
    _, values = mimo.usample(12, seed=1)
    assert mc["values"] == jsonable(values)
    (entry,) = data["channels"]
    upper = _num(entry["worst_case"]["upper"])
    w = np.logspace(-2, 3, 3000)
    for k in (0, 5, 11):
        sub = mimo[entry["outputs"], entry["inputs"]].usubs(mc["values"][k])
        resp = control.frequency_response(sub, w).frdata  # (ny, nu, nw)
        grid_peak = np.linalg.svd(np.moveaxis(resp, -1, 0), compute_uv=False)[:, 0].max()
        assert entry["sampled_peaks"][k] == pytest.approx(grid_peak, rel=1e-3)
        assert entry["sampled_peaks"][k] <= upper * (1 + 1e-9)
        assert mc["abscissa"][k] == pytest.approx(max(sub.poles().real), abs=1e-9)
    for vals in mc["values"]:
        for pname, v in vals.items():
            lo, hi = data["parameters"][pname]["range"]
            assert lo <= v <= hi
    assert data["checks"] and all(c["passed"] for c in data["checks"])


def test_summary_is_strict_json(mimo_report):
    text = mimo_report.json_path.read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    data = json.loads(text)
    assert data["system"]["inputs"] == ["r1", "r2"] and data["system"]["nstates"] == 2
    assert set(data["parameters"]) == {"k", "a"}
    assert data["parameters"]["k"] == {
        "kind": "real",
        "occurrences": 1,
        "nominal": 2.0,
        "range": pytest.approx([1.4, 2.6]),
    }


def test_jsonable_encodes_special_values():
    ss = control.ss([[-1.0]], [[1.0]], [[2.0]], [[0.0]])
    out = jsonable(
        {
            "x": [np.inf, -np.inf, np.nan, 1.5],
            "z": 1 - 2j,
            "sys": ss,
            "flag": np.bool_(True),
            "n": np.int64(3),
        }
    )
    back = json.loads(json.dumps(out, allow_nan=False))
    assert back["x"] == ["inf", "-inf", "nan", 1.5]
    assert back["z"] == {"re": 1.0, "im": -2.0}
    assert back["sys"]["A"] == [[-1.0]] and back["sys"]["C"] == [[2.0]]
    assert back["flag"] is True and back["n"] == 3
    with pytest.raises(TypeError, match="object"):
        jsonable(object())
