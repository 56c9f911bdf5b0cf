"""Inconsistent mechanisms raise clear errors naming what is at fault."""

import numpy as np
import pytest

import robustmb.lft as rmb
from robustmb.errors import DimensionError, IllPosedError, SignalError, UncertainTypeError
from robustmb.multibody import Mechanism, PrismaticJoint, RevoluteJoint, RigidBody, gravity


def _link(name, mass=1.0):
    return RigidBody(
        name, mass=mass, inertia=0.1, cog=[0, 0, 0.5], ports={"P": [0, 0, 0], "tip": [0, 0, 1]}
    )


def _two_links():
    mech = Mechanism(acceleration=gravity())
    mech.add_body(_link("A"))
    mech.add_body(_link("B"))
    return mech


def test_body_attached_twice():
    mech = _two_links()
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("A", "P"), [1, 0, 0]))
    with pytest.raises(IllPosedError, match="'A' is attached twice"):
        mech.add_joint(RevoluteJoint("J2", ("B", "tip"), ("A", "P"), [1, 0, 0]))


def test_kinematic_loop():
    mech = _two_links()
    mech.add_joint(RevoluteJoint("J1", ("A", "tip"), ("B", "P"), [1, 0, 0]))
    mech.add_joint(RevoluteJoint("J2", ("B", "tip"), ("A", "P"), [1, 0, 0]))
    with pytest.raises(IllPosedError, match="kinematic loop"):
        mech.linearize()


def test_zero_length_axis():
    with pytest.raises(DimensionError, match="'J1': axis has zero length"):
        RevoluteJoint("J1", ("ground", "O"), ("A", "P"), [0, 0, 0])
    with pytest.raises(DimensionError, match="'S': axis has zero length"):
        PrismaticJoint("S", ("ground", "O"), ("A", "P"), [0.0, 0.0, 0.0])


def test_port_not_on_its_body():
    mech = _two_links()
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("A", "elbow"), [1, 0, 0]))
    with pytest.raises(SignalError, match="port 'elbow' does not belong to body 'A'"):
        mech.linearize()
    mech2 = _two_links()
    mech2.add_joint(RevoluteJoint("J1", ("ground", "nowhere"), ("A", "P"), [1, 0, 0]))
    with pytest.raises(SignalError, match="'nowhere' does not belong to the ground"):
        mech2.trim()


def test_singular_mass_matrix_names_the_joint():
    mech = Mechanism(acceleration=gravity())
    # a point mass on the joint axis: no inertia about the axis
    mech.add_body(RigidBody("dot", mass=1.0, ports={"P": [0, 0, 0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("dot", "P"), [1, 0, 0]))
    with pytest.raises(IllPosedError, match="joint 'J'.*singular"):
        mech.linearize()


def test_singular_mass_matrix_of_coupled_joints():
    mech = Mechanism(acceleration=gravity())
    mech.add_body(RigidBody("slider", mass=0.0, ports={"P": [0, 0, 0]}))
    mech.add_body(RigidBody("load", mass=1.0, inertia=0.1, ports={"P": [0, 0, 0]}))
    mech.add_joint(PrismaticJoint("S1", ("ground", "O"), ("slider", "P"), [0, 0, 1]))
    mech.add_joint(PrismaticJoint("S2", ("slider", "P"), ("load", "P"), [0, 0, 1]))
    with pytest.raises(IllPosedError, match="mass matrix is singular"):
        mech.linearize()


def test_uncertain_angle_must_go_through_a_tangent():
    th = rmb.ureal("th", 0.3)
    with pytest.raises(UncertainTypeError, match="tan_half"):
        RevoluteJoint("J", ("ground", "O"), ("A", "P"), [1, 0, 0], angle=th)


def test_disconnected_body_and_unknown_names():
    mech = _two_links()
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("A", "P"), [1, 0, 0]))
    with pytest.raises(IllPosedError, match=r"\['B'\] are not connected"):
        mech.linearize()
    with pytest.raises(SignalError, match="unknown body 'C'"):
        mech.add_joint(RevoluteJoint("J2", ("C", "tip"), ("B", "P"), [1, 0, 0]))
        mech.trim()


def test_bad_parameters():
    with pytest.raises(DimensionError, match="'A': mass must be non-negative"):
        RigidBody("A", mass=-1.0)
    with pytest.raises(DimensionError, match="'A': inertia must be symmetric"):
        RigidBody("A", mass=1.0, inertia=np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]]))
    with pytest.raises(DimensionError, match="'A': cog must have 3 entries"):
        RigidBody("A", mass=1.0, cog=[0, 1])
