"""Benchmark: robustmb.freqresp against python-control on a 100-state 4x4 model.

Run from the repository root:  python benchmarks/bench_freqresp.py

Prints the best-of-N wall time of each evaluator on the same model and frequency grid,
the speed-up ratio (python-control time / robustmb time) and the largest normwise
relative difference between the two responses.  Times depend on the machine; the ratio
is the figure to compare.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# One BLAS thread for every routine timed, so that the ratio is not skewed by thread
# oversubscription on a shared machine (override by setting the variable yourself).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import control  # noqa: E402
import numpy as np  # noqa: E402

try:
    import robustmb  # noqa: F401
except ImportError:  # running from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import best_time  # noqa: E402

from robustmb.analysis.freqresp import freqresp  # noqa: E402

N_STATES, N_OUT, N_IN, N_FREQ, REPEATS = 100, 4, 4, 1000, 7


def relative_difference(H, ref):
    return float(np.max(np.linalg.norm(H - ref, axis=(1, 2)) / np.linalg.norm(ref, axis=(1, 2))))


def main():
    np.random.seed(0)  # noqa: NPY002  (python-control's rss draws from the global generator)
    G = control.rss(N_STATES, N_OUT, N_IN, strictly_proper=False)
    omega = np.logspace(-2, 3, N_FREQ)

    t_auto, H_auto = best_time(lambda: freqresp(G, omega), REPEATS)
    t_schur, H_schur = best_time(lambda: freqresp(G, omega, method="schur"), REPEATS)
    t_pc_fr, fr = best_time(lambda: control.frequency_response(G, omega), REPEATS)
    t_pc_call, H_call = best_time(lambda: G(1j * omega), REPEATS)
    H_pc = np.moveaxis(np.asarray(fr.complex), -1, 0)
    H_call = np.moveaxis(H_call, -1, 0)

    print(f"model: {N_STATES} states, {N_OUT}x{N_IN}, {N_FREQ} frequencies, best of {REPEATS}")
    print(f"  python-control frequency_response : {1e3 * t_pc_fr:8.2f} ms")
    print(f"  python-control sys(1j*omega)      : {1e3 * t_pc_call:8.2f} ms")
    print(f"  robustmb freqresp (auto -> modal) : {1e3 * t_auto:8.2f} ms")
    print(f"  robustmb freqresp (method=schur)  : {1e3 * t_schur:8.2f} ms")
    print(f"ratio frequency_response / robustmb auto  : {t_pc_fr / t_auto:6.1f}x")
    print(f"ratio sys(1j*omega) / robustmb auto       : {t_pc_call / t_auto:6.1f}x")
    print(f"ratio frequency_response / robustmb schur : {t_pc_fr / t_schur:6.1f}x")
    print(
        "max normwise relative difference vs python-control: "
        f"auto {relative_difference(H_auto, H_pc):.1e}, "
        f"schur {relative_difference(H_schur, H_pc):.1e}, "
        f"sys() {relative_difference(H_call, H_pc):.1e}"
    )


if __name__ == "__main__":
    main()
