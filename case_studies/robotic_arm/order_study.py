"""Fixed-order study of the arm's problem (27) at frozen plants: 3 and 4 states (issue 14).

A scheduled controller over the box can do no better, at each frozen plant, than the best
LTI controller of its order there.  This script asks, at four frozen plants, how low
``gamma2 = ||W_T K S||`` goes with ``gamma1 = ||W_e S|| < 1`` for an LTI controller of 3
(and, for contrast, 4) states, using the engine's own formulation of problem (27):
:func:`robustmb.systune` with the hard goal ``W_e S`` (``WeightedGain(r -> e, W_e)``) and
the soft goal ``W_T K S`` (``WeightedGain(r -> T, W_T)``), error feedback, the controller's
output scaled by ``OUTPUT_SCALE`` (100) as in the scheduled problem.  The points
(:data:`POINTS`): (a) theta = (45, 135) deg at the worst parameter vertex
(m1, J1, rho1, L2, m3) = (+1, +1, +1, -1, +1), (b) the same angles at nominal parameters,
(c) (67.5, 90) deg nominal, (d) (90, 135) deg nominal.

Start families, each a separate ``systune`` run (``random_start = 0``) unless said:

* ``default``: the ``tunable_ss`` initial point (``B = C = D = 0``);
* ``engine-random``: one ``systune`` call with ``random_start = ENGINE_RANDOM`` (the
  engine's perturbations of the initial point and of its best point; counted as
  ``1 + ENGINE_RANDOM`` starts, the best kept);
* ``random``: random controllers that stabilise the loop, drawn by rejection with
  log-uniform scales of ``A`` (``10^[-1, 1.5]``) and of ``C, D`` (``10^[-3, 1]``,
  scaled units), :func:`random_stabilising`;
* ``reduce``: balanced truncation and residualisation (``control.balred``,
  ``"truncate"`` / ``"matchdc"``) of the full-order ``hinfsyn`` controller of the stacked
  problem ``[W_e S; W_T K S / g]`` (:func:`gamma2_floor._stacked_plant`) at each
  ``g`` of :data:`REDUCE_G`;
* ``from4``: the best 4-state result of the point (``gamma1 < 1``) truncated and
  residualised to 3 states (3-state runs only; the 4-state runs of a point come first);
* ``stacked`` (stage ``stacked``): the 3-state ``hinfstruct`` result of the stacked
  problem at each ``g`` of :data:`STACKED_G` or ``--stacked-g`` (default start + 2
  random, :func:`structure_gap.tune`), the family that found the earlier best 3-state
  design;
* ``chained`` (stage ``chained``, :func:`chained_pass`): the same from the point's best
  result of order ``--order`` (3 by default) so far, at each ``g`` of ``--stacked-g``.

The full form gets ``--random`` random and ``--engine-random`` engine starts, the other
forms a third and a half of them; 4 states (full form) only at ``--order4-points``.
The engine tunes the hard goal up to 1 within about 1e-8, below what AB13DD resolves
at its default accuracy, so stage ``margin`` (:func:`margin_pass`) tunes the best three
results of each point, order and form again with the hard goal ``||1.001 W_e S|| <= 1``:
their ``gamma1 <= 0.999`` is then proved below 1 by the check; the summary's ``best`` is
the lowest ``gamma2`` so proved, ``best_loose`` the lowest with ``gamma1 <= 1 + 1e-6``.

A start is carried into each form of ``tunable_ss``: ``full`` as is; ``companion`` by
the similarity ``T = [c; c A; c A^2 ...]`` (exact when ``A`` is cyclic); ``diag`` by the
eigenvector similarity, exact for real poles -- a complex pair cannot be represented
(``A`` only has a free real diagonal) and is projected onto its real parts (the record
says ``projected``).

Every result is checked independently of robustmb's analysis code
(:func:`independent_check`): python-control closes ``S = (I + G K)^-1`` and SLICOT AB13DD
(``control.norm``) gives both norms; a 3000-point frequency grid from ``G(jw)``,
``K(jw)`` (numpy) gives both again (lower bounds of the norms).  A local search: the best
values found bound nothing from below.

Run, one process per group of points (each checkpoints to its own file after every run
and skips the runs the file already holds)::

    OMP_NUM_THREADS=1 nice -n 10 python case_studies/robotic_arm/order_study.py \
        run --points a c --json PART_AC.json      # then the same with `stacked`, `margin`
    python case_studies/robotic_arm/order_study.py merge PART_AC.json PART_BD.json

The stored results came from: ``run`` (points a c and b d), ``stacked`` (g 1, 2), then at
a and b ``stacked --stacked-g 0.5 0.69 0.8 1.2``, ``chained --stacked-g 0.55 0.62 0.69``
then ``0.45 0.35`` (a) and ``0.4 0.5`` then ``0.35 0.3`` (b), ``chained --order 4 --forms
full --stacked-g 0.35 0.3 0.25``, each followed by ``margin``.
``merge`` re-checks every record from its stored plant and controller, writes
``checkpoints/order_study.json`` (``--json``) and prints the summary (``table`` prints it
again).  Options: ``--forms full companion diag``, ``--random N`` (random stabilising
starts of the full form), ``--engine-random N``, ``--maxiter``, ``--order4-starts``,
``--order4-points``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import control
import numpy as np

import robustmb as rmb
from robustmb.examples.arm_lpv import OUTPUT_SCALE
from robustmb.tuning import WeightedGain

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gamma2_floor import _stacked_plant  # noqa: E402
from structure_gap import frozen  # noqa: E402
from structure_gap import tune as stacked_tune  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE / "checkpoints" / "order_study.json"
WE_TF = control.tf([1.0, 1.0], [2.0, 0.02])
WT = 1.0 / 1500.0
NOMINAL = (0, 0, 0, 0, 0)
POINTS = {
    "a": ((45.0, 135.0), (1, 1, 1, -1, 1)),
    "b": ((45.0, 135.0), NOMINAL),
    "c": ((67.5, 90.0), NOMINAL),
    "d": ((90.0, 135.0), NOMINAL),
}
REDUCE_G = (0.35, 0.69, 1.0, 2.0)
ENGINE_RANDOM = 10
STACKED_G = (1.0, 2.0)
GRID = np.logspace(-4, 4, 3000)
#: Relative accuracies asked of AB13DD (``control.norm``).  Both are used and the larger
#: value kept, with the grid's: with ``tol = 1e-10`` and ``1e-12`` AB13DD returned 2.30 on
#: a loop whose grid value (a lower bound) is 3.11, and 3.11 with ``1e-6`` and ``1e-8``.
TOLS = (1e-6, 1e-8)
#: The engine tunes the hard goal up to 1 within about 1e-8: ``gamma1`` is taken as met
#: to AB13DD's accuracy when ``gamma1 <= 1 + LOOSE`` and proved below 1 when
#: ``gamma1 (1 + STRICT) < 1`` (the margin pass, :func:`margin_pass`, makes such loops).
LOOSE = 1e-6
STRICT = 2e-6
#: The margin pass tunes the hard goal ``||HARD_SCALE W_e S|| <= 1``.
HARD_SCALE = 1.001
REFS, ERRS, TORQ = ["r1", "r2"], ["e1", "e2"], ["T1", "T2"]


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


# ---------------------------------------------------------------- loop and goals
def closed_loop(G, order, form):
    """``e = r - y``, ``T = 100 K e`` around ``G``; outputs ``e`` and ``T``."""
    K = rmb.tunable_ss("K", order, 2, 2, form=form)
    K.input_names, K.output_names = list(ERRS), ["v1", "v2"]
    Gn = control.ss(G.A, G.B, G.C, G.D, inputs=TORQ, outputs=["y1", "y2"], name="G")
    sc = control.ss([], [], [], OUTPUT_SCALE * np.eye(2), inputs=["v1", "v2"], outputs=TORQ,
                    name="sc")  # fmt: skip
    sm = control.ss([], [], [], np.hstack([np.eye(2), -np.eye(2)]), inputs=REFS + ["y1", "y2"],
                    outputs=ERRS, name="sum")  # fmt: skip
    return rmb.connect([Gn, K, sc, sm], None, REFS, ERRS + TORQ)


def goals(hard_scale=1.0):
    """``(soft, hard)``: ``[W_T K S]`` and ``[hard_scale W_e S]`` as ``WeightedGain`` goals."""
    return [WeightedGain(REFS, TORQ, wl=WT)], [WeightedGain(REFS, ERRS, wl=hard_scale * WE_TF)]


# ---------------------------------------------------------------- independent check
def _freq(sys_, w):
    A, B, C, D = (np.asarray(M, float) for M in (sys_.A, sys_.B, sys_.C, sys_.D))
    n = A.shape[0]
    out = np.empty((len(w), C.shape[0], B.shape[1]), complex)
    for i, wi in enumerate(w):
        out[i] = D + (C @ np.linalg.solve(1j * wi * np.eye(n) - A, B) if n else 0)
    return out


def independent_check(G, K):
    """python-control + AB13DD and a 3000-point grid for the torque controller ``K``.

    ``S = (I + G K)^-1`` and ``K S`` are both closed with ``control.feedback`` (so that
    every state of their realisations is a closed-loop state).

    Returns ``dict(stable, max_real, gamma1, gamma2, gamma1_grid, gamma2_grid)``
    (``gamma*`` infinite when the loop is unstable).
    """
    eye = control.ss([], [], [], np.eye(2))
    S = control.feedback(eye, control.series(K, G))  # (I + G K)^-1
    mr = float(np.max(np.linalg.eigvals(np.asarray(S.A)).real))
    out = dict(stable=bool(mr < 0), max_real=mr)
    if mr >= 0:
        return out | dict(gamma1=np.inf, gamma2=np.inf, gamma1_grid=np.inf, gamma2_grid=np.inf)
    we = control.ss(WE_TF)
    T1 = control.series(S, control.append(we, we))
    # K S = K (I + G K)^-1 closed as a loop (every state a closed-loop state)
    T2 = control.feedback(K, G)
    for tol in TOLS:
        out[f"gamma1_ab13dd_{tol:g}"] = float(control.norm(T1, "inf", tol=tol))
        out[f"gamma2_ab13dd_{tol:g}"] = float(control.norm(T2, "inf", tol=tol)) * WT
    Gw, Kw = _freq(G, GRID), _freq(K, GRID)
    wew = np.abs(np.polyval([1.0, 1.0], 1j * GRID) / np.polyval([2.0, 0.02], 1j * GRID))
    g1 = g2 = 0.0
    for i in range(len(GRID)):
        Sw = np.linalg.inv(np.eye(2) + Gw[i] @ Kw[i])
        g1 = max(g1, wew[i] * np.linalg.norm(Sw, 2))
        g2 = max(g2, WT * np.linalg.norm(Kw[i] @ Sw, 2))
    out |= dict(gamma1_grid=float(g1), gamma2_grid=float(g2))
    for k in ("gamma1", "gamma2"):
        ab = max(out[f"{k}_ab13dd_{tol:g}"] for tol in TOLS)
        # the grid is a lower bound of the norm: AB13DD below it has missed a peak
        out[f"{k}_ab13dd_miss"] = bool(out[f"{k}_grid"] > ab * (1 + 1e-6))
        out[k] = max(ab, out[f"{k}_grid"])
    return out


# ---------------------------------------------------------------- starts and forms
def _sym(A, B, C, D):
    return tuple(np.asarray(M, float) for M in (A, B, C, D))


def to_form(start, form, seed=0):
    """``start`` (scaled ``A, B, C, D``) carried into ``form``; ``(matrices, projected)``."""
    A, B, C, D = _sym(*start)
    n = A.shape[0]
    if form == "full":
        return (A, B, C, D), False
    if form == "companion":
        rng = np.random.default_rng(seed)
        best = None
        for _ in range(50):
            c = rng.standard_normal(n)
            T = np.vstack([c @ np.linalg.matrix_power(A, k) for k in range(n)])
            cond = np.linalg.cond(T)
            if best is None or cond < best[0]:
                best = (cond, T)
        T = best[1]
        Ti = np.linalg.inv(T)
        Ac = T @ A @ Ti
        Ac[:-1, :] = np.eye(n)[1:, :]  # ones on the superdiagonal (rounding removed)
        return (Ac, T @ B, C @ Ti, D), bool(best[0] > 1e8)
    if form == "diag":
        lam, V = np.linalg.eig(A)
        if np.all(np.abs(lam.imag) < 1e-12 * np.maximum(1, np.abs(lam))):
            Vi = np.linalg.inv(V.real)
            return (np.diag(lam.real), Vi @ B, C @ V.real, D), False
        # real modal form: 2x2 blocks [[a, b], [-b, a]] -> diag(a, a) (projection)
        T = _real_modal(lam, V)
        Ti = np.linalg.inv(T)
        Am = Ti @ A @ T
        return (np.diag(np.diag(Am)), Ti @ B, C @ T, D), True
    raise rmb.errors.ArgumentError(f"to_form: form must be full, companion or diag, got {form!r}")


def _real_modal(lam, V):
    cols, done = [], set()
    for i, li in enumerate(lam):
        if i in done:
            continue
        if abs(li.imag) < 1e-12 * max(1, abs(li)):
            cols.append(V[:, i].real)
        else:
            j = next(k for k in range(len(lam)) if k not in done and k != i
                     and abs(lam[k] - li.conj()) < 1e-8 * max(1, abs(li)))  # fmt: skip
            cols += [V[:, i].real, V[:, i].imag]
            done.add(j)
        done.add(i)
    return np.column_stack(cols)


def loop_stable(G, Ks):
    """Whether the scaled controller ``Ks`` stabilises ``G`` (error feedback)."""
    K = control.ss(Ks[0], Ks[1], Ks[2] * OUTPUT_SCALE, Ks[3] * OUTPUT_SCALE)
    L = control.feedback(control.ss([], [], [], np.eye(2)), control.series(K, G))
    return bool(np.max(np.linalg.eigvals(np.asarray(L.A)).real) < 0)


def random_stabilising(G, order, rng, tries=5000):
    """A random stabilising controller (scaled units) and its draw count (module notes)."""
    for k in range(1, tries + 1):
        la, lc, ld = rng.uniform(-1, 1.5), rng.uniform(-3, 1), rng.uniform(-3, 1)
        A = rng.standard_normal((order, order))
        A -= (np.max(np.linalg.eigvals(A).real) + 0.1) * np.eye(order)
        A *= 10**la
        B = rng.standard_normal((order, 2))
        C = 10**lc * rng.standard_normal((2, order))
        D = 10**ld * rng.standard_normal((2, 2))
        if loop_stable(G, (A, B, C, D)):
            return (A, B, C, D), dict(draws=k, log_a=la, log_c=lc, log_d=ld)
    return None, dict(draws=tries)


def reductions(K, order):
    """Truncation and residualisation of the torque controller ``K`` to ``order`` states,
    in scaled units: ``[(method, (A, B, C, D))]`` (failures left out)."""
    out = []
    for method in ("truncate", "matchdc"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                Kr = control.balred(control.ss(K.A, K.B, K.C, K.D), order, method=method)
        except Exception:  # noqa: BLE001 - a failed reduction is just no start
            continue
        if Kr.nstates != order:
            continue
        out.append((method, _sym(Kr.A, Kr.B, np.asarray(Kr.C) / OUTPUT_SCALE,
                                 np.asarray(Kr.D) / OUTPUT_SCALE)))  # fmt: skip
    return out


def full_order_controllers(G):
    """``[(g, K)]``: ``hinfsyn`` (Riccati) controllers of the stacked problem at ``REDUCE_G``."""
    out = []
    for g in REDUCE_G:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = rmb.hinfsyn(_stacked_plant(G, g), 2, 2, method="riccati")
            out.append((g, r.controller))
        except rmb.errors.RobustMBError:
            continue
    return out


# ---------------------------------------------------------------- one run
def tune(G, order, form, start, maxiter, random_start=0, seed=None, hard_scale=1.0):
    """One ``systune`` call from ``start`` (``None``: the ``tunable_ss`` initial point)."""
    CL = closed_loop(G, order, form)
    if start is not None:
        for name, M in zip(("K.A", "K.B", "K.C", "K.D"), start, strict=True):
            CL.tunables[name].value = np.asarray(M, float)
    soft, hard = goals(hard_scale)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rmb.systune(CL, soft, hard, maxiter=maxiter, random_start=random_start, seed=seed)
    dt = time.perf_counter() - t0
    v = res.values
    Ks = _sym(v["K.A"], v["K.B"], v["K.C"], v["K.D"])
    K = control.ss(Ks[0], Ks[1], Ks[2] * OUTPUT_SCALE, Ks[3] * OUTPUT_SCALE)
    chk = independent_check(G, K)
    return dict(
        soft=float(res.soft[0]),
        hard=float(res.hard[0]),
        runs=len(res.runs),
        messages=[r.message[:60] for r in res.runs],
        time=dt,
        K_scaled=[M.tolist() for M in Ks],
        **chk,
    )


def _met(r, strict=False):
    if not r.get("stable"):
        return False
    return r["gamma1"] * (1 + STRICT) < 1 if strict else r["gamma1"] <= 1 + LOOSE


def best_of(records, order=None, form=None, strict=False):
    ok = [r for r in records if _met(r, strict) and (order is None or r["order"] == order)
          and (form is None or r["form"] == form)]  # fmt: skip
    return min(ok, key=lambda r: r["gamma2"]) if ok else None


# ---------------------------------------------------------------- a point
class Point:
    """The frozen plant of ``POINTS[key]``, its record in ``store`` and its run bookkeeping."""

    def __init__(self, key, store, save, maxiter):
        theta, levels = POINTS[key]
        self.key, self.G, self.save, self.maxiter = key, frozen(*theta, levels), save, maxiter
        self.rec = store.setdefault(key, dict(theta=list(theta), levels=list(levels), records=[]))
        self.rec["plant"] = [np.asarray(M, float).tolist() for M in
                             (self.G.A, self.G.B, self.G.C, self.G.D)]  # fmt: skip
        self.done = {(r["order"], r["form"], r["family"], r["label"]) for r in self.rec["records"]}
        self._fo = None

    def full_order(self):
        if self._fo is None:
            self._fo = full_order_controllers(self.G)
        return self._fo

    def do(self, order, form, family, label, start, random_start=0, seed=None, extra=None,
           hard_scale=1.0, convert=True):  # fmt: skip
        """One ``systune`` call, recorded and checkpointed (skipped when already held)."""
        if (order, form, family, label) in self.done:
            return
        projected = False
        if start is not None and convert:
            start, projected = to_form(start, form)
        try:
            r = tune(self.G, order, form, start, self.maxiter, random_start, seed, hard_scale)
        except Exception as e:  # noqa: BLE001 - a failed run is recorded, the study goes on
            r = dict(error=f"{type(e).__name__}: {e}"[:200], stable=False, time=0.0, runs=1)
        r |= dict(order=order, form=form, family=family, label=label, projected=projected)
        r |= extra or {}
        self.rec["records"].append(r)
        self.done.add((order, form, family, label))
        self.save()
        if "error" in r:
            log(f"{self.key} {order}-state {form} {family} {label}: error {r['error']}")
        else:
            log(
                f"{self.key} {order}-state {form:9s} {family:13s} {label:18s} systune "
                f"{r['hard']:.8f}/{r['soft']:.4f}  check {r['gamma1']:.8f}/{r['gamma2']:.4f} "
                f"grid {r['gamma1_grid']:.4f}/{r['gamma2_grid']:.4f} ({r['time']:.0f} s)"
            )

    def families(self, order, form, n_rand, n_eng):
        """The start families of the module notes for one order and form."""
        self.do(order, form, "default", "-", None)
        self.do(order, form, "engine-random", f"1+{n_eng}", None, random_start=n_eng, seed=1)
        for g, K in self.full_order():
            for method, Ks in reductions(K, order):
                self.do(order, form, "reduce", f"g={g} {method}", Ks)
        for i in range(n_rand):
            Ks, info = random_stabilising(self.G, order, np.random.default_rng(1000 * order + i))
            if Ks is not None:
                self.do(order, form, "random", f"#{i}", Ks, extra=info)
        if order == 3:
            b4 = best_of(self.rec["records"], order=4)
            if b4 is not None:
                A, B, C, D = (np.asarray(M, float) for M in b4["K_scaled"])
                K4 = control.ss(A, B, C * OUTPUT_SCALE, D * OUTPUT_SCALE)
                for method, Ks in reductions(K4, 3):
                    self.do(3, form, "from4", method, Ks)


def stacked_pass(keys, forms, store, save, maxiter, gs=STACKED_G, n_random=2):
    """The ``stacked`` family: 3-state ``hinfstruct`` results on the stacked problem
    ``[W_e S; W_T K S / g]`` (:func:`structure_gap.tune`, default start + ``n_random``),
    one per ``g`` of ``gs``, each a start of ``systune`` in every form."""
    for k in keys:
        pt = Point(k, store, save, maxiter)
        starts = pt.rec.setdefault("stacked_starts", {})
        for g in gs:
            if f"{g:g}" not in starts:
                r = stacked_tune([pt.G], g, 3, random_start=n_random, seed=1, maxiter=maxiter)
                starts[f"{g:g}"] = {q: r[q] for q in ("stacked", "gamma1", "gamma2", "time", "K")}
                save()
                log(f"{k} stacked g={g:g}: {r['stacked']:.4f} ({r['gamma1']:.4f} / "
                    f"{r['gamma2']:.4f}), {r['time']:.0f} s")  # fmt: skip
            for form in forms:
                pt.do(3, form, "stacked", f"g={g:g}", starts[f"{g:g}"]["K"])


def chained_pass(keys, forms, store, save, maxiter, gs, n_random=2, order=3):
    """The ``chained`` family: ``hinfstruct`` on the stacked problem at each ``g`` of
    ``gs`` started from the point's best ``order``-state result so far (``gamma1 <= 1 +
    1e-6``, margin runs left out), then ``systune`` from it in every form."""
    for k in keys:
        pt = Point(k, store, save, maxiter)
        starts = pt.rec.setdefault(
            "chained_starts" if order == 3 else f"chained_starts_{order}", {}
        )
        for g in gs:
            if f"{g:g}" not in starts:
                src = best_of([r for r in pt.rec["records"] if r["family"] != "margin"],
                              order=order)  # fmt: skip
                full, _ = to_form(src["K_scaled"], "full")
                r = stacked_tune([pt.G], g, order, start=full, random_start=n_random, seed=1,
                                 maxiter=maxiter)  # fmt: skip
                starts[f"{g:g}"] = {q: r[q] for q in ("stacked", "gamma1", "gamma2", "time", "K")}
                starts[f"{g:g}"]["from"] = f"{src['form']} {src['family']} {src['label']}"
                save()
                log(f"{k} chained g={g:g} from {starts[f'{g:g}']['from']}: {r['stacked']:.4f}")
            for form in forms:
                pt.do(order, form, "chained", f"g={g:g}", starts[f"{g:g}"]["K"])


def margin_pass(keys, store, save, maxiter, top=3):
    """Strictly feasible versions of the best results: for each point, order and form, the
    ``top`` lowest ``gamma2`` met to AB13DD's accuracy are tuned again from themselves with
    the hard goal ``||HARD_SCALE W_e S|| <= 1`` (so ``gamma1 <= 1 / HARD_SCALE``)."""
    for k in keys:
        pt = Point(k, store, save, maxiter)
        recs = list(pt.rec["records"])
        for order in (3, 4):
            for form in ("full", "companion", "diag"):
                mine = [r for r in recs if r["order"] == order and r["form"] == form
                        and r["family"] != "margin" and _met(r)]  # fmt: skip
                for r in sorted(mine, key=lambda r: r["gamma2"])[:top]:
                    pt.do(order, form, "margin", f"{r['family']} {r['label']}", r["K_scaled"],
                          hard_scale=HARD_SCALE, convert=False)  # fmt: skip


def study(keys, forms, n_random, n_engine, maxiter, n4_points, n4_random, store, save):
    """Stage by stage over the points (so that a cut run leaves every point started):
    4 states (full form) at ``n4_points``, then 3 states, one form at a time; the full
    form with ``n_random`` random starts and ``n_engine`` engine starts, the other forms
    with a third of each."""
    pts = {k: Point(k, store, save, maxiter) for k in keys}
    for k in keys:
        if k in n4_points:
            pts[k].families(4, "full", n4_random, n_engine)
    for form in forms:
        nr, ne = (n_random, n_engine) if form == "full" else (n_random // 3, n_engine // 2)
        for k in keys:
            pts[k].families(3, form, nr, ne)


def recheck(store):
    """Every record's independent check again, from the stored plant and controller."""
    for rec in store.values():
        G = control.ss(*[np.asarray(M, float) for M in rec["plant"]])
        for r in rec["records"]:
            if "K_scaled" in r:
                A, B, C, D = (np.asarray(M, float) for M in r["K_scaled"])
                r |= independent_check(G, control.ss(A, B, C * OUTPUT_SCALE, D * OUTPUT_SCALE))


_KEYS = ("form", "family", "label", "soft", "hard", "gamma1", "gamma2", "gamma1_grid",
         "gamma2_grid", "max_real", "K_scaled")  # fmt: skip


def _g2(r):
    return None if r is None else r["gamma2"]


def summary(store):
    """Per point and order: starts (margin runs apart), time, the best ``gamma2`` proved
    with ``gamma1 < 1`` (``best``) and met to AB13DD's accuracy (``best_loose``), by form."""
    rows = []
    for key, rec in store.items():
        for order in (3, 4):
            recs = [r for r in rec["records"] if r["order"] == order]
            if not recs:
                continue
            searches = [r for r in recs if r["family"] != "margin"]
            b, bl = best_of(recs, strict=True), best_of(recs)
            rows.append(dict(
                point=key, theta=rec["theta"], levels=rec["levels"], order=order,
                starts=sum(r.get("runs", 1) for r in searches), calls=len(searches),
                margin_runs=len(recs) - len(searches), time=sum(r["time"] for r in recs),
                met=sum(1 for r in searches if _met(r)),
                best=None if b is None else {k: b[k] for k in _KEYS},
                best_loose=None if bl is None else {k: bl[k] for k in _KEYS},
                best_by_form={f: _g2(best_of(recs, form=f, strict=True))
                              for f in ("full", "companion", "diag")},
                best_loose_by_form={f: _g2(best_of(searches, form=f))
                                    for f in ("full", "companion", "diag")},
            ))  # fmt: skip
    return rows


def print_table(rows):
    def txt(b):
        if b is None:
            return "none"
        return (f"{b['gamma2']:.4f} (gamma1 {b['gamma1']:.8f}; grid {b['gamma1_grid']:.4f}/"
                f"{b['gamma2_grid']:.4f}; systune {b['hard']:.8f}/{b['soft']:.4f}; {b['form']} "
                f"{b['family']} {b['label']})")  # fmt: skip

    for r in rows:
        print(f"{r['point']} {r['theta']} {r['levels']} order {r['order']}: {r['starts']} starts "
              f"({r['calls']} calls, {r['met']} met, {r['margin_runs']} margin runs), "
              f"{r['time']:.0f} s\n  proved gamma1 < 1: {txt(r['best'])}\n  met to AB13DD "
              f"accuracy: {txt(r['best_loose'])}\n  by form {r['best_by_form']} / loose "
              f"{r['best_loose_by_form']}")  # fmt: skip


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stage", choices=("run", "stacked", "chained", "margin", "merge", "table"))
    ap.add_argument("parts", nargs="*", help="merge: the part files")
    ap.add_argument("--points", nargs="+", default=list(POINTS))
    ap.add_argument("--forms", nargs="+", default=["full", "companion", "diag"])
    ap.add_argument("--random", type=int, default=9)
    ap.add_argument("--engine-random", type=int, default=ENGINE_RANDOM)
    ap.add_argument("--order4-starts", type=int, default=10)
    ap.add_argument("--order4-points", nargs="*", default=["a", "b"])
    ap.add_argument("--maxiter", type=int, default=300)
    ap.add_argument("--order", type=int, default=3, help="chained: the order continued")
    ap.add_argument("--stacked-g", type=float, nargs="+", default=list(STACKED_G))
    ap.add_argument("--json", default=str(OUT))
    a = ap.parse_args()
    if a.stage == "merge":
        store = {}
        for p in a.parts:
            with open(p) as fh:
                store |= json.load(fh)["points"]
        recheck(store)
        with open(a.json, "w") as fh:
            json.dump(dict(points=store, summary=summary(store)), fh)
        print_table(summary(store))
        return
    path = Path(a.json)
    store = json.loads(path.read_text())["points"] if path.exists() else {}
    if a.stage == "table":
        print_table(summary(store))
        return

    def save():
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(dict(points=store, summary=summary(store))))
        tmp.replace(path)

    if a.stage == "stacked":
        stacked_pass(a.points, a.forms, store, save, a.maxiter, tuple(a.stacked_g))
        print_table(summary(store))
        return
    if a.stage == "chained":
        chained_pass(a.points, a.forms, store, save, a.maxiter, tuple(a.stacked_g),
                     order=a.order)  # fmt: skip
        print_table(summary(store))
        return
    if a.stage == "margin":
        margin_pass(a.points, store, save, a.maxiter)
        print_table(summary(store))
        return
    study(a.points, a.forms, a.random, a.engine_random, a.maxiter, a.order4_points,
          a.order4_starts, store, save)  # fmt: skip
    print_table(summary(store))


if __name__ == "__main__":
    main()
