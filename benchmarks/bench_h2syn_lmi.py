"""Continuous-time H2 LMI of ``h2syn`` against Riccati optima (scipy), per plant family.

Families (seeded): the 2-state plants with ``D21 = 1`` (the noise is measured exactly),
random regular plants with 2-6 states (every third with ``D22 != 0``), and singular plants
(``D12 = 0``, ``D21 = 0``, ``D11 != 0`` with a strictly proper closed loop possible, modes
on the imaginary axis unseen by ``z``), whose reference is the Riccati optimum of the
plant regularised here (relative size 1e-6) or loop-shifted (``D11``).  Per family: the
failures, the worst relative gap of the verified norm (python-control ``lft`` and a
scipy Lyapunov solve) to the reference, the worst gap of the bracket's lower end, and the
mean wall time of ``h2syn(..., method="lmi")``.

Run: ``PYTHONPATH=. python benchmarks/bench_h2syn_lmi.py`` (one BLAS thread advised).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.linalg as sla

import robustmb as rmb
from robustmb.errors import RobustMBError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "synthesis"))
from _h2_plants import (  # noqa: E402
    SINGULAR_KINDS,
    measured_noise_plant,
    regular_plant,
    singular_plant,
)


def independent_h2(P, K):
    cl = P.lft(K)
    if np.max(cl.poles().real) >= 0:
        return np.inf
    W = sla.solve_continuous_lyapunov(cl.A, -cl.B @ cl.B.T)
    return float(np.sqrt(np.trace(cl.C @ W @ cl.C.T)))


def run(name, cases):
    fails, gaps, lows, times = 0, [], [], []
    for P, nmeas, ncon, ref in cases:
        t = time.perf_counter()
        try:
            res = rmb.h2syn(P, nmeas, ncon, method="lmi")
        except (RobustMBError, np.linalg.LinAlgError, ValueError):
            fails += 1
            continue
        finally:
            times.append(time.perf_counter() - t)
        gaps.append(independent_h2(P, res.controller) / ref - 1)
        lows.append(res.gamma_bracket[0] / ref - 1)
    worst = max(gaps, default=np.nan)
    low = max(lows, default=np.nan)
    print(
        f"{name:24s} {len(cases):3d} plants  failures {fails:2d}  worst gap {worst:9.2e}  "
        f"worst lower end {low:9.2e}  mean {np.mean(times):.2f} s/call",
        flush=True,
    )


def main():
    warnings.simplefilter("ignore")
    run("D21 = 1, 2 states", [measured_noise_plant(k) for k in range(10)])
    run("regular, 2-6 states", [regular_plant(s) for s in range(32)])
    for kind in SINGULAR_KINDS:
        run(f"singular {kind}", [singular_plant(kind, s) for s in range(4)])


if __name__ == "__main__":
    main()
