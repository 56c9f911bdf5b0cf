"""Joints between a parent body ``b`` (port C) and a child body ``a`` (port P).

Conventions (seed 000, digest Sec. 3.9, with its corrections of eqs. (17), (22), (23)):

- ``orientation`` is ``P_{a/b}(0)``: the child axes in parent components at
  zero joint coordinate (default identity);
- the axis is given in parent components ``r_b``; a revolute joint turns the
  child by ``theta`` about it (``omega_a = omega_b + theta_dot r``), so
  ``P_{a/b}(theta) = Rot(r_b, theta) P_{a/b}(0)``; a prismatic joint slides the
  child port P along it: ``C P = x t_b``;
- the DCM used by the equations is ``P = P_{b/a} = P_{a/b}^T`` (``[X]_a = P [X]_b``).

Motion signals are 9- or 21-vectors ``m = [a; x''; x'; x]`` (acceleration of
the reference frame, dual acceleration, twist, small displacement) in the
owning body's frame; wrenches are ``[F; T]``.  Each joint turns its linearised
equations into one static block; its coordinate's acceleration is an output
fed back to an input of the same name, and the assembler eliminates that
algebraic loop exactly (which also covers joints with zero inertia).
"""

from __future__ import annotations

import numpy as np

from ..errors import DimensionError, NameConflictError, SignalError, UncertainTypeError
from . import _generic as g
from .bodies import check_nonnegative
from .dcm import rotation_lft
from .spatial import check_rotation, rotation_matrix, unit_axis

#: Name of the inertial frame as a joint's parent body (its ports: the mechanism's ground ports).
GROUND = "ground"


def _endpoint(x, what, name):
    if not (isinstance(x, tuple | list) and len(x) == 2 and all(isinstance(s, str) for s in x)):
        raise SignalError(
            f"joint {name!r}: {what} must be a (body name, port name) pair, got {x!r}"
        )
    return tuple(x)


class Joint:
    """Common data of every joint (not used directly)."""

    ndof = 0
    kind = "joint"

    def __init__(self, name, parent, child, orientation=None):
        if not isinstance(name, str) or not name:
            raise SignalError(f"a joint needs a non-empty name, got {name!r}")
        self.name = name
        self.parent = _endpoint(parent, "parent", name)
        self.child = _endpoint(child, "child", name)
        self.orientation = (
            np.eye(3)
            if orientation is None
            else check_rotation(orientation, f"joint {name!r}: orientation")
        )

    def dcm(self):
        """``P_{b/a}`` at the equilibrium (parent to child components)."""
        return self.orientation.T

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.parent} -> {self.child})"


class WeldJoint(Joint):
    """Rigid connection: the child port coincides with the parent port.

    Examples
    --------
    >>> from robustmb.multibody import WeldJoint
    >>> WeldJoint("w", ("B2", "tip"), ("B3", "P")).ndof
    0
    """

    kind = "weld"


class _ActuatedJoint(Joint):
    ndof = 1

    def __init__(
        self, name, parent, child, axis, orientation, stiffness, damping, input_name, output_name
    ):
        super().__init__(name, parent, child, orientation)
        self.axis = unit_axis(axis, f"joint {name!r}: axis")
        self.stiffness = g.check_scalar(stiffness, f"joint {name!r}: stiffness")
        self.damping = g.check_scalar(damping, f"joint {name!r}: damping")
        # a damper dissipates: a negative one (anywhere on the box of its ureals) would
        # feed energy in unannounced; an active effort is a joint law or an input
        check_nonnegative(
            self.damping,
            f"joint {name!r}: damping",
            "(a damper dissipates; model an active effort with add_joint_law)",
        )
        self.input_name = input_name or f"{name}_effort"
        self.output_name = output_name or f"{name}_q"
        for s in (self.input_name, self.output_name):
            if not isinstance(s, str) or not s:
                raise SignalError(f"joint {name!r}: signal names must be non-empty strings")
        if self.input_name in (self.output_name, self.rate_name):
            raise NameConflictError(
                f"joint {name!r}: its input and one of its outputs are both named "
                f"{self.input_name!r}"
            )

    def signal_names(self):
        """``{signal name: role}`` of the joint's effort input, coordinate and rate outputs."""
        return {
            self.input_name: "input",
            self.output_name: "output",
            self.rate_name: "rate output",
        }

    @property
    def rate_name(self):
        return f"{self.output_name}_dot"


class RevoluteJoint(_ActuatedJoint):
    """Torque-driven revolute joint with optional spring, damper and rotor inertia.

    Parameters
    ----------
    name : str
    parent, child : (body name, port name)
        ``parent`` may be ``("ground", port)``.
    axis : 3 numbers
        Rotation axis in parent components (normalised; zero length is an error).
    angle : float, optional
        Fixed equilibrium angle (rad), finite.
    tan_half : ureal, optional
        Equilibrium angle as the element ``t = tan(theta/2)`` (2 occurrences
        per rotated 3-vector, ``|theta| < 180 deg``).
    tan_quarter : ureal, optional
        ``t = tan(theta/4)`` (4 occurrences, ``|theta| < 360 deg``).
    orientation : 3x3, optional
        ``P_{a/b}(0)``.
    stiffness, damping : float or ureal
        Linear spring (N m/rad) and damper (N m s/rad) about the equilibrium.
        The damping must be non-negative on the whole box of its ureals (a
        negative one is refused with a :class:`~robustmb.errors.DimensionError`
        naming the joint: an energy source belongs in
        :meth:`~robustmb.multibody.Mechanism.add_joint_law` or the inputs).  A
        negative stiffness is legal: it is a conservative spring (potential
        ``k dq^2 / 2``, e.g. a linearised magnetic or buckling load) that makes
        the equilibrium unstable, which the linear model shows.
    inertia : float, ureal or expression of ureals
        Rotor inertia about the axis, carried by the child; zero is allowed, a
        negative value anywhere on the box of its ureals is not (checked as a
        body's mass, :func:`~robustmb.multibody.bodies.check_nonnegative`).
    input_name, output_name : str
        Names of the torque input and angle output (rate: ``output_name + "_dot"``);
        they must differ from each other and from the signals of the other joints
        of a mechanism (:class:`~robustmb.errors.NameConflictError`).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import RevoluteJoint
    >>> j = RevoluteJoint("J1", ("ground", "O"), ("B1", "P"), [1, 0, 0], angle=np.pi / 4,
    ...                   input_name="T1", output_name="theta1")
    >>> j.input_name, j.output_name, j.rate_name
    ('T1', 'theta1', 'theta1_dot')
    """

    kind = "revolute"

    def __init__(
        self,
        name,
        parent,
        child,
        axis,
        *,
        angle=None,
        tan_half=None,
        tan_quarter=None,
        orientation=None,
        stiffness=0.0,
        damping=0.0,
        inertia=0.0,
        input_name=None,
        output_name=None,
    ):
        super().__init__(
            name, parent, child, axis, orientation, stiffness, damping, input_name, output_name
        )
        given = [x is not None for x in (angle, tan_half, tan_quarter)]
        if sum(given) > 1:
            raise DimensionError(f"joint {name!r}: give only one of angle, tan_half, tan_quarter")
        self.angle = 0.0 if not any(given) else angle
        self.tan_half, self.tan_quarter = tan_half, tan_quarter
        if angle is not None:
            if not g.is_number(angle):
                raise UncertainTypeError(
                    f"joint {name!r}: an uncertain angle is not an LFT; declare it through "
                    "tan_half=ureal(...) (t = tan(theta/2)) or tan_quarter="
                )
            self.angle = g.check_scalar(angle, f"joint {name!r}: angle")
        for t, what in ((tan_half, "tan_half"), (tan_quarter, "tan_quarter")):
            if t is not None:
                g.check_scalar(t, f"joint {name!r}: {what}")
        self.inertia = g.check_scalar(inertia, f"joint {name!r}: inertia")
        # a rotor inertia adds to the mass matrix: it must be >= 0 on the whole box
        check_nonnegative(self.inertia, f"joint {name!r}: inertia")

    def rotation(self):
        """``Rot(r_b, -theta)`` as a number matrix or an LFT of the tangent parameter."""
        if self.tan_half is not None:
            return rotation_lft(self.axis, self.tan_half, passive=True)
        if self.tan_quarter is not None:
            return rotation_lft(self.axis, self.tan_quarter, passive=True, quarter=True)
        return rotation_matrix(self.axis, -self.angle)

    def dcm(self):
        """``P_{b/a}(theta) = P_{a/b}(0)^T Rot(r_b, -theta)``."""
        return g.mm(self.orientation.T, self.rotation())

    def nominal_angle(self):
        """Equilibrium angle at the nominal value of its parameter (rad)."""
        if self.tan_half is not None:
            return 2.0 * np.arctan(float(g.nominal(self.tan_half)[0, 0]))
        if self.tan_quarter is not None:
            return 4.0 * np.arctan(float(g.nominal(self.tan_quarter)[0, 0]))
        return self.angle


class PrismaticJoint(_ActuatedJoint):
    """Force-driven prismatic joint with optional spring and damper.

    Parameters
    ----------
    name, parent, child, orientation, stiffness, damping, input_name, output_name
        As :class:`RevoluteJoint` (stiffness in N/m, damping in N s/m).
    axis : 3 numbers
        Sliding direction in parent components.
    displacement : float or ureal
        Equilibrium value of the joint coordinate (the child port sits at
        ``C + displacement * axis``); it enters linearly, so it may be uncertain.

    Examples
    --------
    >>> from robustmb.multibody import PrismaticJoint
    >>> PrismaticJoint("s", ("B0", "rail"), ("S", "P"), [0, 0, 1], displacement=0.2).ndof
    1
    """

    kind = "prismatic"

    def __init__(
        self,
        name,
        parent,
        child,
        axis,
        *,
        displacement=0.0,
        orientation=None,
        stiffness=0.0,
        damping=0.0,
        input_name=None,
        output_name=None,
    ):
        super().__init__(
            name, parent, child, axis, orientation, stiffness, damping, input_name, output_name
        )
        self.displacement = g.check_scalar(displacement, f"joint {name!r}: displacement")
        self.inertia = 0.0


def check_signal_names(joints, others=None):
    """Raise :class:`~robustmb.errors.NameConflictError` if two signals share a name.

    Inputs and outputs of a linearised mechanism are wired by name
    (:func:`robustmb.connect`): two joints with the same output name would be
    summed, two with the same input name driven together, silently.

    Parameters
    ----------
    joints : iterable of Joint
        Each actuated joint contributes its input, output and rate names.
    others : dict[str, str], optional
        Further signals ``{name: owner}`` (wrench inputs, base coordinates).

    Examples
    --------
    >>> from robustmb.multibody import RevoluteJoint
    >>> j1 = RevoluteJoint("J1", ("ground", "O"), ("a", "P"), [1, 0, 0], output_name="q")
    >>> j2 = RevoluteJoint("J2", ("a", "T"), ("b", "P"), [1, 0, 0], output_name="q")
    >>> try:
    ...     check_signal_names([j1, j2])
    ... except NameConflictError as err:
    ...     print(err)
    signal 'q' is the output of joint 'J1' and the output of joint 'J2'
    """
    owner = {}
    for name, who in (others or {}).items():
        owner[name] = who
    for j in joints:
        if not j.ndof:
            continue
        for name, role in j.signal_names().items():
            here = f"the {role} of joint {j.name!r}"
            if name in owner:
                raise NameConflictError(f"signal {name!r} is {owner[name]} and {here}")
            owner[name] = here
