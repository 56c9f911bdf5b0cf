"""``robustmb demo``: the demonstration jobs on the two-link robotic arm.

The default job re-checks the stored robust LPV design's certificates over the whole
scheduling square (:func:`robustmb.report.arm_certificate.certified_demo`); ``--frozen``
reports the arm frozen at one configuration under a joint PID; ``--lpv`` tunes a
scheduled controller from scratch, certifies it and reports (see the module docstring of
:mod:`robustmb.cli`).
"""

from __future__ import annotations

from pathlib import Path

from ._common import EXIT_OK, print_summary


def demo(
    out_dir: Path,
    n_samples: int = 100,
    *,
    seed: int = 0,
    show_progress: bool = True,
    lpv: bool = False,
    quick: bool = False,
    design: str | None = None,
    replay: bool = False,
    frozen: bool = False,
) -> int:
    """The demonstration job on the two-link robotic arm; returns the exit status.

    By default (and with ``replay=True``, its former name) the certified LPV pipeline
    of the stored design: model, controller, every shipped certificate re-checked,
    report (:func:`robustmb.report.arm_certificate.certified_demo`); ``n_samples`` and
    ``seed`` are not used.  ``frozen=True``: the arm frozen at one configuration under a
    joint PID (about a minute), ``n_samples`` Monte Carlo samples drawn with ``seed``.
    ``lpv=True``: the whole pipeline from scratch: robust LPV tuning over the
    scheduling and physical parameters (hours), certification over the whole box,
    report; ``design`` (a path) loads a stored scheduled design instead of tuning
    (:func:`robustmb.report.arm_lpv.load_arm_design`).

    Parameters
    ----------
    out_dir : Path
        Folder of the report (replaced as a whole once the new one is complete).
    n_samples : int
        Monte Carlo samples of ``frozen`` and ``lpv``.
    seed : int
        Seed of those samples.
    show_progress : bool
        Progress lines (certificates re-checked, progress bars).
    lpv, quick, design, replay, frozen
        The demo to run, as the command-line flags of the same names.

    Returns
    -------
    int
        0 once the report is written (whatever its verdicts).

    Examples
    --------
    >>> demo(Path("robustmb-report"), show_progress=False)  # doctest: +SKIP
    robustmb demo: the certified LPV pipeline of the two-link arm ...
    0
    """
    from ..errors import ArgumentError

    if sum(map(bool, (lpv, frozen, replay))) > 1:
        raise ArgumentError("demo: choose one of lpv, frozen, replay")
    if lpv:
        return _demo_lpv(
            out_dir,
            n_samples,
            seed=seed,
            show_progress=show_progress,
            quick=quick,
            design_path=design,
        )
    if quick or design is not None:
        raise ArgumentError("demo: quick and design apply to the lpv pipeline")
    if frozen:
        return _demo_frozen_configuration(
            out_dir, n_samples, seed=seed, show_progress=show_progress
        )
    return _demo_certified(out_dir, show_progress=show_progress)


#: The arm's physical parameters in the order of the paper's Table 1.
_ARM_PHYSICAL = ("m1", "J1", "rho1", "L2", "m3")


def _arm_order(names):
    """Scheduling elements first, then the physical parameters in the paper's order.

    Examples
    --------
    >>> _arm_order(["rho1", "t2", "m3", "m1", "t1", "extra"])
    ['t1', 't2', 'm1', 'rho1', 'm3', 'extra']
    """
    order = ("t1", "t2", *_ARM_PHYSICAL)
    return sorted(names, key=lambda k: order.index(k) if k in order else len(order))


def _elements_text(reps):
    """``"t1 x6, t2 x6, m1 x1"`` from ``{name: repetitions}`` (see :func:`_arm_order`).

    Examples
    --------
    >>> _elements_text({"m1": 1, "t2": 6, "t1": 6})
    't1 x6, t2 x6, m1 x1'
    """
    return ", ".join(f"{k} x{reps[k]}" for k in _arm_order(reps))


def _first_sentences(text, limit=400):
    """The leading sentences of ``text`` (at least one) while they fit in ``limit`` characters.

    Examples
    --------
    >>> _first_sentences("One at 0.97. Two here. Three, much longer than that.", limit=25)
    'One at 0.97. Two here.'
    >>> _first_sentences("A single long sentence.", limit=5)
    'A single long sentence.'
    """
    sentences = [part for part in text.replace(". ", ".\n").splitlines() if part.strip()]
    kept = sentences[:1]
    for sentence in sentences[1:]:
        if len(" ".join([*kept, sentence])) > limit:
            break
        kept.append(sentence)
    return " ".join(kept)


def _print_wrapped(text, indent="      "):
    import textwrap

    print(textwrap.fill(text, width=100, initial_indent=indent, subsequent_indent=indent))


def _demo_certified(out_dir, *, show_progress):
    """Model -> stored robust LPV design -> its certificates re-checked -> report."""
    import time

    t_start = time.perf_counter()
    print(
        "robustmb demo: the certified LPV pipeline of the two-link arm: model -> robust LPV "
        "tuning (stored design) -> certification (re-checked in this run) -> report"
    )
    t0 = time.perf_counter()
    import numpy as np

    from ..examples import two_link_arm

    plant = two_link_arm()
    t_model = time.perf_counter() - t0
    unc = plant.uncertainty
    angles = ", ".join(
        f"theta{k} in [{np.degrees(2 * np.arctan(unc[f't{k}'].range[0])):.0f}, "
        f"{np.degrees(2 * np.arctan(unc[f't{k}'].range[1])):.0f}] deg"
        for k in (1, 2)
    )
    physical = _arm_order([k for k in plant.blocks if k not in ("t1", "t2")])
    spreads = {
        round(100 * (unc[k].range[1] - unc[k].range[0]) / (2 * abs(unc[k].nominal)), 6)
        for k in physical
    }
    spread = f"+-{spreads.pop():g} %" if len(spreads) == 1 else "each in its range"
    print(
        f"  [1] model ({t_model:.1f} s): the arm as one LFT, scheduled by "
        "t1 = tan(theta1/2), t2 = tan(theta2/2)"
    )
    print(f"      {angles}; {', '.join(physical)} uncertain ({spread})")
    print(f"      plant: {plant.nstates} states; elements " + _elements_text(plant.blocks))

    t0 = time.perf_counter()
    from ..report.arm_certificate import (
        CHANNELS,
        DATA_DIR,
        arm_channel_problem,
        certified_demo,
        load_shipped_design,
        summary_text,
    )

    design = load_shipped_design()
    values = design["values"]
    n_states = np.asarray(values["K.M0"]).shape[0] - 2
    # the closed loops of both channels, as certified (built once: the replay reuses them)
    problems = {name: arm_channel_problem(values, ch) for ch, name in CHANNELS.items()}
    t_controller = time.perf_counter() - t0
    print(f"  [2] controller ({t_controller:.1f} s): the stored design of the robust LPV tuning")
    print(
        f"      K(s, t1, t2) = Fu(M0 + M1 s1 + M2 s2, I/s): {n_states} states, s1, s2 the "
        "plant's t1, t2 normalised"
    )
    _print_wrapped(
        "provenance: "
        + _first_sentences(design.get("provenance", "not recorded"))
        + f" (in full: {Path(DATA_DIR) / 'design.json'})"
    )
    print("      re-run the tuning (hours on 2 cores): robustmb demo --lpv")
    for name, problem in problems.items():
        reps = {b.name: b.reps for b in problem.blocks}
        print(
            f"      closed loop {name}: {problem.a.shape[0]} states; elements "
            + _elements_text(reps)
        )

    print("  [3] certification: every shipped sub-box certificate re-checked in this run")
    print(
        "      (floating point at the stored scalings, 1e-6 headroom below the level for rounding);"
    )
    print("      the rest of the (t1, t2) square sampled")
    progress = (lambda text: print(f"      {text}", flush=True)) if show_progress else None
    t0 = time.perf_counter()
    summary = certified_demo(out_dir, progress=progress)
    t_written = time.perf_counter() - t0
    t_check = float(summary.get("time", {}).get("total", t_written))
    t_report = max(t_written - t_check, 0.0)
    cpu = [c.get("cpu_seconds") or {} for c in summary["channels"].values()]
    cpu_text = ", ".join(
        f"{what} {sum(float(c.get(key, 0.0)) for c in cpu):.1f} s"
        for what, key in (("re-checks", "replay"), ("sampling", "sampling"))
    )
    print(f"      {t_check:.1f} s wall (CPU: {cpu_text})")

    print(f"  [4] report ({t_report:.1f} s): per channel the specification, what is certified,")
    print("      the sampled worst and the verdict")
    for line in summary_text(summary).splitlines():
        print(f"      {line}")  # one line per channel, unwrapped: each ends with its verdict
    print(f"      wrote {Path(out_dir) / 'report.html'}, report.md and summary.json")
    total = time.perf_counter() - t_start
    print(
        f"  time: model {t_model:.1f} s, controller {t_controller:.1f} s, certification "
        f"{t_check:.1f} s, report {t_report:.1f} s, total {total:.1f} s"
    )
    return EXIT_OK


def _demo_frozen_configuration(out_dir, n_samples, *, seed, show_progress):
    """Worst-case report of the arm at one configuration under a joint PID."""
    import numpy as np

    from ..report import worst_case_report
    from ..report.arm_demo import DEMO_ANGLES, arm_closed_loop, loop_at_plant_inputs

    th1, th2 = np.degrees(DEMO_ANGLES)
    print(
        f"robustmb demo --frozen: two-link arm at theta1 = {th1:.0f} deg, theta2 = {th2:.0f} deg; "
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


def _usable_certificates(loop, channels, certificates):
    """The tuning's certificates that re-prove their bound on the report's own channels.

    The report refuses a certificate its mu evidence does not re-prove on the channel
    (:func:`robustmb.report.worst_case.check_certificate`); after a long tuning such a
    refusal would end the run, so a refused certificate is named here and left out: the
    report then computes that channel's worst case itself.
    """
    from ..errors import ArgumentError
    from ..report.worst_case import check_certificate, normalize_channels

    usable = {}
    for name, outs, ins, _ in normalize_channels(loop, channels):
        cert = (certificates or {}).get(name)
        if cert is None:
            continue
        try:
            usable[name] = check_certificate(name, cert, loop[outs, ins])
        except ArgumentError as exc:
            print(f"      {exc}; the report computes its own", flush=True)
    return usable


def _demo_lpv(out_dir, n_samples, *, seed, show_progress, quick, design_path=None):
    """The whole pipeline: model -> robust LPV tuning -> certification -> report."""
    import time

    from ..report import worst_case_report
    from ..report.arm_lpv import (
        WEIGHTS_DESCRIPTION,
        arm_lpv_design,
        arm_lpv_loop,
        arm_lpv_loop_at_plant_inputs,
        load_arm_design,
    )

    t_start = time.perf_counter()
    print(
        "robustmb demo --lpv: two-link arm scheduled over theta1 in [45, 90] deg, theta2 in "
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
        certificates=_usable_certificates(loop, channels, design.certificates),
    )
    t_report = time.perf_counter() - t0
    print_summary(report)
    total = time.perf_counter() - t_start
    print(
        f"  time: design {t_design:.1f} s, certification and report {t_report:.1f} s, "
        f"total {total:.1f} s"
    )
    return EXIT_OK
