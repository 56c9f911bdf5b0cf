"""Pointwise bounds on the arm's effort goal gamma2 when gamma1 < 1 (problem (27)).

Problem (27) asks for ``gamma1 = max ||W_e S|| < 1`` and the smallest
``gamma2 = max ||W_T K S||`` over the scheduling box and the five +-20 % parameters.  At
a *frozen* point (``theta1, theta2`` and the five parameters fixed) the plant ``G`` is
LTI, and the smallest ``gamma2`` any LTI controller of any order reaches there with
``||W_e S|| < 1`` bounds what a scheduled controller can reach over the box (its value at
that point).  This script brackets that pointwise optimum ``g*(point)``:

* **Certified lower bound (closed form).**  ``|W_e(0)| = 50``, so ``||W_e S|| < 1`` forces
  ``||S(0)|| < 1/50``, and ``K S(0) = G(0)^-1 (I - S(0))`` gives
  ``||W_T K S|| >= W_T ||G(0)^-1|| (1 - 1/50)`` (``dc_floor``; it holds for a controller
  with integrators too, as the limit ``S(0) = 0``).
* **Relaxation (numerical lower estimate).**  If ``||W_e S|| < 1`` and
  ``||W_T K S|| < g`` then, at every frequency, ``|a|^2 s(W_e S)^2 + |b|^2
  s(W_T K S / g)^2 < |a|^2 + |b|^2 <= 1`` for any stable filters ``a, b`` with
  ``|a(jw)|^2 + |b(jw)|^2 <= 1``; so ``min_K ||[a W_e S; b W_T K S / g]|| >= 1`` proves
  ``g* >= g``.  Constants ``a = b = 2^-1/2`` give the ``sqrt(2)`` test; ``split_filters``
  gives the power-complementary first-order pair (``cos/sin`` of one angle below
  ``wc``, of another above), optimised by Nelder-Mead.  The stacked optimum comes from the
  Riccati bisection of :func:`robustmb.hinfsyn` (and is cross-checked by SLICOT SB10AD
  through python-control in the tests): a numerical verdict, **not** a certificate --
  the certified floor of :func:`robustmb.tuning.full_order_floor.full_order_floor` found
  no dual point on these plants (its SDP solver stops with an eigenvalue error).
* **Upper side (verified).**  A full-order controller from the stacked problem with
  ``a = b = 1`` (``[W_e S; W_T K S / g]``, so both goals hold when its optimum is below
  1), found by bisection on ``g``; each controller is checked independently: the loop
  ``S = (I + G K)^-1`` is closed with python-control and both norms are computed with
  SLICOT AB13DD (``control.norm``).  ``upper`` is the verified ``||W_T K S||``.

Run ``python case_studies/robotic_arm/gamma2_floor.py [--dc-grid 7] [--grid 5]
[--vertices 2] [--split] [--json PATH]``: the zero-frequency floor over a ``dc-grid``
square (theta1, theta2) grid and the ``3^5`` parameter levels, the ``grid x grid``
(theta1, theta2) grid at nominal parameters, then the 32 parameter vertices at the
``--vertices`` (theta1, theta2) points of largest lower estimate; ``--split`` optimises
the split filters at the worst point.  ``--probe CHECKPOINT [--probe-g 4 2 1 0.69]``
runs only :func:`structured_probe` (a 3-state LTI controller at theta = (45, 135) deg).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
import warnings

import control
import numpy as np
from scipy.optimize import brentq, minimize

import robustmb as rmb
from robustmb.examples import arm_lpv_tuning_problem

PHYSICAL = ("m1", "J1", "rho1", "L2", "m3")
_PROB = arm_lpv_tuning_problem()
_ELS = _PROB.closed_loop.uncertainty
WT = float(_PROB.WT)
WE = control.ss(_PROB.We)
WE2 = control.append(WE, WE)
EYE2 = control.ss([], [], [], np.eye(2))


def frozen_plant(theta1, theta2, levels=(0, 0, 0, 0, 0)):
    """The arm at ``theta1, theta2`` (degrees), parameters at ``nominal (1 + 0.2 level)``."""
    vals = {
        n: float(_ELS[n].nominal) * (1 + 0.2 * s) for n, s in zip(PHYSICAL, levels, strict=True)
    }
    vals.update(t1=float(np.tan(np.radians(theta1) / 2)), t2=float(np.tan(np.radians(theta2) / 2)))
    G = _PROB.plant.usubs(vals)
    return control.ss(G.A, G.B, G.C, G.D)


def dc_floor(G):
    """Certified: ``W_T ||G(0)^-1|| (1 - 1/|W_e(0)|)`` bounds ``||W_T K S||`` from below.

    For every controller with ``||W_e S|| < 1`` (module notes); evaluated in floating point
    (a 2 x 2 inverse and its largest singular value; the tests compare with mpmath).
    """
    G0 = np.asarray(G.D) - np.asarray(G.C) @ np.linalg.solve(np.asarray(G.A), np.asarray(G.B))
    we0 = abs(complex(control.evalfr(WE, 0.0)))
    return WT * np.linalg.norm(np.linalg.inv(G0), 2) * (1 - 1 / we0)


def split_filters(theta_low, theta_high, wc):
    """``a = (cos tl wc + cos th s)/(s + wc)``, ``b`` with sines: ``|a|^2 + |b|^2 = 1``."""

    def first_order(lo, hi):
        return control.ss([[-wc]], [[1.0]], [[wc * (lo - hi)]], [[hi]])

    a = first_order(np.cos(theta_low), np.cos(theta_high))
    b = first_order(np.sin(theta_low), np.sin(theta_high))
    return a, b


def _stacked_plant(G, g, a=1.0, b=1.0):
    a = a if isinstance(a, control.StateSpace) else control.ss([], [], [], [[a]])
    b = b if isinstance(b, control.StateSpace) else control.ss([], [], [], [[b]])
    W1 = control.append(a * WE, a * WE)
    W2 = control.append(b, b) * (WT / g)
    return control.augw(G, W1, W2)


def stacked_level(G, g, a=2**-0.5, b=2**-0.5):
    """Riccati estimate of ``min_K ||[a W_e S; b W_T K S / g]||`` (full order)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(rmb.hinfsyn(_stacked_plant(G, g, a, b), 2, 2, method="riccati").gamma_opt)


def lower_estimate(G, a=2**-0.5, b=2**-0.5, lo=0.01, hi=10.0, xtol=1e-3):
    """Largest ``g`` with ``stacked_level(G, g, a, b) >= 1`` (``g*`` is at least this).

    Located by Brent's method on ``log g`` to ``xtol``, so the value returned may lie up to
    that far (relative, 0.1 % by default) past the crossing: an estimate, as the levels.
    """

    def f(lg):
        return np.log(stacked_level(G, np.exp(lg), a, b))

    if f(np.log(hi)) >= 0:
        return hi
    if f(np.log(lo)) < 0:
        return 0.0
    return float(np.exp(brentq(f, np.log(lo), np.log(hi), xtol=xtol)))


def verify(G, K):
    """``(||W_e S||, ||W_T K S||, max pole real part)`` by python-control + AB13DD."""
    S = control.feedback(EYE2, control.series(K, G))  # (I + G K)^-1
    mr = float(np.max(np.linalg.eigvals(S.A).real))
    if mr >= 0:
        return np.inf, np.inf, mr
    g1 = float(control.norm(control.series(S, WE2), "inf"))
    g2 = float(control.norm(control.series(S, K), "inf")) * WT
    return g1, g2, mr


def upper_verified(G, lo, hi=10.0, steps=12):
    """Smallest verified ``||W_T K S||`` (with ``||W_e S|| < 1``) of the stacked designs.

    Bisection on ``log g`` in ``[lo, hi]``; returns ``(gamma2, gamma1, K)`` of the best
    verified controller (``(inf, inf, None)`` when none passes).
    """
    best = (np.inf, np.inf, None)
    for _ in range(steps):
        g = float(np.sqrt(lo * hi))
        ok = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = rmb.hinfsyn(_stacked_plant(G, g), 2, 2, method="riccati")
            if r.gamma < 1:
                g1, g2, _ = verify(G, r.controller)
                ok = g1 < 1
                if ok and g2 < best[0]:
                    best = (g2, g1, r.controller)
        except rmb.errors.RobustMBError:
            ok = False
        lo, hi = (lo, g) if ok else (g, hi)
    return best


def best_split(G, start=(0.3, 1.2, 10.0)):
    """Nelder-Mead over ``(theta_low, theta_high, log wc)`` for the largest lower estimate."""

    def neg(p):
        a, b = split_filters(p[0], p[1], np.exp(p[2]))
        return -lower_estimate(G, a, b)

    x0 = np.array([start[0], start[1], np.log(start[2])])
    res = minimize(neg, x0, method="Nelder-Mead", options=dict(maxfev=40, xatol=1e-2, fatol=1e-4))
    return -res.fun, res.x


def point_row(th1, th2, levels):
    G = frozen_plant(th1, th2, levels)
    lo = lower_estimate(G)
    g2, g1, _ = upper_verified(G, max(lo, 0.01))
    return dict(
        theta1=th1,
        theta2=th2,
        levels=list(levels),
        open_loop_abscissa=float(np.max(np.linalg.eigvals(G.A).real)),
        dc_floor=float(dc_floor(G)),
        lower_sqrt2=lo,
        upper_gamma2=g2,
        upper_gamma1=g1,
    )


def structured_probe(checkpoint, gs, theta=(45.0, 135.0), maxiter=150):
    """3-state LTI controller at one configuration, robust over the 8 worst vertices.

    ``hinfstruct`` (a ``tunable_ss`` of order 3) on the stacked problem
    ``[W_e S; W_T K S / g]`` jointly over the 8 parameter vertices with ``L2`` low and
    ``m3`` high at ``theta`` (degrees), for each ``g`` of ``gs``, started from the
    stored design ``checkpoint`` frozen there (then from the last result meeting
    ``gamma1 < 1``).  Every result is checked with python-control + AB13DD on the 8
    plants.  A local search: it shows what the structure reaches, it bounds nothing.
    Returns a list of ``(g, stacked, gamma1, gamma2)`` and the last controller
    ``(A, B, C, D)`` meeting ``gamma1 < 1`` (the frozen start if none did).
    """
    with open(checkpoint) as fh:
        vals = {k: np.asarray(v, float) for k, v in json.load(fh)["values"].items()}
    t1, t2 = (float(np.tan(np.radians(th) / 2)) for th in theta)
    Kf = _PROB.controller.usubs(vals).usubs({"t1": t1, "t2": t2})
    plants = [
        frozen_plant(*theta, lv)
        for lv in itertools.product((-1, 1), repeat=5)
        if lv[3] == -1 and lv[4] == 1
    ]
    ver = [verify(G, control.ss(Kf.A, Kf.B, Kf.C, Kf.D)) for G in plants]
    print(
        f"start at theta {theta}: gamma1 {max(v[0] for v in ver):.4f}, "
        f"gamma2 {max(v[1] for v in ver):.4f} on the 8 vertices",
        flush=True,
    )
    K = rmb.tunable_ss("K", 3, 2, 2)
    cur, out = (Kf.A, Kf.B, Kf.C, Kf.D), []
    for g in gs:
        for name, M in zip(("K.A", "K.B", "K.C", "K.D"), cur, strict=True):
            K.tunables[name].value = np.asarray(M, float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rmb.hinfstruct([_stacked_plant(G, g) for G in plants], K, maxiter=maxiter)
        Kt = res.controller
        ver = [verify(G, Kt) for G in plants]
        g1, g2 = max(v[0] for v in ver), max(v[1] for v in ver)
        print(f"g {g}: stacked {res.gamma:.4f}, gamma1 {g1:.4f}, gamma2 {g2:.4f}", flush=True)
        out.append((g, float(res.gamma), g1, g2))
        if g1 < 1:
            cur = (Kt.A, Kt.B, Kt.C, Kt.D)
    return out, cur


def dc_scan(grid=7):
    """Largest certified zero-frequency floor over a ``grid x grid`` (theta1, theta2) grid
    and the ``3^5`` parameter levels (-1, 0, 1); returns ``(floor, theta1, theta2, levels)``."""
    best = (0.0, None, None, None)
    for th1, th2 in itertools.product(np.linspace(45, 90, grid), np.linspace(45, 135, grid)):
        for levels in itertools.product((-1, 0, 1), repeat=5):
            f = dc_floor(frozen_plant(float(th1), float(th2), levels))
            if f > best[0]:
                best = (float(f), float(th1), float(th2), list(levels))
    return best


def main(grid=5, vertices=2, split=False, out=None, dc_grid=7):
    t0 = time.perf_counter()
    rows = []
    if dc_grid:
        f, th1, th2, lv = dc_scan(dc_grid)
        print(
            f"largest certified zero-frequency floor ({dc_grid}x{dc_grid} x 3^5 levels): "
            f"{f:.4f} at theta = ({th1:.2f}, {th2:.2f}) deg, levels {lv}  "
            f"[{time.perf_counter() - t0:.0f} s]",
            flush=True,
        )
    nominal = (0, 0, 0, 0, 0)
    for th1, th2 in itertools.product(np.linspace(45, 90, grid), np.linspace(45, 135, grid)):
        rows.append(point_row(float(th1), float(th2), nominal))
        _print(rows[-1], t0)
    worst = sorted(rows, key=lambda r: -r["lower_sqrt2"])[:vertices]
    for r0 in worst:
        for levels in itertools.product((-1, 1), repeat=5):
            rows.append(point_row(r0["theta1"], r0["theta2"], levels))
            _print(rows[-1], t0)
    summary = {
        k: max(rows, key=lambda r, k=k: r[k]) for k in ("dc_floor", "lower_sqrt2", "upper_gamma2")
    }
    for k, r in summary.items():
        print(
            f"largest {k}: {r[k]:.4f} at theta = ({r['theta1']:.2f}, {r['theta2']:.2f}) deg, "
            f"levels {r['levels']}"
        )
    result = dict(rows=rows, summary=summary)
    if dc_grid:
        result["dc_scan"] = dict(floor=f, theta1=th1, theta2=th2, levels=lv, grid=dc_grid)
    if split:
        r = summary["lower_sqrt2"]
        G = frozen_plant(r["theta1"], r["theta2"], r["levels"])
        val, p = best_split(G)
        result["split"] = dict(
            point=r, lower=val, theta_low=p[0], theta_high=p[1], wc=float(np.exp(p[2]))
        )
        print(
            f"split filters at that point: lower estimate {val:.4f} "
            f"(sqrt2 test {r['lower_sqrt2']:.4f}), "
            f"theta_low {p[0]:.3f}, theta_high {p[1]:.3f}, wc {np.exp(p[2]):.3g}"
        )
    print(f"{len(rows)} points, {time.perf_counter() - t0:.0f} s")
    if out:
        with open(out, "w") as fh:
            json.dump(result, fh, indent=1)
    return result


def _print(r, t0):
    print(
        f"theta ({r['theta1']:6.2f}, {r['theta2']:6.2f}) levels {r['levels']}: abscissa "
        f"{r['open_loop_abscissa']:+.3f}, dc floor {r['dc_floor']:.4f}, sqrt2 lower "
        f"{r['lower_sqrt2']:.4f}, verified upper {r['upper_gamma2']:.4f} "
        f"(gamma1 {r['upper_gamma1']:.4f})  [{time.perf_counter() - t0:.0f} s]",
        flush=True,
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", type=int, default=5)
    ap.add_argument("--vertices", type=int, default=2)
    ap.add_argument("--split", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--dc-grid", type=int, default=7, help="0: no zero-frequency scan")
    ap.add_argument(
        "--probe",
        default=None,
        metavar="CHECKPOINT",
        help="only the 3-state structured probe from this stored design (see structured_probe)",
    )
    ap.add_argument("--probe-g", type=float, nargs="+", default=[4.0, 2.0, 1.0, 0.69])
    a = ap.parse_args()
    if a.probe:
        structured_probe(a.probe, a.probe_g)
    else:
        main(a.grid, a.vertices, a.split, a.json, a.dc_grid)
