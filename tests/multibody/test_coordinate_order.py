"""Coordinates are ordered breadth-first from the base, not in the order of ``add_joint``."""

import numpy as np

from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity

G = 9.81


def test_coordinates_are_breadth_first_and_every_model_follows():
    mech = Mechanism(acceleration=gravity(G), ground_ports={"E": [0, 1.5, 0]})
    mech.add_body(
        RigidBody("c1", mass=2.0, cog=[0, 0, -0.4], ports={"P": [0, 0, 0], "T": [0, 0, -0.8]})
    )
    mech.add_body(RigidBody("cp", mass=3.0, cog=[0, 0.75, 0], ports={"A": [0, 0, 0]}))
    mech.add_body(RigidBody("c2", mass=1.5, cog=[0, 0, -0.4], ports={"P": [0, 0, 0]}))
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("c1", "P"), [1, 0, 0]))
    mech.add_joint(RevoluteJoint("J2", ("c1", "T"), ("cp", "A"), [1, 0, 0]))
    mech.add_joint(RevoluteJoint("J3", ("ground", "E"), ("c2", "P"), [1, 0, 0]))
    order = ["J1_q", "J3_q", "J2_q"]
    assert mech.coordinates() == order
    assert mech.rigid_tree().coordinate_names() == order
    assert mech.linearize().output_names == order
    # the second entry is J3: a lone pendulum (1.5 kg, CoM 0.4 m below its pivot) whose
    # holding torque at rest is m g l sin(q), whatever the other chain does
    tau = mech.inverse_dynamics([0.1, 0.2, 0.3], np.zeros(3), np.zeros(3))
    assert np.isclose(tau[1], 1.5 * G * 0.4 * np.sin(0.2), rtol=1e-12)
