"""D,G upper bound on the robotic arm's 11-fold repeated scalars: BFGS, block Newton, LMI.

The arm's tracking-channel matrices (stored design, sub-box ``(i, j)`` of the 8 x 8 (t1, t2)
partition re-centred as :func:`bench_dg_optimiser.arm_matrices` builds them; t1 and t2 each
repeated 11 times), the uncertainty part alone (``blk`` without the performance block) and
the robust-performance matrix at level ``gamma``.  For every frequency the fast bound is
computed as before (``block_newton=()``: Osborne start, smoothed BFGS stages, polish) and as
now (the same, then the block Newton polish of :mod:`robustmb.analysis.mu_upper_blocknewton`),
in the same process; at the frequencies ``--lmi`` the optimal D,G bound is computed by
:func:`robustmb.analysis.mu_upper.upper_bound_lmi` (cvxpy/Clarabel Dinkelbach SDPs) from the
old fast scaling.  Every bound is checked by ``verify_upper_bound``.  Printed: bounds,
times, and the ratios new/old (time) and new/LMI (bound).

Run from the repository root: ``python benchmarks/bench_dg_newton.py [--boxes 7,7;6,1]
[--omega 6.3,9.5,20] [--lmi 6.3]`` (minutes: the LMI takes about 10 s per SDP).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_dg_optimiser import arm_matrices  # noqa: E402

from robustmb.analysis.mu_structure import BlockStructure  # noqa: E402
from robustmb.analysis.mu_upper import upper_bound_lmi, verify_upper_bound  # noqa: E402
from robustmb.analysis.mussv import _mussv  # noqa: E402


def fast_bound(M, blk, fast):
    """Certified fast bounds of the stack ``M`` (``fast``: options of ``upper_bound_fast``)."""
    t0 = time.perf_counter()
    res = _mussv(M, False, BlockStructure(blk), "fast", False, 0, fast=fast)
    dt = time.perf_counter() - t0
    ok = verify_upper_bound(M, blk, res.upper, res.D, res.G)
    return np.asarray(res.upper, float), dt, bool(np.all(ok))


def lmi_bound(M, blk):
    """Optimal D,G bound of one matrix, from the old fast scaling (as ``mussv(method="lmi")``)."""
    from robustmb.analysis.mu_upper import upper_bound_fast

    struct = BlockStructure(blk)
    t0 = time.perf_counter()
    s = np.linalg.norm(M, 2)
    phi, x, param = upper_bound_fast(M[None] / s, struct, block_newton=())
    Dl, Dr, Gh = param.matrices(x)
    phi, *_ = upper_bound_lmi(M / s, struct, Dl[0], Dr[0], Gh[0])
    return float(np.sqrt(max(phi, 0.0)) * s), time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boxes", default="7,7;6,1")
    ap.add_argument("--gamma", type=float, default=0.95)
    ap.add_argument("--omega", default="6.3,9.5,20.0")
    ap.add_argument("--lmi", default="6.3")
    args = ap.parse_args()
    omega = np.array([float(v) for v in args.omega.split(",")])
    lmi_at = [float(v) for v in args.lmi.split(",") if v]
    for box in args.boxes.split(";"):
        i, j = (int(v) for v in box.split(","))
        M, blk = arm_matrices(i, j, args.gamma, omega=omega)
        ny, nu = blk[-1]
        parts = {
            "uncertainty": (M[:, : M.shape[1] - nu, : M.shape[2] - ny], blk[:-1]),
            f"RP gamma {args.gamma}": (M, blk),
        }
        for label, (Mp, bp) in parts.items():
            print(f"box ({i},{j}), {label}: M {Mp.shape[1]}x{Mp.shape[2]}, omega {omega}")
            uo, to, oko = fast_bound(Mp, bp, {"block_newton": ()})
            un, tn, okn = fast_bound(Mp, bp, None)
            print(f"  old fast {np.array2string(uo, precision=4)} {to:.1f} s verified {oko}")
            print(f"  new fast {np.array2string(un, precision=4)} {tn:.1f} s verified {okn}")
            ratio = np.array2string(un / uo, precision=3)
            print(f"  time new/old {tn / to:.1f}; bound new/old {ratio}")
            for w in lmi_at:
                k = int(np.argmin(np.abs(omega - w)))
                ul, tl = lmi_bound(Mp[k], bp)
                per = tn / len(omega)
                print(
                    f"  LMI at {omega[k]:g} rad/s: {ul:.4f} ({tl:.0f} s); new/LMI "
                    f"{un[k] / ul:.3f}, old/LMI {uo[k] / ul:.3f}; LMI time / new time per "
                    f"frequency {tl / per:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
