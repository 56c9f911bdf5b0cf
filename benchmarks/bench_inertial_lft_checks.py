"""Cost of the affinity checks in ``Mechanism.linearize_at(uncertain=True)``.

Run: ``python benchmarks/bench_inertial_lft_checks.py``.  A chain of ``n`` links on
revolute joints with ``n`` uncertain masses and ``n`` uncertain springs (``2n`` parameters):
the number of numerical linearisations the uncertain one evaluates (the nominal, four per
parameter, one per pair of parameters and one random point) and its time beside one
numerical linearisation measured in the same run (a ratio).
"""

import numpy as np
from _timing import best_time

from robustmb import lft
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody
from robustmb.multibody.inertial_lft import affine_parameters


def chain(n):
    """``n`` links of length 0.5 about alternating x / y axes, masses and springs uncertain."""
    mech = Mechanism(acceleration=[0, 0, 9.81])
    parent = ("ground", "O")
    for k in range(n):
        mech.add_body(
            RigidBody(
                f"B{k}",
                mass=lft.ureal(f"m{k}", 1.0 + 0.1 * k, percent=10),
                inertia=np.diag([0.02, 0.03, 0.01]),
                cog=[0, 0, 0.25],
                ports={"P": [0, 0, 0], "C": [0, 0, 0.5]},
            )
        )
        axis = [1, 0, 0] if k % 2 == 0 else [0, 1, 0]
        spring = lft.ureal(f"k{k}", 20.0, percent=20)
        mech.add_joint(RevoluteJoint(f"J{k}", parent, (f"B{k}", "P"), axis, stiffness=spring))
        parent = (f"B{k}", "C")
    return mech


def measure(n):
    """``(evaluations, uncertain seconds, numeric seconds)`` for a chain of ``n`` links."""
    mech = chain(n)
    q, v = 0.2 * np.ones(n), 0.1 * np.ones(n)
    nominal = {k: el.nominal for k, el in affine_parameters(mech)[0].items()}
    t_num, _ = best_time(lambda: mech.linearize_at(q, v, values=nominal))
    plain, calls = mech.linearize_at, []

    def counted(*a, **kw):
        calls.append(1)
        return plain(*a, **kw)

    mech.linearize_at = counted
    mech.linearize_at(q, v, uncertain=True)
    mech.linearize_at = plain
    t_unc, _ = best_time(lambda: mech.linearize_at(q, v, uncertain=True))
    return len(calls) - 1, t_unc, t_num  # less the outer call itself


def main():
    print(
        f"{'links':>5s} {'params':>6s} {'evaluations':>11s} {'uncertain (s)':>13s} "
        f"{'numeric (s)':>11s} {'ratio':>6s}"
    )
    for n in (2, 4, 8):
        count, t_unc, t_num = measure(n)
        print(f"{n:5d} {2 * n:6d} {count:11d} {t_unc:13.3f} {t_num:11.4f} {t_unc / t_num:6.0f}")


if __name__ == "__main__":
    main()
