"""Robust LPV synthesis of the two-link arm (seed 000, problem (27)), certified, end to end.

Run from the repository root::

    python case_studies/robotic_arm/lpv_synthesis.py [--out DIR] [--quick]
    python case_studies/robotic_arm/lpv_synthesis.py --design PATH [--report]

Without ``--design`` it tunes ``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)`` scheduled by
the arm's ``t1 = tan(theta1/2)``, ``t2 = tan(theta2/2)`` against m1, J1, rho1, L2, m3 at
+-20 % (:func:`robustmb.report.arm_lpv.arm_lpv_design`: active-set robust
``systune`` and ``wcgain`` certificates over the whole box), then writes the files below.

With ``--design PATH`` (a stored design, e.g. ``checkpoints/arm_lpv_guarded.json``) it
tunes nothing: the controller is the stored values, and the certificate table gives
the goals on the stored active set (evaluated here), the worst values of a sampled
check made here (:func:`check_design.check`: python-control loops, SLICOT AB13DD, a
``--check-grid`` square ``(t1, t2)`` grid x the nominal point and the 32 physical
vertices) and the certified upper bounds: for the design shipped with the package
(``arm_lpv_guarded``), the levels of its partition certificates re-checked here over the
whole box (:func:`robustmb.report.arm_certificate.certified_demo`, about 1.5 min on two
cores; its report in ``DIR/certificate/``); otherwise those recorded in the file (its
``certified`` key), or "not certified".  The worst-case report then runs only with ``--report`` (it
certifies both channels with ``wcgain`` over the 7-parameter box itself: tens of
minutes); the step figure's worst case is the check's worst point for ``||W_e S||``.

- ``fig7_controller_sv.png``: singular values of K(j w, tau) at theta1 = 45 deg,
  theta2 swept over [45, 135] deg (the paper's Fig. 7);
- ``step_corners.png``: step responses of the tracking loop r -> theta at the four
  corners of the scheduling box (nominal physical parameters) and at the worst
  case found for the tracking channel;
- ``certificates.md``: gamma1 = ||W_e S||, gamma2 = ||W_T K S|| over the active set,
  the worst found over the box, the certified upper bound, and the paper's values;
- ``report/``: the worst-case report of the tuned loop (``robustmb.report``);
- ``nonlinear_step.png``: the nonlinear arm (multibody simulator) under
  K(s, tau(theta)) evaluated at the measured angles, stepping from (50, 60) deg to
  (80, 110) deg, against the frozen linear loops at the start and the target.

Guarantees are frozen-parameter ones (every constant tau in the ranges, no rate
bound), as in the paper.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from robustmb.examples import PAPER_GAMMA1, PAPER_GAMMA2, arm_step_check  # noqa: E402
from robustmb.multibody import ScheduledController  # noqa: E402
from robustmb.report import worst_case_report  # noqa: E402
from robustmb.report.arm_lpv import (  # noqa: E402
    ArmDesign,
    _renamed_controller,
    arm_lpv_design,
    arm_lpv_loop,
    arm_lpv_loop_at_plant_inputs,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_design  # noqa: E402


def schedule_of(theta1_deg, theta2_deg):
    return {"t1": np.tan(np.radians(theta1_deg) / 2), "t2": np.tan(np.radians(theta2_deg) / 2)}


def controller_sv(ctrl, sched, omega):
    """Singular values of the frozen controller over frequency: (nw, 2)."""
    a, b, c, d = ctrl.matrices(sched)
    s = 1j * omega[:, None, None]
    resp = c @ np.linalg.solve(
        s * np.eye(a.shape[0]) - a, np.broadcast_to(b, (len(omega), *b.shape))
    )
    return np.linalg.svd(resp + d, compute_uv=False)


def figure7(design, out):
    ctrl = ScheduledController(design.controller)
    omega = np.logspace(-3, 3, 400)
    fig, ax = plt.subplots(figsize=(6.4, 4.6), layout="constrained")
    th2s = np.linspace(45.0, 135.0, 10)
    cmap = plt.get_cmap("viridis")
    for k, th2 in enumerate(th2s):
        sv = controller_sv(ctrl, schedule_of(45.0, th2), omega)
        col = cmap(k / (len(th2s) - 1))
        ax.loglog(omega, sv[:, 0], color=col, lw=1.2, label=f"{th2:.0f}°")
        ax.loglog(omega, sv[:, 1], color=col, lw=1.2, ls="--")
    ax.set_xlabel(r"$\omega$ (rad/s)")
    ax.set_ylabel(r"singular values of $K(j\omega, \tau)$ (N m/rad)")
    ax.set_title(
        r"$\theta_1 = 45^\circ$, $\theta_2 \in [45^\circ, 135^\circ]$ (solid: max, dashed: min)"
    )
    ax.legend(title=r"$\theta_2$", fontsize=7, ncol=2)
    fig.savefig(out / "fig7_controller_sv.png", dpi=120)
    plt.close(fig)


def step_figure(loop, worst, out):
    t = np.linspace(0.0, 10.0, 501)
    tr = loop[["theta1", "theta2"], ["r1", "r2"]]
    nominal = {n: el.nominal for n, el in tr.uncertainty.items()}
    cases = []
    for th1 in (45.0, 90.0):
        for th2 in (45.0, 135.0):
            cases.append((f"corner ({th1:.0f}°, {th2:.0f}°)", {**nominal, **schedule_of(th1, th2)}))
    if worst:
        th = np.degrees(2 * np.arctan([worst["t1"], worst["t2"]]))
        cases.append((f"worst case found ({th[0]:.1f}°, {th[1]:.1f}°)", {**nominal, **worst}))
    fig, axes = plt.subplots(2, 2, figsize=(8, 5.5), sharex=True, layout="constrained")
    for label, pt in cases:
        sys = tr.usubs(pt)
        for j in range(2):
            u = np.zeros((2, t.size))
            u[j] = 1.0
            y = _lsim(sys, t, u)
            for i in range(2):
                style = {"lw": 2.2, "color": "k"} if label.startswith("worst") else {"lw": 1.0}
                axes[i, j].plot(t, y[i], label=label if (i, j) == (0, 0) else None, **style)
    for i in range(2):
        for j in range(2):
            axes[i, j].set_title(rf"$r_{j + 1} \to \theta_{i + 1}$", fontsize=9)
            axes[i, j].grid(alpha=0.3)
    axes[1, 0].set_xlabel("t (s)")
    axes[1, 1].set_xlabel("t (s)")
    fig.legend(loc="outside lower center", ncol=3, fontsize=7)
    fig.savefig(out / "step_corners.png", dpi=120)
    plt.close(fig)
    return cases


def _lsim(sys, t, u):
    import control

    return np.asarray(control.forced_response(sys, t, u).outputs)


def nonlinear_figure(design, out):
    chk = arm_step_check(design.controller, (50.0, 60.0), (80.0, 110.0), t_final=10.0, n=501)
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.6), layout="constrained")
    for i, ax in enumerate(axes):
        ax.plot(chk.t, np.degrees(chk.nonlinear[:, i]), "k", lw=2, label="nonlinear, K(s, τ(θ))")
        ax.plot(chk.t, np.degrees(chk.linear_start[:, i]), "C0--", label="linear at start")
        ax.plot(chk.t, np.degrees(chk.linear_target[:, i]), "C1:", label="linear at target")
        ax.axhline(np.degrees(chk.target[i]), color="0.6", lw=0.8)
        ax.set_xlabel("t (s)")
        ax.set_ylabel(rf"$\theta_{i + 1}$ (deg)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("Step (50°, 60°) → (80°, 110°) of the nonlinear arm vs frozen linear loops")
    fig.savefig(out / "nonlinear_step.png", dpi=120)
    plt.close(fig)
    return chk


def certificate_table(design):
    res = design.tuning
    rows = [
        (
            "gamma1 = ||W_e S|| (hard)",
            res.gamma1,
            res.gamma1_found,
            res.gamma1_certified,
            PAPER_GAMMA1,
        ),
        (
            "gamma2 = ||W_T K S|| (soft)",
            res.gamma2,
            res.gamma2_found,
            res.gamma2_certified,
            PAPER_GAMMA2,
        ),
    ]
    lines = [
        "| goal | active set | worst found over the box | certified upper bound "
        "| paper (sampled) |",
        "|---|---|---|---|---|",
    ]
    for name, a, f, c, p in rows:
        lines.append(f"| {name} | {a:.4f} | {f:.4f} | {c:.4f} | {p:.2f} |")
    lines.append("")
    lines.append(
        f"Active set: {len(res.tuning.active_set)} samples; design {design.seconds:.1f} s "
        f"(certificates {res.tuning.certify_time:.1f} s)."
    )
    return "\n".join(lines)


def load_design(path):
    """The stored design at ``path`` as an :class:`ArmDesign` (no tuning) and its record.

    ``path`` is a JSON file with the tuned ``values`` (``K.M0, K.M1, K.M2``) and the
    ``active_set`` it was tuned on (the format of ``systune(checkpoint=)`` and of the
    stored designs in ``checkpoints/``); its ``provenance`` text becomes the method.
    """
    from robustmb.examples import arm_lpv_tuning_problem
    from robustmb.report.arm_certificate import design_sha256, load_shipped_design
    from robustmb.tuning.checkpoint import read_checkpoint

    t0 = time.perf_counter()
    record = read_checkpoint(path)
    prob = arm_lpv_tuning_problem()
    values = {k: np.asarray(v, float) for k, v in record["values"].items()}
    controller = _renamed_controller(prob.controller.usubs(values))
    method = f"stored design {Path(path).name} ({len(record['active_set'])} samples)"
    shipped = load_shipped_design()
    if design_sha256(values) == design_sha256(shipped["values"]):
        # the file's provenance predates the certificates shipped for it
        method += ": " + shipped["summary"]
    elif record.get("provenance"):
        method += ": " + str(record["provenance"]).split(". ")[0]
    design = ArmDesign(controller, method, time.perf_counter() - t0, values)
    return design, record, prob


def active_set_values(prob, values, active_set):
    """Worst ``||W_e S||`` and ``||W_T K S||`` over the stored active set (``hinfnorm``)."""
    from robustmb.analysis.norms import hinfnorm

    cl = prob.closed_loop.usubs(values)
    tr = cl[["e[0]", "e[1]"], ["r[0]", "r[1]"]]
    ef = cl[["T1", "T2"], ["r[0]", "r[1]"]]
    import control

    we = control.append(control.ss(prob.We), control.ss(prob.We))
    g1 = g2 = 0.0
    for pt in active_set:
        g1 = max(g1, hinfnorm(we * tr.usubs(pt))[0])
        g2 = max(g2, hinfnorm(ef.usubs(pt))[0] * prob.WT)
    return g1, g2


def rechecked_certificates(values, out):
    """``{"gamma1": level, "gamma2": level, "note": text}`` of the shipped design's
    partition certificates, re-checked here, or None when ``values`` are another design.

    A level is given only for a channel whose re-checked evidence covers the whole
    (t1, t2) square (exact coverage 1); the replay's report goes to ``out``.
    """
    from robustmb.report.arm_certificate import certified_demo, design_sha256, load_shipped_design

    if design_sha256(values) != design_sha256(load_shipped_design()["values"]):
        return None
    summary = certified_demo(str(out))
    cert = {}
    for goal, channel in (("gamma1", "tracking W_e S"), ("gamma2", "effort W_T K S")):
        ch = summary["channels"][channel]
        if ch.get("certified_coverage_exact") == "1":
            cert[goal] = ch["certified_level"]
    cert["note"] = (
        "partition certificates of the shipped evidence, re-checked here over the whole "
        f"box (robust stability included, frozen parameters; report in {out})"
    )
    return cert


def stored_certificate_table(prob, design, record, grid, cert_dir):
    """Certificate table of a stored design and the independent check's result."""
    g1a, g2a = active_set_values(prob, design.values, record["active_set"])
    t0 = time.perf_counter()
    chk = check_design.check(design.values, grid=grid, n_random=0)
    took = time.perf_counter() - t0
    cert = rechecked_certificates(design.values, cert_dir) or record.get("certified") or {}
    rows = [
        ("gamma1 = ||W_e S|| (hard)", g1a, chk["gamma1"], cert.get("gamma1"), PAPER_GAMMA1),
        ("gamma2 = ||W_T K S|| (soft)", g2a, chk["gamma2"], cert.get("gamma2"), PAPER_GAMMA2),
    ]
    lines = [
        "| goal | active set | worst of the sampled check | certified upper bound "
        "| paper (sampled) |",
        "|---|---|---|---|---|",
    ]
    for name, a, f, c, p in rows:
        c = "not certified" if c is None else f"{c:.4f}"
        lines.append(f"| {name} | {a:.4f} | {f:.4f} | {c} | {p:.2f} |")
    lines.append("")
    lines.append(
        f"Stored design, {len(record['active_set'])} active-set samples. Sampled check "
        f"(python-control loops, SLICOT AB13DD): {chk['loops']} loops ({grid} x {grid} "
        f"(t1, t2) x nominal + 32 physical vertices), {chk['unstable']} unstable, largest "
        f"pole real part {chk['max_real']:.4g}, {took:.1f} s. Sampled values are lower "
        "bounds of the worst case, not certificates."
    )
    if cert.get("note"):
        lines.append("")
        lines.append(f"Certificates: {cert['note']}")
    return "\n".join(lines), chk


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "figures"))
    parser.add_argument("--quick", action="store_true", help="smaller tuning budget")
    parser.add_argument("--samples", type=int, default=50, help="Monte Carlo samples of the report")
    parser.add_argument("--design", help="stored design (JSON): no tuning")
    parser.add_argument(
        "--check-grid", type=int, default=7, help="with --design: (t1, t2) grid of the check"
    )
    parser.add_argument(
        "--report", action="store_true", help="with --design: also the worst-case report"
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    worst = None
    if args.design:
        design, record, prob = load_design(args.design)
        print(f"design ({time.perf_counter() - t0:.1f} s): {design.method}")
        figure7(design, out)
        table, chk = stored_certificate_table(
            prob, design, record, args.check_grid, out / "certificate"
        )
        worst = dict(chk["where1"])
    else:
        design = arm_lpv_design(quick=args.quick)
        print(f"design ({time.perf_counter() - t0:.1f} s): {design.method}")
        figure7(design, out)
        table = certificate_table(design)
        cert = design.certificates.get("tracking W_e S")
        if cert is not None and cert.worst:
            worst = {k: v for k, v in cert.worst.items() if isinstance(v, float | int)}
    (out / "certificates.md").write_text(table + "\n")
    print(table)

    loop, channels = arm_lpv_loop(design.controller)
    step_figure(loop, worst, out)
    chk = nonlinear_figure(design, out)
    print(
        f"nonlinear step: largest deviation from the linear loop at the start "
        f"{np.degrees(chk.deviation):.2f} deg; final error "
        f"{np.degrees(chk.final_error).round(4)} deg"
    )
    if args.design and not args.report:
        print(f"wrote {out} (total {time.perf_counter() - t0:.1f} s; no report without --report)")
        return
    rep = worst_case_report(
        loop,
        channels,
        out_dir=out / "report",
        n_samples=args.samples,
        title="Worst-case report: robust LPV design of the two-link arm",
        notes=f"Controller: {design.method}.",
        loop=arm_lpv_loop_at_plant_inputs(design.controller),
        loop_description="the plant inputs (joint torques), L = K G",
        step=(["theta1", "theta2"], ["r1", "r2"]),
        certificates=design.certificates,
    )
    print(rep.analysis.headline())
    print(f"wrote {out} (total {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
