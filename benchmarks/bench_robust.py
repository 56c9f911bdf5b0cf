"""robstab / wcgain benchmark: a 20-state closed loop with 5 real parameters.

Times ``rmb.robstab`` (whole frequency axis, certified intervals) and prints
its bounds next to a reference measured in the same run: SLICOT AB13MD (mu
upper bound, D,G scalings) on a dense 1,000-point frequency grid, which gives
a grid-only estimate of the same margin (1 / max mu) with no coverage between
points.

Run: ``python benchmarks/bench_robust.py``
"""

import time

import control
import numpy as np
import slycot

import robustmb as rmb
from robustmb.analysis.uncertain_problem import uncertain_problem


def twenty_state_loop(seed=3):
    """Five uncertain spring-mass modes (20 states with actuators) under output feedback."""
    rng = np.random.default_rng(seed)
    s = control.tf("s")
    pars = [rmb.ureal(f"k{i}", 1.0, percent=25) for i in range(5)]
    loop = None
    for i, k in enumerate(pars):
        wn = 1.0 + 2.0 * i
        zeta = 0.02 + 0.01 * rng.uniform()
        mode = k * wn**2 / (s * s + 2 * zeta * wn * s + wn**2)
        act = control.ss(control.tf([20.0], [1, 20]) * control.tf([30.0], [1, 30]))
        branch = rmb.uss(mode) @ rmb.uss(act)
        loop = branch if loop is None else loop + branch
    # A low static gain: the centre loop is stable with lightly damped modes.
    return rmb.feedback(0.05 * loop, 1.0)


def ab13md_grid(problem, omega):
    a, bw, cz, dzw = problem.m11
    resp = rmb.freqresp((a, bw, cz, dzw), omega)
    nblock = np.ones(problem.nw, dtype=int)
    itype = np.ones(problem.nw, dtype=int)  # all real scalars, one channel each
    mus = []
    for m in resp:
        mu, _, _, _ = slycot.ab13md(m, nblock, itype)
        mus.append(mu)
    return np.array(mus)


def main():
    loop = rmb.simplify(twenty_state_loop())
    print(f"closed loop: {loop.nstates} states, occurrences {loop.blocks}")
    t0 = time.perf_counter()
    res = rmb.robstab(loop)
    t_rob = time.perf_counter() - t0
    print(
        f"robstab (certified whole axis): margin in [{res.lower:.5f}, {res.upper:.5f}] at "
        f"{res.critical_frequency:.4f} rad/s, certified={res.certified}, {t_rob:.2f} s, "
        f"{len(res.mu.omega)} frequencies evaluated"
    )
    problem = uncertain_problem(loop)
    if all(r == 1 for r in loop.blocks.values()):
        omega = np.logspace(-2, 2, 1000)
        t0 = time.perf_counter()
        mus = ab13md_grid(problem, omega)
        t_ref = time.perf_counter() - t0
        print(
            f"reference AB13MD on a 1,000-point grid: margin estimate {1 / mus.max():.5f} "
            f"(grid only), {t_ref:.2f} s"
        )
        print(f"ratio robstab / reference time: {t_rob / t_ref:.2f}")
    else:
        print("reference skipped: AB13MD needs one channel per real parameter")


if __name__ == "__main__":
    main()
