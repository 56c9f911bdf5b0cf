"""Nonlinear models of a Mechanism: references that need no external engine.

- complex-step derivatives of ``inverse_dynamics`` against ``linearize_at``;
- ``linearize_at`` at the equilibrium against the exact LFT ``linearize()``
  substituted at the same parameter values (frequency responses);
- invariances (locked joint = weld, rotated world) and bad input.
"""

import numpy as np
import pytest
from mechanism_specs import build_mechanism, frequency_response, random_chain, sample_values
from nonlinear_specs import random_state, random_tree

from robustmb.errors import ArgumentError, DimensionError, IllPosedError
from robustmb.multibody import Mechanism, PrismaticJoint, RevoluteJoint, RigidBody, WeldJoint
from robustmb.multibody.dynamics import external_forces, joint_transforms, rnea


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_complex_step_of_inverse_dynamics(seed):
    rng = np.random.default_rng(seed)
    spec = random_tree(rng, 6)
    for j in spec["joints"]:
        if j["type"] != "weld":
            j["stiffness"], j["damping"] = 0.7, 0.3
    mech = build_mechanism(spec)
    tree = mech.rigid_tree()
    q, v, a = random_state(rng, tree)
    lin = mech.linearize_at(q, v, a0=a)
    h = 1e-30

    def tau(qc, vc, ac):  # complex-safe recursion, springs and dampers added by hand
        xs, rw = joint_transforms(tree, qc)
        f = external_forces(tree, qc, rw)
        law = -tree.stiffness * (qc - tree.q_eq) - tree.damping * vc
        return rnea(tree, qc, vc, ac, f, xs, rw) - law

    n = tree.nv
    dq, dv, da = (np.zeros((n, n)) for _ in range(3))
    for c in range(n):
        e = np.zeros(n, dtype=complex)
        e[c] = 1j * h
        dq[:, c] = tau(q + e, v, a).imag / h
        dv[:, c] = tau(q, v + e, a).imag / h
        da[:, c] = tau(q, v, a + e).imag / h
    scale = max(1.0, np.abs(dq).max())
    assert np.abs(-lin.P2 - dq).max() <= 1e-12 * scale
    assert np.abs(-lin.P1 - dv).max() <= 1e-12 * scale
    assert np.abs(lin.M - da).max() <= 1e-12 * scale


CHAINS = {
    "revolute": dict(n_joints=3),
    "prismatic": dict(n_joints=3, prismatic=(1,)),
    "floating_weld": dict(n_joints=2, floating=True, weld_tip=True),
}


@pytest.mark.parametrize("name", list(CHAINS))
def test_linearize_at_equilibrium_equals_the_lft(name):
    rng = np.random.default_rng(3)
    spec = random_chain(rng, **CHAINS[name])
    mech = build_mechanism(spec)
    # a0 = 0 below holds a floating base by its inverse-dynamics wrench, in its own axes
    lft_model = mech.linearize(base_wrench="body")
    for _ in range(2):
        vals = sample_values(spec, rng)
        g_lin = lft_model.usubs(vals)
        q0 = mech.equilibrium_coordinates(values=vals)
        tree = mech.rigid_tree(vals)
        lin = mech.linearize_at(q0, np.zeros(tree.nv), a0=np.zeros(tree.nv), values=vals)
        n_base = 6 if tree.floating else 0
        inputs = [lin.input_names.index(u) for u in lft_model.input_names]
        outputs = [lin.coordinate_names.index(y) for y in lft_model.output_names]
        for s in (0.3j, 1.7j, 4.0 + 9.0j):
            ref = frequency_response(g_lin, s)
            got = frequency_response(lin.ss, s)[np.ix_(outputs, inputs)]
            assert np.abs(got - ref).max() <= 1e-9 * max(1.0, np.abs(ref).max())
        assert n_base == len(lin.input_names) - len(lft_model.input_names)


def test_at_rest_without_gravity_the_mass_matrix_is_the_linear_one():
    rng = np.random.default_rng(5)
    spec = random_chain(rng, 3, uncertain=False)
    spec["acceleration"] = [0.0, 0.0, 0.0]
    for j in spec["joints"]:
        j["stiffness"] = j["damping"] = 0.0
    mech = build_mechanism(spec)
    q0 = mech.equilibrium_coordinates()
    g_lin = mech.linearize().nominal()
    # linear model: q'' = M^-1 u exactly, so its B block is M^-1
    m_inv = np.asarray(g_lin.B)[3:, :]
    assert np.abs(np.linalg.inv(mech.mass_matrix(q0)) - m_inv).max() <= 1e-11
    assert np.abs(np.asarray(g_lin.A)[3:, :3]).max() <= 1e-12


def _arm(lock=None):
    """Two links and a tip; ``lock``: the second revolute becomes a weld at that angle."""
    mech = Mechanism(acceleration=[0.0, 0.0, 9.81])
    inertia = np.diag([0.2, 0.3, 0.1])
    for name in ("L1", "L2", "L3"):
        mech.add_body(
            RigidBody(
                name,
                mass=1.5,
                inertia=inertia,
                cog=[0.1, 0.4, 0.05],
                ports={"P": [0, 0, 0], "tip": [0.0, 1.0, 0.2]},
            )
        )
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("L1", "P"), [1, 0.2, 0]))
    axis = np.array([0.3, 0.0, 1.0])
    if lock is None:
        mech.add_joint(RevoluteJoint("J2", ("L1", "tip"), ("L2", "P"), axis))
    else:
        from robustmb.multibody import rotation_matrix

        mech.add_joint(
            WeldJoint("J2", ("L1", "tip"), ("L2", "P"), orientation=rotation_matrix(axis, lock))
        )
    mech.add_joint(PrismaticJoint("J3", ("L2", "tip"), ("L3", "P"), [0, 1, 1]))
    return mech


def test_locked_joint_equals_weld():
    th = 0.7
    free, welded = _arm(), _arm(lock=th)
    q, v = np.array([0.4, th, 0.2]), np.array([0.5, 0.0, -0.3])
    qw, vw = q[[0, 2]], v[[0, 2]]
    keep = [0, 2]
    m = free.mass_matrix(q)
    assert np.allclose(m[np.ix_(keep, keep)], welded.mass_matrix(qw), rtol=1e-13, atol=1e-13)
    aw = np.array([0.1, -0.4])
    a = np.array([0.1, 0.0, -0.4])
    tau = free.inverse_dynamics(q, v, a)
    assert np.allclose(tau[keep], welded.inverse_dynamics(qw, vw, aw), rtol=1e-13, atol=1e-13)


def test_rotating_world_and_attitude_together_changes_nothing():
    from robustmb.examples import balloon_gondola
    from robustmb.multibody.attitude import dcm_from_quaternion, quaternion_from_dcm
    from robustmb.multibody.spatial import rotation_matrix

    rot = rotation_matrix([0.3, -1.0, 0.5], 1.1)
    mech, q0, v0 = balloon_gondola()
    turned, _, _ = balloon_gondola(world_rotation=rot)
    q1 = q0.copy()
    q1[:3] = rot @ q0[:3]
    q1[3:7] = quaternion_from_dcm(rot @ dcm_from_quaternion(q0[3:7]))
    v = np.linspace(-0.5, 0.7, v0.size)
    tau = np.linspace(0.2, -0.3, v0.size)
    assert np.allclose(
        mech.forward_dynamics(q0, v, tau),
        turned.forward_dynamics(q1, v, tau),
        rtol=1e-12,
        atol=1e-12,
    )


def test_bad_input_names_the_culprit():
    mech = _arm()
    with pytest.raises(DimensionError, match="3 coordinates"):
        mech.forward_dynamics([0.0, 0.0], [0, 0, 0], [0, 0, 0])
    # a non-finite entry has the right shape: a bad value, ArgumentError
    with pytest.raises(ArgumentError, match=r"v\[1\] \(J2_q_dot\)"):
        mech.forward_dynamics([0.0, 0.0, 0.0], [0, np.nan, 0], [0, 0, 0])
    with pytest.raises(ArgumentError, match=r"q\[2\] \(J3_q\)"):
        mech.inverse_dynamics([0.0, 0.0, np.inf], [0, 0, 0], [0, 0, 0])
    # a zero-mass leaf with zero inertia under a prismatic joint: singular
    leaf = _arm()
    leaf.add_body(RigidBody("ghost", mass=0.0, ports={"P": [0, 0, 0]}))
    leaf.add_joint(PrismaticJoint("Jg", ("L3", "tip"), ("ghost", "P"), [1, 0, 0]))
    with pytest.raises(IllPosedError, match="'Jg'"):
        leaf.forward_dynamics(np.zeros(4), np.zeros(4), np.zeros(4))
    # a closed chain without a loop-closure block
    loop = Mechanism()
    for name in ("A", "B", "C"):
        loop.add_body(
            RigidBody(name, mass=1.0, inertia=0.1, ports={"p": [0, 0, 0], "c": [1, 0, 0]})
        )
    loop.add_joint(RevoluteJoint("j1", ("C", "c"), ("A", "p"), [0, 0, 1]))
    loop.add_joint(RevoluteJoint("j2", ("A", "c"), ("B", "p"), [0, 0, 1]))
    loop.add_joint(RevoluteJoint("j3", ("B", "c"), ("C", "p"), [0, 0, 1]))
    with pytest.raises(IllPosedError, match="kinematic loop"):
        loop.mass_matrix(np.zeros(3))


def test_user_joint_laws_enter_every_nonlinear_model():
    mech, plain = _arm(), _arm()
    mech.add_joint_law("J1", lambda q, qd: -3.0 * q**3 - 0.4 * qd * abs(qd))
    mech.add_joint_law("J3", lambda q, qd: -2.0 * np.sin(q))
    q, v = np.array([0.4, 0.7, 0.2]), np.array([0.5, -0.2, -0.3])
    law = np.array([-3.0 * 0.4**3 - 0.4 * 0.5 * 0.5, 0.0, -2.0 * np.sin(0.2)])
    a = np.array([0.1, 0.3, -0.4])
    assert np.allclose(mech.inverse_dynamics(q, v, a), plain.inverse_dynamics(q, v, a) - law)
    assert np.allclose(mech.forward_dynamics(q, v, np.zeros(3)), plain.forward_dynamics(q, v, law))
    lin = mech.linearize_at(q, v)
    h, fd = 1e-6, np.zeros((3, 6))
    for c in range(6):
        e = np.zeros(6)
        e[c] = h
        fp = mech.forward_dynamics(q + e[:3], v + e[3:], np.zeros(3))
        fm = mech.forward_dynamics(q - e[:3], v - e[3:], np.zeros(3))
        fd[:, c] = (fp - fm) / (2 * h)
    assert np.abs(lin.A[3:] - fd).max() <= 1e-6 * np.abs(fd).max()


@pytest.mark.parametrize("floating", [False, True])
def test_hybrid_modes_agree_with_forward_and_inverse_dynamics(floating):
    rng = np.random.default_rng(8)
    spec = random_tree(rng, 7, floating=floating)
    for j in spec["joints"]:
        if j["type"] != "weld":
            j["stiffness"], j["damping"] = 0.4, 0.2
    mech = build_mechanism(spec)
    tree = mech.rigid_tree()
    q, v, _ = random_state(rng, tree)
    tau = rng.normal(size=tree.nv)
    a = mech.forward_dynamics(q, v, tau)
    joints = [tree.names[i] for i in range(tree.n) if tree.kind[i] != 0]
    some = {name: a[tree.vi[tree.names.index(name)]] for name in joints[::2]}
    qdd, eff = mech.hybrid_dynamics(q, v, tau, some)
    assert np.allclose(qdd, a, rtol=1e-11, atol=1e-11)
    assert np.allclose(eff, tau, rtol=1e-11, atol=1e-11)
    if not floating:  # everything imposed: inverse dynamics
        every = {name: a[tree.vi[tree.names.index(name)]] for name in joints}
        _, eff = mech.hybrid_dynamics(q, v, np.zeros(tree.nv), every)
        assert np.allclose(eff, mech.inverse_dynamics(q, v, a), rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize(
    "imposed, error, match",
    [
        ({"J": np.nan}, ArgumentError, r"imposed\['J'\] = nan is not finite"),
        ({"J": np.inf}, ArgumentError, r"imposed\['J'\] = inf is not finite"),
        ({"J": "1.5"}, ArgumentError, r"imposed\['J'\] must be a real number"),
        ({"J": None}, ArgumentError, r"imposed\['J'\] must be a real number"),
        ({"J": [1.0, 2.0]}, DimensionError, r"imposed\['J'\] must be one acceleration"),
        ({"J": []}, DimensionError, r"imposed\['J'\] must be one acceleration"),
        ([("J", 0.0)], ArgumentError, "imposed must be a dict"),
    ],
)
def test_hybrid_dynamics_rejects_bad_imposed_accelerations(imposed, error, match):
    mech = Mechanism()
    mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    with pytest.raises(error, match=match):
        mech.hybrid_dynamics([0.5], [0.0], [0.0], imposed)
    # a valid scalar, a 0-d array and a one-element list are all accepted
    for ok in (0.25, np.float32(0.25), np.array(0.25), [0.25]):
        a, _ = mech.hybrid_dynamics([0.5], [0.0], [0.0], {"J": ok})
        assert a[0] == 0.25
