"""Scheduled arm design (problem (27), issue 14) grown from the chained 3-state LTI controllers.

``order_study.py`` found 3-state LTI controllers that meet ``gamma1 = ||W_e S|| < 1`` with
``gamma2 = ||W_T K S||`` 0.12-0.40 at single frozen plants, all made by ``hinfstruct`` on the
stacked problem with the effort level ``g`` stepped down from the best result so far
("chained").  Frozen into ``M0`` (``M1 = M2 = 0``), every one of them leaves loops of the
box unstable (5 x 5 (t1, t2) x 33 screen: 99 to 606 of 825 loops).  This driver turns
such a controller into a scheduled design ``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)``
with screen-guarded linear-programming steps on the whole screen (the local models,
screen and step rule of :mod:`guarded_descent`, reused, not copied), in three phases
chosen from the current screen:

1. ``stabilise`` (some loop has a pole with real part above ``--decay``): the linear
   program ``min s`` over the step ``d`` with ``Re lambda_k + e_k d <= s`` for every
   closed-loop pole above ``--watch`` (first-order eigenvalue sensitivities,
   :func:`damped_pieces`; with ``--zeta`` the bound is on ``Re lambda + zeta |lambda|``,
   a damping-ratio floor) and, for the loops that are already stable,
   ``gamma2_i + g_i d <= --g2-cap`` (so that stabilising does not buy gain); a step is
   taken when it lowers the screen's largest pole real part.
2. ``feasibility`` (all loops decay, ``gamma1 > --g1-max`` somewhere):
   :func:`guarded_descent.lp_step` with the cap ``--g2-cap`` on ``gamma2``; a step is taken
   when it lowers the screen's worst ``gamma1`` with ``gamma2 <= cap``.
3. ``descent`` (the screen meets the hard goal): the same program lowers the worst
   ``gamma2`` with ``gamma1 <= --c1`` in the model and ``<= --g1-max`` on the screen.  This
   is the epigraph form of the chained stacked continuation: the effort level is the
   current ``gamma2`` and each level starts from the previous design.

Box continuation (``--centre P --grow LAM0 STEP``): the screen's points are moved to
``centre + lam (p - centre)`` about the order-study plant ``P`` (:data:`CENTRES`), ``lam``
from ``LAM0`` up to 1.  Whenever the design meets the hard goal on the current box it is
written to ``PREFIX_feasible.json`` (with ``lam``) and the box grows by ``STEP`` (halved
while the grown screen's ``gamma1`` exceeds ``--grow-g1``, doubled after each stage, at most
0.25); phases 1-2 then restore the hard goal on the grown box.

Every ``--dense-every`` descent steps (whole box only) a denser screen (``--dense`` x
``--dense`` x 33) checks the design; a failure adds its worst loops to the screen and
falls back to the last densely checked design.  The last densely checked design is written
(atomically) to ``PREFIX_best.json`` in the layout of ``scheduled_stacked.py``'s round
files (``values`` with ``K.M0``, ``K.M1``, ``K.M2``; readable by ``store_stacked.py`` and
``lpv_synthesis.py --design``), the current design to ``PREFIX_last.json``.  Everything
here samples the box; nothing is certified.

Subcommands: ``margin POINT --hard-scale H --out FILE`` (one ``systune`` run at the point's
frozen plant from its best 3-state controller with the hard goal ``||H W_e S|| <= 1``:
slack in ``gamma1`` before the box grows), ``check`` and ``store`` (below).

The stored ``checkpoints/arm_lpv_chained_subbox.json`` came from (2026-11-30)::

    chained_schedule.py margin c --hard-scale 1.15 --out C115.json
    chained_schedule.py --start C115.json --centre c --grow 0 0.05 --grow-g1 1.03 \\
        --delta 0.005 --g1-max 0.9995 --c1 0.995 --screen 5 --minutes 19 --out RUN
    chained_schedule.py check RUN_feasible.json --grid 11 --random 300 --centre c \\
        --lam 0.1375 --json CHECK.json
    chained_schedule.py store RUN_feasible.json OUT.json --check CHECK.json \\
        --start-file C115.json --origin "..."

(stopped by hand at ``lam = 0.1375``, 13 min).

Run (one BLAS thread)::

    OMP_NUM_THREADS=1 nice -n 10 python case_studies/robotic_arm/chained_schedule.py \\
        --start a --screen 7 --minutes 60 --out /tmp/arm_chained

Independent check of a design (python-control loops, SLICOT AB13DD at tol 1e-6 and 1e-8
and a numpy 3000-point grid, the largest kept; :func:`independent_check`)::

    python case_studies/robotic_arm/chained_schedule.py check DESIGN.json --grid 11 \\
        --random 300 --json CHECK.json

``store DESIGN.json OUT.json --check CHECK.json`` writes the checkpoint (``provenance``,
``values``, ``checks``, ``active_set``, ``certified``: the layout of the other arm
checkpoints).

``--start`` is an order-study point (``a``, ``b``, ``c``, ``d``: its best 3-state
controller in ``checkpoints/order_study.json``) or a JSON file with ``values`` or ``lti``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import control
import numpy as np
from scipy.linalg import eig
from scipy.optimize import linprog

sys.path.insert(0, str(Path(__file__).resolve().parent))
import guarded_descent as gd  # noqa: E402
from scheduled_continuation import surface_from_lti  # noqa: E402
from scheduled_stacked import log  # noqa: E402

from robustmb.examples.arm_lpv import OUTPUT_SCALE  # noqa: E402

HERE = Path(__file__).resolve().parent
ORDER_STUDY = HERE / "checkpoints" / "order_study.json"
#: The order study's frozen plants: ``(theta1, theta2)`` deg and physical levels.
CENTRES = {
    "a": ((45.0, 135.0), (1, 1, 1, -1, 1)),
    "b": ((45.0, 135.0), (0, 0, 0, 0, 0)),
    "c": ((67.5, 90.0), (0, 0, 0, 0, 0)),
    "d": ((90.0, 135.0), (0, 0, 0, 0, 0)),
}


def lti_of_point(point, path=ORDER_STUDY):
    """Best 3-state controller (torque units ``A, B, C, D``) of an order-study point."""
    with open(path) as fh:
        summ = json.load(fh)["summary"]
    rec = next(s for s in summ if s["point"] == point and s["order"] == 3)
    A, B, C, D = (np.asarray(m, float) for m in rec["best"]["K_scaled"])
    return A, B, OUTPUT_SCALE * C, OUTPUT_SCALE * D


def load_start(spec):
    """Surface vector ``x`` of ``--start`` (an order-study point or a JSON file)."""
    if spec in ("a", "b", "c", "d"):
        v = surface_from_lti(*lti_of_point(spec))
    else:
        with open(spec) as fh:
            d = json.load(fh)
        if "values" in d:
            v = d["values"]
        else:
            v = surface_from_lti(*(np.asarray(d["lti"][k], float) for k in "ABCD"))
    return np.concatenate([np.asarray(v[f"K.M{i}"], float).ravel() for i in range(3)])


def write_json(path, obj):
    """Write ``obj`` to ``path`` atomically (temporary file, then rename)."""
    tmp = f"{path}.tmp"
    with open(tmp, "w") as fh:
        json.dump(obj, fh)
    os.replace(tmp, path)


def damped_pieces(loop, x, zeta, watch):
    """``(Re lambda + zeta |lambda|, gradient)`` of the closed-loop poles above ``watch``.

    Below zero exactly when the pole decays with damping ratio above ``zeta``
    (``-Re lambda >= zeta |lambda|``); first-order eigenvalue sensitivities
    ``d lambda = y^H dA_cl x / y^H x`` with ``dA_cl = P SCALE dM Q`` (the blocks of
    :class:`guarded_descent.Loop`).
    """
    lam, Y, X = eig(loop.mats(x)[0], left=True, right=True)
    out = []
    for k in range(lam.size):
        val = lam[k].real + zeta * abs(lam[k])
        if val <= watch:
            continue
        y, xr = Y[:, k], X[:, k]
        p = (y.conj() @ loop.P @ gd.SCALE) / (y.conj() @ xr)
        dlam = np.outer(p, loop.Q @ xr)  # d lambda / d M (complex)
        unit = np.conj(lam[k]) / abs(lam[k]) if abs(lam[k]) > 0 else 0.0
        g = np.real(dlam) + zeta * np.real(unit * dlam)
        out.append((float(val), np.concatenate([g.ravel(), loop.s1 * g.ravel(),
                                                loop.s2 * g.ravel()])))  # fmt: skip
    return out


def damped_max(x, loops, zeta):
    """Largest ``Re lambda + zeta |lambda|`` over the loops' closed-loop poles."""
    return max(
        float(np.max(lam.real + zeta * np.abs(lam)))
        for lam in (np.linalg.eigvals(lp.mats(x)[0]) for lp in loops)
    )


def stabilise_step(x, loops, sc, a, delta):
    """Step ``d`` of the stabilising linear program and its predicted largest real part."""
    rows, rows2 = [], []
    for lp in loops:
        rows += damped_pieces(lp, x, a.zeta, a.watch)
    if a.g2_cap is not None:
        stable = np.flatnonzero(np.isfinite(sc["g2"]))
        top = stable[np.argsort(-sc["g2"][stable])][: a.max_pieces]
        for i in top:
            if sc["g2"][i] >= 0.8 * a.g2_cap:
                rows2 += loops[i].pieces(x, 2, sc["w2"][i])
    nx = x.size
    c = np.zeros(nx + 1)
    c[nx] = 1.0
    A = [np.concatenate([g, [-1.0]]) for _, g in rows]
    b = [-v for v, _ in rows]
    A += [np.concatenate([g, [0.0]]) for _, g in rows2]
    b += [a.g2_cap - v for v, _ in rows2]
    sx = np.maximum(np.abs(x), 1.0)
    bounds = [(-delta * s, delta * s) for s in sx] + [(None, None)]
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"stabilising linear program: {res.message}")
    return res.x[:nx], float(res.x[nx]), (len(rows), len(rows2))


def controller_at(values, t1, t2):
    """``K(s)`` (torque units, python-control) of the surface at ``(t1, t2)``, written out.

    ``s_i = (t_i - centre_i) / half_i`` and ``[[A, B], [C, D]] = M0 + s1 M1 + s2 M2``,
    torques ``OUTPUT_SCALE (C x + D e)``: built here from the stored matrices, not by the
    package's controller object.
    """
    s1 = (t1 - gd.CENTRE["t1"]) / gd.HALF["t1"]
    s2 = (t2 - gd.CENTRE["t2"]) / gd.HALF["t2"]
    M = sum(np.asarray(values[f"K.M{i}"], float) * f for i, f in enumerate((1.0, s1, s2)))
    A, B, C, D = M[:3, :3], M[:3, 3:], M[3:, :3], M[3:, 3:]
    return control.ss(A, B, OUTPUT_SCALE * C, OUTPUT_SCALE * D)


CHECK_GRID = np.logspace(-4, 4, 3000)
CHECK_TOLS = (1e-6, 1e-8)
WE_SS = control.ss(control.tf([1.0, 1.0], [2.0, 0.02]))


def check_loop(G, K):
    """``(stable, max real, gamma1, gamma2)`` by python-control + AB13DD and a numpy grid.

    ``S = feedback(I, K G)``, ``K S = feedback(K, G)``; each norm is the largest of AB13DD
    at ``CHECK_TOLS`` and the 3000-point grid (a lower bound of the norm).
    """
    eye = control.ss([], [], [], np.eye(2))
    S = control.feedback(eye, control.series(K, G))
    KS = control.feedback(K, G)
    mr = max(float(np.max(np.linalg.eigvals(np.asarray(M.A)).real)) for M in (S, KS))
    if mr >= 0:
        return False, mr, np.inf, np.inf
    T1 = control.series(S, control.append(WE_SS, WE_SS))
    g1 = max(float(control.norm(T1, "inf", tol=t)) for t in CHECK_TOLS)
    g2 = max(float(control.norm(KS, "inf", tol=t)) for t in CHECK_TOLS) * gd.WT
    jw = 1j * CHECK_GRID[:, None, None]

    def resp(P):
        A, B, C, D = (np.asarray(m, float) for m in (P.A, P.B, P.C, P.D))
        return D + C @ np.linalg.solve(jw * np.eye(A.shape[0]) - A, B)

    Gw, Kw = resp(G), resp(K)
    Sw = np.linalg.inv(np.eye(2) + Gw @ Kw)
    we = np.abs((1j * CHECK_GRID + 1) / (2j * CHECK_GRID + 0.02))
    gg1 = float(np.max(we * np.linalg.norm(Sw, 2, axis=(1, 2))))
    gg2 = float(np.max(np.linalg.norm(Kw @ Sw, 2, axis=(1, 2)))) * gd.WT
    return True, mr, max(g1, gg1), max(g2, gg2)


def independent_check(values, grid=11, n_random=300, seed=14, lam=1.0, centre=None):
    """Worst loops over ``grid x grid`` (t1, t2) x (nominal + 32 vertices) and ``n_random``
    uniform points of the 7-parameter box (``t1, t2`` uniform in their ranges).

    With ``centre`` (a key of :data:`CENTRES`) every point ``p`` is moved to
    ``centre + lam (p - centre)``: the box scaled by ``lam`` about that frozen plant.

    Returns a dict per sample set (``grid``, ``random``): ``loops``, ``unstable``,
    ``max_real``, ``gamma1``, ``gamma2`` and the points of the worst ``gamma1``/``gamma2``.
    """
    rng = np.random.default_rng(seed)
    r1, r2 = (gd.ELS[n].range for n in ("t1", "t2"))
    rand = [
        {"t1": float(rng.uniform(*r1)), "t2": float(rng.uniform(*r2))}
        | gd.physical(tuple(rng.uniform(-1, 1, 5)))
        for _ in range(n_random)
    ]
    pts_grid = gd.grid_points(grid)
    if centre is not None:
        c = shrunk_points(1, 0.0, CENTRES[centre])[0]
        pts_grid = shrunk_points(grid, lam, CENTRES[centre])
        rand = [{k: c[k] + lam * (v - c[k]) for k, v in p.items()} for p in rand]
    out = {}
    for name, pts in (("grid", pts_grid), ("random", rand)):
        res = dict(loops=0, unstable=0, max_real=-np.inf, gamma1=0.0, gamma2=0.0)
        for p in pts:
            Gs = gd.PROB.plant.usubs(p)
            G = control.ss(Gs.A, Gs.B, Gs.C, Gs.D)
            ok, mr, g1, g2 = check_loop(G, controller_at(values, p["t1"], p["t2"]))
            res["loops"] += 1
            res["unstable"] += int(not ok)
            res["max_real"] = max(res["max_real"], mr)
            if g1 > res["gamma1"]:
                res["gamma1"], res["where1"] = g1, p
            if g2 > res["gamma2"]:
                res["gamma2"], res["where2"] = g2, p
        out[name] = res
    return out


def phase_of(sc, a):
    g1, _, mr = gd.summary(sc)
    if mr > a.decay or sc.get("damped", -np.inf) > a.decay:
        return "stabilise"
    return "feasibility" if g1 > a.g1_max else "descent"


def shrunk_points(n, lam, centre):
    """The ``n x n x 33`` screen's points moved to ``centre + lam (p - centre)``.

    ``centre``: ``(theta1, theta2)`` in deg and the five physical levels; ``lam = 1`` is the
    whole box, ``lam = 0`` the single frozen plant the start was tuned at.
    """
    th, lv = centre
    c = gd.physical(lv) | {"t1": float(np.tan(np.radians(th[0]) / 2)),
                           "t2": float(np.tan(np.radians(th[1]) / 2))}  # fmt: skip
    return [{k: c[k] + lam * (v - c[k]) for k, v in p.items()} for p in gd.grid_points(n)]


def screen(x, loops, a):
    """:func:`guarded_descent.screen` plus ``damped``: the largest
    ``Re lambda + zeta |lambda|`` (only while stabilising, ``--zeta`` > 0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc = gd.screen(x, loops)
    if a.zeta > 0 and a.stabilising:
        sc["damped"] = damped_max(x, loops, a.zeta)
    return sc


def record(x, sc, a, extra=None):
    g1, g2, mr = gd.summary(sc)
    rec = dict(
        values=gd.values_of(x),
        screen=dict(grid=a.screen, gamma1=g1, gamma2=g2, max_real=mr),
        status="NOT certified (sampled screen only)",
    )
    return rec | (extra or {})


def check_main(argv):
    ap = argparse.ArgumentParser(description="independent check of a design file")
    ap.add_argument("design")
    ap.add_argument("--grid", type=int, default=11)
    ap.add_argument("--random", type=int, default=300)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--json", default=None, help="write the result here")
    ap.add_argument("--centre", default=None, choices=sorted(CENTRES))
    ap.add_argument("--lam", type=float, default=1.0, help="scale of the box about --centre")
    a = ap.parse_args(argv)
    with open(a.design) as fh:
        values = json.load(fh)["values"]
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = independent_check(values, a.grid, a.random, a.seed, a.lam, a.centre)
    r["seconds"] = round(time.perf_counter() - t0, 1)
    r["sizes"] = dict(grid=a.grid, random=a.random, seed=a.seed)
    r["box"] = dict(centre=a.centre, lam=a.lam)
    print(json.dumps(r, indent=1))
    if a.json:
        write_json(a.json, r)


def box_text(box):
    """Words for the checked box of a ``check`` result."""
    if not box or box.get("centre") is None or box.get("lam", 1.0) >= 1.0:
        return "the whole box"
    th, lv = CENTRES[box["centre"]]
    return (
        f"NOT the whole box: the box scaled by {box['lam']:.4g} about the frozen plant "
        f"theta = {th} deg, levels {lv} (every point p moved to centre + lam (p - centre))"
    )


def store_main(argv):
    ap = argparse.ArgumentParser(description="check a design and store it as a checkpoint")
    ap.add_argument("design")
    ap.add_argument("out")
    ap.add_argument("--check", required=True, help="result of the `check` command (JSON)")
    ap.add_argument("--note", default="")
    ap.add_argument("--origin", required=True, help="how the design was found (words)")
    ap.add_argument("--start-file", default=None, help="the start (JSON with 'lti'), kept")
    a = ap.parse_args(argv)
    with open(a.design) as fh:
        d = json.load(fh)
    start = None
    if a.start_file:
        with open(a.start_file) as fh:
            start = json.load(fh)
    with open(a.check) as fh:
        chk = json.load(fh)
    g, r = chk["grid"], chk["random"]
    worst1 = max(g["gamma1"], r["gamma1"])
    worst2 = max(g["gamma2"], r["gamma2"])
    prov = (
        "NOT a certified design: sampled only (python-control loops, SLICOT AB13DD at tol "
        "1e-6 and 1e-8 and a 3000-point numpy grid, the largest kept), no wcgain bound. "
        "Scheduled 3-state design of the arm, problem (27), by "
        f"case_studies/robotic_arm/chained_schedule.py: {a.origin} "
        f"Checked box: {box_text(chk.get('box'))}. "
        f"Independent check on {g['loops']} grid loops ({chk['sizes']['grid']}^2 (t1, t2) "
        f"x nominal + 32 vertices) and {r['loops']} random points of the 7-parameter box "
        f"(seed {chk['sizes']['seed']}): unstable {g['unstable'] + r['unstable']}, worst "
        f"||W_e S|| {worst1:.6f}, worst ||W_T K S|| {worst2:.6f}. " + a.note
    )
    out = dict(
        provenance=prov, values=d["values"], checks=dict(screen=d.get("screen"),
        dense=d.get("dense"), independent=chk), active_set=d.get("points", []),
        history=d.get("history", []), certified=None, start=start,
        box=dict(centre=d.get("centre"), lam=d.get("lam", 1.0)),
    )  # fmt: skip
    write_json(a.out, out)
    print("written", a.out)


def margin_main(argv):
    """``margin POINT --hard-scale H --out FILE``: one ``systune`` run at the point's frozen
    plant (:func:`order_study.tune`, hard goal ``||H W_e S|| <= 1``) from its best 3-state
    controller; the result (``lti`` in torque units and its independent check) to ``FILE``.
    """
    import order_study
    from structure_gap import frozen

    ap = argparse.ArgumentParser(description="pointwise margin on gamma1 at a frozen plant")
    ap.add_argument("point", choices=sorted(CENTRES))
    ap.add_argument("--hard-scale", type=float, default=1.15)
    ap.add_argument("--maxiter", type=int, default=300)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    with open(ORDER_STUDY) as fh:
        summ = json.load(fh)["summary"]
    best = next(s for s in summ if s["point"] == a.point and s["order"] == 3)["best"]
    th, lv = CENTRES[a.point]
    r = order_study.tune(frozen(*th, lv), 3, best["form"], best["K_scaled"], a.maxiter,
                         hard_scale=a.hard_scale)  # fmt: skip
    A, B, C, D = (np.asarray(m, float) for m in r["K_scaled"])
    lti = dict(A=A, B=B, C=OUTPUT_SCALE * C, D=OUTPUT_SCALE * D)
    chk = {k: r[k] for k in ("gamma1", "gamma2", "max_real", "time")}
    log(f"{a.point}, hard scale {a.hard_scale}: {chk}")
    write_json(a.out, dict(lti={k: v.tolist() for k, v in lti.items()}, check=chk,
                           point=a.point, hard_scale=a.hard_scale, form=best["form"]))  # fmt: skip


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "margin":
        return margin_main(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "check":
        return check_main(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "store":
        return store_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--start", required=True)
    ap.add_argument("--screen", type=int, default=7)
    ap.add_argument("--dense", type=int, default=13)
    ap.add_argument("--dense-every", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--delta", type=float, default=0.02, help="initial relative trust box")
    ap.add_argument("--delta-max", type=float, default=0.3)
    ap.add_argument("--shrink", type=float, default=0.5, help="smallest trust-box factor")
    ap.add_argument("--c1", type=float, default=0.985, help="gamma1 level of the model")
    ap.add_argument("--g1-max", type=float, default=0.99, help="screen's gamma1 to accept")
    ap.add_argument("--g1-dense", type=float, default=0.995)
    ap.add_argument("--decay", type=float, default=-1e-3, help="largest pole real part")
    ap.add_argument("--watch", type=float, default=-0.05)
    ap.add_argument(
        "--zeta", type=float, default=0.0,
        help="phase 1 also asks every pole for damping ratio above this",
    )  # fmt: skip
    ap.add_argument("--band1", type=float, default=0.04)
    ap.add_argument("--band2", type=float, default=0.08)
    ap.add_argument(
        "--band1-rel", type=float, default=0.3,
        help="gamma1 band of the model also this fraction of (worst gamma1 - 1)",
    )  # fmt: skip
    ap.add_argument("--max-pieces", type=int, default=150)
    ap.add_argument("--penalty", type=float, default=100.0)
    ap.add_argument("--g2-cap", type=float, default=None, help="gamma2 cap of phases 1, 2")
    ap.add_argument("--out", default="/tmp/arm_chained")
    ap.add_argument(
        "--centre", default=None, choices=sorted(CENTRES),
        help="box continuation around this order-study point (its frozen plant)",
    )  # fmt: skip
    ap.add_argument(
        "--grow", type=float, nargs=2, default=(0.05, 0.05), metavar=("LAM0", "STEP"),
        help="box continuation: first scale of the box and first step of the scale",
    )  # fmt: skip
    ap.add_argument(
        "--grow-g1", type=float, default=1.3,
        help="largest screened gamma1 right after a growth step (else a smaller step)",
    )  # fmt: skip
    a = ap.parse_args()
    t_end = time.time() + 60 * a.minutes
    x = load_start(a.start)
    centre = CENTRES[a.centre] if a.centre else None
    lam, lam_step = (a.grow[0], a.grow[1]) if centre else (1.0, 0.0)
    loops = [gd.Loop(p) for p in (shrunk_points(a.screen, lam, centre) if centre else
                                  gd.grid_points(a.screen))]  # fmt: skip
    n_screen = len(loops)
    dense_loops = None
    t0 = time.perf_counter()
    a.stabilising = True
    sc = screen(x, loops, a)
    g1, g2, mr = gd.summary(sc)
    nu = int(np.sum(sc["mr"] >= 0))
    log(f"start {a.start}: {len(loops)} loops, unstable {nu}, gamma1 {g1:.4f} gamma2 "
        f"{g2:.4f} max real {mr:.4f} ({time.perf_counter() - t0:.1f} s)")  # fmt: skip
    history = [dict(round=-1, phase=phase_of(sc, a), gamma1=g1, gamma2=g2, max_real=mr)]
    delta, descents, x_dense, best = a.delta, 0, None, None
    for rnd in range(a.rounds):
        if time.time() > t_end:
            log("time budget spent")
            break
        if phase_of(sc, a) == "descent" and lam < 1.0:
            # box continuation: grow the box while the design meets the hard goal on it;
            # the design is feasible on the current box: kept with it
            write_json(f"{a.out}_feasible.json", record(x, sc, a, dict(
                history=history, lam=lam, start=a.start, centre=a.centre)))  # fmt: skip
            while True:
                new = min(1.0, lam + lam_step)
                cl = [gd.Loop(p) for p in shrunk_points(a.screen, new, centre)]
                c = screen(x, cl, a)
                cg1, cg2, cmr = gd.summary(c)
                log(f"  grow {lam:.4f} -> {new:.4f}: gamma1 {cg1:.4f} gamma2 {cg2:.4f} "
                    f"max real {cmr:.4f}")  # fmt: skip
                if (cmr <= a.decay and cg1 <= a.grow_g1) or lam_step < 1e-4:
                    break
                lam_step *= 0.5
            lam, loops, sc = new, cl, c
            g1, g2, mr = cg1, cg2, cmr
            lam_step = min(2 * lam_step, 0.25)
            history.append(dict(round=rnd, phase="grow", lam=lam, gamma1=g1, gamma2=g2,
                                max_real=mr))  # fmt: skip
            write_json(f"{a.out}_last.json", record(x, sc, a, dict(history=history, lam=lam,
                                                                   start=a.start)))  # fmt: skip
            continue
        phase = phase_of(sc, a)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if phase == "stabilise":
                d, pred, n = stabilise_step(x, loops, sc, a, delta)
            else:
                # gamma1 far above 1: the loops within a relative band of the worst enter
                b = argparse.Namespace(**vars(a))
                b.band1 = max(a.band1, a.band1_rel * (g1 - 1.0))
                d, pred, _, n = gd.lp_step(x, loops, sc, b, delta)
        taken = None
        for frac in (1.0, 0.5, 0.25, 0.1):
            cand = x + frac * d
            c = screen(cand, loops, a)
            cg1, cg2, cmr = gd.summary(c)
            if phase == "stabilise":
                m_old = max(mr, sc.get("damped", -np.inf))
                m_new = max(cmr, c.get("damped", -np.inf))
                ok = m_new < m_old and (a.g2_cap is None or m_new > a.decay or cg2 <= a.g2_cap)
            else:
                ok = gd.accept(c, a, g1, g2)
            if ok:
                taken = (frac, cand, c)
                break
        dt = time.perf_counter() - t0
        rec = dict(round=rnd, phase=phase, delta=delta, pieces=n, predicted=pred,
                   seconds=round(dt, 1))  # fmt: skip
        if taken is None:
            delta *= 0.25
            log(f"round {rnd} ({phase}): no step taken (predicted {pred:.4g}), delta -> "
                f"{delta:.2e} ({dt:.0f} s)")  # fmt: skip
            history.append(rec | dict(step=0.0))
            if delta < 1e-6:
                break
            continue
        frac, x, sc = taken
        g1, g2, mr = gd.summary(sc)
        if a.stabilising and phase_of(sc, a) != "stabilise":
            a.stabilising = False  # the damping bound only guides the first phase
            sc.pop("damped", None)
        delta = min(delta * 1.5, a.delta_max) if frac == 1.0 else delta * max(frac, a.shrink)
        log(f"round {rnd} ({phase}): step {frac} gamma1 {g1:.4f} gamma2 {g2:.4f} max real "
            f"{mr:.4f} unstable {int(np.sum(sc['mr'] >= 0))} (model {pred:.4g}); pieces {n}, "
            f"delta -> {delta:.2e} ({dt:.0f} s)")  # fmt: skip
        rec |= dict(step=frac, gamma1=g1, gamma2=g2, max_real=mr)
        if phase_of(sc, a) == "descent" and lam >= 1.0:
            descents += 1
            if x_dense is None or descents % a.dense_every == 0:
                if dense_loops is None:
                    dense_loops = [gd.Loop(p) for p in gd.grid_points(a.dense)]
                t1 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    dsc = gd.screen(x, dense_loops)
                dg1, dg2, dmr = gd.summary(dsc)
                log(f"dense {a.dense}x{a.dense}x33: gamma1 {dg1:.4f} gamma2 {dg2:.4f} "
                    f"max real {dmr:.4f} ({time.perf_counter() - t1:.0f} s)")  # fmt: skip
                rec |= dict(dense=dict(gamma1=dg1, gamma2=dg2, max_real=dmr))
                if dg1 > a.g1_dense or dmr > a.decay:
                    bad = np.argsort(-np.where(dsc["mr"] > a.decay, np.inf, dsc["g1"]))[:8]
                    loops += [dense_loops[i] for i in bad]
                    if x_dense is not None:
                        x = x_dense.copy()
                    sc = screen(x, loops, a)
                    g1, g2, mr = gd.summary(sc)
                    delta *= 0.5
                    log(f"dense check failed: {len(loops)} screen loops, back to gamma1 "
                        f"{g1:.4f} gamma2 {g2:.4f}")  # fmt: skip
                    rec |= dict(fallback=True)
                else:
                    x_dense = x.copy()
                    best = record(x, sc, a, dict(
                        round=rnd, dense=dict(grid=a.dense, gamma1=dg1, gamma2=dg2,
                                              max_real=dmr)))  # fmt: skip
        history.append(rec)
        extra = dict(history=history, start=a.start,
                     points=[lp.point for lp in loops[n_screen:]], lam=lam)  # fmt: skip
        write_json(f"{a.out}_last.json", record(x, sc, a, extra))
        if best is not None:
            write_json(f"{a.out}_best.json", best | extra)


if __name__ == "__main__":
    main()
