"""Balloon and gondola of the nonlinear TITOP paper (seed 001, Sec. 4, Fig. 17).

Run from the repository root::

    python case_studies/balloon/run.py [--out DIR] [--t-end 10]

Simulates the 9-dof system of ``robustmb.examples.balloon_gondola()`` (Table 1
initial state, slider spring k = 50 N/m, no damping: the paper gives no
values) for 10 s and writes

- ``dof.png``: the 9 degrees of freedom (balloon position in the inertial
  frame, Euler angles 3-2-1, slider p, pendulum angles theta1, theta2);
- ``energy.png``: the energy drift E(t) - E(0) and the motion of the system's
  centre of mass (buoyancy = weight, zero initial momentum: it must not move);
- ``error_vs_pinocchio.png``: the difference to the same system built in
  Pinocchio and integrated with the same solver (needs ``pin``), the
  counterpart of the paper's red error curves against Simscape.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

import robustmb as rmb  # noqa: E402

DOF = [
    ("balloon_x", "x (m)"),
    ("balloon_y", "y (m)"),
    ("balloon_z", "z (m)"),
    ("balloon_phi", "phi (rad)"),
    ("balloon_theta", "theta (rad)"),
    ("balloon_psi", "psi (rad)"),
    ("p", "p (m)"),
    ("theta1", "theta1 (rad)"),
    ("theta2", "theta2 (rad)"),
]


def pinocchio_rhs():
    """The same system in Pinocchio (shares no code with robustmb), or None without ``pin``."""
    # Checked before importing: the test module skips itself (a BaseException under pytest)
    # when pinocchio is missing.
    if importlib.util.find_spec("pinocchio") is None:
        return None
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "multibody"))
    from test_balloon import pinocchio_balloon

    return pinocchio_balloon()[1]


def main(out_dir=None, t_end: float = 10.0) -> dict:
    """Run the study, write the figures to ``out_dir``; return the checked numbers.

    Keys: ``energy0`` (J), ``energy_drift_rel`` (max |E - E(0)| / |E(0)|), ``com_motion`` (m),
    and, when Pinocchio is importable, ``pinocchio_error`` (max over all coordinates and
    rates of |robustmb - Pinocchio|, quaternion sign aligned).
    """
    out = Path(__file__).parent / "figures" if out_dir is None else Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    mech, q0, v0 = rmb.examples.balloon_gondola()
    tol = 1e-12
    t0 = time.perf_counter()
    res = mech.simulate((0.0, t_end), q0, v0, rtol=tol, atol=tol)
    elapsed = time.perf_counter() - t0
    drift = np.abs(res.energy - res.energy[0]).max()
    com = np.abs(res.com - res.com[0]).max()
    print(f"simulated {t_end:g} s in {elapsed:.1f} s ({res.t.size} steps, DOP853, tol {tol:g})")
    print(f"E(0) = {res.energy[0]:.6f} J (digest 001: -106.8422 J)")
    print(f"max |E - E(0)| = {drift:.2e} J (relative {drift / abs(res.energy[0]):.1e})")
    print(f"max centre-of-mass motion = {com:.2e} m")
    result = {
        "energy0": float(res.energy[0]),
        "energy_drift_rel": float(drift / abs(res.energy[0])),
        "com_motion": float(com),
    }

    fig, axes = plt.subplots(3, 3, figsize=(11, 8), sharex=True)
    for ax, (key, label) in zip(axes.ravel(), DOF, strict=True):
        ax.plot(res.t, res.outputs[key], "k")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("t (s)")
    fig.suptitle("Balloon and gondola: the 9 degrees of freedom (seed 001, Fig. 17)")
    fig.tight_layout()
    fig.savefig(out / "dof.png", dpi=120)

    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    a1.plot(res.t, res.energy - res.energy[0])
    a1.set_ylabel("E(t) - E(0) (J)")
    a2.plot(res.t, np.linalg.norm(res.com - res.com[0], axis=1))
    a2.set_ylabel("|CoM(t) - CoM(0)| (m)")
    a2.set_xlabel("t (s)")
    for a in (a1, a2):
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "energy.png", dpi=120)

    rhs = pinocchio_rhs()
    if rhs is None:
        print("pinocchio (pin) not installed: error_vs_pinocchio.png not written")
        return result
    ref = solve_ivp(
        rhs,
        (0.0, t_end),
        np.r_[q0, v0],
        method="DOP853",
        rtol=tol,
        atol=tol,
        dense_output=True,
    )
    yref = ref.sol(res.t).T
    sign = np.sign(yref[:, 6:7] * res.q[:, 6:7])
    err = {
        "balloon position (m)": np.abs(res.q[:, :3] - yref[:, :3]).max(axis=1),
        "balloon quaternion": np.abs(res.q[:, 3:7] - sign * yref[:, 3:7]).max(axis=1),
        "p, theta1, theta2": np.abs(res.q[:, 7:] - yref[:, 7:10]).max(axis=1),
        "rates": np.abs(res.v - yref[:, 10:]).max(axis=1),
    }
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, e in err.items():
        ax.semilogy(res.t, np.maximum(e, 1e-17), label=name)
        print(f"max error vs Pinocchio, {name}: {e.max():.1e}")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("|robustmb - Pinocchio|")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "error_vs_pinocchio.png", dpi=120)
    result["pinocchio_error"] = float(max(e.max() for e in err.values()))
    print(f"figures in {out}")
    return result


def _cli(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).parent / "figures"))
    ap.add_argument("--t-end", type=float, default=10.0)
    args = ap.parse_args(argv)
    main(args.out, args.t_end)


if __name__ == "__main__":
    _cli()
