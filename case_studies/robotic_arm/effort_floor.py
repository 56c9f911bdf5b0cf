"""Smallest control effort any stabilising controller needs on the arm (problem (27)).

For a plant ``G`` without imaginary-axis poles, every stabilising ``K`` has
``||K S||_inf >= 1 / sigma_min``, where ``sigma_min`` is the smallest Hankel singular
value of the mirrored unstable part ``G_u(-s)``, and the bound is attained
(Glover 1986, robust stabilisation against additive uncertainty).  Over the arm's
scheduling box and parameter levels, the largest such floor divided by 1500 is a
lower bound on the effort goal gamma2 = max ||W_T K S|| of *any* controller, structured
or not: it shows whether the plant itself keeps gamma2 above the paper's 0.69.

Run ``python case_studies/robotic_arm/effort_floor.py [--levels 7]``.  It first checks
the formula on ``1/(s - a)``, whose floor is exactly ``2 a``.
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np
import scipy.linalg

import robustmb as rmb
from robustmb.examples.arm import TWO_LINK_ARM_TABLE1

PHYSICAL = ("m1", "J1", "rho1", "L2", "m3")


def effort_floor(A, B, C):
    """``min over stabilising K of ||K (I + G K)^-1||_inf`` for ``G = C (sI - A)^-1 B``."""
    T, Z, n = scipy.linalg.schur(A, sort="rhp")
    if n == 0:
        return 0.0
    At, Bt, Ct = Z.T @ A @ Z, Z.T @ B, C @ Z
    # decouple the unstable block: A11 X - X A22 = -A12
    X = scipy.linalg.solve_sylvester(At[:n, :n], -At[n:, n:], -At[:n, n:])
    Au, Bu, Cu = At[:n, :n], Bt[:n] + X @ Bt[n:], Ct[:, :n]
    # Gramians of the stable mirror G_u(-s) = (-Au, Bu, -Cu)
    P = scipy.linalg.solve_continuous_lyapunov(-Au, -Bu @ Bu.T)
    Q = scipy.linalg.solve_continuous_lyapunov(-Au.T, -Cu.T @ Cu)
    return 1.0 / np.sqrt(np.min(np.abs(np.linalg.eigvals(P @ Q))))


def main(levels=7):
    a = 3.0
    check = effort_floor(np.array([[a]]), np.array([[1.0]]), np.array([[1.0]]))
    print(f"check 1/(s - {a}): floor {check:.12g} (exact {2 * a})")
    G = rmb.examples.two_link_arm()
    nominal = {name: TWO_LINK_ARM_TABLE1[name] for name in PHYSICAL}
    worst, where = 0.0, None
    for th1 in np.radians(np.linspace(45.0, 90.0, levels)):
        for th2 in np.radians(np.linspace(45.0, 135.0, levels)):
            for signs in itertools.product((-1, 0, 1), repeat=len(PHYSICAL)):
                scaled = zip(PHYSICAL, signs, strict=True)
                values = {k: nominal[k] * (1 + 0.2 * s) for k, s in scaled}
                values.update(t1=np.tan(th1 / 2), t2=np.tan(th2 / 2))
                P = G.usubs(values)  # every element fixed: a plain state-space model
                f = effort_floor(np.asarray(P.A), np.asarray(P.B), np.asarray(P.C))
                if f > worst:
                    worst, where = f, (np.degrees(th1), np.degrees(th2), signs)
    print(
        f"largest floor of ||K S||: {worst:.6g} at theta = {where[0]:.1f}, {where[1]:.1f} deg, "
        f"levels {where[2]}; gamma2 >= {worst / 1500:.4g} for every controller"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, default=7, help="(theta1, theta2) grid size")
    main(ap.parse_args().levels)
