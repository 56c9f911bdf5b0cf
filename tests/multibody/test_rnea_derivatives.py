"""The vectorised derivatives of inverse dynamics against the dense recursion of seed 002
and complex steps of the inverse dynamics.

Random branching trees (revolute, prismatic and weld joints, full inertias,
fixed or floating base), applied wrenches fixed in the body or in the inertial
frame, and wrench inputs.
"""

import numpy as np
import pytest
from dense_rnea_derivatives import inverse_dynamics_derivatives
from mechanism_specs import build_mechanism
from nonlinear_specs import random_state, random_tree

from robustmb.multibody.constraints import retract
from robustmb.multibody.rnea_derivatives import rnea_derivatives


def loaded_tree(seed, floating):
    rng = np.random.default_rng(seed)
    mech = build_mechanism(random_tree(rng, 4 + seed, floating=floating))
    bodies = list(mech.bodies)
    for k, frame in enumerate(("inertial", "body", "inertial")):
        body = bodies[(3 * k + 1) % len(bodies)]
        port = next(iter(mech.bodies[body].ports))
        mech.add_applied_wrench(f"L{k}", body, port, list(rng.normal(size=6)), frame=frame)
    mech.add_wrench_input("w", bodies[-1], next(iter(mech.bodies[bodies[-1]].ports)))
    tree = mech.rigid_tree()
    return mech, tree, random_state(rng, tree), {"w": list(rng.normal(size=6))}


@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_equal_to_the_dense_recursion(seed, floating):
    _, tree, (q, v, a), wrenches = loaded_tree(seed, floating)
    new = rnea_derivatives(tree, q, v, a, wrenches)
    old = inverse_dynamics_derivatives(tree, q, v, a, wrenches)
    for x, y in zip(new, old, strict=True):
        assert np.abs(x - y).max() <= 1e-12 * max(1.0, np.abs(y).max())


@pytest.mark.parametrize("floating", [False, True])
def test_equal_to_complex_steps_of_inverse_dynamics(floating):
    mech, tree, (q, v, a), wrenches = loaded_tree(5, floating)
    tau, dq, dv, da = rnea_derivatives(tree, q, v, a, wrenches)
    # inverse_dynamics includes the (zero here) joint laws; it is complex-safe in q, v, a
    from robustmb.multibody.dynamics import external_forces, joint_transforms, rnea

    def inverse(qq, vv, aa):
        xs, rw = joint_transforms(tree, qq)
        return rnea(tree, qq, vv, aa, external_forces(tree, qq, rw, wrenches), xs, rw)

    assert np.abs(tau - inverse(q, v, a)).max() < 1e-12 * np.abs(tau).max()
    h, nv = 1e-30, tree.nv
    eye = np.eye(nv) * 1j * h
    num_q = np.array([np.imag(inverse(retract(tree, q, e), v, a)) / h for e in eye]).T
    num_v = np.array([np.imag(inverse(q, v + e, a)) / h for e in eye]).T
    num_a = np.array([np.imag(inverse(q, v, a + e)) / h for e in eye]).T
    for x, y in ((dq, num_q), (dv, num_v), (da, num_a)):
        assert np.abs(x - y).max() <= 1e-11 * max(1.0, np.abs(y).max())
