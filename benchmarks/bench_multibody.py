"""Benchmark: exact LFT models of mechanisms (build + simplify).

Run: ``python benchmarks/bench_multibody.py``.  Each figure is printed beside a
reference measured in the same run: the same generator on plain numbers (one
numeric trim + linearisation at the nominal point), so the ratio says what the
LFT arithmetic costs.  The MATLAB implementation of the source paper needed
about 20 s for the two-link arm (seed 000, Sec. 6.2).
"""

from __future__ import annotations

import numpy as np
from _timing import best_time

import robustmb.lft as lft
from robustmb import examples
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity


def six_joint_chain(uncertain=True):
    """A 3-D chain of 6 revolute joints (non-parallel axes, full inertias)."""
    rng = np.random.default_rng(0)
    mech = Mechanism(acceleration=gravity(9.81))
    parent = ("ground", "O")
    for k in range(6):
        a = rng.normal(size=(3, 3))
        mass = 2.0 + rng.random()
        length = 0.5 + 0.5 * rng.random()
        if uncertain and k in (0, 3):
            mass = lft.ureal(f"m{k}", mass, percent=20)
        if uncertain and k == 2:
            length = lft.ureal(f"L{k}", length, percent=10)
        mech.add_body(
            RigidBody(
                f"B{k}",
                mass=mass,
                inertia=a @ a.T + np.eye(3),
                cog=[0.1, 0.0, 0.5 * length] if k != 2 else [0.1, 0.0, 0.3],
                ports={"P": [0, 0, 0], "C": [0.05, 0.0, length]},
            )
        )
        angle = (
            {"tan_half": lft.ureal(f"t{k}", 0.3, range=(-0.5, 0.8))}
            if (uncertain and k < 2)
            else {"angle": float(rng.uniform(-1, 1))}
        )
        mech.add_joint(
            RevoluteJoint(
                f"J{k}",
                parent,
                (f"B{k}", "P"),
                rng.normal(size=3),
                stiffness=1.0,
                damping=0.1,
                inertia=0.05,
                input_name=f"T{k}",
                output_name=f"q{k}",
                **angle,
            )
        )
        parent = (f"B{k}", "C")
    return mech


def main():
    rows = []
    t_num, _ = best_time(
        lambda: examples.two_link_arm(np.radians(70), np.radians(30), uncertain=False)
    )
    t_lft, arm = best_time(lambda: examples.two_link_arm())
    rows.append(("two-link arm: build + simplify", t_lft, t_num, sum(arm.blocks.values())))
    chain_num = six_joint_chain(uncertain=False)
    t_num6, _ = best_time(chain_num.linearize, 2)
    chain = six_joint_chain()
    t_lft6, c6 = best_time(chain.linearize, 2)
    rows.append(("6-joint 3-D chain: build + simplify", t_lft6, t_num6, sum(c6.blocks.values())))
    print(f"{'case':38s} {'LFT (s)':>8s} {'numeric (s)':>12s} {'ratio':>7s} {'occurrences':>12s}")
    for name, t1, t0, occ in rows:
        print(f"{name:38s} {t1:8.3f} {t0:12.4f} {t1 / t0:7.1f} {occ:12d}")
    print(f"two-link arm vs the paper's MATLAB build (about 20 s): {20.0 / rows[0][1]:.0f}x faster")
    print("occurrences per element:", dict(arm.blocks), dict(c6.blocks))


if __name__ == "__main__":
    main()
