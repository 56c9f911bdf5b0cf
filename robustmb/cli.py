"""The ``robustmb`` command line: worst-case reports of uncertain closed loops.

``robustmb demo``
    The worst-case report of the two-link robotic arm frozen at one configuration
    under a joint PID, with its five uncertain physical parameters.
``robustmb demo --lpv [--quick] [--design PATH]``
    The whole pipeline on the two-link robotic arm: its LFT model scheduled by
    the joint angles with five uncertain physical parameters, a gain-scheduled
    controller sharing the scheduling parameters, certification of robust
    stability and of every performance channel over the whole parameter box,
    and the report in ``./robustmb-report/`` (per channel: specification,
    certified worst case, verdict).  ``--design PATH`` loads a stored scheduled
    design (JSON with the surface coefficients ``K.M0, K.M1, K.M2``, e.g. one of
    ``case_studies/robotic_arm/checkpoints/``) instead of tuning one.
``robustmb demo --replay``
    The stored, tuned gain-scheduled design of the arm with its partition certificate
    replayed: every shipped sub-box certificate re-checked in the run (no optimisation;
    floating point at the stored scalings, with a 1e-6 headroom below the level for
    rounding), per channel the specification, the certified level and the share of the
    area of the (t1, t2) = (tan(theta1/2), tan(theta2/2)) square it covers, the largest
    gain sampled where nothing is proven, and a verdict that never claims more than is
    certified; apart, labelled "recorded, not re-checked in this run", the stored
    whole-square partition certificates of both channels.  Writes ``report.html`` (opens
    in a browser), ``report.md`` and ``summary.json`` to ``./robustmb-report/``.
``robustmb report MODULE:FUNCTION``
    Calls ``FUNCTION()`` from ``MODULE`` (a dotted module name importable from
    the current folder, or a path to a ``.py`` file); it must return an
    uncertain closed loop (``robustmb.uss``), or a pair ``(system, channels)``
    with ``channels = {name: (outputs, inputs)}``; then writes its report.
    ``--step OUTPUTS:INPUTS`` adds step responses, ``--loop MODULE:FUNCTION``
    (a function returning the loop transfer ``L``, or ``(P, C)``) the loop margins.

Every command has ``--help``.  Bad input (unknown module or function, a
function that does not return an uncertain system, unknown signals, an
unstable nominal loop) ends with a one-line message and a non-zero exit status;
Ctrl-C ends with a one-line message and status 130, leaving no half-written report.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


class TargetError(Exception):
    """A ``MODULE:FUNCTION`` target that cannot be used (message says why)."""


# ------------------------------------------------------------------ targets
def _import_module(module_part: str):
    """Import a dotted module name (current folder first) or a ``.py`` file."""
    if module_part.endswith(".py") or os.sep in module_part or "/" in module_part:
        path = Path(module_part)
        if not path.is_file():
            raise TargetError(f"no such file: {module_part}")
        name = f"robustmb_user_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise TargetError(
                f"importing {module_part} failed: {type(exc).__name__}: {exc}"
            ) from None
        return module
    if not module_part.replace(".", "").replace("_", "").isalnum():
        raise TargetError(f"{module_part!r} is not a module name")
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(module_part)
    except ModuleNotFoundError as exc:
        if exc.name and (module_part == exc.name or module_part.startswith(exc.name + ".")):
            raise TargetError(
                f"unknown module {module_part!r} (not importable from {cwd} or the installed "
                "packages)"
            ) from None
        raise TargetError(f"importing module {module_part!r} failed: {exc}") from None
    except Exception as exc:
        raise TargetError(
            f"importing module {module_part!r} failed: {type(exc).__name__}: {exc}"
        ) from None


def _call_target(target: str):
    """What ``FUNCTION()`` of ``MODULE:FUNCTION`` returns."""
    if target.count(":") < 1 or target.endswith(":") or target.startswith(":"):
        raise TargetError(f"expected MODULE:FUNCTION, got {target!r}")
    module_part, func_name = target.rsplit(":", 1)
    module = _import_module(module_part)
    if not hasattr(module, func_name):
        raise TargetError(f"module {module_part!r} has no function {func_name!r}")
    func = getattr(module, func_name)
    if not callable(func):
        raise TargetError(f"{target} is a {type(func).__name__}, not a function")
    try:
        return func()
    except Exception as exc:
        raise TargetError(f"{target}() raised {type(exc).__name__}: {exc}") from None


def load_loop(target: str):
    """The loop transfer returned by ``MODULE:FUNCTION``: ``L``, or ``(P, C)``.

    ``feedback(L, I)`` is the closed loop broken where the margins are wanted
    (``L = C P`` at the plant inputs); a pair ``(P, C)`` breaks the loop at the
    plant outputs and inputs at once (see :func:`robustmb.wcdiskmargin`).

    Examples
    --------
    >>> L = load_loop("robustmb.report.arm_demo:loop_at_plant_inputs")
    >>> L.shape
    (2, 2)
    """
    import control

    from .lft.model import UncertainModel

    result = _call_target(target)
    parts = result if isinstance(result, tuple) else (result,)
    if len(parts) not in (1, 2) or not all(
        isinstance(p, UncertainModel | control.LTI) for p in parts
    ):
        what = (
            f"a tuple of {len(parts)} items" if isinstance(result, tuple) else type(result).__name__
        )
        raise TargetError(
            f"{target}() returned {what}; expected the loop transfer L (robustmb.uss) or a "
            "pair (P, C)"
        )
    return result


def load_target(target: str):
    """The uncertain system (and channels) returned by ``MODULE:FUNCTION``.

    Returns
    -------
    system : UncertainSystem
    channels : dict or None

    Raises
    ------
    TargetError
        With a message naming what is wrong.

    Examples
    --------
    >>> system, channels = load_target("robustmb.report.arm_demo:demo_loop")
    >>> system.input_names, sorted(channels)
    (['r1', 'r2'], ['effort W_T K S', 'tracking W_e S'])
    """
    from .lft.model import UncertainSystem

    result = _call_target(target)
    channels = None
    if isinstance(result, tuple):
        if len(result) != 2:
            raise TargetError(
                f"{target}() returned a tuple of {len(result)} items; expected an uncertain "
                "system or (system, channels)"
            )
        result, channels = result
        if channels is not None and not isinstance(channels, dict):
            raise TargetError(
                f"{target}() returned channels of type {type(channels).__name__}; expected a "
                "dict {name: (outputs, inputs)}"
            )
    if not isinstance(result, UncertainSystem):
        import control

        hint = (
            ": it is a certain model; declare uncertain parameters with robustmb.ureal and "
            "build the loop with robustmb.uss"
            if isinstance(result, control.LTI)
            else ""
        )
        raise TargetError(
            f"{target}() returned {type(result).__name__}, not an uncertain system "
            f"(robustmb.uss){hint}"
        )
    if not result.blocks:
        raise TargetError(f"{target}() returned a system without uncertain elements")
    return result, channels


def parse_channel(text: str):
    """``("name", outputs, inputs, spec)`` from ``NAME=OUT1,OUT2:IN1,IN2[@SPEC]``.

    ``SPEC`` is the largest admissible peak gain of the channel (default 1).

    Examples
    --------
    >>> parse_channel("tracking=e1,e2:r1,r2")
    ('tracking', ['e1', 'e2'], ['r1', 'r2'], 1.0)
    >>> parse_channel("effort=u:r@2.5")
    ('effort', ['u'], ['r'], 2.5)
    """
    body, at, spec_text = text.partition("@")
    name, sep, rest = body.partition("=")
    outs, sep2, ins = rest.partition(":")
    outputs = [s.strip() for s in outs.split(",") if s.strip()]
    inputs = [s.strip() for s in ins.split(",") if s.strip()]
    if not sep or not sep2 or not name.strip() or not outputs or not inputs:
        raise ValueError(f"expected NAME=OUT1,OUT2:IN1,IN2[@SPEC], got {text!r}")
    spec = 1.0
    if at:
        try:
            spec = float(spec_text)
        except ValueError:
            raise ValueError(f"the specification after @ must be a number, got {text!r}") from None
        if not spec > 0 or spec == float("inf"):
            raise ValueError(f"the specification after @ must be positive and finite, got {text!r}")
    return name.strip(), outputs, inputs, spec


def parse_step(text: str):
    """``(outputs, inputs)`` from ``OUT1,OUT2:IN1,IN2``: the step responses to show.

    Examples
    --------
    >>> parse_step("theta1,theta2:r1,r2")
    (['theta1', 'theta2'], ['r1', 'r2'])
    """
    outs, sep, ins = text.partition(":")
    outputs = [s.strip() for s in outs.split(",") if s.strip()]
    inputs = [s.strip() for s in ins.split(",") if s.strip()]
    if not sep or not outputs or not inputs:
        from .errors import ArgumentError  # local: keeps the CLI's start-up imports minimal

        raise ArgumentError(f"--step: expected OUT1,OUT2:IN1,IN2, got {text!r}")
    return outputs, inputs


# ------------------------------------------------------------------ jobs
def _fmt(x):
    from .report.figures import _fmt as fmt

    return fmt(x)


def print_summary(report, stream=None):
    """Print the headline numbers of a report."""
    stream = stream or sys.stdout
    a = report.analysis
    rs = a.robstab
    print(f"  {a.headline()}", file=stream)
    # the overall verdict covers stability and every channel; stability is one part
    print(f"  verdict: {a.performance_verdict} (robust stability: {a.verdict})", file=stream)
    print(
        f"  robust stability margin: [{_fmt(rs.lower)}, {_fmt(rs.upper)}] "
        f"(1 = declared ranges), critical frequency {_fmt(rs.critical_frequency)} rad/s",
        file=stream,
    )
    if rs.destabilizing:
        vals = ", ".join(
            f"{k} = {v:.4g}" for k, v in rs.destabilizing.items() if isinstance(v, int | float)
        )
        if vals:
            print(f"  destabilising values: {vals}", file=stream)
    for ch in a.channels:
        wc = ch.wcgain
        print(
            f"  {ch.name}: worst-case peak gain [{_fmt(wc.lower)}, {_fmt(wc.upper)}] at "
            f"{_fmt(wc.critical_frequency)} rad/s (nominal {_fmt(ch.nominal_peak)}); "
            f"spec <= {_fmt(ch.spec)}: nominal {ch.nominal_verdict}, robust {ch.verdict}",
            file=stream,
        )
    if a.margins is not None:
        wm = a.margins
        nom = wm.nominal.multiloop
        print(
            f"  disk margin: nominal {_fmt(nom.alpha)} (gain [{_fmt(nom.gain_margin[0])}, "
            f"{_fmt(nom.gain_margin[1])}], phase +-{_fmt(nom.phase_margin)} deg); worst case "
            f"[{_fmt(wm.lower)}, {_fmt(wm.upper)}] (gain [{_fmt(wm.gain_margin[0])}, "
            f"{_fmt(wm.gain_margin[1])}], phase +-{_fmt(wm.phase_margin)} deg)",
            file=stream,
        )
    n = len(a.sample_values)
    if n:
        print(f"  Monte Carlo: {n - a.n_unstable_samples}/{n} samples stable", file=stream)
    for text in a.flags():
        print(f"  NOTE: {text}", file=stream)
    failed = [text for text, ok in a.checks() if not ok]
    for text in failed:
        print(f"  CHECK FAILED: {text}", file=stream)
    print(f"  wrote {report.html_path} and {report.json_path.name}", file=stream)


def demo(
    out_dir: Path,
    n_samples: int,
    *,
    seed: int = 0,
    show_progress: bool = True,
    lpv: bool = False,
    quick: bool = False,
    design: str | None = None,
    replay: bool = False,
) -> int:
    """The demonstration job: the robotic arm's worst-case report; returns the exit status.

    By default the arm is frozen at one configuration under a joint PID (about a
    minute); with ``lpv=True`` the whole pipeline runs: robust LPV tuning over the
    scheduling and physical parameters, certification over the whole box, report;
    ``design`` (a path, with ``lpv=True``) loads a stored scheduled design instead of
    tuning (:func:`robustmb.report.arm_lpv.load_arm_design`).
    """
    if replay:
        return _demo_replay(out_dir, show_progress=show_progress)
    if not lpv:
        return _demo_frozen_configuration(
            out_dir, n_samples, seed=seed, show_progress=show_progress
        )
    return _demo_lpv(
        out_dir, n_samples, seed=seed, show_progress=show_progress, quick=quick, design_path=design
    )


def _demo_replay(out_dir, *, show_progress):
    """Stored design + replay of its partition certificate + per-channel verdicts."""
    from .report.arm_certificate import certified_demo, summary_text

    print(
        "robustmb demo --replay: two-link arm scheduled over theta1 in [45, 90] deg, theta2 in "
        "[45, 135] deg; m1, J1, rho1, L2, m3 uncertain (+-20 %); stored tuned design, its "
        "sub-box certificates re-checked in floating point at the stored scalings (1e-6 "
        "headroom below the level for rounding)"
    )
    progress = (lambda text: print(f"  {text}", flush=True)) if show_progress else None
    summary = certified_demo(out_dir, progress=progress)
    for line in summary_text(summary).splitlines():
        print(f"  {line}")
    t = summary["time"]
    cpu = [c["cpu_seconds"] for c in summary["channels"].values()]
    print(
        f"  time: replay and sampling {t['replay and sampling']:.1f} s wall (CPU: re-checks "
        f"{sum(c['replay'] for c in cpu):.1f} s, sampling {sum(c['sampling'] for c in cpu):.1f} "
        f"s), total {t['total']:.1f} s"
    )
    print(f"  wrote {Path(out_dir) / 'report.html'}, report.md and summary.json")
    return EXIT_OK


def _demo_frozen_configuration(out_dir, n_samples, *, seed, show_progress):
    """Worst-case report of the arm at one configuration under a joint PID."""
    import numpy as np

    from .report import worst_case_report
    from .report.arm_demo import DEMO_ANGLES, arm_closed_loop, loop_at_plant_inputs

    th1, th2 = np.degrees(DEMO_ANGLES)
    print(
        f"robustmb demo: two-link arm at theta1 = {th1:.0f} deg, theta2 = {th2:.0f} deg; "
        "m1, J1, rho1, L2, m3 uncertain (+-20 %)"
    )
    loop, channels, controller = arm_closed_loop()
    print(
        f"  baseline controller: joint PID by pole placement on the nominal arm "
        f"({controller.nstates} states); closed loop {loop.nstates} states"
    )
    notes = (
        "Two-link robotic arm of the LFT-multibody paper (Table 1) linearised at "
        f"theta1 = {th1:.0f} deg, theta2 = {th2:.0f} deg, with m1, J1, rho1, L2 and m3 "
        "uncertain (+-20 %), under a joint PID whose matrix gains place the nominal poles "
        "(designed in robustmb.report.arm_demo). "
        "Channels: weighted tracking error W_e S with W_e = (s + 1)/(2 s + 0.02) and "
        "weighted torque W_T K S with W_T = 1/1500 (the paper's robust design weights); "
        "a worst-case gain below 1 meets that specification."
    )
    report = worst_case_report(
        loop,
        channels,
        out_dir=out_dir,
        n_samples=n_samples,
        seed=seed,
        title="Worst-case report: two-link arm under joint PID",
        notes=notes,
        progress=show_progress,
        loop=loop_at_plant_inputs(),
        loop_description="the plant inputs (joint torques), L = K G",
        step=(["theta1", "theta2"], ["r1", "r2"]),
    )
    print_summary(report)
    return EXIT_OK


def _demo_lpv(out_dir, n_samples, *, seed, show_progress, quick, design_path=None):
    """The whole pipeline: model -> robust LPV tuning -> certification -> report."""
    import time

    from .report import worst_case_report
    from .report.arm_lpv import (
        WEIGHTS_DESCRIPTION,
        arm_lpv_design,
        arm_lpv_loop,
        arm_lpv_loop_at_plant_inputs,
        load_arm_design,
    )

    t_start = time.perf_counter()
    print(
        "robustmb demo: two-link arm scheduled over theta1 in [45, 90] deg, theta2 in "
        "[45, 135] deg; m1, J1, rho1, L2, m3 uncertain (+-20 %)" + (" [quick]" if quick else "")
    )
    t0 = time.perf_counter()
    if design_path is not None:
        design = load_arm_design(design_path)
    else:
        design = arm_lpv_design(quick=quick, progress=show_progress)
    loop, channels = arm_lpv_loop(design.controller)
    t_design = time.perf_counter() - t0
    how = "loaded" if design_path is not None else "tuned"
    print(f"  [1-2] model and gain-scheduled controller K(s, t1, t2) {how} in {t_design:.1f} s:")
    print(f"        {design.method}")
    print(
        f"        closed loop {loop.nstates} states, elements "
        + ", ".join(f"{k} x{v}" for k, v in loop.blocks.items())
    )
    notes = (
        "Two-link robotic arm of the LFT-multibody paper (Table 1) as one LFT in the "
        "scheduling parameters t1 = tan(theta1/2), t2 = tan(theta2/2) (theta1 in [45, 90] deg, "
        "theta2 in [45, 135] deg) and in m1, J1, rho1, L2, m3 (+-20 %). "
        f"Gain-scheduled controller K(s, t1, t2) sharing the plant's t1, t2: {design.method}. "
        "Every bound below holds over the whole box of scheduling and physical parameters "
        "for frozen parameter values (no bound on their rates of variation). "
        f"Channels: weighted tracking error W_e S and weighted torque W_T K S with "
        f"{WEIGHTS_DESCRIPTION} (the paper's robust design weights, problem (27)); "
        "a worst-case gain below 1 meets that specification."
    )
    print("  [3-4] certification over the whole box and report:")
    t0 = time.perf_counter()
    report = worst_case_report(
        loop,
        channels,
        out_dir=out_dir,
        n_samples=n_samples,
        seed=seed,
        title="Certified LPV design: two-link arm, gain-scheduled over its configurations",
        notes=notes,
        progress=show_progress,
        loop=None if quick else arm_lpv_loop_at_plant_inputs(design.controller),
        loop_description="the plant inputs (joint torques), L = K G",
        step=(["theta1", "theta2"], ["r1", "r2"]),
        certificates=design.certificates,
    )
    t_report = time.perf_counter() - t0
    print_summary(report)
    total = time.perf_counter() - t_start
    print(
        f"  time: design {t_design:.1f} s, certification and report {t_report:.1f} s, "
        f"total {total:.1f} s"
    )
    return EXIT_OK


def report_job(
    target: str,
    channels,
    out_dir: Path,
    n_samples: int,
    *,
    seed: int = 0,
    title=None,
    show_progress: bool = True,
    step=None,
    loop=None,
    loop_description="",
) -> int:
    """The ``report`` job; returns the exit status.

    ``step`` is ``(outputs, inputs)`` and ``loop`` a ``MODULE:FUNCTION`` returning
    the loop transfer (see :func:`load_loop`); both optional.
    """
    from .report import worst_case_report

    system, fn_channels = load_target(target)
    loop_transfer = load_loop(loop) if loop else None
    if channels:
        fn_channels = {name: (outs, ins, spec) for name, outs, ins, spec in channels}
    print(f"robustmb report: {target} -> {system!r}")
    report = worst_case_report(
        system,
        fn_channels,
        out_dir=out_dir,
        n_samples=n_samples,
        seed=seed,
        title=title or f"Worst-case report: {target}",
        progress=show_progress,
        loop=loop_transfer,
        loop_description=loop_description or (f"the loop of {loop}" if loop else ""),
        step=step,
    )
    print_summary(report)
    return EXIT_OK


# ------------------------------------------------------------------ parser
def _non_negative_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _channel(text):
    try:
        return parse_channel(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _step(text):
    try:
        return parse_step(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_common(p, default_out, samples_default=100):
    p.add_argument(
        "--out",
        type=Path,
        default=Path(default_out),
        help=f"output folder (default: ./{default_out})",
    )
    p.add_argument(
        "--samples",
        type=_non_negative_int,
        default=samples_default,
        help="number of Monte Carlo samples (default: "
        + ("100, 20 with --quick" if samples_default is None else str(samples_default))
        + ")",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the samples (default: 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="robustmb",
        description="Robust control of multibody systems: worst-case reports of uncertain "
        "closed loops (robust stability margin, worst-case gains, mu bounds, samples).",
    )
    parser.add_argument("--version", action="version", version=f"robustmb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_demo = sub.add_parser(
        "demo",
        help="worst-case report of the robotic arm (--lpv: robust LPV design pipeline)",
        description="Build the two-link arm as one LFT in its uncertain physical parameters "
        "and write its worst-case report (report.html, summary.json, figures/) with "
        "per-channel specification, certified worst case and verdict. By default the arm "
        "is frozen at theta1 = 70 deg, theta2 = 30 deg under a joint PID. With --lpv, the "
        "arm is scheduled by its joint angles, a controller K(s, t1, t2) sharing them is "
        "tuned robustly (active-set systune) and certified over the whole parameter box: "
        "a long run (hours on 2 cores).",
    )
    _add_common(p_demo, "robustmb-report", samples_default=None)
    p_demo.add_argument(
        "--lpv",
        action="store_true",
        help="the robust LPV design pipeline: model -> robust tuning -> certification -> "
        "report (long)",
    )
    p_demo.add_argument(
        "--quick",
        action="store_true",
        help="with --lpv: smaller design budget, 20 Monte Carlo samples and no loop "
        "margins; every channel still certified",
    )
    p_demo.add_argument(
        "--design",
        default=None,
        metavar="PATH",
        help="with --lpv: load this stored scheduled design (JSON with values K.M0, K.M1, "
        "K.M2, e.g. case_studies/robotic_arm/checkpoints/arm_lpv_hard.json) instead of "
        "tuning; the report still certifies every channel",
    )
    p_demo.add_argument(
        "--replay",
        action="store_true",
        help="the stored tuned LPV design with its shipped sub-box certificates re-checked "
        "in floating point at the stored scalings, 1e-6 headroom below the level for rounding "
        "(no tuning, no optimisation): per channel the certified level, the share of the area "
        "of the (t1, t2) = (tan(theta1/2), tan(theta2/2)) square it covers, and a verdict; "
        "also the stored whole-square certificates, labelled recorded, not re-checked; "
        "writes report.html, report.md, summary.json",
    )
    p_rep = sub.add_parser(
        "report",
        help="worst-case report of the uncertain system returned by MODULE:FUNCTION",
        description="Call FUNCTION() from MODULE (a dotted module name importable from the "
        "current folder, or a path to a .py file). It must return an uncertain closed loop "
        "(robustmb.uss) or (system, {name: (outputs, inputs)}). Writes report.html, "
        "summary.json and figures/ to the output folder.",
        epilog="example: robustmb report my_loops:build_loop --channel 'tracking=e1,e2:r1,r2'",
    )
    p_rep.add_argument(
        "target", metavar="MODULE:FUNCTION", help="function returning the uncertain closed loop"
    )
    p_rep.add_argument(
        "--channel",
        type=_channel,
        action="append",
        default=[],
        metavar="NAME=OUTPUTS:INPUTS[@SPEC]",
        help="performance channel, e.g. 'tracking=e1,e2:r1,r2@1' with SPEC the largest "
        "admissible peak gain (default 1) (repeatable; "
        "replaces the channels the function returns; default: every input to "
        "every output)",
    )
    p_rep.add_argument(
        "--step",
        type=_step,
        default=None,
        metavar="OUTPUTS:INPUTS",
        help="step responses of these outputs to unit steps on these inputs, e.g. "
        "'y1,y2:r1,r2' (nominal, random samples and the worst case of the first channel)",
    )
    p_rep.add_argument(
        "--loop",
        default=None,
        metavar="MODULE:FUNCTION",
        help="function returning the uncertain loop transfer L (feedback(L, I) broken where "
        "the margins are wanted) or a pair (P, C): adds its nominal and worst-case disk, "
        "gain and phase margins",
    )
    p_rep.add_argument(
        "--loop-description",
        default="",
        metavar="TEXT",
        help="where the loop is broken, shown with the margins",
    )
    p_rep.add_argument("--title", default=None, help="title of the report")
    _add_common(p_rep, "robustmb-report")
    return parser


def main(argv=None) -> int:
    """Entry point of the ``robustmb`` command; returns the exit status.

    Examples
    --------
    >>> main(["report", "no_such_module_xyz:build"])
    1
    """
    from .errors import RobustMBError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        if args.command == "demo":
            if args.quick and not args.lpv:
                parser.error("demo: --quick applies to the --lpv pipeline")
            if args.design is not None and not args.lpv:
                parser.error("demo: --design applies to the --lpv pipeline")
            if args.replay and (args.lpv or args.quick or args.design is not None):
                parser.error("demo: --replay runs alone (not with --lpv, --quick, --design)")
            samples = args.samples if args.samples is not None else (20 if args.quick else 100)
            return demo(
                args.out,
                samples,
                seed=args.seed,
                show_progress=not args.quiet,
                lpv=args.lpv,
                quick=args.quick,
                design=args.design,
                replay=args.replay,
            )
        if args.command == "report":
            return report_job(
                args.target,
                args.channel,
                args.out,
                args.samples,
                seed=args.seed,
                title=args.title,
                show_progress=not args.quiet,
                step=args.step,
                loop=args.loop,
                loop_description=args.loop_description,
            )
    except (TargetError, RobustMBError) as exc:
        print(f"robustmb {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except OSError as exc:
        print(f"robustmb {args.command}: error: cannot write the report: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        # the report is moved into place only once complete: nothing half-written remains
        print(
            f"\nrobustmb {args.command}: interrupted; no report written (a previous one in "
            f"{args.out} is unchanged)",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    parser.error(f"unknown command {args.command}")  # pragma: no cover
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
