"""Bad arguments are named before any analysis runs; ``python -m robustmb`` is the command."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import control
import pytest

import robustmb as rmb
from robustmb.cli import main
from robustmb.errors import ArgumentError, SignalError
from robustmb.report import worst_case

ROOT = Path(__file__).resolve().parents[1]

MODULE = textwrap.dedent(
    """
    import control
    import robustmb as rmb

    def closed():
        c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
        s = control.tf("s")
        T = rmb.uss(1 / (s * s + c * s + 1))
        T.input_names, T.output_names = ["r"], ["x"]
        return T
    """
)


def _loop():
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    T = rmb.uss(1 / (s * s + c * s + 1))
    T.input_names, T.output_names = ["r"], ["x"]
    return T


@pytest.fixture
def no_analysis(monkeypatch):
    """Fail the test if the long analyses start."""

    def must_not_run(*args, **kwargs):
        raise AssertionError("an analysis ran before the argument was checked")

    for name in ("robstab", "wcgain", "wcdiskmargin"):
        monkeypatch.setattr(worst_case, name, must_not_run)


@pytest.mark.parametrize(
    ("step", "match"),
    [
        ((["y"], ["r"]), r"^step: unknown output 'y'; the system's outputs are \['x'\]"),
        ((["x"], ["u"]), r"^step: unknown input 'u'"),
        ("y", r"^step: expected \(outputs, inputs\), got 'y'"),
    ],
)
def test_bad_step_is_named_before_the_analysis(no_analysis, step, match):
    with pytest.raises(SignalError, match=match):
        worst_case.worst_case_analysis(_loop(), {}, n_samples=0, step=step)


@pytest.mark.parametrize("loop", ["abc", (1, 2, 3), 3.0])
def test_loop_that_is_not_a_system_is_named_before_the_analysis(no_analysis, loop):
    with pytest.raises(ArgumentError, match="^loop"):
        worst_case.worst_case_analysis(_loop(), {}, n_samples=0, loop=loop)


@pytest.mark.parametrize("n", [True, False, -1, 2.0])
def test_n_samples_must_be_an_integer(no_analysis, n):
    with pytest.raises(ArgumentError, match="^n_samples"):
        worst_case.worst_case_analysis(_loop(), {}, n_samples=n)


def test_cli_step_typo_is_named_before_the_analysis(tmp_path, no_analysis, capsys):
    path = tmp_path / "loops_early.py"
    path.write_text(MODULE)
    argv = ["report", f"{path}:closed", "--step", "y:r", "--samples", "0", "--quiet"]
    assert main(argv + ["--out", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err
    assert "--step: unknown output 'y'; the system's outputs are ['x']" in err
    assert not (tmp_path / "rep").exists()


def test_python_dash_m_robustmb_runs_the_command(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run(
        [sys.executable, "-m", "robustmb", "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: robustmb")
    bad = subprocess.run(
        [sys.executable, "-m", "robustmb", "report", "no_such_module_xyz:f"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert bad.returncode == 1 and "no_such_module_xyz" in bad.stderr


def test_cli_channel_named_twice_is_refused_before_the_analysis(tmp_path, no_analysis, capsys):
    path = tmp_path / "loops_twice.py"
    path.write_text(MODULE)
    argv = ["report", f"{path}:closed", "--channel", "a=x:r", "--channel", "a=x:r@2"]
    assert main(argv + ["--samples", "0", "--quiet", "--out", str(tmp_path / "rep")]) == 1
    assert "--channel: each channel needs its own name; 'a' given more than once" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "rep").exists()


@pytest.mark.parametrize(
    ("channels", "match"),
    [
        ({"a": (["x", "x"], ["r"])}, "^channel 'a': output 'x' is given more than once"),
        ({"a": (["x"], ["r", 0])}, "^channel 'a': input 'r' is given more than once"),
    ],
)
def test_repeated_signal_of_a_channel_is_refused(no_analysis, channels, match):
    # [x; x] would report sqrt(2) times the peak gain of x
    with pytest.raises(SignalError, match=match):
        worst_case.worst_case_analysis(_loop(), channels, n_samples=0)


def test_channel_names_equal_as_text_are_refused(no_analysis):
    with pytest.raises(ArgumentError, match="^channels: two channels are named '1'"):
        worst_case.worst_case_analysis(_loop(), {1: ("x", "r"), "1": ("x", "r")}, n_samples=0)


def test_out_dir_under_a_file_is_refused_before_the_analysis(tmp_path, no_analysis):
    from robustmb.report import worst_case_report

    (tmp_path / "file").write_text("not a folder")
    out = tmp_path / "file" / "rep"
    with pytest.raises(ArgumentError, match="^out_dir .* cannot be created: .* is not a folder"):
        worst_case_report(_loop(), {}, out_dir=out, n_samples=0)


def test_demo_out_under_a_file_is_refused_before_the_demo(tmp_path, monkeypatch, capsys):
    from robustmb.cli import demo_jobs

    def must_not_run(*args, **kwargs):
        raise AssertionError("the demo ran before --out was checked")

    monkeypatch.setattr(demo_jobs, "_demo_certified", must_not_run)
    monkeypatch.setattr(demo_jobs, "_demo_frozen_configuration", must_not_run)
    (tmp_path / "file").write_text("not a folder")
    for out, why in ((tmp_path / "file", "exists and is not a folder"),
                     (tmp_path / "file" / "rep", "cannot be created")):  # fmt: skip
        for flags in ([], ["--frozen"]):
            assert main(["demo", *flags, "--quiet", "--out", str(out)]) == 1
            assert f"--out {str(out)!r} {why}" in capsys.readouterr().err


def _two_outputs_named_e():
    """[S1; S2] with both outputs named "e": S1 = 1 / (1 + L), S2 = 1 / (1 + 2 L)."""
    k = rmb.ureal("k", 10.0, percent=30)
    s = control.tf("s")
    L = k / (s * (s + 1))
    T = rmb.vstack(rmb.feedback(1, L), rmb.feedback(1, 2 * L))
    T.input_names, T.output_names = ["r"], ["e", "e"]
    return T


@pytest.mark.parametrize(
    ("channels", "where"),
    [
        (None, "the default channel"),
        ({"a": ("e", "r")}, "channel 'a'"),
        ({"a": (1, "r")}, "channel 'a'"),
    ],
)
def test_signal_name_carried_by_two_outputs_is_refused(no_analysis, channels, where):
    # selected by name, "e" is the first output each time: the default channel was
    # [S1; S1], whose peak sqrt(2) max|S1| = 4.740 is not that of [S1; S2], 4.963
    with pytest.raises(SignalError, match=f"^{where}: the system has 2 outputs named 'e'"):
        worst_case.worst_case_analysis(_two_outputs_named_e(), channels, n_samples=0)
