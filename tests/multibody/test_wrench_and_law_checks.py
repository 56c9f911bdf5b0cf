"""Wrench inputs and joint laws are checked at every entry point of the nonlinear models.

A misspelt wrench name used to be dropped (the no-wrench answer came back), a NaN
wrench or joint law spread NaN silently.  References: the pendulum's equation of
motion written out by hand, and Pinocchio (``pytest.importorskip``) for a wrench on
a two-link chain.
"""

import numpy as np
import pytest

from robustmb.errors import ArgumentError, DimensionError, SignalError
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity

G, M, L = 9.81, 1.5, 0.8


def _pendulum():
    """A point mass ``M`` at distance ``L`` below a pivot about x, a wrench input at the bob."""
    mech = Mechanism(acceleration=gravity(G))
    mech.add_body(RigidBody("bob", mass=M, ports={"P": [0, 0, L], "c": [0, 0, 0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    mech.add_wrench_input("push", "bob", "c")
    return mech


def _by_hand(q, fy):
    """``M L^2 q'' = -M g L sin q + L F_y``: F_y along the bob's y axis (tangent to the swing)."""
    return (-M * G * L * np.sin(q) + L * fy) / (M * L**2)


def test_a_declared_wrench_acts_as_the_equation_of_motion_says():
    mech = _pendulum()
    q, fy = 0.3, 2.0
    w = {"push": [0, fy, 0, 0, 0, 0]}
    assert mech.forward_dynamics([q], [0.0], [0.0], wrenches=w)[0] == pytest.approx(
        _by_hand(q, fy), rel=1e-12
    )
    # the inverse dynamics of the same acceleration needs no effort
    a = _by_hand(q, fy)
    assert abs(mech.inverse_dynamics([q], [0.0], [a], wrenches=w)[0]) < 1e-12


ENTRY_POINTS = {
    "forward_dynamics": lambda m, w: m.forward_dynamics([0.3], [0.0], [0.0], wrenches=w),
    "inverse_dynamics": lambda m, w: m.inverse_dynamics([0.3], [0.0], [0.0], wrenches=w),
    "hybrid_dynamics": lambda m, w: m.hybrid_dynamics([0.3], [0.0], [0.0], {"J": 0}, wrenches=w),
    "linearize_at": lambda m, w: m.linearize_at([0.3], [0.0], wrenches=w),
    "linearize_at(uncertain)": lambda m, w: m.linearize_at(
        [0.3], [0.0], wrenches=w, uncertain=True
    ),
    "simulate": lambda m, w: m.simulate((0.0, 0.01), [0.3], [0.0], wrenches=w),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_entry_point_refuses_a_misspelt_nan_or_short_wrench(entry):
    mech, call = _pendulum(), ENTRY_POINTS[entry]
    with pytest.raises(SignalError, match=r"unknown wrench input 'Push' \(declared: \['push'\]\)"):
        call(mech, {"Push": [0, 2.0, 0, 0, 0, 0]})
    with pytest.raises(ArgumentError, match=r"wrenches\['push'\]\[4\] \(push_Ty\) is not finite"):
        call(mech, {"push": [0, 0, 0, 0, np.nan, 0]})
    with pytest.raises(DimensionError, match=r"wrenches\['push'\] gave 3 entries, need 6"):
        call(mech, {"push": [1.0, 2.0, 3.0]})
    with pytest.raises(ArgumentError, match=r"wrenches\['push'\] must give real numbers"):
        call(mech, {"push": "abcdef"})
    with pytest.raises(ArgumentError, match="wrenches must be a mapping"):
        call(mech, [0, 2.0, 0, 0, 0, 0])


def test_the_wrench_of_a_two_link_chain_matches_pinocchio():
    pin = pytest.importorskip("pinocchio")
    rng = np.random.default_rng(5)
    lengths, masses, cogs = [0.7, 0.5], [1.2, 0.8], [[0, 0.1, -0.35], [0.05, 0, -0.25]]
    mech = Mechanism(acceleration=gravity(G))
    model = pin.Model()
    model.gravity.linear = np.array([0, 0, -G])
    parent, joint = ("ground", "O"), 0
    offset = np.zeros(3)
    for i in range(2):
        inertia = np.diag([0.02, 0.03, 0.01]) * (i + 1)
        name = f"L{i}"
        mech.add_body(
            RigidBody(
                name,
                mass=masses[i],
                inertia=inertia,
                cog=cogs[i],
                ports={"P": [0, 0, 0], "T": [0, 0, -lengths[i]]},
            )
        )
        mech.add_joint(RevoluteJoint(f"J{i}", parent, (name, "P"), [1, 0, 0]))
        joint = model.addJoint(joint, pin.JointModelRX(), pin.SE3(np.eye(3), offset), f"J{i}")
        model.appendBodyToJoint(
            joint, pin.Inertia(masses[i], np.array(cogs[i]), inertia), pin.SE3.Identity()
        )
        parent, offset = (name, "T"), np.array([0, 0, -lengths[i]])
    mech.add_wrench_input("tip", "L1", "T")
    data = model.createData()
    for _ in range(5):
        q, v, tau = rng.normal(size=2), rng.normal(size=2), rng.normal(size=2)
        w = rng.normal(size=6)
        # Pinocchio: the wrench at the tip of L1, moved to the joint frame of L1 (its origin)
        tip = np.array([0, 0, -lengths[1]])
        f_joint = pin.Force(w[:3], w[3:] + np.cross(tip, w[:3]))
        fext = [pin.Force.Zero(), pin.Force.Zero(), f_joint]
        ref = pin.aba(model, data, q, v, tau, fext)
        got = mech.forward_dynamics(q, v, tau, wrenches={"tip": w})
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)
        # and a misspelt name no longer returns the no-wrench answer
        with pytest.raises(SignalError, match="'Tip'"):
            mech.forward_dynamics(q, v, tau, wrenches={"Tip": w})


def _law_pendulum():
    mech = Mechanism(acceleration=gravity(G))
    mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    mech.add_joint_law("J", lambda q, qd: np.sqrt(np.float64(0.2) - q) if q <= 0.2 else np.nan)
    return mech


def test_a_finite_joint_law_acts_as_written():
    mech = _law_pendulum()
    # m l^2 q'' = -m g l sin q + sqrt(0.2 - q)
    q = 0.1
    assert mech.forward_dynamics([q], [1.0], [0.0])[0] == pytest.approx(
        -G * np.sin(q) + np.sqrt(0.2 - q), rel=1e-12
    )


def test_a_joint_law_returning_nan_names_the_joint_and_the_state():
    mech = _law_pendulum()
    match = r"joint law of 'J' returned nan at J_q = 0.5, J_q_dot = 1.0"
    with pytest.raises(ArgumentError, match=match):
        mech.forward_dynamics([0.5], [1.0], [0.0])
    with pytest.raises(ArgumentError, match=match):
        mech.inverse_dynamics([0.5], [1.0], [0.0])
    with pytest.raises(ArgumentError, match=match):
        mech.hybrid_dynamics([0.5], [1.0], [0.0], {"J": 0.0})
    with pytest.raises(ArgumentError, match=match):
        mech.linearize_at([0.5], [1.0])
    # the swing from 0 at 1 rad/s passes q = 0.2: the error gives the state and the time
    with pytest.raises(ArgumentError, match=r"joint law of 'J' returned nan at J_q = 0\.2.* t = "):
        mech.simulate((0.0, 2.0), [0.0], [1.0])


def test_a_joint_law_returning_several_numbers_or_text_is_refused():
    mech = Mechanism()
    mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    mech.add_joint_law("J", lambda q, qd: [q, qd])
    with pytest.raises(ArgumentError, match=r"returned \[0.1, 0.0\] .* one finite number"):
        mech.forward_dynamics([0.1], [0.0], [0.0])
    mech.add_joint_law("J", lambda q, qd: "spring")
    with pytest.raises(ArgumentError, match="returned 'spring'"):
        mech.forward_dynamics([0.1], [0.0], [0.0])


def test_linearize_at_names_a_non_finite_effort_by_its_effort_name():
    mech = _pendulum()
    with pytest.raises(ArgumentError, match=r"tau0\[0\] \(J_effort\) is not finite"):
        mech.linearize_at([0.3], [0.0], tau0=[np.nan])
    with pytest.raises(ArgumentError, match=r"q0\[0\] \(J_q\) is not finite"):
        mech.linearize_at([np.nan], [0.0])
