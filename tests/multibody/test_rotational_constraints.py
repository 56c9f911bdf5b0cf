"""Attitude rows of exact loop constraints (revolute and weld closures) against closed forms.

References independent of robustmb: the planar four-bar's closed-form Lagrange
equation of ``test_loop_constraints`` (its rocker now hangs from a spherical
joint -- three revolutes -- and only the revolute closure's attitude rows keep
it in the plane), a pendulum whose attitude is held about two axes
(``(I + m c^2) t'' = -V'(t)``), and complex-step derivatives of the constraint
rows along a curve.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation
from test_loop_constraints import (
    A_LEN,
    B_LEN,
    BODIES,
    C_LEN,
    D_LEN,
    G,
    _cstep,
    _positions,
    closed_form_acc,
    gen_mass,
    potential,
)

from robustmb.errors import DimensionError, IllPosedError, SignalError
from robustmb.multibody import Mechanism, PrismaticJoint, RevoluteJoint, RigidBody, gravity
from robustmb.multibody.constraints import constraint_terms
from robustmb.multibody.spatial import rotation_matrix


def spherical_four_bar(*, spring=0.0, rotations="xy"):
    """The four-bar whose rocker sits on a spherical joint, closed by a revolute about z."""
    mech = Mechanism(
        acceleration=gravity(G, direction=(0, -1, 0)), ground_ports={"O4": [D_LEN, 0, 0]}
    )
    for name, length in (("crank", A_LEN), ("coupler", B_LEN), ("rocker", C_LEN)):
        m, izz, com = BODIES[name]
        mech.add_body(
            RigidBody(
                name,
                mass=m,
                inertia=[0.01, 0.03, izz],  # only izz acts in the plane
                allow_nonphysical_inertia=True,
                cog=[com[0], com[1], 0.0],
                ports={"P": [0, 0, 0], "tip": [length, 0, 0]},
            )
        )
    for k in ("r1", "r2"):  # massless links of the spherical joint
        mech.add_body(RigidBody(k, mass=0.0, ports={"P": [0, 0, 0]}))
    z = [0, 0, 1]
    mech.add_joint(
        RevoluteJoint(
            "Jc", ("ground", "O"), ("crank", "P"), z, output_name="th_c", stiffness=spring
        )
    )
    mech.add_joint(RevoluteJoint("Jk", ("crank", "tip"), ("coupler", "P"), z, output_name="th_k"))
    mech.add_joint(RevoluteJoint("Jr", ("ground", "O4"), ("r1", "P"), z, output_name="th_r"))
    mech.add_joint(RevoluteJoint("Jy", ("r1", "P"), ("r2", "P"), [0, 1, 0], output_name="th_y"))
    mech.add_joint(RevoluteJoint("Jx", ("r2", "P"), ("rocker", "P"), [1, 0, 0], output_name="th_x"))
    mech.add_loop_constraint(
        "hinge", ("coupler", "tip"), ("rocker", "tip"), components="xyz", rotations=rotations
    )
    return mech


def state(mech, t, td):
    """Tree coordinates and rates of the closed-form four-bar at crank angle t, rate td."""
    names = mech.rigid_tree().coordinate_names()
    _, u, w = _positions(t)
    ud = _cstep(lambda s: _positions(s)[1], t)
    wd = _cstep(lambda s: _positions(s)[2], t)
    om3, om4 = u[0] * ud[1] - u[1] * ud[0], w[0] * wd[1] - w[1] * wd[0]
    q, v = np.zeros(len(names)), np.zeros(len(names))
    for n, val, rate in (
        ("th_c", t, td),
        ("th_k", np.arctan2(u[1], u[0]) - t, (om3 - 1.0) * td),
        ("th_r", np.arctan2(w[1], w[0]), om4 * td),
    ):
        q[names.index(n)], v[names.index(n)] = val, rate
    return q, v, names.index("th_c")


def derivative_errors(tree, q, v, a):
    """``|g' - J v|`` and ``|g'' - J a - gamma|`` along ``q + t v + t^2 a / 2`` (complex steps)."""
    g, jac, gamma = constraint_terms(tree, q, v)
    h = 1e-30
    first = np.imag(constraint_terms(tree, q + 1j * h * v, v)[0]) / h
    qc, vc = q + 1j * h * v, v + 1j * h * a
    second = np.imag(constraint_terms(tree, qc, vc)[1] @ vc) / h
    return np.abs(first - jac @ v).max(), np.abs(second - jac @ a - gamma).max()


# ----------------------------------------------------------------- derivatives
def test_attitude_rows_are_exact_derivatives():
    tree = spherical_four_bar(rotations="xyz").rigid_tree()
    rng = np.random.default_rng(7)
    for _ in range(5):
        q, v, a = rng.normal(size=(3, tree.nv))
        e1, e2 = derivative_errors(tree, q, v, a)
        assert e1 < 1e-13 and e2 < 1e-12


def test_attitude_rows_with_the_ground_and_a_rest_orientation():
    """Both ends on moving bodies, one end on the ground, a non-trivial rest attitude."""
    r0 = rotation_matrix([1.0, 2.0, 0.5], 0.7)
    mech = Mechanism(acceleration=gravity(9.81))
    mech.add_body(RigidBody("a", mass=1.0, inertia=[0.1, 0.2, 0.3], ports={"P": [0, 0, 0]}))
    mech.add_body(RigidBody("b", mass=1.0, inertia=[0.3, 0.1, 0.2], ports={"P": [0.1, 0, 0]}))
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("a", "P"), [0.3, 1, 0.2]))
    mech.add_joint(RevoluteJoint("J2", ("a", "P"), ("b", "P"), [1, -0.4, 0.7]))
    mech.add_loop_constraint(
        "w1", ("b", "P"), ("ground", "O"), components="", rotations="xz", orientation=r0
    )
    mech.add_loop_constraint("w2", ("ground", "O"), ("a", "P"), components="", rotations="y")
    tree = mech.rigid_tree()
    rng = np.random.default_rng(2)
    q, v, a = rng.normal(size=(3, 2))
    e1, e2 = derivative_errors(tree, q, v, a)
    assert e1 < 1e-13 and e2 < 1e-12
    # w1 (a revolute about y): b's y axis has no x or z component in a's axes,
    # R_rel = R_a^T R_b r0^T with a = body b and b = the ground; w2 (a universal
    # joint): the ground's z axis stays perpendicular to body a's x axis
    rw, _ = tree.world_poses(q)
    rel1 = (rw[tree.body_node["b"]] @ tree.placement["b"][1]).T @ r0.T
    rel2 = rw[tree.body_node["a"]] @ tree.placement["a"][1]
    expected = [rel1[2, 1], -rel1[0, 1], -rel2[2, 0]]
    assert np.allclose(constraint_terms(tree, q, v)[0], expected, atol=1e-15)


# ----------------------------------------------------------------- the revolute closure
def test_attitude_rows_remove_the_rocker_spin():
    """Point rows alone leave the rocker free to spin about its own axis (mobility 2);
    the revolute closure's attitude rows remove that spin (mobility 1, one redundant row)."""
    q, v, _ = state(spherical_four_bar(), 0.9, 0.0)
    for rotations, rank in (("", 3), ("xy", 4)):
        tree = spherical_four_bar(rotations=rotations).rigid_tree()
        jac = constraint_terms(tree, q, v)[1]
        assert np.linalg.matrix_rank(jac, tol=1e-10) == rank


@pytest.mark.parametrize("t", [0.3, 1.2, 2.5, -1.0])
def test_revolute_closure_gives_the_planar_four_bar(t):
    mech = spherical_four_bar()
    rng = np.random.default_rng(int(10 * abs(t)))
    td, tau = rng.normal(), rng.normal()
    q, v, ic = state(mech, t, td)
    g, jac, gamma = constraint_terms(mech.rigid_tree(), q, v)
    assert np.abs(g).max() < 1e-13 and np.abs(jac @ v).max() < 1e-13
    u = np.zeros(q.size)
    u[ic] = tau
    qdd = mech.forward_dynamics(q, v, u)
    ref = closed_form_acc(t, td, tau)
    assert abs(qdd[ic] - ref) <= 1e-8 * max(1.0, abs(ref))
    names = mech.rigid_tree().coordinate_names()
    out_of_plane = [names.index("th_x"), names.index("th_y")]
    assert np.abs(qdd[out_of_plane]).max() < 1e-11  # the rocker stays in the plane
    assert np.abs(jac @ qdd + gamma).max() < 1e-11


def test_revolute_closure_simulation_conserves_energy_and_follows_the_closed_form():
    mech = spherical_four_bar()
    q0, v0, ic = state(mech, 0.8, 1.5)
    res = mech.simulate((0, 2.0), q0, v0, rtol=1e-11, atol=1e-11)
    ref = solve_ivp(
        lambda _, y: [y[1], closed_form_acc(y[0], y[1], 0.0)],
        (0, 2.0),
        [0.8, 1.5],
        t_eval=res.t,
        rtol=1e-11,
        atol=1e-11,
        method="DOP853",
    )
    names = mech.rigid_tree().coordinate_names()
    assert np.ptp(res.q[:, ic]) > 1.0
    assert np.abs(res.q[:, ic] - ref.y[0]).max() < 1e-7
    assert np.abs(res.q[:, [names.index("th_x"), names.index("th_y")]]).max() < 1e-8
    assert np.abs(res.constraint).max() < 1e-8
    assert np.ptp(res.energy) < 1e-8 * np.abs(res.energy).max()


def _richardson(g, x, h):
    """Central differences at steps h, h/2, h/4 extrapolated twice: error O(h^6)."""
    d = [(g(x + s) - g(x - s)) / (2 * s) for s in (h, h / 2, h / 4)]
    d1 = [(4 * d[1] - d[0]) / 3, (4 * d[2] - d[1]) / 3]
    return (16 * d1[1] - d1[0]) / 15


def _lagrange_acc(t, td, tau, spring):
    """``closed_form_acc`` with ``m'(t)`` to ~1e-13 (smooth enough to differentiate)."""
    dm = _richardson(gen_mass, t, 1e-3)
    return (tau - 0.5 * dm * td**2 - _cstep(potential, t) - spring * t) / gen_mass(t)


def test_revolute_closure_linearisation_matches_the_closed_form():
    mech = spherical_four_bar(spring=5.0)
    t, td, tau = 1.1, 0.7, 0.4
    q, v, ic = state(mech, t, td)
    u = np.zeros(q.size)
    u[ic] = tau
    lin = mech.linearize_at(q, v, tau0=u, independent=["th_c"])
    # Reference: the Lagrange equation with m'(t) from a Richardson-extrapolated central
    # difference (error ~1e-13, where closed_form_acc's plain h = 1e-5 difference leaves
    # ~1e-11), differentiated in t the same way; d/dtd is exact, -m' td / m.  Steps of
    # 2e-2, 1e-2 and 5e-3 give references agreeing to 1.3e-10 on 23.65.
    dm = _richardson(gen_mass, t, 1e-3)
    ref = [_richardson(lambda s: _lagrange_acc(s, td, tau, 5.0), t, 1e-2), -dm * td / gen_mass(t)]
    assert np.allclose(lin.A[0], [0.0, 1.0], atol=1e-12)
    assert np.allclose(lin.A[1], ref, rtol=1e-9, atol=1e-12)
    assert abs(lin.B[1, ic] - 1.0 / gen_mass(t)) < 1e-9


# ----------------------------------------------------------------- attitude-only closures
def held_pendulum():
    """A body on a spherical joint whose attitude is held about the world x and y axes."""
    mech = Mechanism(acceleration=gravity(G, direction=(0, -1, 0)))
    mech.add_body(RigidBody("r1", mass=0.0, ports={"P": [0, 0, 0]}))
    mech.add_body(RigidBody("r2", mass=0.0, ports={"P": [0, 0, 0]}))
    mech.add_body(
        RigidBody(
            "bob", mass=2.0, inertia=[0.1, 0.2, 0.3], cog=[0.6, 0.1, 0.0], ports={"P": [0] * 3}
        )
    )
    mech.add_joint(RevoluteJoint("Jz", ("ground", "O"), ("r1", "P"), [0, 0, 1], output_name="t"))
    mech.add_joint(RevoluteJoint("Jy", ("r1", "P"), ("r2", "P"), [0, 1, 0]))
    mech.add_joint(RevoluteJoint("Jx", ("r2", "P"), ("bob", "P"), [1, 0, 0]))
    mech.add_loop_constraint("plane", ("ground", "O"), ("bob", "P"), components="", rotations="xy")
    return mech


def test_attitude_held_pendulum_is_the_planar_pendulum():
    mech = held_pendulum()
    m, (cx, cy), izz = 2.0, (0.6, 0.1), 0.3

    def acc(t, tau=0.0):  # V = m g (cx sin t + cy cos t)
        return (tau - m * G * (cx * np.cos(t) - cy * np.sin(t))) / (izz + m * (cx**2 + cy**2))

    for t in (0.4, -1.3, 2.9):
        q = np.array([t, 0.0, 0.0])
        v = np.array([0.8, 0.0, 0.0])
        a = mech.forward_dynamics(q, v, [0.5, 0.3, -0.2])
        assert abs(a[0] - acc(t, 0.5)) < 1e-12 and np.abs(a[1:]).max() < 1e-12
    res = mech.simulate((0, 2.0), [0.4, 0.0, 0.0], [0.8, 0.0, 0.0], rtol=1e-11, atol=1e-11)
    ref = solve_ivp(
        lambda _, y: [y[1], acc(y[0])],
        (0, 2.0),
        [0.4, 0.8],
        t_eval=res.t,
        rtol=1e-11,
        atol=1e-11,
        method="DOP853",
    )
    assert np.abs(res.q[:, 0] - ref.y[0]).max() < 1e-8
    assert np.ptp(res.energy) < 1e-9 * np.abs(res.energy).max()


def test_weld_closure_holds_the_rest_orientation():
    """A 6-dof chain welded to the ground at a rest attitude r0 cannot move; assemble
    puts the end body exactly at r0 and at the port."""
    r0 = rotation_matrix([0.2, -1.0, 0.4], 1.1)
    mech = Mechanism(acceleration=gravity(9.81), ground_ports={"W": [0.3, 0.2, 0.5]})
    names = ["p1", "p2", "p3", "r1", "r2", "e"]
    for k in names:
        mech.add_body(RigidBody(k, mass=0.5, inertia=[0.01, 0.02, 0.03], ports={"P": [0, 0, 0]}))
    axes = np.eye(3)
    for i, k in enumerate(names[:3]):
        parent = ("ground", "O") if i == 0 else (names[i - 1], "P")
        mech.add_joint(PrismaticJoint(f"J{k}", parent, (k, "P"), axes[i]))
    for i, k in enumerate(names[3:]):
        mech.add_joint(RevoluteJoint(f"J{k}", (names[2 + i], "P"), (k, "P"), axes[i]))
    mech.add_loop_constraint(
        "weld", ("ground", "W"), ("e", "P"), components="xyz", rotations="xyz", orientation=r0
    )
    tree = mech.rigid_tree()
    # from 0.2 rad and 0.2 m off the pose (x-y-z angles of r0: scipy, not robustmb)
    guess = np.r_[0.3, 0.2, 0.5, Rotation.from_matrix(r0).as_euler("XYZ")] + 0.2
    q = mech.assemble(guess)
    rw, pw = tree.world_poses(q)
    node = tree.body_node["e"]
    assert np.abs(rw[node] @ tree.placement["e"][1] - r0).max() < 1e-12
    assert np.abs(pw[node] - [0.3, 0.2, 0.5]).max() < 1e-12
    a = mech.forward_dynamics(q, np.zeros(6), np.random.default_rng(0).normal(size=6))
    assert np.abs(a).max() < 1e-10


def test_assembly_on_the_flipped_branch_is_refused():
    """The attitude rows also vanish with the free axes opposite: assemble says so."""
    mech = held_pendulum()
    with pytest.raises(IllPosedError, match="plane.*flipped"):
        mech.assemble([0.3, np.pi - 0.1, 0.05])
    q = mech.assemble([0.3, 0.1, 0.05])
    assert np.abs(q[1:]).max() < 1e-12


def test_bad_rotation_arguments_name_the_constraint():
    mech = spherical_four_bar()
    with pytest.raises(SignalError, match="rotations"):
        mech.add_loop_constraint("c2", ("coupler", "tip"), ("rocker", "tip"), rotations="xx")
    with pytest.raises(SignalError, match="at least one"):
        mech.add_loop_constraint("c3", ("coupler", "tip"), ("rocker", "tip"), components="")
    with pytest.raises(DimensionError, match="c4.*orientation"):
        mech.add_loop_constraint(
            "c4", ("coupler", "tip"), ("rocker", "tip"), orientation=np.ones((3, 3))
        )
