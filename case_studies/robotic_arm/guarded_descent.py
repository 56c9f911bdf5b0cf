"""Screen-guarded first-order descent of the arm's scheduled design, problem (27).

The min-max of ``scheduled_stacked.py`` tunes on a small working set and takes steps that
break the hard goal ``gamma1 = ||W_e S|| < 1`` off the set.  This driver instead makes
every step from a local model of *all* the near-active loops of a screen and accepts it
only when the screen improves:

1. Screen the design ``x = (M0, M1, M2)`` of ``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)``
   on ``n x n`` ``(t1, t2)`` x (nominal + 32 vertices) plus the points kept from earlier
   dense checks: stability (closed-loop eigenvalues) and both peak gains (SLICOT AB13DD,
   never below the largest gain on a frequency grid).
2. Local model.  For every loop whose ``gamma1`` is within ``--band1`` of the worst or
   whose ``gamma2 = ||W_T K S||`` is within ``--band2`` (relative) of the worst, the
   largest singular value at each local peak of its frequency response is linearised in
   ``x``: at a fixed ``w``, ``d sigma = Re(u^H dT v)`` with ``dK = 100 [C Phi, I] dM
   [Phi B; I]`` (``Phi = (jw I - A)^-1``, torque scaling 100), ``d S = -S G dK S`` and
   ``d(K S) = (I + K G)^-1 dK S``.  Closed-loop eigenvalues with real part above
   ``--watch`` are linearised too: ``d lambda = y^H dA_cl x / y^H x``.
3. Step.  The linear program ``min t + P s`` over ``d`` with ``gamma2_i + g_i d <= t``,
   ``gamma1_j + h_j d <= c1 + s``, ``Re lambda_k + e_k d <= --decay`` and the trust box
   ``|d_k| <= Delta max(|x_k|, 1)`` gives ``d``; the fractions 1, 1/2, 1/4, ... of ``d``
   are screened in turn and the first with all loops stable (pole real parts below
   ``--decay``), ``gamma1 <= --g1-max`` and a lower ``gamma2`` is taken.  ``Delta`` grows
   after a full step and shrinks after a cut one.  Progress is monotone on the screen.
   From a start that misses the hard goal on the screen (``gamma1 > --g1-max``) the
   same step is a feasibility phase: with ``--g2-cap G`` the model also keeps ``t <= G``,
   and a step is taken when it lowers the screen's worst ``gamma1`` with all loops stable
   enough and ``gamma2 <= G``; the dense checks wait until the screen meets the hard goal.
4. Every ``--dense-every`` accepted steps a denser check (``--dense`` x ``--dense`` x 33)
   runs; if it finds ``gamma1 > --g1-dense`` or a loop less stable than ``--decay``,
   the design falls back to the last densely checked one, the dense check's worst points
   join the screen for good and ``Delta`` halves.

Everything here samples the box; nothing is certified.  The last design that passed a
dense check is written to ``PREFIX_best.json`` (layout of ``scheduled_stacked.py``'s round
files, readable by ``store_stacked.py``) with the history of every round and the last
accepted design (``last``).

Usage: ``python case_studies/robotic_arm/guarded_descent.py --start START.json
[--screen 11] [--rounds 40] [--minutes 60] [--decay -0.3] [--keep-points] [--out PREFIX]``
(``--keep-points``: START is a previous ``PREFIX_best.json``, its added points re-enter).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.linalg import eig
from scipy.optimize import linprog
from slycot import ab13dd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scheduled_stacked import ELS, PROB, log, physical  # noqa: E402

from robustmb.examples.arm_lpv import OUTPUT_SCALE  # noqa: E402

WT = float(PROB.WT)
NX = 3  # controller states
# W_e(s) = (s + 1) / (2 s + 0.02) = 0.5 + 0.495 / (s + 0.01) per channel
WE_POLE, WE_GAIN, WE_D = -0.01, 0.495, 0.5
CENTRE = {n: 0.5 * (ELS[n].range[0] + ELS[n].range[1]) for n in ("t1", "t2")}
HALF = {n: 0.5 * (ELS[n].range[1] - ELS[n].range[0]) for n in ("t1", "t2")}
# the row/column scaling of [[A, B], [C, D]]: C and D are in units of OUTPUT_SCALE
SCALE = np.diag([1.0] * NX + [OUTPUT_SCALE] * 2)
FREQS = np.logspace(-3, 4, 160)


def weight(w):
    """``W_e(jw)``."""
    return (1j * w + 1) / (2j * w + 0.02)


def surface(x, s1, s2):
    """``M0 + s1 M1 + s2 M2`` (normalised scheduling ``s`` in ``[-1, 1]``)."""
    M = x.reshape(3, NX + 2, NX + 2)
    return M[0] + s1 * M[1] + s2 * M[2]


class Loop:
    """One frozen plant ``(t1, t2, physical point)`` with its closed-loop algebra."""

    def __init__(self, point):
        self.point = point
        G = PROB.plant.usubs(point)
        if np.any(G.D):
            raise ValueError("point: the arm's plant has no feedthrough")
        self.Ag, self.Bg, self.Cg = (np.asarray(m, float) for m in (G.A, G.B, G.C))
        self.s1 = (point["t1"] - CENTRE["t1"]) / HALF["t1"]
        self.s2 = (point["t2"] - CENTRE["t2"]) / HALF["t2"]
        ng = self.Ag.shape[0]
        # A_cl = A0 + P (SCALE M) Q on the state [x_G, x_K]
        self.A0 = np.zeros((ng + NX, ng + NX))
        self.A0[:ng, :ng] = self.Ag
        self.P = np.zeros((ng + NX, NX + 2))
        self.P[:ng, NX:] = self.Bg
        self.P[ng:, :NX] = np.eye(NX)
        self.Q = np.zeros((NX + 2, ng + NX))
        self.Q[:NX, ng:] = np.eye(NX)
        self.Q[NX:, :ng] = -self.Cg

    def mats(self, x):
        """Closed loop: ``(A_cl, B_cl, C_S, C_KS, D_K)``."""
        M = surface(x, self.s1, self.s2)
        Ms = SCALE @ M
        Acl = self.A0 + self.P @ Ms @ self.Q
        Bcl = np.vstack([self.Bg @ Ms[NX:, NX:], M[:NX, NX:]])
        Cs = np.hstack([-self.Cg, np.zeros((2, NX))])
        Cks = np.hstack([-Ms[NX:, NX:] @ self.Cg, Ms[NX:, :NX]])
        return Acl, Bcl, Cs, Cks, Ms[NX:, NX:]

    def evaluate(self, x):
        """``(gamma1, gamma2, max pole real part, w1, w2)``; gains ``inf`` if unstable."""
        Acl, Bcl, Cs, Cks, Dk = self.mats(x)
        mr = float(np.max(np.linalg.eigvals(Acl).real))
        if mr >= 0:
            return np.inf, np.inf, mr, np.nan, np.nan
        n = Acl.shape[0]
        # W_e S with the weight's two states appended
        A1 = np.block([[Acl, np.zeros((n, 2))], [Cs, WE_POLE * np.eye(2)]])
        B1 = np.vstack([Bcl, np.eye(2)])
        C1 = np.hstack([WE_D * Cs, WE_GAIN * np.eye(2)])
        g1, w1 = _norm(A1, B1, C1, WE_D * np.eye(2))
        g2, w2 = _norm(Acl, Bcl, Cks, Dk)
        # AB13DD is sometimes low here (13948 against 15932 at 134.85 rad/s on one arm
        # loop, its peak at ||D_K||): the largest value of a zoomed grid search is kept
        g1, w1 = max((g1, w1), self.peak(x, 0, w1))
        g2, w2 = max((g2, w2), self.peak(x, 1, w2))
        return g1, g2 * WT, mr, w1, w2

    def peak(self, x, which, w_hint, keep=3, rounds=4):
        """``(sigma, w)``: largest singular value by a log grid zoomed at its top peaks."""
        s = self.sigma(x, FREQS)[which]
        lw = np.log10(FREQS)
        step = lw[1] - lw[0]
        idx = [i for i in range(1, len(s) - 1) if s[i] >= s[i - 1] and s[i] >= s[i + 1]]
        idx = sorted(idx, key=lambda i: -s[i])[:keep]
        centres = [lw[i] for i in idx]
        if np.isfinite(w_hint) and w_hint > 0:
            centres.append(np.log10(w_hint))
        i = int(np.argmax(s))
        best = (float(s[i]), float(FREQS[i]))
        for c in centres:
            h = step
            for _ in range(rounds):
                ws = 10.0 ** np.linspace(c - h, c + h, 9)
                v = self.sigma(x, ws)[which]
                j = int(np.argmax(v))
                c, h = np.log10(ws[j]), h / 4
                if v[j] > best[0]:
                    best = (float(v[j]), float(ws[j]))
        return best

    def responses(self, x, w):
        """``G(jw)``, ``K(jw)`` (torque units) and ``Phi(jw)`` for an array ``w``."""
        M = surface(x, self.s1, self.s2)
        A, B, C, D = M[:NX, :NX], M[:NX, NX:], M[NX:, :NX], M[NX:, NX:]
        s = 1j * np.asarray(w, float)[:, None, None]
        ng = self.Ag.shape[0]
        Gj = self.Cg @ np.linalg.solve(s * np.eye(ng) - self.Ag, self.Bg)
        Phi = np.linalg.inv(s * np.eye(NX) - A)
        Kj = OUTPUT_SCALE * (D + C @ Phi @ B)
        return Gj, Kj, Phi, M

    def sigma(self, x, w):
        """Largest singular values of ``W_e S`` and ``K S`` at the frequencies ``w``."""
        Gj, Kj, _, _ = self.responses(x, w)
        S = np.linalg.inv(np.eye(2) + Gj @ Kj)
        s1 = np.abs(weight(np.asarray(w)))[:, None] * np.linalg.svd(S, compute_uv=False)
        s2 = np.linalg.svd(Kj @ S, compute_uv=False)
        return s1[:, 0], s2[:, 0]

    def pieces(self, x, which, w_peak, rel=0.9):
        """Linear pieces ``(value, gradient)`` of ``gamma1`` or ``gamma2`` at its peaks.

        The peaks are the AB13DD frequency and the local maxima of the grid response
        above ``rel`` times the largest.
        """
        s1, s2 = self.sigma(x, FREQS)
        s = s1 if which == 1 else s2
        loc = [
            FREQS[i]
            for i in range(len(FREQS))
            if s[i] >= rel * s.max()
            and (i == 0 or s[i] >= s[i - 1])
            and (i == len(FREQS) - 1 or s[i] >= s[i + 1])
        ]
        ws = np.array([w_peak, *loc]) if np.isfinite(w_peak) else np.array(loc)
        return [self.piece(x, which, float(w)) for w in ws]

    def piece(self, x, which, w):
        """``(sigma, d sigma / d x)`` of ``W_e S`` (``which = 1``) or ``W_T K S`` at ``w``."""
        Gj, Kj, Phi, M = self.responses(x, [w])
        Gj, Kj, Phi = Gj[0], Kj[0], Phi[0]
        S = np.linalg.inv(np.eye(2) + Gj @ Kj)
        L = OUTPUT_SCALE * np.hstack([M[NX:, :NX] @ Phi, np.eye(2)])
        R = np.vstack([Phi @ M[:NX, NX:], np.eye(2)])
        if which == 1:
            T, left = weight(w) * S, -weight(w) * S @ Gj
        else:
            T, left = WT * Kj @ S, WT * np.linalg.inv(np.eye(2) + Kj @ Gj)
        U, sv, Vh = np.linalg.svd(T)
        u, v = U[:, 0], Vh[0].conj()
        p = u.conj() @ left @ L
        q = R @ S @ v
        g = np.real(np.outer(p, q))
        return float(sv[0]), np.concatenate([g.ravel(), self.s1 * g.ravel(), self.s2 * g.ravel()])

    def pole_pieces(self, x, watch):
        """``(Re lambda, gradient)`` of the closed-loop poles with real part above ``watch``."""
        Acl = self.mats(x)[0]
        lam, Y, X = eig(Acl, left=True, right=True)
        out = []
        for k in np.flatnonzero(lam.real > watch):
            y, xr = Y[:, k], X[:, k]
            p = (y.conj() @ self.P @ SCALE) / (y.conj() @ xr)
            q = self.Q @ xr
            g = np.real(np.outer(p, q))
            out.append((float(lam[k].real), np.concatenate([g.ravel(), self.s1 * g.ravel(),
                                                            self.s2 * g.ravel()])))  # fmt: skip
        return out


def _norm(A, B, C, D):
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    g, f = ab13dd("C", "I", "S", "D", n, m, p, A, np.eye(n), B, C, D, 1e-10)
    return float(g), float(f)


def grid_points(n, levels=None):
    """``n x n`` ``(t1, t2)`` (uniform in ``t``, as ``check_design``) x physical levels."""
    if levels is None:
        levels = [(0,) * 5] + list(itertools.product((-1, 1), repeat=5))
    r1, r2 = (ELS[k].range for k in ("t1", "t2"))
    return [
        {"t1": float(a), "t2": float(b)} | physical(lv)
        for a, b in itertools.product(np.linspace(*r1, n), np.linspace(*r2, n))
        for lv in levels
    ]


def screen(x, loops):
    """Evaluate every loop: arrays ``gamma1, gamma2, max real, w1, w2``."""
    r = np.array([lp.evaluate(x) for lp in loops])
    return {k: r[:, i] for i, k in enumerate(("g1", "g2", "mr", "w1", "w2"))}


def summary(sc):
    return float(sc["g1"].max()), float(sc["g2"].max()), float(sc["mr"].max())


def lp_step(x, loops, sc, a, delta):
    """The trust-region linear program's step ``d`` and its predicted ``gamma2``."""
    g1m, g2m, _ = summary(sc)
    rows1, rows2, rowsp = [], [], []
    act1 = np.argsort(-sc["g1"])[: a.max_pieces]
    act1 = [i for i in act1 if sc["g1"][i] >= g1m - a.band1]
    act2 = np.argsort(-sc["g2"])[: a.max_pieces]
    act2 = [i for i in act2 if sc["g2"][i] >= g2m * (1 - a.band2)]
    for i in act1:
        rows1 += loops[i].pieces(x, 1, sc["w1"][i])
    for i in act2:
        rows2 += loops[i].pieces(x, 2, sc["w2"][i])
    for i in np.flatnonzero(sc["mr"] > a.watch):
        rowsp += loops[i].pole_pieces(x, a.watch)
    nx = x.size
    sc_x = np.maximum(np.abs(x), 1.0)
    # variables: d (nx), t, s
    c = np.zeros(nx + 2)
    c[nx], c[nx + 1] = 1.0, a.penalty
    A, b = [], []
    for v, g in rows2:
        A.append(np.concatenate([g, [-1.0, 0.0]]))
        b.append(-v)
    for v, g in rows1:
        A.append(np.concatenate([g, [0.0, -1.0]]))
        b.append(a.c1 - v)
    for v, g in rowsp:
        A.append(np.concatenate([g, [0.0, -1.0]]))
        b.append(a.decay - v)
    bounds = [(-delta * s, delta * s) for s in sc_x] + [(None, a.g2_cap), (0, None)]
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(b), bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"linear program: {res.message}")
    n = (len(rows1), len(rows2), len(rowsp), len(act1), len(act2))
    return res.x[:nx], float(res.x[nx]), float(res.x[nx + 1]), n


def accept(sc, a, g1_ref, g2_ref):
    """Take a screened step: lower gamma2 within the hard goal, or -- while the design
    misses the hard goal (feasibility phase) -- lower gamma1 with gamma2 under the cap."""
    g1, g2, mr = summary(sc)
    if mr > a.decay:
        return False
    if g1_ref > a.g1_max:
        return g1 < g1_ref and (a.g2_cap is None or g2 <= a.g2_cap)
    return g1 <= a.g1_max and g2 < g2_ref


def load_x(path):
    with open(path) as fh:
        v = json.load(fh)["values"]
    return np.concatenate([np.asarray(v[f"K.M{i}"], float).ravel() for i in range(3)])


def values_of(x):
    M = x.reshape(3, NX + 2, NX + 2)
    return {f"K.M{i}": M[i].tolist() for i in range(3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--start", required=True)
    ap.add_argument("--screen", type=int, default=11)
    ap.add_argument("--dense", type=int, default=21)
    ap.add_argument("--dense-every", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--delta", type=float, default=0.01, help="initial relative trust box")
    ap.add_argument("--c1", type=float, default=0.985, help="gamma1 level of the model")
    ap.add_argument("--g1-max", type=float, default=0.99, help="screen's gamma1 to accept")
    ap.add_argument("--g1-dense", type=float, default=0.995)
    ap.add_argument("--decay", type=float, default=-0.3, help="largest pole real part")
    ap.add_argument("--watch", type=float, default=-0.6)
    ap.add_argument("--band1", type=float, default=0.04)
    ap.add_argument("--band2", type=float, default=0.08)
    ap.add_argument("--max-pieces", type=int, default=120)
    ap.add_argument("--penalty", type=float, default=100.0)
    ap.add_argument(
        "--g2-cap", type=float, default=None,
        help="feasibility phase: keep the model's and the screen's gamma2 below this",
    )  # fmt: skip
    ap.add_argument("--out", default="/tmp/arm_guarded")
    ap.add_argument(
        "--keep-points", action="store_true",
        help="add START's 'points' (a previous run's dense-check points) to the screen",
    )  # fmt: skip
    a = ap.parse_args()
    t_end = time.time() + 60 * a.minutes
    x = load_x(a.start)
    loops = [Loop(p) for p in grid_points(a.screen)]
    if a.keep_points:
        with open(a.start) as fh:
            grid = {(p["t1"], p["t2"]) for p in grid_points(a.screen, [(0,) * 5])}
            # the screen's own points are already there; the others were added by checks
            loops += [Loop(p) for p in json.load(fh)["points"] if (p["t1"], p["t2"]) not in grid]
    dense_loops = None
    t0 = time.perf_counter()
    sc = screen(x, loops)
    g1, g2, mr = summary(sc)
    log(f"start: {len(loops)} loops, gamma1 {g1:.4f} gamma2 {g2:.4f} max real {mr:.4f} "
        f"({time.perf_counter() - t0:.1f} s)")  # fmt: skip
    history = [dict(round=-1, gamma1=g1, gamma2=g2, max_real=mr, delta=a.delta)]
    delta, accepted, x_dense = a.delta, 0, x.copy()
    best = dict(values=values_of(x), screen=dict(grid=a.screen, gamma1=g1, gamma2=g2,
                                                 max_real=mr))  # fmt: skip
    for rnd in range(a.rounds):
        if time.time() > t_end:
            log("time budget spent")
            break
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d, pred, slack, n = lp_step(x, loops, sc, a, delta)
        t_lp = time.perf_counter() - t0
        taken = None
        for frac in (1.0, 0.5, 0.25, 0.1, 0.03, 0.01):
            cand = x + frac * d
            c = screen(cand, loops)
            cg1, cg2, cmr = summary(c)
            log(f"  round {rnd} step {frac}: gamma1 {cg1:.4f} gamma2 {cg2:.4f} "
                f"max real {cmr:.4f}")  # fmt: skip
            if accept(c, a, g1, g2):
                taken = (frac, cand, c)
                break
        dt = time.perf_counter() - t0
        rec = dict(round=rnd, delta=delta, pieces=n, predicted=pred, slack=slack,
                   seconds=round(dt, 1), lp_seconds=round(t_lp, 1))  # fmt: skip
        if taken is None:
            delta *= 0.25
            log(f"round {rnd}: no step accepted (pieces {n}, predicted {pred:.4f}), "
                f"delta -> {delta:.2e} ({dt:.0f} s)")  # fmt: skip
            history.append(rec | dict(step=0.0))
            if delta < 1e-5:
                break
            continue
        frac, x, sc = taken
        g1, g2, mr = summary(sc)
        accepted += 1
        delta = delta * 1.5 if frac == 1.0 else delta * max(frac, 0.25)
        log(f"round {rnd}: step {frac} gamma1 {g1:.4f} gamma2 {g2:.4f} (model {pred:.4f}, "
            f"slack {slack:.2e}) max real {mr:.4f}; pieces {n}, delta -> {delta:.2e} "
            f"({dt:.0f} s)")  # fmt: skip
        rec |= dict(step=frac, gamma1=g1, gamma2=g2, max_real=mr)
        if accepted % a.dense_every == 0 and g1 <= a.g1_max:
            if dense_loops is None:
                dense_loops = [Loop(p) for p in grid_points(a.dense)]
            t1 = time.perf_counter()
            dsc = screen(x, dense_loops)
            dg1, dg2, dmr = summary(dsc)
            log(f"dense {a.dense}x{a.dense}x33: gamma1 {dg1:.4f} gamma2 {dg2:.4f} max real "
                f"{dmr:.4f} ({time.perf_counter() - t1:.0f} s)")  # fmt: skip
            rec |= dict(dense=dict(gamma1=dg1, gamma2=dg2, max_real=dmr))
            if dg1 > a.g1_dense or dmr > a.decay:
                bad = np.argsort(-np.where(dsc["mr"] > a.decay, np.inf, dsc["g1"]))[:8]
                loops += [dense_loops[i] for i in bad]
                x = x_dense.copy()
                sc = screen(x, loops)
                g1, g2, mr = summary(sc)
                delta *= 0.5
                log(f"dense check failed: back to the last checked design, {len(loops)} "
                    f"screen loops, gamma1 {g1:.4f} gamma2 {g2:.4f}")  # fmt: skip
                rec |= dict(fallback=True)
            else:
                x_dense = x.copy()
                best = dict(values=values_of(x), round=rnd, screen=dict(
                    grid=a.screen, gamma1=g1, gamma2=g2, max_real=mr,
                    dense=dict(grid=a.dense, gamma1=dg1, gamma2=dg2, max_real=dmr)))  # fmt: skip
        history.append(rec)
        out = best | dict(history=history, points=[lp.point for lp in loops[-64:]],
                          status="NOT certified (sampled screen only)",
                          last=dict(values=values_of(x), gamma1=g1, gamma2=g2))  # fmt: skip
        with open(f"{a.out}_best.json", "w") as fh:
            json.dump(out, fh)


if __name__ == "__main__":
    main()
