"""Cost of proving a non-affine mass or inertia physical on the box of its ureals.

Run: ``python benchmarks/bench_parameter_box.py``.  For each quantity, the time of
:func:`~robustmb.multibody.parameter_box.semidefinite_samples` (the mu proof or refutation)
beside that of :func:`~robustmb.multibody.parameter_box.box_samples` (the sampling it
replaces: vertices and a grid of the box) measured in the same run (a ratio), and the
time of building the :class:`~robustmb.multibody.RigidBody` that checks it.  Then the
sampling of an undecided quantity (``MAX_GRID_POINTS`` extra points for any number of
ureals) beside the evaluation of the former grid (``l^p`` points with ``l`` clamped to
3..9: 9 points for one ureal, ``3^10`` for ten) in the same run.
"""

import itertools
import warnings

import numpy as np
from _timing import best_time

import robustmb as rmb
from robustmb.multibody import RigidBody
from robustmb.multibody.parameter_box import _evaluate, box_samples, semidefinite_samples


def cases():
    m = rmb.ureal("m", 2.0, percent=20)
    L = rmb.ureal("L", 1.0, range=(0.8, 1.3))
    t = m * L * L / 12
    jp = rmb.ureal("Jp", 0.0, range=(-0.04, 0.04))

    def product(jr, mr):
        jxy = rmb.ureal("Jxy", float(np.mean(jr)), range=jr)
        mm = rmb.ureal("mm", float(np.mean(mr)), range=mr)
        q = 4.0 * jxy * mm * (1.0 - mm)
        return mm, [[0.5, q, 0.0], [q, 0.5, 0.0], [0.0, 0.0, 1.0]]

    return [
        ("rod m L^2/12, scalar", m, t),
        ("rod diag(t, t, 0)", m, [[t, 0, 0], [0, t, 0], [0, 0, 0.0]]),
        ("rod with product Jp m", m, [[t + 0.02, jp * m, 0], [jp * m, t + 0.02, 0], [0, 0, 0]]),
        ("4 Jxy m (1-m), definite", *product((0.2, 0.4), (0.1, 0.9))),
        ("4 Jxy m (1-m), refuted", *product((0.2, 0.6), (0.2, 0.9))),
    ]


def main():
    print(f"{'quantity':28s} {'exact':>5s} {'mu s':>8s} {'sampling s':>10s} {'ratio':>6s} "
          f"{'RigidBody s':>11s}")  # fmt: skip
    for name, mass, inertia in cases():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_mu, (_, exact, _) = best_time(lambda x=inertia: semidefinite_samples(x))
            t_grid, _ = best_time(lambda x=inertia: box_samples(x))

            def build(mass=mass, inertia=inertia):
                try:
                    RigidBody("b", mass=mass, inertia=inertia)
                except rmb.errors.DimensionError:
                    pass

            t_body, _ = best_time(build)
        print(f"{name:28s} {exact!s:>5s} {t_mu:8.3f} {t_grid:10.3f} {t_mu / t_grid:6.1f} "
              f"{t_body:11.3f}")  # fmt: skip

    print(f"\n{'ureals':>6s} {'samples':>7s} {'sampling s':>10s} {'former grid':>11s} "
          f"{'former s':>8s} {'ratio':>6s} {'RigidBody s':>11s}")  # fmt: skip
    for p in (1, 2, 8, 10):
        us = [rmb.ureal(f"u{i}", 1.0, range=(0.5, 1.5)) for i in range(p)]
        x = (us[0] - 1.0) * (us[0] - 1.0)  # semidefinite only: left undecided, sampled
        for u in us[1:]:
            x = x + 0.1 * u
        model = rmb.umat(x)
        levels = max(3, min(9, int(4096 ** (1.0 / p))))
        old = [0.5 + np.array(t) for t in itertools.product(np.linspace(0, 1, levels), repeat=p)]
        names = list(model.uncertainty)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_new, (samples, _, _) = best_time(lambda x=x: box_samples(x))
            t_old, _ = best_time(lambda m=model, o=old, n=names: _evaluate(m, m.uncertainty, n, o))
            tensor = [[x, 0, 0], [0, x, 0], [0, 0, x]]
            t_body, _ = best_time(lambda j=tensor: RigidBody("b", mass=1.0, inertia=j))
        print(f"{p:6d} {len(samples):7d} {t_new:10.3f} {len(old):11d} {t_old:8.3f} "
              f"{t_new / t_old:6.2f} {t_body:11.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
