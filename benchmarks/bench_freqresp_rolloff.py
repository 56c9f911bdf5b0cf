"""Benchmark: frequency responses of ordinary models and of steeply rolled-off ones.

Run from the repository root:  python benchmarks/bench_freqresp_rolloff.py

Timings (best of N, one BLAS thread) of ``freqresp`` on a 20-state random stable model at
200 frequencies (modal path) and on a nearly defective one (Schur path), and of
``freqresp_stack`` on a family of 1000 random stable 6-state models, each with a same-run
reference: python-control's ``frequency_response`` for the single models, a loop of
``freqresp`` calls for the family; and of ``freqresp`` on chains of 10 to 100 masses whose
response above the modes is solved by LU point by point.  The ratios are the figures to
compare between runs.
Then the largest relative error of both routines against a 60-digit mpmath solve on a
6th-order Butterworth filter and a 3-mass chain (responses down to 1e-36), frequencies 1
to 1e6 rad/s.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import control  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import scipy.signal  # noqa: E402

try:
    import robustmb  # noqa: F401
except ImportError:  # running from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_freqresp import best_time  # noqa: E402  (this folder is on sys.path)

from robustmb.analysis.freqresp import freqresp  # noqa: E402
from robustmb.analysis.model_family import freqresp_stack  # noqa: E402


def against_python_control(title, model, omega, repeats=7):
    """Print the best times of ``freqresp`` and python-control's ``frequency_response``
    on ``model = (A, B, C, D)`` and their ratio."""
    G = control.ss(*model)
    t_single, _ = best_time(lambda: freqresp(model, omega), repeats)
    t_pc, _ = best_time(lambda: control.frequency_response(G, omega), repeats)
    print(title)
    print(f"  freqresp                          : {1e3 * t_single:8.3f} ms")
    print(f"  python-control frequency_response : {1e3 * t_pc:8.3f} ms")
    print(f"  ratio python-control / freqresp   : {t_pc / t_single:8.2f}")


def random_stable(rng, n, p, m):
    """A random real model with poles of real part in [-2, -0.05] and random residues."""
    A = rng.standard_normal((n, n))
    shift = np.max(np.linalg.eigvals(A).real)
    A = A - (shift + rng.uniform(0.05, 2.0)) * np.eye(n)
    return A, rng.standard_normal((n, m)), rng.standard_normal((p, n)), rng.standard_normal((p, m))


def mp_response(A, B, C, omega):
    """``C (j omega I - A)^{-1} B`` of the double matrices, solved with 60 digits (SISO)."""
    with mpmath.workdps(60):
        pencil = 1j * mpmath.mpf(omega) * mpmath.eye(A.shape[0]) - mpmath.matrix(A.tolist())
        x = mpmath.lu_solve(pencil, mpmath.matrix(B.tolist()))
        return complex((mpmath.matrix(C.tolist()) * x)[0])


def mass_chain(q):
    """``q`` unit masses joined by springs (100 N/m) and dampers (0.5 N s/m), the first one
    also to the ground: force on the first mass, position of the last."""
    K = 100.0 * (2 * np.eye(q) - np.eye(q, k=1) - np.eye(q, k=-1))
    K[-1, -1] = 100.0
    A = np.block([[np.zeros((q, q)), np.eye(q)], [-K, -0.005 * K]])
    B = np.zeros((2 * q, 1))
    B[q, 0] = 1.0
    C = np.zeros((1, 2 * q))
    C[0, q - 1] = 1.0
    return A, B, C


def rolled_off_models():
    b, a = scipy.signal.butter(6, 1.0, analog=True)
    butter = control.ss(control.tf(b, a))
    return {"butterworth 6": (butter.A, butter.B, butter.C), "3-mass chain": mass_chain(3)}


def main():
    rng = np.random.default_rng(0)
    A, B, C, D = random_stable(rng, 20, 2, 2)
    omega = np.logspace(-2, 3, 200)
    against_python_control("20 states, 2x2, 200 frequencies", (A, B, C, D), omega)

    # pairs of eigenvalues 1e-6 apart with unit coupling: ||V^-1|| > 1e4, the Schur path
    J = np.diag(-rng.uniform(0.2, 3.0, 20))
    for k in range(0, 19, 2):
        J[k + 1, k + 1] = J[k, k] + 1e-6
        J[k, k + 1] = 1.0
    S = rng.standard_normal((20, 20))
    A = S @ J @ np.linalg.inv(S)
    title = "20 states, nearly defective (Schur path), 2x2, 200 frequencies"
    against_python_control(title, (A, B, C, D), omega)

    family = [random_stable(rng, 6, 1, 1) for _ in range(1000)]
    stack = tuple(np.array([model[i] for model in family]) for i in range(4))
    t_stack, _ = best_time(lambda: freqresp_stack(stack, omega), repeats=3)
    t_loop, _ = best_time(lambda: [freqresp(model, omega) for model in family], repeats=3)
    print("1000 models, 6 states, 1x1, 200 frequencies")
    print(f"  freqresp_stack                    : {1e3 * t_stack:8.1f} ms")
    print(f"  loop of freqresp                  : {1e3 * t_loop:8.1f} ms")
    print(f"  ratio loop / freqresp_stack       : {t_loop / t_stack:8.2f}")

    # chains of masses (relative degree = number of states): above the modes every point
    # is solved by LU
    omega = np.logspace(-1, 4, 1000)
    for q in (10, 30, 100):
        title = f"chain of {q} masses ({2 * q} states), 1000 frequencies 0.1 to 1e4 rad/s"
        against_python_control(title, (*mass_chain(q), np.zeros((1, 1))), omega, repeats=3)

    omega = np.logspace(0, 6, 25)
    for name, (A, B, C) in rolled_off_models().items():
        ref = np.array([mp_response(A, B, C, w) for w in omega])
        D = np.zeros((1, 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            single = freqresp((A, B, C, D), omega)[:, 0, 0]
            family = freqresp_stack((A[None], B[None], C[None], D[None]), omega)[0, :, 0, 0]
        err_single = np.max(np.abs(single - ref) / np.abs(ref))
        err_stack = np.max(np.abs(family - ref) / np.abs(ref))
        print(
            f"{name}: |G| down to {np.min(np.abs(ref)):.1e}; largest relative error "
            f"freqresp {err_single:.1e}, freqresp_stack {err_stack:.1e}"
        )


if __name__ == "__main__":
    main()
