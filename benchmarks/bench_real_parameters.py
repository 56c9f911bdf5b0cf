"""Real-parameter robust stability: certified gap and time, new against previous intervals.

Cases: the two-cart loop (7 states, m1, m2, k at 1 +- 20 %, three lead stages; the
MATLAB Robust Control Toolbox example "Getting Reliable Estimates of Robustness
Margins", which publishes a 0.13 % gap) and the 20-state, 5-parameter loop of
``bench_robust.py``.  Each is run with the current interval certificates and with
the previous ones (``frequency_intervals.py`` at commit cb514df: unscaled multiplier,
unbalanced pencil), and once with the search-first path of all-real problems switched off
(``mu-first``: free sweep, then real-mu lower bounds, then the parameter search); the
1000-point SLICOT AB13MD grid is timed in the same run as the reference.

The ``/grid`` column is the time over the grid's, measured in the same run (below 1:
faster than the grid).

Run: ``python benchmarks/bench_real_parameters.py`` (from the repository root);
``--no-previous`` skips the previous-interval runs; ``--gain-only`` runs only the
wcgain / robgain branch-and-bound table; ``--set-only [name parts]`` only the problem set
(twelve loops with exact or published margins, or those whose names contain a part);
``--warm [--arm]`` the cold / warm-started pointwise gain bisection;
``--compare REV [name parts]`` the problem set with ``robust_stability.py`` and the modules
it drives (``STACK``) as of the git revision ``REV`` and as now, one after the other in the
same process (each with its grid).
"""

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import robustmb as rmb
from robustmb._progress import ProgressBar
from robustmb.analysis import mu_sweep, robust_stability
from robustmb.analysis.uncertain_problem import uncertain_problem

sys.path.insert(0, str(Path(__file__).parent))
from bench_robust import ab13md_grid, twenty_state_loop  # noqa: E402

PREVIOUS = "cb514df"


def previous_intervals():
    """The interval module as of ``PREVIOUS`` (read from git), or None."""
    try:
        return module_at(PREVIOUS, "frequency_intervals")
    except (OSError, subprocess.CalledProcessError):
        return None


# The modules of robstab's real-parameter path that ``--compare`` takes as of the old
# revision, in import order: each is loaded with the older ones in place of the current.
STACK = ("boundary_crossing", "mu_sweep", "branch_and_bound", "robust_stability")


def stack_at(rev, names=STACK):
    """``robust_stability`` as of ``rev``, bound to the modules ``names`` as of ``rev``.

    Each module is loaded (:func:`module_at`) while the older ones stand in for the
    current ones in ``sys.modules``, so its relative imports bind to the old versions;
    the current modules are restored afterwards (nothing else sees the old ones).
    """
    saved = {}
    try:
        for name in names:
            full = f"robustmb.analysis.{name}"
            saved.setdefault(full, sys.modules.get(full))
            sys.modules[full] = mod = module_at(rev, name)
        return mod
    finally:
        for full, mod in saved.items():
            sys.modules[full] = mod


def module_at(rev, name="robust_stability"):
    """``robustmb/analysis/<name>.py`` as of git revision ``rev`` (a separate module)."""
    root = Path(__file__).resolve().parents[1]
    src = subprocess.run(
        ["git", "show", f"{rev}:robustmb/analysis/{name}.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    spec = importlib.util.spec_from_loader(f"robustmb.analysis._{name}_{rev}", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "robustmb.analysis"
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    exec(compile(src, f"{name}_{rev}.py", "exec"), mod.__dict__)
    return mod


def timed_robstab(loop, search_first=True):
    t0 = time.perf_counter()
    if search_first:
        res = rmb.robstab(loop, sensitivity=False)
    else:
        # the free sweep with mu lower bounds, as robstab runs it on complex elements
        bar = ProgressBar(3, "robstab", enabled=False)
        res = robust_stability._robstab(
            uncertain_problem(loop), None, False, bar, 5e-3, 16, search_first=False
        )
    return res, time.perf_counter() - t0


def main():
    prev = None if "--no-previous" in sys.argv else previous_intervals()
    # (name, loop, AB13MD grid decades): each grid spans the modes of its loop
    cases = [
        ("two carts (7 states, 3 real)", rmb.examples.two_carts_loop(), (-1, 4)),
        ("20 states, 5 real", twenty_state_loop(), (-2, 2)),
    ]
    print(
        f"{'case':30s} {'algorithm':9s} {'lower':>9s} {'upper':>9s} {'gap %':>8s} {'time s':>7s}"
        f" {'/grid':>6s}"
    )
    for name, loop, decades in cases:
        runs = [("current", None), ("mu-first", "mu-first")]
        if prev is not None:
            runs.append(("previous", prev))
        problem = uncertain_problem(loop)
        omega = np.logspace(*decades, 1000)
        t0 = time.perf_counter()
        mus = ab13md_grid(problem, omega)
        t_ref = time.perf_counter() - t0
        for label, mod in runs:
            saved = (mu_sweep.certified_interval, mu_sweep.multiplier_from_certificate)
            if mod not in (None, "mu-first"):
                mu_sweep.certified_interval = mod.certified_interval
                mu_sweep.multiplier_from_certificate = mod.multiplier_from_certificate
            try:
                res, t = timed_robstab(loop, search_first=mod != "mu-first")
            finally:
                mu_sweep.certified_interval, mu_sweep.multiplier_from_certificate = saved
            gap = 100 * (res.upper / res.lower - 1)
            print(
                f"{name:30s} {label:9s} {res.lower:9.5f} {res.upper:9.5f} {gap:8.3f} {t:7.2f}"
                f" {t / t_ref:6.2f}"
            )
        print(
            f"{name:30s} {'AB13MD':9s} {'':9s} {1 / mus.max():9.5f} {'grid':>8s} {t_ref:7.2f}"
            "  (1000-point grid, no certificate)"
        )


def product_loop():
    """x'' + x' + (1 - d1 d2) x = 0 with d1, d2 in [-1, 1]: exact margin 1 (closed form)."""
    import control

    s = control.tf("s")
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    return rmb.feedback(rmb.uss(control.ss(1 / (s * s + s + 1))), -(d1 * d2))


def pole_escape_loop():
    """K / ((tau s + 1)(0.05 s + 1)^2) 2 (1 + 1 / (0.4 s)): exact margin 1.5 (tau -> 0)."""
    import control

    s = control.tf("s")
    k = rmb.ureal("K", 2.0, percent=50)
    tau = rmb.ureal("tau", 0.5, range=(0.2, 1.0))
    return rmb.feedback(k / ((tau * s + 1) * (0.05 * s + 1) ** 2) * 2 * (1 + 1 / (0.4 * s)), 1)


def lag_loop():
    """K / (s (s + 1) (s / p + 1)), K = 2 +- 50 %, p = 5 +- 40 %: exact margin 4 / 3.

    Characteristic polynomial s^3 / p + (1 + 1 / p) s^2 + s + K: stable iff K < p + 1.
    """
    import control

    s = control.tf("s")
    k = rmb.ureal("K", 2.0, percent=50)
    p = rmb.ureal("p", 5.0, percent=40)
    lag = rmb.feedback(p * rmb.uss(control.ss(1 / s)), 1.0)
    return rmb.feedback(k * rmb.uss(control.ss(1 / (s * (s + 1)))) @ lag, 1.0)


def discrete_loop():
    """1 / (z - a) under the gain g, a = 0.5 +- 40 %, g = 1.2 +- 20 %, dt = 0.1.

    Closed-loop pole a - g = -0.7 + alpha (0.2 d_a - 0.24 d_g): exact margin 0.3 / 0.44.
    """
    import control

    z = control.tf([1, 0], [1], 0.1)
    a = rmb.ureal("a", 0.5, percent=40)
    g = rmb.ureal("g", 1.2, percent=20)
    plant = rmb.uss(control.ss(1 / z)) @ rmb.feedback(1.0, -a * rmb.uss(control.ss(1 / z)))
    return rmb.feedback(g * plant, 1.0)


def interval_polynomial_loop(roots, percent, dt=0.0):
    """Monic polynomial with the coefficients of ``poly(roots)`` as independent ``ureal``.

    Companion form: the chain ``x1 -> ... -> xn`` of integrators (of delays when
    ``dt``), closed by ``u = r - sum a_i x_{i+1}``; the characteristic polynomial is
    ``s^n + a_{n-1} s^{n-1} + ... + a_0`` with ``a_i = a_i0 (1 +- percent %)``.
    """
    import control

    coeffs = np.real(np.poly(roots))[::-1][:-1]  # a_0 .. a_{n-1}
    n = len(coeffs)
    a = np.diag(np.ones(n - 1), 1)
    b = np.zeros((n, 1))
    b[-1, 0] = 1.0
    args = (dt,) if dt else ()
    chain = rmb.uss(control.ss(a, b, np.eye(n), np.zeros((n, 1)), *args))
    gain = None
    for i, c in enumerate(coeffs):
        row = np.zeros((1, n))
        row[0, i] = 1.0
        term = rmb.ureal(f"a{i}", float(c), percent=percent) * rmb.uss(
            control.ss([], [], [], row, *args)
        )
        gain = term if gain is None else gain + term
    return rmb.feedback(chain, gain), coeffs


def kharitonov_margin(coeffs, percent, tol=1e-12):
    """Exact margin of the interval polynomial (Kharitonov's theorem), by bisection.

    The box scaled by ``t`` holds only Hurwitz polynomials iff its four Kharitonov
    polynomials are Hurwitz (leading coefficient 1, fixed); the boxes are nested, so
    the stable scalings form an interval ``[0, t*)``.  Uses only ``numpy.roots``.
    """
    c = np.asarray(coeffs, float)
    r = np.abs(c) * percent / 100.0
    patterns = [(-1, -1, 1, 1), (1, 1, -1, -1), (-1, 1, 1, -1), (1, -1, -1, 1)]

    def stable(t):
        for pat in patterns:
            sign = np.array([pat[i % 4] for i in range(len(c))])
            poly = np.concatenate([[1.0], (c + t * sign * r)[::-1]])
            if np.max(np.roots(poly).real) >= 0:
                return False
        return True

    lo, hi = 0.0, 1.0
    while stable(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if stable(mid) else (lo, mid)
    return hi


def schur_triangle_margin(a0, a1, r0, r1):
    """Exact margin of ``z^2 + a1 z + a0`` over the box: the Schur triangle
    ``|a0| < 1, |a1| < 1 + a0`` first left at an edge (closed form)."""
    return min((1.0 - a0) / r0, (1.0 + a0 - abs(a1)) / (r0 + r1))


def _grid_time(problem, decades):
    """Time of SLICOT AB13MD at 1000 frequencies (log grid, or [0, pi/dt] if discrete)."""
    if decades is None:  # discrete: the grid spans [0, pi / dt]
        import slycot

        omega = np.linspace(0, np.pi / problem.dt, 1000)
        a, bw, cz, dzw = problem.m11
        resp = rmb.freqresp((a, bw, cz, dzw, problem.dt), omega)
        t1 = time.perf_counter()
        for m in resp:
            slycot.ab13md(m, np.ones(problem.nw, int), np.ones(problem.nw, int))
        return time.perf_counter() - t1
    t1 = time.perf_counter()
    ab13md_grid(problem, np.logspace(*decades, 1000))
    return time.perf_counter() - t1


def problem_cases():
    """``(name, loop, exact margin or None, AB13MD grid decades or None if discrete)``.

    Exact references, none computed by robustmb: closed forms (lag, product, pole
    escape, discrete pole, Schur triangle), Kharitonov's theorem on interval
    polynomials (``numpy.roots`` bisection), the two-cart value published by MATLAB.
    """
    cases = [
        ("lag K, p (3 states, 2 real)", lag_loop(), 4 / 3, (-2, 2)),
        ("d1 d2 product (2 states, 2 real)", product_loop(), 1.0, (-2, 2)),
        ("pole escape (4 states, 2 real)", pole_escape_loop(), 1.5, (-2, 3)),
        ("discrete 1/(z-a), g (1 state)", discrete_loop(), 0.3 / 0.44, None),
        ("two carts (7 states, 3 real)", rmb.examples.two_carts_loop(), 2.8864, (-1, 4)),
    ]
    # z^2 + a1 z + a0 with a0 = 0.1, a1 = -0.7 (roots 0.5, 0.2), both at +-40 %
    loop, _ = interval_polynomial_loop([0.5, 0.2], 40, dt=0.1)
    exact = schur_triangle_margin(0.1, -0.7, 0.04, 0.28)
    cases.append(("discrete z^2 + a1 z + a0 (2 real)", loop, exact, None))
    for label, roots, pct in [
        ("interval cubic (3 real)", [-1, -2, -3], 20),
        ("interval quartic (4 real)", [-1 + 1j, -1 - 1j, -2, -3], 20),
        ("interval quintic (5 real)", [-0.5 + 2j, -0.5 - 2j, -1, -2, -4], 10),
        ("interval degree 6 (6 real)", [-0.3 + 1j, -0.3 - 1j, -1 + 3j, -1 - 3j, -2, -5], 5),
        ("interval degree 7 (7 real)", [-0.5 + 1j, -0.5 - 1j, -1, -1.5, -2 + 2j, -2 - 2j, -3], 5),
        ("interval degree 9 (9 real)", [-1, -1.5, -2, -2.5, -3, -0.5 + 1j, -0.5 - 1j, -1 + 2j,
                                        -1 - 2j], 3),
    ]:  # fmt: skip
        loop, coeffs = interval_polynomial_loop(roots, pct)
        cases.append((label, loop, kharitonov_margin(coeffs, pct), (-2, 2)))
    return cases


def problem_set(only=None, compare=None):
    """Loops with an exact margin: certified gap, time, and the AB13MD grid's time.

    With ``compare`` (a git revision) each loop runs first with ``robstab`` as of that
    revision (``robust_stability.py`` and the modules of ``STACK``), then as now, each
    followed by its grid.
    """
    versions = [("now", rmb.robstab)]
    if compare:
        versions.insert(0, (compare[:7], stack_at(compare).robstab))
    print(
        f"\n{'case':36s} {'lower':>9s} {'upper':>9s} {'exact':>9s} {'gap %':>7s} {'t s':>7s}"
        f" {'grid s':>7s} {'/grid':>6s} {'intv':>5s} {'freqs':>6s}  boxes",
        flush=True,
    )
    for name, loop, exact, decades in problem_cases():
        if only and not any(o in name for o in only):
            continue
        for label, robstab in versions:
            _problem_row(name, loop, exact, decades, robstab, label if compare else "")


def _problem_row(name, loop, exact, decades, robstab, label):
    """One row of :func:`problem_set`: ``robstab`` on ``loop``, then its AB13MD grid."""
    t0 = time.perf_counter()
    res = robstab(loop, sensitivity=False)
    t = time.perf_counter() - t0
    problem = uncertain_problem(loop)
    t_ref = _grid_time(problem, decades)
    gap = 100 * (res.upper / res.lower - 1)
    sound = "sound" if res.lower <= exact * (1 + 1e-9) <= res.upper * (1 + 2e-9) else "WRONG"
    if name.startswith("two carts"):  # a published value to 5 digits, not exact
        sound = "sound" if res.lower <= exact * (1 + 5e-5) else "WRONG"
    mu = res.mu
    cov = res.boxes
    boxes = (
        "-"
        if cov is None
        else f"{'certified' if cov.certified else 'open'} {cov.boxes}/{cov.evaluated}+{cov.probed}p"
    )
    if type(cov).__name__ == "PolytopeCover":  # vertex polytopes, no sub-box sweep
        boxes = f"polytope {cov.boxes}"
    print(
        f"{(name + ' ' + label).strip():36s} {res.lower:9.5f} {res.upper:9.5f} {exact:9.5f}"
        f" {gap:7.3f} {t:7.2f}"
        f" {t_ref:7.2f} {t / t_ref:6.2f} {len(mu.intervals) if mu else 0:5d}"
        f" {len(mu.omega) if mu else 0:6d}  {boxes} {sound}",
        flush=True,
    )


def branch_and_bound():
    """Single-box bound against the branch and bound, with the exact margin."""
    print(
        f"\n{'case':32s} {'boxes':>6s} {'lower':>9s} {'upper':>9s} {'gap %':>8s} {'t s':>7s}  cover"
    )
    for name, loop, exact in [
        ("d1 d2 product (2 states, 2 real)", product_loop(), 1.0),
        ("pole escape (4 states, 2 real)", pole_escape_loop(), 1.5),
    ]:
        for budget in (0, 16, 64):
            t0 = time.perf_counter()
            res = rmb.robstab(loop, sensitivity=False, max_boxes=budget)
            t = time.perf_counter() - t0
            gap = 100 * (res.upper / res.lower - 1)
            cov = res.boxes
            note = (
                "-"
                if cov is None
                else f"{'certified' if cov.certified else 'open'} {cov.boxes}/{cov.evaluated} "
                f"({100 * cov.coverage:.1f} %)"
            )
            print(
                f"{name:32s} {budget:6d} {res.lower:9.5f} {res.upper:9.5f} {gap:8.3f} {t:7.2f}"
                f"  {note} (exact {exact})"
            )


def resonance_product_loop(c=0.3, p=1.0):
    """x'' + p x' + (1 - c d1 d2) x = u, y = x: worst-case gain and margin in closed form."""
    import control

    s = control.tf("s")
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    return rmb.feedback(rmb.uss(control.ss(1 / (s * s + p * s + 1))), -(c * d1 * d2))


def gain_branch_and_bound():
    """wcgain / robgain: single box against the branch and bound, with the closed forms.

    ``/single`` is the time over the single-box run's (budget 0) in the same run.
    """
    c, p, gamma = 0.3, 1.0, 1.3
    k = 1.0 - c
    exact_gain = 1.0 / (p * np.sqrt(k - p * p / 4))
    kk = 1.0 / (gamma * p) ** 2 + p * p / 4
    exact_margin = np.sqrt((1.0 - kk) / c)
    print(
        f"\n{'call':24s} {'boxes':>6s} {'lower':>9s} {'upper':>9s} {'exact':>9s} {'gap %':>8s}"
        f" {'t s':>7s} {'/single':>8s}  cover"
    )
    loop = resonance_product_loop(c, p)
    for name, call, exact in [
        ("wcgain", lambda b: rmb.wcgain(loop, max_boxes=b), exact_gain),
        (f"robgain gamma={gamma}", lambda b: rmb.robgain(loop, gamma, max_boxes=b), exact_margin),
    ]:
        t_single = None
        for budget in (0, 16):
            t0 = time.perf_counter()
            res = call(budget)
            t = time.perf_counter() - t0
            t_single = t if t_single is None else t_single
            gap = 100 * (res.upper / res.lower - 1)
            cov = res.boxes
            note = (
                "-"
                if cov is None
                else f"{'certified' if cov.certified else 'open'} {cov.boxes}/{cov.evaluated} "
                f"({100 * cov.coverage:.1f} %)"
            )
            sound = (
                "sound" if res.lower <= exact * (1 + 1e-9) <= res.upper * (1 + 1e-9) else "WRONG"
            )
            print(
                f"{name:24s} {budget:6d} {res.lower:9.5f} {res.upper:9.5f} {exact:9.5f} {gap:8.3f}"
                f" {t:7.2f} {t / t_single:8.2f}  {note} {sound}"
            )


def warm_start(arm=False):
    """Pointwise worst-case gain bisection with cold and warm-started D,G scalings.

    Same run, same grid; ``/cold`` is the warm time over the cold one.  With ``arm``
    the arm's tracking loop ``W_e S`` under the scheduled PID of
    ``rmb.report.arm_lpv.scheduled_pid`` on the quarter ``(t1, t2)`` sub-box (the
    lower halves of both ranges, 7 real parameters, 25 channels) is added (slow).
    """
    from robustmb.analysis import worst_case_gain as wcg
    from robustmb.analysis.mu_sweep import default_grid

    cases = [("resonance d1 d2 product, 8 frequencies", resonance_product_loop(), None)]
    if arm:
        from robustmb.report.arm_lpv import arm_lpv_loop, scheduled_pid

        loop, channels = arm_lpv_loop(scheduled_pid()[0])
        outs, ins, _ = channels["tracking W_e S"]
        model = loop[outs, ins]
        els = model.uncertainty
        sub = {}
        for n in ("t1", "t2"):
            lo, hi = els[n].range
            sub[n] = rmb.ureal(n, 0.75 * lo + 0.25 * hi, range=(lo, 0.5 * (lo + hi)))
        cases.append(("arm tracking, quarter (t1, t2) box", model.usubs(sub), "grid"))
    print(f"\n{'case':40s} {'cold s':>8s} {'warm s':>8s} {'/cold':>6s} {'peak cold':>10s}"
          f" {'peak warm':>10s} {'levels c/w':>10s}")  # fmt: skip
    for name, loop, how in cases:
        problem = uncertain_problem(loop)
        floor = 0.0
        if how is None:
            omega = np.array([0.3, 0.6, 0.8, 0.84, 0.9, 1.0, 1.5, 3.0])
        else:
            floor, f_lo, *_ = wcg._worst_case_search(problem)
            omega = np.union1d(default_grid(problem.a, problem.dt), [f_lo])
        out = []
        for warm in (False, True):
            calls = [0]
            original = wcg._below_one

            def counted(*a, original=original, calls=calls, **k):
                calls[0] += 1
                return original(*a, **k)

            wcg._below_one = counted
            try:
                t0 = time.perf_counter()
                gam = wcg.pointwise_gain_bounds(problem, omega, floor=floor, warm=warm)
                out.append((time.perf_counter() - t0, float(np.max(gam)), calls[0]))
            finally:
                wcg._below_one = original
        (tc, pc, lc), (tw, pw, lw) = out
        print(f"{name:40s} {tc:8.2f} {tw:8.2f} {tw / tc:6.2f} {pc:10.6g} {pw:10.6g}"
              f" {lc:4d}/{lw:<4d}", flush=True)  # fmt: skip


if __name__ == "__main__":
    if "--warm" in sys.argv:
        warm_start(arm="--arm" in sys.argv)
        sys.exit(0)
    if "--compare" in sys.argv:
        rest = sys.argv[sys.argv.index("--compare") + 1 :]
        problem_set([a for a in rest[1:] if not a.startswith("--")], compare=rest[0])
        sys.exit(0)
    if "--set-only" in sys.argv:
        problem_set([a for a in sys.argv[1:] if not a.startswith("--")])
        sys.exit(0)
    if "--gain-only" in sys.argv:
        gain_branch_and_bound()
        sys.exit(0)
    main()
    branch_and_bound()
    problem_set()
    gain_branch_and_bound()
