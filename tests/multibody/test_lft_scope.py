"""The LFT (``trim``, ``linearize``) refuses what it does not model instead of dropping it.

Applied wrenches, compliant loop closures, exact loop constraints and joint laws
change the equilibrium and its stiffness.  Each mechanism below is small enough
for a closed form of its linearisation; ``linearize_at`` (which models the item)
must give it, and ``linearize``/``trim`` must raise naming the item.
"""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import IllPosedError
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity

G = 9.81


def _bob(**ports):
    """A 2 kg point mass 1 m below a pivot about x (gravity along -z)."""
    mech = Mechanism(acceleration=gravity(G))
    mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0], "c": [0, 0, 0], **ports}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    return mech


def _bar(**ground_ports):
    """A 1 kg bar of length 1 turning about z at one end: J_O = 0.1 + 1 * 0.5^2 = 0.35."""
    mech = Mechanism(acceleration=gravity(G), ground_ports=ground_ports)
    mech.add_body(
        RigidBody(
            "bar",
            mass=1.0,
            inertia=0.1,
            cog=[0.5, 0, 0],
            ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]},
        )
    )
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    return mech


def _poles(lin):
    return np.sort_complex(np.linalg.eigvals(np.asarray(lin.A)))


def _refused(mech, *names):
    for method in (mech.linearize, mech.trim):
        with pytest.raises(IllPosedError, match="linearize_at") as info:
            method()
        for name in names:
            assert name in str(info.value)


def test_applied_wrench_is_refused_and_linearize_at_models_it():
    mech = _bob()
    # 3 times the weight upwards at the bob: net 2 m g up, an inverted pendulum
    mech.add_applied_wrench("lift", "bob", "c", [0, 0, 3 * 2.0 * G, 0, 0, 0])
    _refused(mech, "applied wrench 'lift'")
    poles = _poles(mech.linearize_at([0.0], [0.0], a0=[0.0]))
    # closed form: m l^2 q'' = (3 m g - m g) l q  ->  poles +- sqrt(2 g / l)
    assert np.allclose(poles, [-np.sqrt(2 * G), np.sqrt(2 * G)], rtol=1e-12, atol=1e-12)


def test_a_plain_pendulum_still_linearises_to_its_closed_form():
    poles = _poles(_bob().linearize().nominal())
    assert np.allclose(poles, [-1j * np.sqrt(G), 1j * np.sqrt(G)], rtol=1e-12, atol=1e-12)


def test_compliant_closure_is_refused_and_linearize_at_models_it():
    mech = _bar(E=[1.0, 0, 0])
    mech.add_loop_closure("spring", ("bar", "tip"), ("ground", "E"), stiffness=100.0)
    _refused(mech, "loop closure 'spring'")
    poles = _poles(mech.linearize_at([0.0], [0.0], a0=[0.0]))
    # the tip moves by (0, q, 0): restoring torque k l^2 q on J_O
    w = np.sqrt(100.0 / 0.35)
    assert np.allclose(poles, [-1j * w, 1j * w], rtol=1e-12, atol=1e-12)


def test_loop_constraint_is_refused():
    mech = _bar(B=[1.0, 0, 0])
    mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
    _refused(mech, "loop constraint 'pin'")
    # pinned at both ends, the bar cannot turn whatever the torque
    assert mech.forward_dynamics([0.0], [0.0], [1.0]) == pytest.approx([0.0], abs=1e-12)


def test_joint_law_is_refused_and_linearize_at_models_it():
    mech = _bob()
    mech.add_joint_law("J", lambda q, qd: -100.0 * q)
    _refused(mech, "joint law on 'J'")
    poles = _poles(mech.linearize_at([0.0], [0.0], a0=[0.0]))
    # m l^2 q'' = -(k + m g l) q
    w = np.sqrt((100.0 + 2.0 * G) / 2.0)
    assert np.allclose(poles, [-1j * w, 1j * w], rtol=1e-12, atol=1e-12)


def test_every_item_is_named():
    mech = _bob(top=[0, 0, 1.0])
    mech.add_applied_wrench("lift", "bob", "c", [0, 0, 1.0, 0, 0, 0])
    mech.add_applied_wrench("drag", "bob", "c", [0, 1.0, 0, 0, 0, 0], frame="body")
    mech.add_joint_law("J", lambda q, qd: -q)
    mech.add_loop_closure("tether", ("bob", "top"), ("ground", "O"), stiffness=1.0)
    _refused(mech, "'lift'", "'drag'", "joint law on 'J'", "loop closure 'tether'")


def test_balloon_gondola_is_refused_and_its_buoyancy_balances_the_weight():
    mech, _, _ = rmb.examples.balloon_gondola()
    _refused(mech, "applied wrench 'buoyancy'")
    # at the hanging equilibrium the buoyancy (16 kg x g) holds everything: no base wrench
    qe = mech.equilibrium_coordinates()
    tau = mech.inverse_dynamics(qe, np.zeros(9), np.zeros(9))
    assert np.abs(tau).max() <= 1e-12 * 16.0 * G
    # without the buoyancy the base must carry the weight, 16 g along +y (gravity is -y,
    # base axes = inertial axes at equilibrium); the trim of the LFT path then agrees
    mech.applied_wrenches.clear()
    weight = [0.0, 16.0 * G, 0.0, 0.0, 0.0, 0.0]
    tau = mech.inverse_dynamics(qe, np.zeros(9), np.zeros(9))
    assert np.allclose(tau, weight + [0.0] * 3, rtol=1e-12, atol=1e-10)
    trim_wrench = np.asarray(mech.trim().base_wrench, dtype=float).ravel()
    assert np.allclose(trim_wrench, weight, rtol=1e-12, atol=1e-10)
