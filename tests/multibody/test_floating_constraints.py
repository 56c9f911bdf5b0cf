"""Linearisation on the loop-constraint manifold with a floating base.

References independent of the code under test: the heavy symmetric top hanging
from a spherical constraint (its nutation frequencies in closed form, spinning
or not), a floating base welded to the ground by a constraint against the same
mechanism on a fixed base, and central differences of the nonlinear constrained
forward dynamics in the tangent coordinates.
"""

import numpy as np
import pytest

from robustmb.errors import IllPosedError
from robustmb.multibody import (
    Mechanism,
    PrismaticJoint,
    RevoluteJoint,
    RigidBody,
    WeldJoint,
    gravity,
)
from robustmb.multibody.constraints import constraint_terms, retract
from robustmb.multibody.spatial import rotation_matrix

M, L, I_T, I_3, G = 2.0, 1.0, 0.15, 0.3, 9.81


def hanging_top():
    mech = Mechanism(acceleration=gravity(G), floating_base="top", base_position=(0, 0, -L))
    mech.add_body(RigidBody("top", mass=M, inertia=[I_T, I_T, I_3], ports={"tip": [0, 0, L]}))
    mech.add_loop_constraint("pivot", ("top", "tip"), ("ground", "O"))
    return mech


@pytest.mark.parametrize("spin", [0.0, 3.0, -7.0])
def test_hanging_top_nutation_frequencies(spin):
    """Transverse inertia about the pivot ``I_p = I + m l^2``: the inertial frequencies are
    ``(I3 w3 +- sqrt(I3^2 w3^2 + 4 I_p m g l)) / (2 I_p)``; the tangent coordinates
    turn with the body, which shifts each by the spin ``w3``."""
    mech = hanging_top()
    q0, v0 = mech.equilibrium_coordinates(), [0, 0, 0, 0, 0, spin]
    ip = I_T + M * L**2
    root = np.sqrt((I_3 * spin) ** 2 + 4 * ip * M * G * L)
    freqs = [(I_3 * spin + s * root) / (2 * ip) - spin for s in (1, -1)]
    expected = np.sort(np.r_[freqs, -np.array(freqs), 0.0, 0.0])
    # The constraint null space is spanned by (rx, dy), (ry, dx) pairs and rz; with
    # L = 1 the rows of dx, dy, rx, ry tie at norm 1/sqrt(2) after rz (norm 1), so the
    # default choice is the documented tie rule (first listed: dx, then dy since ry
    # keeps no residual once dx is taken).  The spectrum does not depend on the choice.
    rot = ["top_rx", "top_ry", "top_rz"]
    for independent, names in ((None, ["top_dx", "top_dy", "top_rz"]), (rot, rot)):
        lin = mech.linearize_at(q0, v0, independent=independent)
        eig = np.linalg.eigvals(lin.A)
        assert lin.independent == names
        assert np.abs(eig.real).max() < 1e-10
        assert np.abs(np.sort(eig.imag) - expected).max() < 1e-10 * max(1.0, abs(spin))


def arm(floating):
    """A box carrying a revolute-prismatic-revolute arm whose tip is pinned (xy) to the ground
    and held about x; the box is welded to the ground by a joint or by a constraint."""
    r0 = rotation_matrix([0.3, 1.0, -0.2], 0.6)
    p0 = np.array([0.2, -0.1, 0.4])
    mech = Mechanism(
        acceleration=gravity(G, direction=(0.1, -1, 0.3)),
        floating_base="box" if floating else None,
        base_orientation=r0 if floating else None,
        base_position=p0 if floating else (0, 0, 0),
        ground_ports={"B": p0, "T": [0.0, 0.0, 0.0]},
    )
    mech.add_body(
        RigidBody("box", mass=3.0, inertia=[0.2, 0.3, 0.4], cog=[0.1, 0, 0], ports={"O": [0] * 3})
    )
    mech.add_body(
        RigidBody(
            "l1",
            mass=1.0,
            inertia=[0.02, 0.05, 0.04],
            cog=[0.3, 0.05, 0],
            ports={"P": [0] * 3, "E": [0.6, 0, 0]},
        )
    )
    mech.add_body(
        RigidBody(
            "l2", mass=0.7, inertia=[0.01, 0.03, 0.02], cog=[0.2, 0, 0.05], ports={"P": [0] * 3}
        )
    )
    mech.add_body(
        RigidBody(
            "l3",
            mass=0.5,
            inertia=[0.01, 0.02, 0.03],
            cog=[0.2, 0.1, 0],
            ports={"P": [0] * 3, "tip": [0.5, 0, 0]},
        )
    )
    if not floating:
        mech.add_joint(WeldJoint("W", ("ground", "B"), ("box", "O"), orientation=r0))
    mech.add_joint(
        RevoluteJoint("J1", ("box", "O"), ("l1", "P"), [0, 0, 1], output_name="q1", stiffness=2.0)
    )
    mech.add_joint(PrismaticJoint("J2", ("l1", "E"), ("l2", "P"), [1, 0.2, 0], output_name="q2"))
    mech.add_joint(RevoluteJoint("J3", ("l2", "P"), ("l3", "P"), [0, 1, 0.3], output_name="q3"))
    if floating:
        mech.add_loop_constraint(
            "weld", ("ground", "B"), ("box", "O"), rotations="xyz", orientation=r0
        )
    return mech


def test_welded_floating_base_equals_the_fixed_base():
    """The constraint manifold of a base welded by a constraint is the fixed-base mechanism:
    same linearisation in the joint coordinates, at a moving, accelerated point."""
    fixed, free = arm(False), arm(True)
    qj, vj, tau = np.array([0.4, 0.1, -0.7]), np.array([0.5, -0.3, 0.8]), np.array([1.0, 0.5, -0.4])
    ref = fixed.linearize_at(qj, vj, tau0=tau)
    q0 = np.r_[free.equilibrium_coordinates()[:7], qj]
    lin = free.linearize_at(
        q0, np.r_[np.zeros(6), vj], tau0=np.r_[np.zeros(6), tau], independent=["q1", "q2", "q3"]
    )
    assert np.abs(lin.A - ref.A).max() < 1e-9 * np.abs(ref.A).max()
    assert np.abs(lin.B[:, 6:] - ref.B).max() < 1e-9 * np.abs(ref.B).max()
    assert np.abs(lin.a0[6:] - ref.a0).max() < 1e-10 * np.abs(ref.a0).max()


def test_full_linearisation_is_the_derivative_of_the_nonlinear_dynamics():
    """A_full (all tangent coordinates) against central differences of forward_dynamics
    along retract(q0, h e) and v0 + h e; the manifold's tangent basis keeps the
    constraints at first order (central differences of the constraint rows)."""
    mech = arm(True)
    mech.add_loop_constraint("pin", ("l3", "tip"), ("ground", "T"), components="y", rotations="x")
    tree = mech.rigid_tree()
    # a consistent point assembled from a guess off the weld and off the pin
    guess = np.r_[mech.equilibrium_coordinates()[:7], 0.3, 0.2, -0.5]
    guess[:3] += 0.05
    guess[3:7] = (guess[3:7] + 0.05) / np.linalg.norm(guess[3:7] + 0.05)
    q0 = mech.assemble(guess)
    assert np.abs(constraint_terms(tree, q0, np.zeros(tree.nv))[0]).max() < 1e-12
    jac = constraint_terms(tree, q0, np.zeros(tree.nv))[1]
    from scipy.linalg import null_space

    v0 = null_space(jac) @ np.array([0.9])
    tau0 = np.r_[np.zeros(6), 0.7, -0.2, 0.3]
    lin = mech.linearize_at(q0, v0, tau0=tau0)
    h, nv = 1e-6, tree.nv
    num = np.zeros((nv, 2 * nv))
    for c in range(nv):
        e = np.eye(nv)[c] * h
        fp = mech.forward_dynamics(retract(tree, q0, e), v0, tau0)
        fm = mech.forward_dynamics(retract(tree, q0, -e), v0, tau0)
        num[:, c] = (fp - fm) / (2 * h)
        num[:, nv + c] = (
            mech.forward_dynamics(q0, v0 + e, tau0) - mech.forward_dynamics(q0, v0 - e, tau0)
        ) / (2 * h)
    scale = np.abs(num).max()
    assert np.abs(lin.A_full[nv:] - num).max() < 1e-6 * scale
    assert lin.A.shape == (2, 2) and lin.independent[0] in ("q1", "q2", "q3")
    # the basis is tangent to {g = 0, J v = 0}: central differences of the rows along it
    for col in lin.basis.T:
        dq, dv = col[:nv] * h, col[nv:] * h
        gp, jp, _ = constraint_terms(tree, retract(tree, q0, dq), v0 + dv)
        gm, jm, _ = constraint_terms(tree, retract(tree, q0, -dq), v0 - dv)
        assert np.abs(gp - gm).max() / (2 * h) < 1e-7
        assert np.abs(jp @ (v0 + dv) - jm @ (v0 - dv)).max() / (2 * h) < 1e-7


def test_assemble_moves_a_floating_base_onto_the_constraints():
    mech = hanging_top()
    tree = mech.rigid_tree()
    q = mech.equilibrium_coordinates() + np.r_[0.1, -0.2, 0.05, 0.1, 0.0, 0.0, 0.0]
    q[3:7] /= np.linalg.norm(q[3:7])
    q1 = mech.assemble(q)
    assert np.abs(constraint_terms(tree, q1, np.zeros(6))[0]).max() < 1e-12
    assert abs(np.linalg.norm(q1[3:7]) - 1.0) < 1e-15
    q2 = mech.assemble(q, fixed=["top_rx", "top_ry", "top_rz"])  # only translate
    assert np.allclose(q2[3:7], q[3:7], atol=1e-15)
    assert np.abs(constraint_terms(tree, q2, np.zeros(6))[0]).max() < 1e-12


def test_floating_constrained_linearisation_refuses_inconsistent_states():
    mech = hanging_top()
    q0 = mech.equilibrium_coordinates()
    with pytest.raises(IllPosedError, match="pivot"):
        mech.linearize_at(q0, [1.0, 0, 0, 0, 0, 0])
