"""``robustmb report --step OUTPUTS:INPUTS --loop MODULE:FUNCTION``: step responses and margins."""

import json
import textwrap

import numpy as np
import pytest

from robustmb.cli import load_loop, main, parse_step
from robustmb.errors import ArgumentError

MODULE = textwrap.dedent(
    """
    import control
    import robustmb as rmb

    s = control.tf("s")
    c = rmb.ureal("c", 1.0, range=(0.8, 1.2))


    def loop_transfer():
        L = rmb.uss(1 / (s * s + c * s))
        L.input_names, L.output_names = ["e"], ["y"]
        return L


    def closed():
        T = rmb.feedback(loop_transfer(), 1.0)
        T.input_names, T.output_names = ["r"], ["y"]
        return T


    def pair():
        return rmb.uss(1 / (s + c)), control.tf([1.0], [1.0, 0.0])


    def number():
        return 42
    """
)


@pytest.fixture
def module_file(tmp_path):
    path = tmp_path / "loops_for_cli.py"
    path.write_text(MODULE)
    return path


def test_step_and_loop_reach_the_report(module_file, tmp_path):
    out = tmp_path / "rep"
    argv = ["report", f"{module_file}:closed", "--step", "y:r", "--loop"]
    argv += [f"{module_file}:loop_transfer", "--loop-description", "at the plant input"]
    assert main(argv + ["--samples", "0", "--quiet", "--out", str(out)]) == 0
    data = json.loads((out / "summary.json").read_text())
    step = data["step_response"]
    assert (step["outputs"], step["inputs"]) == (["y"], ["r"])
    # T = 1/(s^2 + s + 1) nominally: damping 0.5, overshoot exp(-pi z / sqrt(1 - z^2))
    z = 0.5
    (m,) = step["metrics"]
    assert m["overshoot_nominal"] == pytest.approx(
        100 * np.exp(-np.pi * z / np.sqrt(1 - z * z)), rel=1e-2
    )
    margins = data["loop_margins"]
    assert margins["loop"] == "at the plant input"
    # balanced disk margin 1 / max |S - 1/2| = 2 / max |S - T|, S - T = (s^2 + s - 1)/(s^2 + s + 1)
    jw = 1j * np.logspace(-3, 3, 200001)
    alpha = 2 / np.max(np.abs((jw**2 + jw - 1) / (jw**2 + jw + 1)))
    assert margins["nominal"]["disk_margin"] == pytest.approx(alpha, rel=1e-4)
    assert margins["worst_case"]["disk_margin"] <= margins["nominal"]["disk_margin"] * (1 + 1e-9)


def test_loop_may_be_a_pair_and_must_be_systems(module_file, capsys):
    P, C = load_loop(f"{module_file}:pair")
    assert P.blocks == {"c": 1} and C.ninputs == 1
    code = main(["report", f"{module_file}:closed", "--loop", f"{module_file}:number", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and "returned int; expected the loop transfer L" in err


def test_parse_step_and_bad_step_is_a_usage_error(module_file, capsys):
    assert parse_step(" a , b : c ") == (["a", "b"], ["c"])
    for bad in ("y", "y:", ":r"):
        with pytest.raises(ArgumentError, match="--step: expected OUT1,OUT2:IN1,IN2"):
            parse_step(bad)
    with pytest.raises(SystemExit) as exit_info:
        main(["report", f"{module_file}:closed", "--step", "y"])
    assert exit_info.value.code == 2 and "OUT1,OUT2:IN1,IN2" in capsys.readouterr().err
