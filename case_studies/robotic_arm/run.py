"""Two-link robotic arm of the LFT-multibody paper (seed 000): Fig. 5 and Fig. 6.

Run from the repository root::

    python case_studies/robotic_arm/run.py [--out DIR]

It builds the arm as one LFT in (m1, J1, rho1, L2, m3, t1, t2), prints the
occurrence counts of each element before and after ``simplify``, and writes

- ``fig5_relative_error.png``: max over frequency of sigma_max((G1 - G2) G2^-1)
  over a (theta1, theta2) grid of the operating ranges; G1 is the LFT at the
  grid point (nominal physical parameters), G2 an independent model, the
  closed-form Lagrangian equations of the arm (written here, sharing no code
  with the generator);
- ``fig6_singular_values.png``: singular values of T -> theta for 300 random
  samples of the physical parameters at theta1 = 70 deg, theta2 = 30 deg, with
  the nominal LFT model and the independent model overlaid.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import robustmb.lft as lft  # noqa: E402
from robustmb import examples  # noqa: E402

G_ACC, L1, M2, J2, RHO2, KP, KD = 9.81, 1.0, 2.0, 0.1, 0.5, 0.1, 0.1
NOMINAL = {"m1": 3.0, "J1": 0.2, "rho1": 0.3, "L2": 1.0, "m3": 5.0}


def closed_form(th1, th2, m1, J1, rho1, L2, m3):  # noqa: N803 - names of the paper
    """M, D, K of the arm, angles from the upward vertical (Lagrange, by hand)."""
    j1, l2 = J1, L2
    alpha = G_ACC * (m1 * rho1 * L1 + (M2 + m3) * L1)
    beta = G_ACC * (M2 * RHO2 * l2 + m3 * l2)
    c2 = np.cos(th2)
    m11 = (
        j1
        + m1 * rho1**2 * L1**2
        + J2
        + M2 * (L1**2 + RHO2**2 * l2**2 + 2 * L1 * RHO2 * l2 * c2)
        + m3 * (L1**2 + l2**2 + 2 * L1 * l2 * c2)
    )
    m12 = J2 + M2 * (RHO2**2 * l2**2 + L1 * RHO2 * l2 * c2) + m3 * (l2**2 + L1 * l2 * c2)
    m22 = J2 + M2 * RHO2**2 * l2**2 + m3 * l2**2
    c1, c12 = np.cos(th1), np.cos(th1 + th2)
    k = -np.array([[alpha * c1 + beta * c12, beta * c12], [beta * c12, beta * c12]])
    return np.array([[m11, m12], [m12, m22]]), KD * np.eye(2), k + KP * np.eye(2)


def response_second_order(m, d, k, omega):
    """(M s^2 + D s + K)^-1 at s = j omega, all frequencies at once: (nw, 2, 2)."""
    s = 1j * omega[:, None, None]
    return np.linalg.inv(m * s**2 + d * s + k)


def response_state_space(sys, omega):
    """C (sI - A)^-1 B + D at s = j omega via one eigendecomposition of A."""
    a, b, c, d = (np.asarray(x) for x in (sys.A, sys.B, sys.C, sys.D))
    lam, v = np.linalg.eig(a)
    cv, vb = c @ v, np.linalg.solve(v, b)
    inv = 1.0 / (1j * omega[:, None] - lam[None, :])
    return np.einsum("ik,wk,kj->wij", cv, inv, vb) + d


def relative_error(g1, g2):
    rel = (g1 - g2) @ np.linalg.inv(g2)
    return np.linalg.svd(rel, compute_uv=False)[:, 0].max()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        default=str(Path(__file__).resolve().parent / "figures"),
        help="folder for the PNG files",
    )
    parser.add_argument("--grid", type=int, default=19, help="points per angle in Fig. 5")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    raw = examples.two_link_arm_mechanism().linearize(simplify=False)
    t_build = time.perf_counter() - t0
    arm = lft.simplify(raw)
    t_total = time.perf_counter() - t0
    print(f"LFT of the arm built in {t_build:.2f} s, simplified in {t_total - t_build:.2f} s")
    print(f"{'element':8s} {'before':>7s} {'after':>6s}")
    for name in raw.blocks:
        print(f"{name:8s} {raw.blocks[name]:7d} {arm.blocks.get(name, 0):6d}")
    print(f"{'total':8s} {sum(raw.blocks.values()):7d} {sum(arm.blocks.values()):6d}")

    # Fig. 5: relative error over the operating ranges
    omega = np.logspace(-2, 2, 300)
    th1s = np.radians(np.linspace(45, 90, args.grid))
    th2s = np.radians(np.linspace(45, 135, args.grid))
    err = np.zeros((len(th2s), len(th1s)))
    for i, th2 in enumerate(th2s):
        for k, th1 in enumerate(th1s):
            sys = arm.usubs({"t1": np.tan(th1 / 2), "t2": np.tan(th2 / 2), **NOMINAL})
            g1 = response_state_space(sys, omega)
            g2 = response_second_order(*closed_form(th1, th2, **NOMINAL), omega)
            err[i, k] = relative_error(g1, g2)
    print(f"Fig. 5: max relative error over the grid {err.max():.2e} (median {np.median(err):.2e})")
    fig, ax = plt.subplots(figsize=(6, 4.5))
    im = ax.pcolormesh(np.degrees(th1s), np.degrees(th2s), np.log10(err), shading="auto")
    fig.colorbar(im, ax=ax, label=r"$\log_{10}\max_\omega \bar\sigma((G_1-G_2)G_2^{-1})$")
    ax.set_xlabel(r"$\bar\theta_1$ (deg)")
    ax.set_ylabel(r"$\bar\theta_2$ (deg)")
    ax.set_title("LFT model vs independent Lagrangian model")
    fig.tight_layout()
    fig.savefig(out / "fig5_relative_error.png", dpi=120)
    plt.close(fig)

    # Fig. 6: 300 samples at (70 deg, 30 deg)
    th1, th2 = np.radians(70.0), np.radians(30.0)
    arm_fixed = examples.two_link_arm(th1, th2)
    samples, _ = arm_fixed.usample(300, seed=6)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for sys in samples:
        sv = np.linalg.svd(response_state_space(sys, omega), compute_uv=False)
        ax.loglog(omega, sv, color="0.7", lw=0.5)
    sv_nom = np.linalg.svd(response_state_space(arm_fixed.nominal(), omega), compute_uv=False)
    sv_ref = np.linalg.svd(
        response_second_order(*closed_form(th1, th2, **NOMINAL), omega), compute_uv=False
    )
    for i in range(2):
        ax.loglog(omega, sv_nom[:, i], "b", lw=2, label="LFT, nominal" if i == 0 else None)
        ax.loglog(
            omega,
            sv_ref[:, i],
            "r--",
            lw=1.5,
            label="independent model, nominal" if i == 0 else None,
        )
    ax.plot([], [], color="0.7", label="LFT, 300 samples")
    ax.set_xlabel(r"$\omega$ (rad/s)")
    ax.set_ylabel(r"singular values of $T \to \theta$ (rad/(N m))")
    ax.set_title(r"$\bar\theta_1 = 70^\circ$, $\bar\theta_2 = 30^\circ$")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "fig6_singular_values.png", dpi=120)
    plt.close(fig)
    print(
        f"Fig. 6: nominal LFT vs independent model, max relative difference of the "
        f"singular values {np.abs(sv_nom / sv_ref - 1).max():.2e}"
    )
    print(f"wrote {out / 'fig5_relative_error.png'} and {out / 'fig6_singular_values.png'}")


if __name__ == "__main__":
    main()
