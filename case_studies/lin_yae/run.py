"""Recursive linearisation of Lin & Yae (seed 002): two-link arm, Eq. 33 and Figs. 10-13.

Run from the repository root::

    python case_studies/lin_yae/run.py [--out DIR]

Prints the linear model of the hanging two-link arm (``rmb.examples.lin_yae_two_link``)
in the paper's state order next to the printed Eq. 33, designs the decoupling PD
regulator (paper Eqs. 34-38 with consistent signs) on it, and simulates the
*nonlinear* arm under that regulator from 0.05 rad and 1.0 rad initial deviations
against the linear prediction.  Writes

- ``small_deviation.png`` (0.05 rad) and ``large_deviation.png`` (1.0 rad): nonlinear
  and linear joint angles under the decoupling PD regulator, the runs the paper's text
  puts in Figs. 10-13 (its Figs. 6-7 and 8-9 are the pole-placement regulator at 0.05
  and 1.0 rad);
- ``linearisation_cost.png``: time of the analytic linearisation against finite
  differences of the forward dynamics on chains of 2 to 20 links.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity  # noqa: E402

EQ33_A = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [-5.191, 3.4612, 0, 0], [1.1537, -4.0380, 0, 0]])
EQ33_B = np.array([[0, 0], [0, 0], [-0.0824, 0.0294], [0.0294, -0.0176]])
OMEGA, ZETA = [2.0, 2.5], [0.7, 0.7]


def closed_loop(mech, lin, eps, t_end):
    kp, kv = rmb.examples.decoupling_pd_gains(lin, OMEGA, ZETA)
    t = np.linspace(0, t_end, 301)
    q0 = np.array([eps, -eps])
    res = mech.simulate(
        (0, t_end), q0, np.zeros(2), inputs=lambda _t, q, v: -kp @ q - kv @ v, t_eval=t
    )
    a_cl = lin.A - lin.B[:, :2] @ np.hstack([kp, kv])
    lam, vec = np.linalg.eig(a_cl)
    coef = np.linalg.solve(vec, np.r_[q0, 0, 0])
    lin_q = np.real(vec[:2] @ (coef[:, None] * np.exp(lam[:, None] * t)))
    return t, res.q.T, lin_q


def chain(n):
    mech = Mechanism(acceleration=gravity(9.81))
    parent = ("ground", "O")
    for k in range(n):
        mech.add_body(
            RigidBody(
                f"L{k}",
                mass=1.0,
                inertia=[0.02, 0.03, 0.01],
                cog=[0, 0.1, 0.25],
                ports={"P": [0, 0, 0], "tip": [0, 0, 0.5]},
            )
        )
        axis = [1, 0, 0] if k % 2 else [0, 1, 0.2]
        mech.add_joint(RevoluteJoint(f"J{k}", parent, (f"L{k}", "P"), axis))
        parent = (f"L{k}", "tip")
    return mech


def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(out_dir=None) -> dict:
    """Run the study, write the figures to ``out_dir``; return the checked numbers.

    Keys: ``A``, ``B`` (linear model in the paper's state order, B with the paper's torque
    sign), ``gap_small``, ``gap_large`` (max |nonlinear - linear| joint angle in rad from
    0.05 rad and 1.0 rad), ``sizes``, ``t_analytic``, ``t_fd`` (s per linearisation).
    """
    out = Path(__file__).parent / "figures" if out_dir is None else Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    mech = rmb.examples.lin_yae_two_link()
    lin = mech.linearize_at(np.zeros(2), np.zeros(2))
    perm = [1, 0, 3, 2]  # the paper orders (theta2, theta1, theta2_dot, theta1_dot)
    np.set_printoptions(precision=5, suppress=True)
    print("A (paper order):\n", lin.A[np.ix_(perm, perm)])
    print("Eq. 33 A:\n", EQ33_A)
    print("B (paper order, torques on the child):\n", lin.B[np.ix_(perm, [1, 0])])
    print("Eq. 33 B (the opposite torque sign):\n", EQ33_B)
    result = {"A": lin.A[np.ix_(perm, perm)], "B": -lin.B[np.ix_(perm, [1, 0])]}
    for eps, t_end, name in ((0.05, 6.0, "small_deviation"), (1.0, 8.0, "large_deviation")):
        t, q_nl, q_lin = closed_loop(mech, lin, eps, t_end)
        gap = np.abs(q_nl - q_lin).max()
        print(f"initial deviation {eps} rad: max |nonlinear - linear| = {gap:.2e} rad")
        result["gap_" + name.split("_")[0]] = float(gap)
        fig, ax = plt.subplots(figsize=(7, 4))
        for k, c in enumerate(("C0", "C1")):
            ax.plot(t, q_nl[k], c, label=f"theta{k + 1} nonlinear")
            ax.plot(t, q_lin[k], c + "--", label=f"theta{k + 1} linear")
        ax.set_xlabel("t (s)")
        ax.set_ylabel("rad")
        ax.set_title(f"Decoupling PD on the nonlinear arm, {eps} rad initial deviation")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / f"{name}.png", dpi=120)
    sizes = [2, 4, 7, 10, 15, 20]
    t_an, t_fd = [], []
    for n in sizes:
        m = chain(n)
        rng = np.random.default_rng(n)
        q, v, tau = rng.normal(size=(3, n))
        m.forward_dynamics(q, v, tau)

        def fd(m=m, q=q, v=v, tau=tau, n=n):
            h = 1e-6
            for c in range(n):
                e = np.zeros(n)
                e[c] = h
                m.forward_dynamics(q + e, v, tau), m.forward_dynamics(q - e, v, tau)
                m.forward_dynamics(q, v + e, tau), m.forward_dynamics(q, v - e, tau)

        t_an.append(best(lambda m=m, q=q, v=v, tau=tau: m.linearize_at(q, v, tau0=tau)))
        t_fd.append(best(fd))
        print(
            f"n = {n:2d}: analytic {t_an[-1] * 1e3:7.2f} ms, finite differences "
            f"{t_fd[-1] * 1e3:7.2f} ms (ratio {t_fd[-1] / t_an[-1]:.1f})"
        )
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(sizes, np.array(t_an) * 1e3, "o-", label="recursive analytic (linearize_at)")
    ax.loglog(sizes, np.array(t_fd) * 1e3, "s-", label="central differences of forward dynamics")
    ax.set_xlabel("number of links")
    ax.set_ylabel("ms per linearisation")
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(out / "linearisation_cost.png", dpi=120)
    print(f"figures in {out}")
    result.update(sizes=sizes, t_analytic=t_an, t_fd=t_fd)
    return result


def _cli(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).parent / "figures"))
    args = ap.parse_args(argv)
    main(args.out)


if __name__ == "__main__":
    _cli()
