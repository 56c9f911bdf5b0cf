"""Multibody systems as exact LFT models around parameter-dependent equilibria.

Bodies and joints whose parameters may be numbers or ``ureal`` elements are
assembled into a :class:`Mechanism`; :meth:`Mechanism.trim` gives the
equilibrium (DCMs, positions, wrenches, trim efforts) and
:meth:`Mechanism.linearize` the linearised plant, each as one exact LFT
(Kassarian et al., seed 000; conventions of the TITOP framework, seed 001).
"""

from .bodies import RigidBody, gravity
from .dcm import rotation_lft, rotation_lft_coefficients
from .joints import PrismaticJoint, RevoluteJoint, WeldJoint
from .mechanism import Mechanism, MechanismTrim
from .spatial import (
    kinematic_model,
    rotation_matrix,
    skew,
    spatial_inertia,
    transport_twist,
    transport_wrench,
)

__all__ = [
    "Mechanism",
    "MechanismTrim",
    "PrismaticJoint",
    "RevoluteJoint",
    "RigidBody",
    "WeldJoint",
    "gravity",
    "kinematic_model",
    "rotation_lft",
    "rotation_lft_coefficients",
    "rotation_matrix",
    "skew",
    "spatial_inertia",
    "transport_twist",
    "transport_wrench",
]
