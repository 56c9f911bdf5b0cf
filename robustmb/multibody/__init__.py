"""Multibody systems as exact LFT models around parameter-dependent equilibria.

Bodies and joints whose parameters may be numbers or ``ureal`` elements are
assembled into a :class:`Mechanism`; :meth:`Mechanism.trim` gives the
equilibrium (DCMs, positions, wrenches, trim efforts) and
:meth:`Mechanism.linearize` the linearised plant, each as one exact LFT
(Kassarian et al., seed 000; conventions of the TITOP framework, seed 001).

The same linear blocks are public, with named signals, for users who wire a
mechanism themselves with :func:`robustmb.connect`: :func:`body_block`
(inverse dynamics), :func:`floating_body_block` (forward dynamics, floating
base), :func:`joint_block` (revolute, prismatic, weld), :func:`ground_block`,
and the equilibrium helpers :func:`child_frame_acceleration`,
:func:`body_trim_wrench` and :func:`joint_trim`.  Signal names:
:mod:`robustmb.multibody.signals`.

The same description also gives the nonlinear models (seed 001) --
:meth:`Mechanism.inverse_dynamics`, :meth:`Mechanism.forward_dynamics`,
:meth:`Mechanism.hybrid_dynamics`, :meth:`Mechanism.mass_matrix`,
:meth:`Mechanism.simulate` -- and the exact linearisation at any point
(seed 002), :meth:`Mechanism.linearize_at`, optionally as an LFT of the inertial
parameters (modules :mod:`.tree`, :mod:`.dynamics`, :mod:`.linearization`,
:mod:`.simulation`, :mod:`.attitude`, :mod:`.loop_closure`, :mod:`.inertial_lft`).
Closed chains: compliant closures (:meth:`Mechanism.add_loop_closure`) or exact
holonomic constraints (:meth:`Mechanism.add_loop_constraint`, :mod:`.constraints`);
forward dynamics condense the tree in world axes (:mod:`.articulated`).
"""

from .arm_chain import arm_chain
from .base_blocks import floating_body_block, ground_block
from .bodies import RigidBody, gravity
from .body_blocks import body_block, body_trim_wrench
from .connection import frame_change_block, revolute_frame_block
from .dcm import rotation_lft, rotation_lft_coefficients
from .flexible_body import FlexibleBody
from .joint_blocks import child_frame_acceleration, joint_block, joint_trim
from .joints import PrismaticJoint, RevoluteJoint, WeldJoint
from .mechanism import Mechanism, MechanismTrim
from .nport_body import rigid_nport, rigid_titop
from .port_inversion import invert_channels
from .scheduled_loop import ScheduledController, ScheduledLoopResult, simulate_scheduled_loop
from .signals import motion_names, reaction_names, wrench_names
from .spatial import (
    kinematic_model,
    rotation_matrix,
    skew,
    spatial_inertia,
    transport_twist,
    transport_wrench,
)

__all__ = [
    "arm_chain",
    "FlexibleBody",
    "Mechanism",
    "MechanismTrim",
    "PrismaticJoint",
    "RevoluteJoint",
    "RigidBody",
    "ScheduledController",
    "ScheduledLoopResult",
    "WeldJoint",
    "body_block",
    "body_trim_wrench",
    "child_frame_acceleration",
    "floating_body_block",
    "frame_change_block",
    "gravity",
    "invert_channels",
    "ground_block",
    "joint_block",
    "joint_trim",
    "kinematic_model",
    "motion_names",
    "reaction_names",
    "revolute_frame_block",
    "rigid_nport",
    "rigid_titop",
    "rotation_lft",
    "rotation_lft_coefficients",
    "rotation_matrix",
    "simulate_scheduled_loop",
    "skew",
    "spatial_inertia",
    "transport_twist",
    "transport_wrench",
    "wrench_names",
]
