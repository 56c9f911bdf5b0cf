"""The ``robustmb`` command line: worst-case reports of uncertain closed loops.

``robustmb demo``
    The certified LPV pipeline of the two-link robotic arm, stage by stage, with the time
    of each: [1] the model, one LFT scheduled by t1 = tan(theta1/2), t2 = tan(theta2/2)
    (theta1 in [45, 90] deg, theta2 in [45, 135] deg) with the five uncertain physical
    parameters m1, J1, rho1, L2, m3 (+-20 %); [2] the controller, the stored gain-scheduled
    design ``K(s, t1, t2)`` of the robust LPV tuning (``robustmb/data/arm_lpv/design.json``;
    ``robustmb demo --lpv`` re-runs the tuning); [3] certification: every shipped sub-box
    certificate re-checked in the run (no optimisation; floating point at the stored
    scalings, with a 1e-6 headroom below the level for rounding), the rest of the
    scheduling square sampled; [4] the report: per channel the specification, the
    certified level and the share of the area of the (t1, t2) square it covers, the largest
    gain sampled, and a verdict that never claims more than is certified.
    Writes ``report.html`` (opens in a browser), ``report.md`` and ``summary.json`` to
    ``./robustmb-report/``.  ``--replay`` is the same demo (its former name).
``robustmb demo --frozen``
    The worst-case report of the two-link robotic arm frozen at one configuration under
    a joint PID, with its five uncertain physical parameters (``--samples``, ``--seed``:
    its Monte Carlo samples).
``robustmb demo --lpv [--quick] [--design PATH]``
    The whole pipeline on the two-link robotic arm from scratch: its LFT model scheduled
    by the joint angles with five uncertain physical parameters, a gain-scheduled
    controller sharing the scheduling parameters tuned robustly (hours on 2 cores),
    certification of robust stability and of every performance channel over the whole
    parameter box, and the report in ``./robustmb-report/`` (per channel: specification,
    certified worst case, verdict).  ``--design PATH`` loads a stored scheduled design
    (JSON with the surface coefficients ``K.M0, K.M1, K.M2``, e.g. one of
    ``case_studies/robotic_arm/checkpoints/``) instead of tuning one.
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
Ctrl-C ends with a one-line message and status 130, leaving no half-written report:
the message says whether the new report was already in place or the previous one is
unchanged (a Ctrl-C while the finished report is being moved in waits for the move and
the command then completes normally).
The command starts by importing the package (NumPy, SciPy, python-control: a few
seconds); Ctrl-C during that import, before any of the command's code runs, also ends
with one line and status 130 (:mod:`robustmb._cli_start`), and nothing has been read or
written then.  ``python -m robustmb`` is the same command.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from ._common import (  # noqa: F401  (the exit statuses and summary are public here)
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    folder_state,
    print_summary,
    report_replaced,
)
from .demo_jobs import demo  # noqa: F401


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

    from ..lft.model import UncertainModel

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
    from ..lft.model import UncertainSystem

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
        from ..errors import ArgumentError  # local: keeps the CLI's start-up imports minimal

        raise ArgumentError(f"--step: expected OUT1,OUT2:IN1,IN2, got {text!r}")
    return outputs, inputs


# ------------------------------------------------------------------ jobs
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
    from ..report import worst_case_report
    from ..report.writer import check_out_dir

    check_out_dir(out_dir, "--out")  # before the model is built and analysed
    from ..report.worst_case import normalize_channels, normalize_step

    system, fn_channels = load_target(target)
    if channels:
        names = [name for name, *_ in channels]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            from ..errors import ArgumentError

            raise ArgumentError(
                f"--channel: each channel needs its own name; {', '.join(map(repr, twice))} "
                "given more than once"
            )
        fn_channels = {name: (outs, ins, spec) for name, outs, ins, spec in channels}
    # the signals named on the command line are checked before any analysis runs
    normalize_channels(system, fn_channels)
    if step is not None:
        normalize_step(system, step, "--step")
    loop_transfer = load_loop(loop) if loop else None
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


def _add_common(p, default_out, samples_default=100, samples_note=""):
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
        + ")"
        + samples_note,
    )
    p.add_argument(
        "--seed",
        type=_non_negative_int,
        default=None if samples_default is None else 0,
        help="seed of the samples (default: 0)" + samples_note,
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="robustmb",
        description="Robust control of multibody systems: worst-case reports of uncertain "
        "closed loops (robust stability margin, worst-case gains, mu bounds, samples).",
    )
    parser.add_argument("--version", action="version", version=f"robustmb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_demo = sub.add_parser(
        "demo",
        help="the certified LPV pipeline of the robotic arm (--frozen: one configuration; "
        "--lpv: tune from scratch)",
        description="The two-link robotic arm, end to end, in four stages with their times: "
        "[1] model: one LFT scheduled by its joint angles (t1 = tan(theta1/2), "
        "t2 = tan(theta2/2)) with five uncertain physical parameters; [2] controller: the "
        "stored gain-scheduled design K(s, t1, t2) of the robust LPV tuning (re-run it with "
        "--lpv); [3] certification: every shipped sub-box certificate re-checked in this run, "
        "the rest of the scheduling square sampled; [4] report: per channel the "
        "specification, the certified worst case and its share of the square, the sampled "
        "worst and a verdict that never claims more than is certified; writes report.html, "
        "report.md and summary.json. No optimisation: under a minute on 2 idle cores (two "
        "worker processes re-check the certificates).",
        epilog="--samples and --seed apply to --frozen and --lpv only (the default demo "
        "samples a fixed grid; giving them without --frozen or --lpv is an error).",
    )
    _add_common(
        p_demo,
        "robustmb-report",
        samples_default=None,
        samples_note="; with --frozen or --lpv only",
    )
    p_demo.add_argument(
        "--replay",
        action="store_true",
        help="the default demo (its former name, kept as an alias)",
    )
    p_demo.add_argument(
        "--frozen",
        action="store_true",
        help="the worst-case report of the arm frozen at theta1 = 70 deg, theta2 = 30 deg "
        "under a joint PID (robust stability, worst-case gains, margins, Monte Carlo "
        "samples, figures; about a minute)",
    )
    p_demo.add_argument(
        "--lpv",
        action="store_true",
        help="the robust LPV design pipeline from scratch: model -> robust tuning "
        "(active-set systune; hours on 2 cores) -> certification over the whole parameter "
        "box -> report",
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


def _check_demo_flags(parser, args):
    """One usage error (exit status 2, one line) for flags that do not go together."""
    for flag, on in (("--replay", args.replay), ("--frozen", args.frozen)):
        others = [
            name
            for name, given in (
                ("--replay", args.replay),
                ("--frozen", args.frozen),
                ("--lpv", args.lpv),
                ("--quick", args.quick),
                ("--design", args.design is not None),
            )
            if given and name != flag
        ]
        if on and others:
            parser.error(f"demo: {flag} runs alone (not with {', '.join(others)})")
    if args.quick and not args.lpv:
        parser.error("demo: --quick applies to the --lpv pipeline")
    if args.design is not None and not args.lpv:
        parser.error("demo: --design applies to the --lpv pipeline")
    if not (args.frozen or args.lpv):
        pairs = (("--samples", args.samples), ("--seed", args.seed))
        given = [flag for flag, value in pairs if value is not None]
        if given:
            parser.error(
                f"demo: {' and '.join(given)} {'apply' if len(given) > 1 else 'applies'} to "
                "--frozen and --lpv; the default demo "
                "re-checks the stored certificates and samples a fixed grid"
            )


def main(argv=None) -> int:
    """Entry point of the ``robustmb`` command; returns the exit status.

    Ctrl-C at any point, from parsing the arguments on, ends with one line and
    :data:`EXIT_INTERRUPTED`.

    Examples
    --------
    >>> main(["report", "no_such_module_xyz:build"])
    1
    """
    from .._cli_start import restore

    restore()  # the package is imported: Ctrl-C is KeyboardInterrupt again, handled here
    try:
        return _main(argv)
    except KeyboardInterrupt:
        # outside a job (start-up, argument parsing): nothing was written
        print("\nrobustmb: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv) -> int:
    from ..errors import RobustMBError

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    before = folder_state(args.out)
    try:
        if args.command == "demo":
            _check_demo_flags(parser, args)
            from ..report.writer import check_out_dir

            check_out_dir(args.out, "--out")  # before minutes of re-checks
            samples = args.samples if args.samples is not None else (20 if args.quick else 100)
            return demo(
                args.out,
                samples,
                seed=args.seed if args.seed is not None else 0,
                show_progress=not args.quiet,
                lpv=args.lpv,
                quick=args.quick,
                design=args.design,
                replay=args.replay,
                frozen=args.frozen,
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
        # the report is moved into place only once complete: the folder holds either the
        # previous report, unchanged, or the whole new one
        if report_replaced(args.out, before):
            message = f"interrupted after the report was written to {args.out}"
        else:
            message = f"interrupted; no report written (a previous one in {args.out} is unchanged)"
        print(f"\nrobustmb {args.command}: {message}", file=sys.stderr)
        return EXIT_INTERRUPTED
    parser.error(f"unknown command {args.command}")  # pragma: no cover
    return EXIT_USAGE
