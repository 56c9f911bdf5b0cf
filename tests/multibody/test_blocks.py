"""Public multibody blocks wired by hand with rmb.connect.

Checked against Mechanism.linearize (same equations, different assembly: the
by-hand wiring uses the blocks' public names, rmb.connect's loop elimination
and, for a floating base, the exact inverse of its spatial inertia), against
the independent Lagrangian reference, and against closed forms.
"""

import numpy as np
import pytest
from lagrange_reference import LagrangeReference
from mechanism_specs import (
    build_mechanism,
    frequency_response,
    random_chain,
    reference_spec,
    sample_values,
)

import robustmb as rmb
from robustmb import examples
from robustmb.errors import DimensionError, IllPosedError, SignalError
from robustmb.multibody import (
    RevoluteJoint,
    RigidBody,
    WeldJoint,
    body_block,
    body_trim_wrench,
    child_frame_acceleration,
    floating_body_block,
    gravity,
    ground_block,
    joint_block,
    joint_trim,
    motion_names,
    wrench_names,
)

S_POINTS = (0.7j, 2.0j, 1.3 + 0.5j)


def _relative_error(h1, h2):
    return np.abs(h1 - h2).max() / np.abs(h2).max()


def _value(x, vals):
    """Numeric value of an equilibrium quantity at a sample (numbers pass through)."""
    if not hasattr(x, "usubs"):
        return np.asarray(x, dtype=float)
    return np.asarray(x.usubs({k: v for k, v in vals.items() if k in x.blocks}), dtype=float)


def _sample(model, rng):
    return {n: float(rng.uniform(*el.range)) for n, el in model.uncertainty.items()}


# ---------------------------------------------------------------- pendulum
PENDULUM = {
    "acceleration": list(gravity(9.81)),
    "bodies": {
        "bob": {
            "mass": "m",
            "inertia": [[0.3, 0.02, 0.0], [0.02, 0.2, 0.01], [0.0, 0.01, 0.25]],
            "cog": [0.1, "c", -0.8],
            "ports": {"P": [0.0, 0.05, 0.2]},
        }
    },
    "joints": [
        {
            "name": "J",
            "type": "revolute",
            "parent": ("ground", "O"),
            "child": ("bob", "P"),
            "axis": [1.0, 0.2, 0.0],
            "angle": 0.6,
            "stiffness": 0.4,
            "damping": 0.15,
            "inertia": 0.0,
            "input": "T",
            "output": "theta",
        }
    ],
    "params": {"m": (2.0, 1.5, 2.6), "c": (0.05, -0.1, 0.2)},
}


@pytest.fixture(scope="module")
def pendulum():
    mech = build_mechanism(PENDULUM)
    bob, joint = mech.bodies["bob"], mech.joints["J"]
    a = mech.acceleration
    # equilibrium by hand: frame acceleration in the bob's axes, the bob's wrench on the joint
    w_bob = body_trim_wrench(bob, "P", child_frame_acceleration(joint, a))
    blocks = [
        ground_block(),
        joint_block(joint, frame_acceleration=a, trim_wrench=w_bob),
        body_block(bob, "P"),
    ]
    by_hand = rmb.connect(blocks, inputs=["T"], outputs=["theta", "theta_dot"])
    return mech, by_hand


def test_pendulum_by_hand_equals_mechanism(pendulum):
    mech, by_hand = pendulum
    assert by_hand.input_names == ["T"] and by_hand.output_names == ["theta", "theta_dot"]
    assert set(by_hand.blocks) == {"m", "c"}
    model = mech.linearize(rates=True)
    rng = np.random.default_rng(11)
    for _ in range(4):
        vals = _sample(model, rng)
        h_ref = [frequency_response(model.usubs(vals), s) for s in S_POINTS]
        h = [frequency_response(by_hand.usubs(vals), s) for s in S_POINTS]
        for a, b in zip(h, h_ref, strict=True):
            assert _relative_error(a, b) < 1e-9


def test_pendulum_without_ground_block_and_with_accelerations_only(pendulum):
    mech, by_hand = pendulum
    bob, joint = mech.bodies["bob"], mech.joints["J"]
    a = mech.acceleration
    w_bob = body_trim_wrench(bob, "P", child_frame_acceleration(joint, a))
    jb = joint_block(
        joint, frame_acceleration=a, trim_wrench=w_bob, full_motion=False, parent_fixed=True
    )
    assert jb.input_names[0] == "bob_P_to_parent_Fx" and "ground_O_Fx" not in jb.output_names
    small = rmb.connect(
        [jb, body_block(bob, "P", full_motion=False)],
        inputs=["T"],
        outputs=["theta"],
        check_unused=False,
    )
    vals = {"m": 2.3, "c": -0.05}
    for s in S_POINTS:
        h = frequency_response(small.usubs(vals), s)
        h_ref = frequency_response(by_hand[0, 0].usubs(vals), s)
        assert _relative_error(h, h_ref) < 1e-10


def test_pendulum_by_hand_equals_lagrange_reference(pendulum):
    _, by_hand = pendulum
    rng = np.random.default_rng(12)
    for _ in range(4):
        vals = sample_values(PENDULUM, rng)
        ref = LagrangeReference(PENDULUM, vals)
        sys = by_hand[0, 0].usubs(vals)
        for s in S_POINTS:
            assert _relative_error(frequency_response(sys, s), ref.transfer(s)) < 1e-9
        # the trim torque of the block helpers equals the reference's
        mech = build_mechanism(PENDULUM)
        joint, bob = mech.joints["J"], mech.bodies["bob"]
        w = body_trim_wrench(bob, "P", child_frame_acceleration(joint, mech.acceleration))
        effort = _value(joint_trim(joint, w)[1], vals)
        assert np.isclose(float(effort[0, 0]), ref.trim_efforts()["J"], rtol=1e-10)


# ---------------------------------------------------------------- two-link arm
@pytest.fixture(scope="module")
def arm_by_hand():
    mech = examples.two_link_arm_mechanism()
    b1, b2, b3 = (mech.bodies[k] for k in ("B1", "B2", "B3"))
    j1, j2, w3 = (mech.joints[k] for k in ("J1", "J2", "W3"))
    a = mech.acceleration
    # step 1 (base to tip): frame acceleration in each body's axes
    a1 = child_frame_acceleration(j1, a)
    a2 = child_frame_acceleration(j2, a1)
    a3 = child_frame_acceleration(w3, a2)
    # step 2 (tip to base): equilibrium wrenches
    w_b3 = body_trim_wrench(b3, "P", a3)
    on_b2, _ = joint_trim(w3, w_b3)
    w_b2 = body_trim_wrench(b2, "P", a2, {"tip": on_b2})
    on_b1, effort2 = joint_trim(j2, w_b2)
    w_b1 = body_trim_wrench(b1, "P", a1, {"tip": on_b1})
    _, effort1 = joint_trim(j1, w_b1)
    # step 3: the linear blocks, wired by their names
    blocks = [
        ground_block(),
        joint_block(j1, frame_acceleration=a, trim_wrench=w_b1, scale=20.0),
        body_block(b1, "P"),
        joint_block(j2, frame_acceleration=a1, trim_wrench=w_b2),
        body_block(b2, "P"),
        joint_block(w3),
        body_block(b3, "P"),
    ]
    port_outputs = motion_names("B2", "tip")[15:21] + motion_names("B2", "tip")[9:15]
    port_outputs += motion_names("B2", "tip")[3:9]
    # joint rates and unused port signals are left open on purpose
    sys = rmb.connect(
        blocks, inputs=["T1", "T2"], outputs=["theta1", "theta2"] + port_outputs, check_unused=False
    )
    return mech, sys, (effort1, effort2)


def test_two_link_arm_by_hand_equals_example(arm_by_hand):
    mech, by_hand, efforts = arm_by_hand
    assert by_hand.nstates == 4
    arm = examples.two_link_arm()
    with_port = mech.linearize(ports=[("B2", "tip")])
    assert by_hand.output_names == with_port.output_names
    assert set(by_hand.blocks) == set(arm.blocks)
    trim = mech.trim()
    rng = np.random.default_rng(2024)
    for _ in range(4):
        vals = _sample(arm, rng)
        h_hand = [frequency_response(by_hand.usubs(vals), s) for s in S_POINTS]
        h_arm = [frequency_response(arm.usubs(vals), s) for s in S_POINTS]
        h_port = [frequency_response(with_port.usubs(vals), s) for s in S_POINTS]
        for a, b, c in zip(h_hand, h_arm, h_port, strict=True):
            assert _relative_error(a[:2], b) < 1e-9
            assert _relative_error(a, c) < 1e-9
        for effort, name in zip(efforts, ("J1", "J2"), strict=True):
            got, want = _value(effort, vals), _value(trim.effort[name], vals)
            assert np.isclose(float(got[0, 0]), float(want[0, 0]), rtol=1e-10)


# ------------------------------------- 3-D chain: floating base, prismatic, weld, wrench inputs
def _wire(mech):
    """Trim recurrence and block wiring of a Mechanism through the public functions only."""
    order, parent_joint = [], {j.child[0]: j for j in mech.joints.values()}
    roots = [mech.floating_base] if mech.floating_base else []
    pending = roots + [j.child[0] for j in mech.joints.values() if j.parent[0] == "ground"]
    while pending:
        k = pending.pop(0)
        order.append(k)
        pending += [j.child[0] for j in mech.joints.values() if j.parent[0] == k]
    acc = {"ground": mech.acceleration}
    if mech.floating_base:
        acc[mech.floating_base] = mech.base_orientation.T @ mech.acceleration
    for k in order:
        if k in parent_joint:
            j = parent_joint[k]
            acc[k] = child_frame_acceleration(j, acc[j.parent[0]])
    trim_w, on_parent = {}, {}
    for k in reversed(order):
        loads = [(j.parent[1], on_parent[j.name]) for j in mech.joints.values() if j.parent[0] == k]
        if k in parent_joint:
            j = parent_joint[k]
            trim_w[k] = body_trim_wrench(mech.bodies[k], j.child[1], acc[k], loads)
            on_parent[j.name] = joint_trim(j, trim_w[k])[0]
    blocks = []
    for k in order:
        body = mech.bodies[k]
        if k == mech.floating_base:
            blocks.append(floating_body_block(body, frame_acceleration=acc[k]))
            continue
        j = parent_joint[k]
        blocks.append(joint_block(j, frame_acceleration=acc[j.parent[0]], trim_wrench=trim_w[k]))
        blocks.append(body_block(body, j.child[1]))
    return blocks


def test_floating_prismatic_weld_chain_by_hand_equals_mechanism():
    rng = np.random.default_rng(5)
    spec = random_chain(rng, n_joints=2, prismatic=(1,), floating=True, weld_tip=True)
    mech = build_mechanism(spec)
    model = mech.linearize(base_wrench="body")  # the blocks hold the base in its own axes
    blocks = _wire(mech)
    inputs = ["u0", "u1"] + wrench_names("base", "side") + wrench_names("tip", "tool")
    outputs = ["base_dx", "base_dy", "base_dz", "base_rx", "base_ry", "base_rz", "q0", "q1"]
    by_hand = rmb.connect(blocks, inputs=inputs, outputs=outputs, check_unused=False)
    assert by_hand.nstates == model.nstates == 16
    for _ in range(3):
        vals = sample_values(spec, rng)
        rspec, vv = reference_spec(spec, vals)
        ref = LagrangeReference(rspec, vv)
        sys_hand, sys_mech = by_hand.usubs(vals), model.usubs(vals)
        for s in S_POINTS:
            h = frequency_response(sys_hand, s)
            assert _relative_error(h, frequency_response(sys_mech, s)) < 1e-9
            assert _relative_error(h, ref.transfer(s)) < 1e-8


# ---------------------------------------------------------------- free body under thrust
def _skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def test_free_body_under_thrust_is_the_inverse_spatial_inertia():
    m = rmb.ureal("m", 50.0, percent=20)
    cx = rmb.ureal("cx", 0.2, plusminus=0.05)
    inertia = np.array([[4.0, 0.3, -0.1], [0.3, 5.0, 0.2], [-0.1, 0.2, 6.0]])
    thrust = np.array([0.0, 0.0, 400.0])
    # the nozzle sits on the thrust line through the centre of mass
    sat = RigidBody(
        "sat",
        mass=m,
        inertia=inertia,
        cog=[cx, 0.1, 0.3],
        ports={"O": [0, 0, 0], "nozzle": [cx, 0.1, -1.0], "tip": [0.5, -0.4, 1.2]},
    )
    abar = [0.0, 0.0, thrust[2] / m]  # the frame accelerates with the body: F / m
    held = body_trim_wrench(sat, None, abar, {"nozzle": np.r_[thrust, 0, 0, 0]})
    block = floating_body_block(sat, frame_acceleration=abar)
    assert block.nstates == 12
    rng = np.random.default_rng(3)
    for _ in range(3):
        vals = {"m": rng.uniform(40.0, 60.0), "cx": rng.uniform(0.15, 0.25)}
        assert np.abs(_value(held, vals)).max() < 1e-9  # the thrust balances: an equilibrium
        mv, c = vals["m"], np.array([vals["cx"], 0.1, 0.3])
        # closed form D_O (B = centre of mass, O the origin) and the frame acceleration
        d_o = np.block(
            [[mv * np.eye(3), -mv * _skew(c)], [mv * _skew(c), inertia - mv * _skew(c) @ _skew(c)]]
        )
        a_b = np.array([0.0, 0.0, thrust[2] / mv])
        dinv = np.linalg.inv(d_o)
        sys = block.usubs(vals)
        names = block.output_names
        w_cols = [block.input_names.index(n) for n in wrench_names("sat", "O")]
        rows = {n: names.index(n) for n in names}
        acc = [rows[n] for n in motion_names("sat", "O")[3:9]]
        frame = [rows[n] for n in motion_names("sat", "O")[0:3]]
        tip_acc = [rows[n] for n in motion_names("sat", "tip")[3:9]]
        tip_frame = [rows[n] for n in motion_names("sat", "tip")[0:3]]
        tau_tip_o = np.eye(6)
        tau_tip_o[:3, 3:] = _skew(-np.array([0.5, -0.4, 1.2]))  # tau_{C O}: vector C to O
        for s in S_POINTS:
            h = frequency_response(sys, s)[:, w_cols]
            inertial = h[acc].copy()
            inertial[:3] += h[frame]
            assert _relative_error(inertial, dinv) < 1e-10
            # relative to the accelerating frame: minus the turned frame acceleration
            relative = dinv.astype(complex)
            relative[:3] -= _skew(a_b) @ dinv[3:] / s**2
            assert _relative_error(h[acc], relative) < 1e-10
            at_tip = h[tip_acc].copy()
            at_tip[:3] += h[tip_frame]
            assert _relative_error(at_tip, tau_tip_o @ dinv) < 1e-10


# ---------------------------------------------------------------- errors
def test_port_not_on_the_body():
    bob = RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]})
    with pytest.raises(SignalError, match="port 'Q' does not belong to body 'bob'"):
        body_block(bob, "Q")
    with pytest.raises(SignalError, match="port 'tip' does not belong to body 'bob'"):
        body_block(bob, "P", child_ports=["tip"])
    with pytest.raises(SignalError, match="port 'Q' does not belong to body 'bob'"):
        floating_body_block(bob, wrench_ports=["Q"])
    with pytest.raises(SignalError, match="port 'Q' does not belong to body 'bob'"):
        body_trim_wrench(bob, "P", gravity(), {"Q": np.zeros(6)})


def test_singular_mass_matrix():
    dot = RigidBody("dot", mass=1.0, ports={"P": [0, 0, 0]})  # no rotational inertia
    with pytest.raises(IllPosedError, match="floating body 'dot'.*singular"):
        floating_body_block(dot)
    massless = RigidBody("ghost", mass=0.0, inertia=1.0, ports={"P": [0, 0, 0]})
    with pytest.raises(IllPosedError, match="floating body 'ghost'.*singular"):
        floating_body_block(massless)
    # a joint that moves a point mass on its axis: the hand-wired loop is singular
    joint = RevoluteJoint("J", ("ground", "O"), ("dot", "P"), [1, 0, 0], input_name="T")
    blocks = [ground_block(), joint_block(joint), body_block(dot, "P")]
    with pytest.raises(IllPosedError, match="J_q_ddot"):
        rmb.connect(blocks, inputs=["T"], outputs=["J_q"], check_unused=False)


def test_bad_names_and_arguments():
    dotted = RigidBody("arm.link", mass=1.0, ports={"P": [0, 0, 0]})
    with pytest.raises(SignalError, match="'arm.link' contains '.'"):
        body_block(dotted, "P")
    weld = WeldJoint("W", ("A", "P"), ("B", "P"))
    joint = RevoluteJoint("J", ("ground", "O"), ("B", "P"), [0, 0, 1])
    with pytest.raises(DimensionError, match="scale"):
        joint_block(joint, scale=0.0)
    with pytest.raises(DimensionError, match="trim_wrench must have 6 entries"):
        joint_block(joint, trim_wrench=np.zeros(3))
    with pytest.raises(DimensionError, match="frame_acceleration must have 3 entries"):
        joint_block(joint, frame_acceleration=[0.0, 9.81])
    with pytest.raises(SignalError, match="expected a joint"):
        joint_block(dotted)
    assert joint_trim(weld, np.ones(6))[1] is None
