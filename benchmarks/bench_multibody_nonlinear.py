"""Benchmark: nonlinear multibody models against Pinocchio (C++), same run.

Run: ``python benchmarks/bench_multibody_nonlinear.py``.  For random spatial
chains of 2 to 30 revolute/prismatic bodies (full inertias, random axes and
placements) it prints the time per call of

- ``Mechanism.forward_dynamics`` against ``pinocchio.aba``;
- ``Mechanism.linearize_at`` (analytic, seed 002) against
  ``pinocchio.computeABADerivatives``, and against central finite differences
  of our own forward dynamics (4 n + 1 calls: the cheapest numerical
  linearisation of ``[q; v] -> q''``);

the ratios, and the growth exponents fitted on n = 10..30.  Needs ``pin``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "multibody"))

import pinocchio as pin  # noqa: E402
from lagrange_reference import LagrangeReference  # noqa: E402
from mechanism_specs import build_mechanism, random_chain  # noqa: E402
from pinocchio_reference import build_model  # noqa: E402


def best(fn, budget=0.4, least=5):
    """Fastest single call over ``budget`` seconds: on a shared machine the minimum is
    the figure least disturbed by other processes."""
    times, start = [], time.perf_counter()
    while len(times) < least or time.perf_counter() - start < budget:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    rows = []
    sizes = [2, 5, 10, 15, 20, 30]
    print(
        f"{'n':>3} {'pin aba':>9} {'ours FD':>9} {'ratio':>6} | {'pin dABA':>9} "
        f"{'ours lin':>9} {'ratio':>6} | {'FD lin':>9} {'FD/lin':>6}"
    )
    for n in sizes:
        rng = np.random.default_rng(n)
        spec = random_chain(rng, n, prismatic=tuple(range(1, n, 4)), uncertain=False, rotor=False)
        for j in spec["joints"]:
            j["stiffness"] = j["damping"] = 0.0
        mech = build_mechanism(spec)
        model, _ = build_model(LagrangeReference(spec))
        data = model.createData()
        q, v, tau = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
        mech.forward_dynamics(q, v, tau)  # compile and cache the tree
        err = np.abs(mech.forward_dynamics(q, v, tau) - pin.aba(model, data, q, v, tau)).max()
        t_pin = best(lambda: pin.aba(model, data, q, v, tau))  # noqa: B023
        t_fd = best(lambda: mech.forward_dynamics(q, v, tau))  # noqa: B023
        t_pin_d = best(lambda: pin.computeABADerivatives(model, data, q, v, tau))  # noqa: B023
        t_lin = best(lambda: mech.linearize_at(q, v, tau0=tau))  # noqa: B023

        def finite_differences(q=q, v=v, tau=tau, n=n, mech=mech):
            h = 1e-6
            f0 = mech.forward_dynamics(q, v, tau)
            out = np.empty((n, 2 * n))
            for c in range(n):
                e = np.zeros(n)
                e[c] = h
                out[:, c] = mech.forward_dynamics(q + e, v, tau) - mech.forward_dynamics(
                    q - e, v, tau
                )
                out[:, n + c] = mech.forward_dynamics(q, v + e, tau) - mech.forward_dynamics(
                    q, v - e, tau
                )
            return f0, out / (2 * h)

        t_num = best(finite_differences, least=3)
        rows.append((n, t_pin, t_fd, t_pin_d, t_lin, t_num, err))
        print(
            f"{n:3d} {t_pin * 1e6:8.1f}u {t_fd * 1e6:8.1f}u {t_fd / t_pin:6.0f} | "
            f"{t_pin_d * 1e6:8.1f}u {t_lin * 1e6:8.1f}u {t_lin / t_pin_d:6.0f} | "
            f"{t_num * 1e6:8.0f}u {t_num / t_lin:6.1f}   (|aba diff| {err:.1e})"
        )
    arr = np.array(rows)
    sel = arr[:, 0] >= 10
    for col, name in ((2, "forward_dynamics"), (4, "linearize_at"), (1, "pin.aba")):
        slope = np.polyfit(np.log(arr[sel, 0]), np.log(arr[sel, col]), 1)[0]
        print(f"growth exponent of {name} (n = 10..30): {slope:.2f}")


if __name__ == "__main__":
    main()
