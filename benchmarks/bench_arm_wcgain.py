"""Worst-case gain of the arm (7 real parameters, t1 and t2 free): certified gap and time.

The arm's tracking (``W_e S``) and effort (``W_T K S``) channels of
:func:`robustmb.report.arm_lpv.arm_lpv_loop`, closed with the scheduled PID of
:func:`robustmb.report.arm_lpv.scheduled_pid`.  For each channel:
``wcgain``'s certified ``[lower, upper]``, gap, time, boxes, and the time spent in each
stage (pointwise D,G bisection, whole-axis sweeps, branch and bound), then a soundness
check on dense samples of the box (no sample's peak gain above ``upper``; ``lower`` is
the peak gain of the reported worst case, recomputed here).

``--design PATH`` closes the loop with a stored scheduled design instead (a checkpoint
JSON whose ``"values"`` are the ``{"K.M0", "K.M1", "K.M2"}`` coefficients of
:func:`robustmb.report.arm_lpv.surface_controller`, e.g.
``case_studies/robotic_arm/checkpoints/arm_lpv_hard.json``).  ``--gap-tol G`` is
wcgain's relative gap tolerance (default 0.01 here).  The single-box level and each
whole-axis sweep are printed as soon as they end.

Run: ``python benchmarks/bench_arm_wcgain.py [tracking|effort] [--quarter]
[--samples N] [--design PATH] [--gap-tol G] [--progress]`` from the repository root
(slow: minutes to an hour per channel).
"""

import json
import sys
import time

import numpy as np

import robustmb as rmb
from robustmb.analysis import branch_and_bound, mu_sweep
from robustmb.analysis import worst_case_gain as wcg
from robustmb.analysis.norms import hinfnorm

CHANNELS = {"tracking": "tracking W_e S", "effort": "effort W_T K S"}


def load_design(path):
    """The scheduled controller stored in the checkpoint ``path`` (its ``"values"``).

    As in ``case_studies/robotic_arm/check_design.py``: the tuning problem's controller
    (surface and output scaling) with the stored values, renamed errors -> torques
    ``e1, e2 -> u1, u2`` for :func:`robustmb.report.arm_lpv.arm_lpv_loop`.
    """
    import copy

    from robustmb.examples import arm_lpv_tuning_problem

    with open(path) as fh:
        values = json.load(fh)["values"]
    ctrl = arm_lpv_tuning_problem().controller.usubs(
        {k: np.asarray(v, float) for k, v in values.items()}
    )
    ctrl = copy.copy(ctrl)
    ctrl.input_names, ctrl.output_names = ["e1", "e2"], ["u1", "u2"]
    return ctrl


def arm_channel(which, *, quarter=False, design=None):
    """The uncertain channel ``which`` of the arm loop (on the quarter (t1, t2) box).

    ``design``: a checkpoint path (see :func:`load_design`); the scheduled PID if None.
    """
    from robustmb.report.arm_lpv import arm_lpv_loop, scheduled_pid

    controller = scheduled_pid()[0] if design is None else load_design(design)
    loop, channels = arm_lpv_loop(controller)
    outs, ins, _ = channels[CHANNELS[which]]
    model = loop[outs, ins]
    if quarter:
        els = model.uncertainty
        sub = {}
        for n in ("t1", "t2"):
            lo, hi = els[n].range
            sub[n] = rmb.ureal(n, 0.75 * lo + 0.25 * hi, range=(lo, 0.5 * (lo + hi)))
        model = model.usubs(sub)
    return model


class StageClock:
    """Wall time and calls of the stages of ``wcgain`` (wrapped module functions)."""

    def __init__(self):
        self.t = {}
        self.n = {}
        self.rows = 0
        self._saved = []

    def wrap(self, mod, name, label, count_rows=False, show=None):
        original = getattr(mod, name)

        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                out = original(*a, **k)
                if show is not None:
                    took = time.perf_counter() - t0
                    print(f"  [{label}] {show(a, out)} ({took:.1f} s)", flush=True)
                return out
            finally:
                self.t[label] = self.t.get(label, 0.0) + time.perf_counter() - t0
                self.n[label] = self.n.get(label, 0) + 1
                if count_rows:
                    self.rows += len(a[0])

        setattr(mod, name, timed)
        self._saved.append((mod, name, original))

    def __enter__(self):
        self.wrap(
            wcg,
            "pointwise_gain_bounds",
            "pointwise bisection",
            show=lambda a, gam: f"{len(gam)} frequencies, largest bound {np.max(gam):.6g}",
        )
        self.wrap(wcg, "_levels_upper", "D,G levels", count_rows=True)
        self.wrap(
            wcg,
            "_certify_level",
            "whole-axis sweep (single box)",
            show=lambda a, peak: f"level {a[1]:.6g} covered {peak.covered}",
        )
        self.wrap(wcg, "_worst_case_search", "vertex/sample search")
        self.wrap(branch_and_bound, "_certify_box", "sub-box sweeps")
        self.wrap(mu_sweep, "certified_interval", "interval certificates")
        return self

    def __exit__(self, *exc):
        for mod, name, original in reversed(self._saved):
            setattr(mod, name, original)

    def report(self):
        return (
            "; ".join(
                f"{k} {v:.1f} s/{self.n[k]}"
                for k, v in sorted(self.t.items(), key=lambda kv: -kv[1])
            )
            + f"; D,G matrices {self.rows}"
        )


def dense_check(model, res, n, seed=1):
    """Largest peak gain over ``n`` random points and the vertices of the box vs the bounds."""
    els = model.uncertainty
    names = sorted(els)
    rng = np.random.default_rng(seed)
    k = len(names)
    pts = rng.uniform(-1, 1, (n, k))
    corners = np.array(np.meshgrid(*[[-1.0, 1.0]] * k)).reshape(k, -1).T
    best = -np.inf
    for x in np.vstack([corners, pts]):
        vals = {nm: els[nm].denormalize(xi).item() for nm, xi in zip(names, x, strict=True)}
        g, _ = hinfnorm(model.usubs(vals))
        best = max(best, g)
    g_worst, _ = hinfnorm(model.usubs(res.worst)) if res.worst else (np.nan, np.nan)
    return best, g_worst, len(corners) + n


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n_samples = 0
    if "--samples" in sys.argv:
        n_samples = int(sys.argv[sys.argv.index("--samples") + 1])
        args = [a for a in args if a != str(n_samples)]
    design_path = None
    if "--design" in sys.argv:
        design_path = sys.argv[sys.argv.index("--design") + 1]
        args = [a for a in args if a != design_path]
    gap_tol = 0.01
    if "--gap-tol" in sys.argv:
        text = sys.argv[sys.argv.index("--gap-tol") + 1]
        gap_tol = float(text)
        args = [a for a in args if a != text]
    which = args or list(CHANNELS)
    quarter = "--quarter" in sys.argv
    box = "quarter (t1, t2) box" if quarter else "full box"
    design = "scheduled PID" if design_path is None else design_path
    for name in which:
        model = arm_channel(name, quarter=quarter, design=design_path)
        print(f"{name} ({design}, {box}), gap_tol {gap_tol:g}: {model.nstates} states, "
              f"elements {sorted(model.uncertainty)}", flush=True)  # fmt: skip
        with StageClock() as clock:
            t0 = time.perf_counter()
            res = rmb.wcgain(model, progress="--progress" in sys.argv, gap_tol=gap_tol)
            elapsed = time.perf_counter() - t0
        gap = res.upper / res.lower - 1
        cover = res.boxes
        boxes = (
            "-"
            if cover is None
            else f"{cover.boxes} ({cover.evaluated} swept, {cover.probed} probed)"
        )
        print(f"\n{name} ({design}, {box}): lower {res.lower:.6g} upper {res.upper:.6g} "
              f"gap {100 * gap:.3f} % certified {res.certified} time {elapsed:.1f} s "
              f"boxes {boxes} critical {res.critical_frequency:.5g} rad/s", flush=True)  # fmt: skip
        print(f"  worst {res.worst}")
        print(f"  reason: {res.reason}")
        print(f"  stages: {clock.report()}", flush=True)
        if n_samples:
            t0 = time.perf_counter()
            best, g_worst, count = dense_check(model, res, n_samples)
            took = time.perf_counter() - t0
            print(f"  dense check: {count} points (vertices + samples) max peak {best:.6g} "
                  f"<= upper {res.upper:.6g}: {best <= res.upper}; worst's peak {g_worst:.6g} "
                  f"(lower {res.lower:.6g}); {took:.1f} s", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
