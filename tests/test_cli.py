"""The robustmb command line: help, the report job, and bad input."""

import contextlib
import io
import json
import subprocess
import sys
import textwrap

import pytest

from robustmb.cli import demo, load_target, main, parse_channel

USER_MODULE = textwrap.dedent(
    """
    import control
    import numpy as np
    import robustmb as rmb


    def loop():
        c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
        s = control.tf("s")
        sys = rmb.uss(1 / (s * s + c * s + 1))
        sys.input_names, sys.output_names = ["r"], ["y"]
        return sys


    def loop_with_channels():
        k = rmb.ureal("k", 2.0, percent=30)
        plant = rmb.uss([[-1.0, 0.5], [0.0, -2.0]], [[k, 0.0], [0.3, 1.0]], np.eye(2),
                        np.zeros((2, 2)))
        sys = rmb.feedback(plant, 0.8 * np.eye(2))
        sys.input_names, sys.output_names = ["r1", "r2"], ["e1", "e2"]
        return sys, {"first error": (["e1"], ["r1", "r2"])}


    def certain():
        return control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]])


    def number():
        return 42


    def unstable():
        k = rmb.ureal("k", 1.0, percent=10)
        return rmb.uss(k / (control.tf("s") - 2))


    def broken():
        raise RuntimeError("model data missing")


    def three():
        return loop(), {}, None


    NOT_CALLABLE = 3
    """
)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "user_loops.py").write_text(USER_MODULE)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("user_loops", None)


def _run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "robustmb.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def test_help_on_every_command(capsys):
    for argv, expected in (
        (["--help"], ["demo", "report"]),
        (
            ["demo", "--help"],
            [
                "--samples",
                "--out",
                "--seed",
                "--quiet",
                "--lpv",
                "--quick",
                "--design",
                "--replay",
                "--frozen",
                "with --frozen or --lpv only",
                "[1] model",
                "[4] report",
            ],
        ),
        (["report", "--help"], ["MODULE:FUNCTION", "--channel", "--title"]),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 0
        out = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
        assert all(word in out for word in expected), (argv, out)


def test_the_installed_entry_point_runs():
    res = _run("--help")
    assert res.returncode == 0 and "demo" in res.stdout and "report" in res.stdout


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


@pytest.fixture(scope="module")
def report_run(tmp_path_factory):
    """One ``robustmb report`` run (with its progress bar) shared by the tests below."""
    folder = tmp_path_factory.mktemp("cli_report")
    (folder / "user_loops.py").write_text(USER_MODULE)
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "report",
        f"{folder / 'user_loops.py'}:loop_with_channels",
        "--channel",
        "second=e2:r2@50",
        "--out",
        str(folder / "rep"),
        "--samples",
        "4",
        "--title",
        "T",
    ]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue(), folder / "rep"


def test_report_job_writes_the_report(report_run):
    code, out, _, folder = report_run
    assert code == 0
    data = json.loads((folder / "summary.json").read_text())
    overall = data["robust_performance"]["verdict"]
    assert f"verdict: {overall} (robust stability: robustly stable)" in out
    assert "second: worst-case peak gain" in out
    assert data["verdict"] == overall and data["title"] == "T"
    assert data["robust_stability"]["verdict"] == "robustly stable"
    assert data["monte_carlo"]["n_samples"] == 4
    (ch,) = data["channels"]
    assert ch["specification"] == {"max_peak_gain": 50.0}
    wc = ch["worst_case"]
    expected = "pass" if wc["upper"] <= 50 and wc["certified"] else "inconclusive"
    assert ch["verdict"] == expected and f"spec <= 50: nominal pass, robust {expected}" in out
    html = (folder / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html
    for key in ("overview", "mu_bounds", "singular_values", "margins", "sensitivity"):
        assert (folder / "figures" / f"{key}.png").read_bytes()[:4] == b"\x89PNG"


def test_command_line_channels_replace_the_functions(report_run):
    data = json.loads((report_run[3] / "summary.json").read_text())
    assert [(c["name"], c["outputs"], c["inputs"]) for c in data["channels"]] == [
        ("second", ["e2"], ["r2"])
    ]


def test_progress_bar_goes_to_stderr(report_run):
    _, out, err, _ = report_run
    assert "robustmb report [" in err and "robust stability margin (robstab)" in err
    assert "wcgain" in err and "robustmb report [" not in out


def test_function_may_return_its_channels(user_module):
    system, channels = load_target("user_loops:loop_with_channels")
    assert channels == {"first error": (["e1"], ["r1", "r2"])}
    assert system.input_names == ["r1", "r2"]
    system, channels = load_target(f"{user_module / 'user_loops.py'}:loop")
    assert channels is None and system.output_names == ["y"]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_such_module_xyz:build", "unknown module 'no_such_module_xyz'"),
        ("user_loops:missing", "module 'user_loops' has no function 'missing'"),
        ("user_loops:NOT_CALLABLE", "is a int, not a function"),
        ("user_loops:certain", "returned StateSpace, not an uncertain system"),
        ("user_loops:number", "returned int, not an uncertain system"),
        ("user_loops:broken", "raised RuntimeError: model data missing"),
        ("user_loops:three", "returned a tuple of 3 items"),
        ("user_loops:unstable", "is unstable: poles [2"),
        ("user_loops", "expected MODULE:FUNCTION"),
        ("missing_file.py:loop", "no such file: missing_file.py"),
    ],
)
def test_bad_targets_fail_with_a_clear_message(user_module, capsys, target, message):
    assert main(["report", target, "--out", str(user_module / "r"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("robustmb report: error: ") and message in err
    assert "Traceback" not in err


def test_unknown_channel_signal_is_named(user_module, capsys):
    code = main(
        [
            "report",
            "user_loops:loop",
            "--quiet",
            "--out",
            str(user_module / "r"),
            "--channel",
            "bad=z:r",
        ]
    )
    assert code == 1 and "unknown output 'z'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["report", "user_loops:loop", "--channel", "nonsense"], "NAME=OUT1,OUT2:IN1,IN2"),
        (["demo", "--samples", "-1"], "--samples: must be >= 0"),
        (["demo", "--samples", "many"], "expected an integer"),
        (["demo", "--quick"], "--quick applies to the --lpv pipeline"),
        (["demo", "--design", "d.json"], "--design applies to the --lpv pipeline"),
        (["demo", "--replay", "--lpv"], "--replay runs alone (not with --lpv)"),
        (["demo", "--frozen", "--lpv"], "--frozen runs alone (not with --lpv)"),
        (["demo", "--frozen", "--lpv", "--quick"], "--frozen runs alone (not with --lpv, --quick)"),
        (["demo", "--replay", "--frozen"], "--replay runs alone (not with --frozen)"),
        (["demo", "--frozen", "--design", "d.json"], "--frozen runs alone (not with --design)"),
        (["demo", "--samples", "20"], "--samples applies to --frozen and --lpv"),
        (["demo", "--replay", "--seed", "3"], "--seed applies to --frozen and --lpv"),
        (["demo", "--samples", "5", "--seed", "1"], "--samples and --seed apply to"),
        (["nonsense"], "invalid choice"),
        (["report"], "MODULE:FUNCTION"),
        (["report", "m:f", "--seed", "-1"], "argument --seed: must be >= 0, got -1"),
        (["report", "m:f", "--seed", "x"], "argument --seed: expected an integer, got 'x'"),
        (["demo", "--frozen", "--seed", "-3"], "argument --seed: must be >= 0, got -3"),
    ],
)
def test_bad_arguments_exit_with_usage_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.strip().splitlines()[-1].startswith("robustmb")  # argparse's one-line message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"frozen": True, "lpv": True}, "choose one of lpv, frozen, replay"),
        ({"replay": True, "frozen": True}, "choose one of lpv, frozen, replay"),
        ({"quick": True}, "quick and design apply to the lpv pipeline"),
        ({"frozen": True, "design": "d.json"}, "quick and design apply to the lpv pipeline"),
    ],
)
def test_demo_function_refuses_conflicting_arguments(tmp_path, kwargs, message):
    from robustmb.errors import ArgumentError

    with pytest.raises(ArgumentError, match=message):
        demo(tmp_path, **kwargs)


@pytest.mark.parametrize(
    ("argv", "job", "expected"),
    [
        ([], "_demo_certified", {}),
        (["--replay"], "_demo_certified", {}),  # the former name of the default
        (["--frozen"], "_demo_frozen_configuration", {"n_samples": 100, "seed": 0}),
        (
            ["--frozen", "--samples", "7", "--seed", "3"],
            "_demo_frozen_configuration",
            {"n_samples": 7, "seed": 3},
        ),  # fmt: skip
        (["--lpv", "--quick"], "_demo_lpv", {"n_samples": 20, "seed": 0, "quick": True}),
        (
            ["--lpv", "--samples", "9", "--design", "d.json"],
            "_demo_lpv",
            {"n_samples": 9, "quick": False, "design_path": "d.json"},
        ),  # fmt: skip
    ],
)
def test_demo_flags_choose_the_job(monkeypatch, tmp_path, argv, job, expected):
    """Which demo each flag runs, with which samples (the jobs themselves replaced)."""
    import robustmb.cli.demo_jobs as cli

    calls = []
    for name in ("_demo_certified", "_demo_frozen_configuration", "_demo_lpv"):

        def record(out_dir, n_samples=None, *, _name=name, **kw):
            calls.append((_name, out_dir, {"n_samples": n_samples, **kw}))
            return 0

        monkeypatch.setattr(cli, name, record)
    assert main(["demo", *argv, "--out", str(tmp_path), "--quiet"]) == 0
    ((name, out_dir, kw),) = calls
    assert name == job and out_dir == tmp_path and kw["show_progress"] is False
    assert {k: kw[k] for k in expected} == expected


def test_parse_channel_and_load_target():
    assert parse_channel(" t = a, b : c ") == ("t", ["a", "b"], ["c"], 1.0)
    assert parse_channel("t=a:c@0.25") == ("t", ["a"], ["c"], 0.25)
    for bad in ("t", "t=a", "=a:b", "t=:b", "t=a:"):
        with pytest.raises(ValueError, match="expected NAME="):
            parse_channel(bad)
    for bad in ("t=a:c@x", "t=a:c@0", "t=a:c@-1", "t=a:c@inf", "t=a:c@nan"):
        with pytest.raises(ValueError, match="specification after @"):
            parse_channel(bad)
    system, channels = load_target("robustmb.report.arm_demo:demo_loop")
    assert system.input_names == ["r1", "r2"] and set(channels) == {
        "tracking W_e S",
        "effort W_T K S",
    }


@pytest.mark.slow
def test_demo_frozen_writes_the_frozen_arm_report(tmp_path, capsys):
    assert main(["demo", "--frozen", "--out", str(tmp_path), "--samples", "20", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "robustmb demo --frozen: two-link arm at theta1 = 70 deg" in out and "verdict:" in out
    data = json.loads((tmp_path / "summary.json").read_text())
    assert sorted(data["parameters"]) == ["J1", "L2", "m1", "m3", "rho1"]
    assert [c["name"] for c in data["channels"]] == ["tracking W_e S", "effort W_T K S"]
    assert all(c["passed"] for c in data["checks"])


@pytest.mark.slow
def test_demo_lpv_pipeline_writes_the_arm_report(tmp_path, capsys, monkeypatch):
    """Quick pipeline: LPV tuning, certificates, report; bounds re-checked by AB13DD."""
    import control
    import numpy as np

    import robustmb.report.arm_lpv as arm_lpv

    designs = []
    design_fn = arm_lpv.arm_lpv_design

    def keep(**kw):
        designs.append(design_fn(**kw))
        return designs[-1]

    monkeypatch.setattr(arm_lpv, "arm_lpv_design", keep)
    assert main(["demo", "--lpv", "--quick", "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "two-link arm" in out and "verdict:" in out and "robust LPV tuning" in out
    data = json.loads((tmp_path / "summary.json").read_text())
    assert sorted(data["parameters"]) == ["J1", "L2", "m1", "m3", "rho1", "t1", "t2"]
    chans = data["channels"]
    assert [c["name"] for c in chans] == ["tracking W_e S", "effort W_T K S"]
    assert all(c["passed"] for c in data["checks"])
    # the overall verdict is the worst of stability and every channel
    order = ["pass", "inconclusive", "fail"]
    parts = [data["robust_performance"]["stability_verdict"]] + [c["verdict"] for c in chans]
    assert data["robust_performance"]["verdict"] == max(parts, key=order.index)
    # certified upper bounds hold at a grid of the scheduling box x physical vertices
    loop, channels = arm_lpv.arm_lpv_loop(designs[0].controller)
    rng = np.random.default_rng(1)
    names = ["m1", "J1", "rho1", "L2", "m3"]
    for t1 in np.linspace(*loop.uncertainty["t1"].range, 3):
        for t2 in np.linspace(*loop.uncertainty["t2"].range, 3):
            pt = {"t1": t1, "t2": t2}
            for n in names:
                lo, hi = loop.uncertainty[n].range
                pt[n] = lo if rng.random() < 0.5 else hi
            for c in chans:
                outs, ins, _ = channels[c["name"]]
                sys = loop[outs, ins].usubs(pt)
                assert np.all(np.linalg.eigvals(sys.A).real < 0)
                gain = control.norm(sys, "inf")  # SLICOT AB13DD through python-control
                assert gain <= c["worst_case"]["upper"] * (1 + 1e-6)


@pytest.fixture(scope="module")
def default_demo(tmp_path_factory):
    """One run of ``robustmb demo`` (the default: the shipped certificates re-checked)."""
    folder = tmp_path_factory.mktemp("cli_demo") / "report"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["demo", "--out", str(folder), "--quiet"])
    return code, out.getvalue(), folder


@pytest.mark.slow
def test_default_demo_states_the_pipeline_stages(default_demo):
    """[1] model (its size, as the plant built here), [2] controller (provenance, how to
    re-tune), [3] certification, [4] report, the time of each stage and the total."""
    from robustmb.examples import two_link_arm
    from robustmb.report.arm_certificate import load_shipped_design

    code, out, folder = default_demo
    assert code == 0
    lines = out.splitlines()
    stages = [next(i for i, ln in enumerate(lines) if ln.startswith(f"  [{k}] ")) for k in "1234"]
    assert stages == sorted(stages)
    plant = two_link_arm()
    elements = ", ".join(f"{k} x{plant.blocks[k]}" for k in ("t1", "t2", "m1", "J1", "rho1",
                                                              "L2", "m3"))  # fmt: skip
    assert f"      plant: {plant.nstates} states; elements {elements}" in lines
    assert "theta1 in [45, 90] deg, theta2 in [45, 135] deg; m1, J1, rho1, L2, m3 uncertain " \
        "(+-20 %)" in out  # fmt: skip
    provenance = load_shipped_design()["provenance"]
    head = " ".join(" ".join(lines[stages[1] : stages[2]]).split())
    assert "provenance: " + provenance.split(". ")[0] in head
    assert "re-run the tuning (hours on 2 cores): robustmb demo --lpv" in head
    assert "closed loop tracking W_e S:" in head and "closed loop effort W_T K S:" in head
    assert "re-checked in this run" in lines[stages[2]]
    assert f"wrote {folder / 'report.html'}, report.md and summary.json" in out
    (times,) = [ln for ln in lines if ln.startswith("  time: ")]
    parts = dict(p.rsplit(" ", 2)[:2] for p in times[len("  time: ") :].split(", "))
    assert sorted(parts) == ["certification", "controller", "model", "report", "total"]
    seconds = {k: float(v) for k, v in parts.items()}
    # the stage times add up to the total (each printed to 0.1 s)
    assert sum(v for k, v in seconds.items() if k != "total") <= seconds["total"] + 0.25


@pytest.mark.slow
def test_default_demo_writes_the_report_with_a_verdict_per_channel(default_demo):
    """report.html, report.md and summary.json; per channel the printed specification and
    verdict are summary.json's; the verdict never claims more than the certified coverage."""
    _, out, folder = default_demo
    data = json.loads((folder / "summary.json").read_text())
    assert list(data["channels"]) == ["tracking W_e S", "effort W_T K S"]
    assert "frozen parameters" in data["guarantee"]
    md = (folder / "report.md").read_text()
    html = (folder / "report.html").read_text()
    assert html.lstrip().lower().startswith("<!doctype html>")
    for name, ch in data["channels"].items():
        (line,) = [ln.strip() for ln in out.splitlines() if ln.strip().startswith(f"- {name} (")]
        assert line.startswith(f"- {name} ({ch['specification']}): ")
        assert line.endswith(f"verdict: {ch['verdict']}")
        assert name in md and name in html
        assert ch["verdict"] in ("pass", "fail", "not proven")
        if ch["verdict"] == "pass":
            assert ch["certified_coverage"] == 1


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (KeyboardInterrupt, 130, "robustmb demo: interrupted; no report written"),
        ("evidence", 1, "robustmb demo: error: evidence of another realisation"),
    ],
)
def test_default_demo_ends_with_one_line_when_stopped(
    tmp_path, monkeypatch, capsys, raised, code, message
):
    """Ctrl-C during the re-checks (status 130) or evidence refused (status 1): one line on
    stderr, no traceback, no report folder."""
    import robustmb.report.arm_certificate as arm_certificate
    from robustmb.errors import ArgumentError

    def stop(out_dir, **kw):
        if raised is KeyboardInterrupt:
            raise KeyboardInterrupt
        raise ArgumentError("evidence of another realisation")

    monkeypatch.setattr(arm_certificate, "certified_demo", stop)
    assert main(["demo", "--out", str(tmp_path / "r"), "--quiet"]) == code
    captured = capsys.readouterr()
    lines = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(message) and "Traceback" not in captured.err
    assert "[3] certification" in captured.out and "[4] report" not in captured.out
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_default_demo_proven_sub_boxes_hold_at_sampled_loops(default_demo):
    """The tracking channel's certified level is the shipped evidence's, over at least its
    whole cells; each of those cells sampled at its (t1, t2) corners x the 32 physical
    vertices (python-control loops, SLICOT AB13DD) is below the level."""
    import copy
    import itertools

    import control
    import numpy as np

    from robustmb.examples import arm_lpv_tuning_problem
    from robustmb.report.arm_certificate import (
        evidence_folders,
        load_evidence,
        load_shipped_design,
    )
    from robustmb.report.arm_lpv import arm_lpv_loop

    _, _, folder = default_demo
    data = json.loads((folder / "summary.json").read_text())
    meta, evidence = load_evidence(evidence_folders()["tracking"])
    n = meta["n"]
    # whole grid cells of the shipped evidence (keys (i, j), or (i, j, ()) with a path)
    cells = sorted({tuple(k[:2]) for k in evidence if len(k) == 2 or not k[2]})
    track = data["channels"]["tracking W_e S"]
    assert track["certified_level"] == meta["gamma"]
    assert track["certified_coverage"] >= len(cells) / n**2 - 1e-12
    assert track["verdict"] != "pass" or track["certified_coverage"] == 1
    # independent sampling of each proven sub-box: its 4 (t1, t2) corners x the 32 physical
    # vertices (corners shared by two proven sub-boxes sampled once)
    values = load_shipped_design()["values"]
    ctrl = copy.copy(
        arm_lpv_tuning_problem().controller.usubs({k: np.asarray(v) for k, v in values.items()})
    )
    ctrl.input_names, ctrl.output_names = ["e1", "e2"], ["u1", "u2"]
    loop, channels = arm_lpv_loop(ctrl)
    outs, ins, _ = channels["tracking W_e S"]
    model = loop[outs, ins]
    els = model.uncertainty
    corners = {(i + a, j + b) for i, j in cells for a in (0, 1) for b in (0, 1)}
    phys = ("m1", "J1", "rho1", "L2", "m3")
    for ci, cj in sorted(corners):
        pt = {}
        for name, k in (("t1", ci), ("t2", cj)):
            lo, hi = els[name].range
            pt[name] = lo + k * (hi - lo) / n
        for sides in itertools.product((0, 1), repeat=len(phys)):
            pt.update({name: els[name].range[s] for name, s in zip(phys, sides, strict=True)})
            sys = model.usubs(pt)
            assert np.all(np.linalg.eigvals(sys.A).real < 0)
            assert control.norm(sys, "inf") < meta["gamma"]  # SLICOT AB13DD


def test_ctrl_c_before_the_job_is_one_line_and_130(monkeypatch, capsys):
    """Ctrl-C while the parser is built (start-up imports): no traceback, status 130."""
    import robustmb.cli as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["report", "m:f"]) == 130
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines == ["robustmb: interrupted"] and "Traceback" not in err


def test_out_that_is_a_file_fails_before_the_analysis(user_module, capsys):
    (user_module / "taken").write_text("a file")
    code = main(["report", "user_loops:loop", "--out", "taken", "--quiet", "--samples", "2"])
    assert code == 1
    captured = capsys.readouterr()
    assert "error: --out 'taken' exists and is not a folder" in captured.err
    assert "robustmb report:" not in captured.out  # the target was not even loaded
    assert sorted(p.name for p in user_module.iterdir()) == ["taken", "user_loops.py"]
