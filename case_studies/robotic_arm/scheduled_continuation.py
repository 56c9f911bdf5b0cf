"""Scheduled design of the arm's problem (27) by continuation from a one-point probe.

The stored designs are high-gain local optima (gamma2 = ||W_T K S|| 13.59 sampled).  A
3-state LTI controller tuned by ``hinfstruct`` at one configuration reached gamma2 3.80
with gamma1 = ||W_e S|| 0.909 there in an earlier run (``gamma2_floor.py --probe``; the
rerun of 2026-11-29 gave 1.047 / 5.91, see benchmarks/RESULTS.md).  This driver grows a
scheduled design from such a probe:

``probe``
    ``hinfstruct`` (3-state ``tunable_ss``) on the stacked problem ``[W_e S; W_T K S / g]``
    at the 8 vertices with ``L2`` low and ``m3`` high of ``theta = (45, 135)`` deg, from
    the stored design frozen there, for ``g = 6`` then ``g = 5`` (each result checked by
    python-control + AB13DD on the 8 plants).  The last result with gamma1 < 1 (the frozen
    stored design when none has it; ``"improved"`` in the file says which) is written as a
    scheduled design with ``M0 = [[A, B], [C, D] / OUTPUT_SCALE]`` and ``M1 = M2 = 0``.
``continue``
    The configuration set grows stage by stage (``STAGES`` below: the probe's point, its
    neighbours on the 5 x 5 ``(theta1, theta2)`` grid, then the corners and the 3 x 3 and
    5 x 5 grids).  At each configuration the nominal point and the 32 physical vertices are
    evaluated at the current design; the working set holds, per configuration, the worst
    ``NPER`` of them for each goal, plus every sample that has violated before.  The affine
    surface ``M0, M1, M2`` is retuned on the working set by the engine's min-max / barrier
    stage (``robust_tuning._run``: minimise the worst ``||W_T K S||`` subject to
    ``||W_e S|| < 0.97`` and stable loops), then every sample of the stage is evaluated;
    violators join the working set and the stage repeats (at most ``ROUNDS`` times).  Each
    design meeting ``gamma1 < 1`` on every sample of the stage is written to
    ``$CK_s<stage>r<round>.json`` with its values (sampled: nothing here certifies).

Environment: ``CK`` (prefix, default ``/tmp/lpv5/cont``), ``START`` (``continue``: the
design to start from), ``FIRST_STAGE`` (0), ``NPER`` (3), ``MAXITER`` (60), ``ROUNDS`` (4).
Usage: ``python case_studies/robotic_arm/scheduled_continuation.py probe|continue``.
"""

import itertools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from robustmb.examples.arm_lpv import OUTPUT_SCALE  # noqa: E402

CK = os.environ.get("CK", "/tmp/lpv5/cont")
HERE = Path(__file__).resolve().parent
STORED = HERE / "checkpoints" / "arm_lpv_soft_phase.json"
PHYSICAL = ["m1", "J1", "rho1", "L2", "m3"]


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def surface_from_lti(A, B, C, D):
    """Surface values of the LTI controller ``(A, B, C, D)`` (torques out) at every ``tau``.

    ``M0 = [[A, B], [C, D] / OUTPUT_SCALE]`` and ``M1 = M2 = 0``: the tuned surface's ``C``
    and ``D`` are scaled by ``OUTPUT_SCALE`` in the problem's controller.
    """
    M0 = np.block([[A, B], [np.asarray(C) / OUTPUT_SCALE, np.asarray(D) / OUTPUT_SCALE]])
    return {"K.M0": M0, "K.M1": np.zeros_like(M0), "K.M2": np.zeros_like(M0)}


def stage_probe(theta=(45.0, 135.0), gs=(6.0, 5.0), maxiter=150):
    from gamma2_floor import structured_probe

    steps, cur = structured_probe(STORED, gs, theta=theta, maxiter=maxiter)
    out = [dict(g=g, stacked=st, gamma1=g1, gamma2=g2) for g, st, g1, g2 in steps]
    improved = any(r["gamma1"] < 1 for r in out)
    A, B, C, D = (np.asarray(M, float) for M in cur)
    values = {k: v.tolist() for k, v in surface_from_lti(A, B, C, D).items()}
    d = {"values": values, "probe": out, "improved": improved, "theta": list(theta),
         "lti": {"A": A.tolist(), "B": B.tolist(), "C": C.tolist(), "D": D.tolist()}}  # fmt: skip
    with open(f"{CK}_probe.json", "w") as fh:
        json.dump(d, fh)
    log("written", f"{CK}_probe.json")


# Configuration sets (theta1, theta2) in degrees, each containing the previous one.
_T1, _T2 = np.linspace(45, 90, 5), np.linspace(45, 135, 5)
_CORNERS = [(a, b) for a in _T1[::2] for b in _T2[::2]]
STAGES = [
    [(45.0, 135.0)],
    [(a, b) for a in _T1[:2] for b in _T2[3:]],
    [(a, b) for a in _T1[:3] for b in _T2[2:]],
    list(dict.fromkeys([(a, b) for a in _T1[:3] for b in _T2[2:]] + _CORNERS)),
    [(a, b) for a in _T1 for b in _T2],
]


def samples_at(theta):
    """Nominal point and the 32 physical vertices at ``theta`` (degrees), physical units."""
    from active_set_driver import els

    t = {"t1": float(np.tan(np.radians(theta[0]) / 2)),
         "t2": float(np.tan(np.radians(theta[1]) / 2))}  # fmt: skip
    pts = [t | {n: float(els[n].nominal) for n in PHYSICAL}]
    for idx in itertools.product((0, 1), repeat=5):
        pts.append(t | {n: float(els[n].range[i]) for n, i in zip(PHYSICAL, idx, strict=True)})
    return pts


def evaluate(points, x):
    """``(gamma2, gamma1 / 0.97)`` at every point (``inf``: unstable loop)."""
    from active_set_driver import build

    sv, hv = build(points, soft=True).values(x)
    return np.array(sv), np.array(hv)


def save(tag, x, info, working):
    from active_set_driver import params

    vals = params.values(x)
    d = {"values": {k: np.asarray(v).tolist() for k, v in vals.items()},
         "x": np.asarray(x).tolist(), "info": info, "active_set": working}  # fmt: skip
    for name in (f"{CK}_{tag}.json", f"{CK}_latest.json"):
        with open(name, "w") as fh:
            json.dump(d, fh)


def stage_continue():
    from active_set_driver import MARGIN, build, params

    from robustmb.tuning.robust_tuning import _initial_vector, _run

    with open(os.environ.get("START", f"{CK}_probe.json")) as fh:
        start = json.load(fh)
    x = _initial_vector(params, start["values"])
    nper = int(os.environ.get("NPER", 3))
    maxit = int(os.environ.get("MAXITER", 60))
    rounds = int(os.environ.get("ROUNDS", 4))
    working = list(start.get("active_set", []))
    history = []
    for k in range(int(os.environ.get("FIRST_STAGE", 0)), len(STAGES)):
        confs = STAGES[k]
        pts = [p for th in confs for p in samples_at(th)]
        for rnd in range(rounds):
            t0 = time.perf_counter()
            sv, hv = evaluate(pts, x)
            # per configuration: the worst nper of each goal (unstable first)
            for c in range(len(confs)):
                sl = slice(33 * c, 33 * (c + 1))
                for v in (hv[sl], sv[sl]):
                    for i in np.argsort(-np.nan_to_num(v, posinf=1e300))[:nper]:
                        p = pts[33 * c + int(i)]
                        if p not in working:
                            working.append(p)
            r = _run(build(working, soft=True), x, maxit, None, False)
            if np.isfinite(r.value):
                x = r.x
            sv, hv = evaluate(pts, x)
            bad = [pts[i] for i in np.flatnonzero(~(hv < 1.0)) if pts[i] not in working]
            g1, g2 = float(np.max(hv) * MARGIN), float(np.max(sv))
            i1, i2 = int(np.argmax(hv)), int(np.argmax(sv))
            info = {"stage": k, "round": rnd, "configurations": len(confs),
                    "samples": len(pts), "working": len(working),
                    "gamma1": g1, "gamma2": g2, "where1": pts[i1], "where2": pts[i2],
                    "violating_outside": len(bad), "message": r.message,
                    "seconds": time.perf_counter() - t0}  # fmt: skip
            history.append(info)
            log(f"stage {k} round {rnd}: {len(confs)} conf, working {len(working)}, gamma1 "
                f"{g1:.4f} at {pts[i1]}, gamma2 {g2:.4f} at {pts[i2]}, {len(bad)} outside "
                f"violate, {r.message}, {info['seconds']:.0f} s")  # fmt: skip
            if g1 < 1.0:
                save(f"s{k}r{rnd}", x, history, working)
            if not bad and g1 < 1.0:
                break
            working += bad[:12]


if __name__ == "__main__":
    {"probe": stage_probe, "continue": stage_continue}[sys.argv[1]]()
