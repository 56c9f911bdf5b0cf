"""What the nonlinear models add to a mechanism's description (seed 001).

Applied wrenches (e.g. buoyancy), nonlinear joint laws, loop closures --
compliant (spring-damper between two ports) or exact (holonomic constraints) --
and the assembly of coordinates onto the exact constraints.  These functions
are the methods of :class:`~robustmb.multibody.Mechanism` of the same names
(bound in :mod:`.mechanism`); ``self`` is the mechanism.
"""

from __future__ import annotations

import numpy as np

from .. import lft
from ..errors import DimensionError, NameConflictError, SignalError, UncertainTypeError
from . import _generic as g
from .bodies import check_nonnegative
from .spatial import check_rotation


def add_applied_wrench(self, name, body, port, wrench, *, frame="inertial"):
    """A constant wrench ``[F; T]`` applied on ``body`` at ``port``.

    ``frame="inertial"``: components fixed in the inertial frame (e.g. a
    buoyancy force), the application point moving with the body;
    ``frame="body"``: components turning with the body.  ``wrench`` is a
    sequence of 6 entries (or a 6x1 / 1x6 array or static uncertain matrix);
    each entry is a number, a ureal or a scalar expression of ureals (e.g.
    ``m * a_z`` for a base balanced by its uncertain weight).
    :meth:`trim` includes it in the equilibrium loads and :meth:`linearize` in
    the LFT: with inertial components, a small rotation ``r`` of the body turns
    its body-axes components ``Wb`` by ``-skew(r) Wb``, a stiffness fed back
    from the body's rotation (body components have no such term).

    Raises
    ------
    DimensionError
        If ``wrench`` does not hold 6 scalar entries, or an entry is not finite.
    UncertainTypeError
        If an entry is neither a real number nor a real uncertain scalar.

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody
    >>> mech = Mechanism(floating_base="b")
    >>> mech.add_body(RigidBody("b", mass=1.0, inertia=1.0, ports={"c": [0, 0, 1]}))
    >>> mech.add_applied_wrench("lift", "b", "c", [0, 0, 9.81, 0, 0, 0])
    >>> sorted(mech.applied_wrenches)
    ['lift']

    An uncertain mass held by a lift equal to its weight:

    >>> import robustmb as rmb
    >>> from robustmb.multibody import gravity
    >>> m = rmb.ureal("m", 2.0, range=(1.0, 3.0))
    >>> mech = Mechanism(acceleration=gravity(9.81), floating_base="b")
    >>> mech.add_body(RigidBody("b", mass=m, inertia=0.1, ports={"c": [0, 0, 0]}))
    >>> mech.add_applied_wrench("lift", "b", "c", [0, 0, 9.81 * m, 0, 0, 0])
    >>> mech.linearize().nstates
    12
    """
    if frame not in ("inertial", "body"):
        raise SignalError(f"applied wrench {name!r}: frame must be 'inertial' or 'body'")
    if name in getattr(self, "applied_wrenches", {}) or name in self.wrench_inputs:
        raise NameConflictError(f"a wrench named {name!r} already exists")
    if body not in self.bodies:
        raise SignalError(f"applied wrench {name!r}: unknown body {body!r}")
    self.bodies[body].port(port)
    w = _wrench_entries(wrench, f"applied wrench {name!r}")
    w = [g.check_scalar(e, f"applied wrench {name!r}[{i}]") for i, e in enumerate(w)]
    if not hasattr(self, "applied_wrenches"):
        self.applied_wrenches = {}
    self.applied_wrenches[name] = (body, port, w, frame)


def _wrench_entries(wrench, what):
    """The 6 entries of a wrench, read one by one.

    ``np.asarray(wrench, dtype=object)`` would try to iterate an uncertain
    expression entry (it has a length) and fail with a bare ``TypeError``.
    """
    if isinstance(wrench, lft.UncertainModel):
        if wrench.nstates or getattr(wrench, "is_system", False):
            raise UncertainTypeError(
                f"{what} must be static, got a system with {wrench.nstates} states"
            )
        if wrench.shape not in ((6, 1), (1, 6)):
            raise DimensionError(
                f"{what} needs 6 components, got an object of shape {wrench.shape}"
            )
        return [wrench[i, 0] if wrench.shape == (6, 1) else wrench[0, i] for i in range(6)]
    if isinstance(wrench, np.ndarray):
        if wrench.shape not in ((6,), (6, 1), (1, 6)):
            raise DimensionError(f"{what} needs 6 components, got an array of shape {wrench.shape}")
        return list(wrench.reshape(-1))
    if not isinstance(wrench, list | tuple):
        raise DimensionError(f"{what} needs 6 components, got {type(wrench).__name__}")

    def nested(e):
        return isinstance(e, list | tuple) or (isinstance(e, np.ndarray) and e.ndim > 0)

    rows = list(wrench)
    if len(rows) == 1 and nested(rows[0]):
        rows = list(rows[0])  # a 1x6 row
    elif rows and all(nested(r) and len(r) == 1 for r in rows):
        rows = [r[0] for r in rows]  # a 6x1 column
    if len(rows) != 6:
        raise DimensionError(f"{what} needs 6 components, got {len(rows)}")
    for i, e in enumerate(rows):
        if nested(e):
            raise DimensionError(f"{what}[{i}] must be a scalar, got {e!r}")
    return [e.item() if isinstance(e, np.ndarray) else e for e in rows]


def add_loop_closure(
    self,
    name,
    a,
    b,
    *,
    stiffness,
    damping=0.0,
    rotational_stiffness=0.0,
    rotational_damping=0.0,
):
    """Close a kinematic loop with a spring-damper between two ports (seed 001, Fig. 14).

    Build the chain as a tree (open it at one connection), then tie the two
    ends ``a = (body, port)`` and ``b = (body, port)`` (either may be the
    ground).  A penalty closure: ``F = k (p_b - p_a) + d (v_b - v_a)`` on ``a``,
    the opposite on ``b``, and optionally a rotational spring-damper on the
    relative attitude of the two bodies (rotation vector).  Used by the
    nonlinear models; a stiff closure makes the ODE stiff (``method="Radau"``).
    :meth:`trim` includes its preload and :meth:`linearize` its linearisation
    (a rotational spring only at rest at equilibrium, the bodies' axes aligned
    there; otherwise they raise and :meth:`linearize_at` is the way).
    ``damping`` and ``rotational_damping`` must be non-negative on the whole box
    of their ureals (:class:`~robustmb.errors.DimensionError` otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_closure("pin", ("bar", "tip"), ("ground", "O"), stiffness=100.0)
    >>> mech.inverse_dynamics([0.0], [0.0], [0.0])   # the spring is along the bar
    array([0.])
    """
    for end in (a, b):
        if not (isinstance(end, tuple | list) and len(end) == 2):
            raise SignalError(f"loop closure {name!r}: ends are (body, port) pairs, got {end!r}")
        self._port(*end)
    closures = self.__dict__.setdefault("loop_closures", {})
    if name in closures:
        raise NameConflictError(f"a loop closure named {name!r} already exists")
    gains = [
        g.check_scalar(x, f"loop closure {name!r}: {what}")
        for x, what in (
            (stiffness, "stiffness"),
            (damping, "damping"),
            (rotational_stiffness, "rotational_stiffness"),
            (rotational_damping, "rotational_damping"),
        )
    ]
    for x, what in ((gains[1], "damping"), (gains[3], "rotational_damping")):
        check_nonnegative(x, f"loop closure {name!r}: {what}", "(a damper dissipates)")
    closures[name] = (tuple(a), tuple(b), gains)


def add_loop_constraint(
    self,
    name,
    a,
    b,
    *,
    components=("x", "y", "z"),
    rotations=(),
    orientation=None,
    baumgarte=(0.0, 0.0),
):
    """Close a kinematic loop exactly: a holonomic constraint between two ports.

    Build the chain as a tree (open it at one connection), then require that
    the chosen ``components`` of the position of port ``b = (body, port)``
    relative to port ``a``, in the axes of ``a``'s body, vanish (either end
    may be the ground), and that ``b``'s body does not turn relative to ``a``'s
    about the chosen ``rotations`` axes of ``a``'s body.  ``("x", "y")`` is the
    pin of a loop moving in the x-y plane of ``a``, ``("x", "y", "z")`` a
    spherical joint; adding ``rotations="xy"`` makes it a revolute joint about
    ``z``, ``rotations="xyz"`` a weld; ``components=""`` with rotations only
    constrains the relative attitude.  The nonlinear models then solve for the
    constraint forces (Lagrange multipliers): :meth:`forward_dynamics` and
    :meth:`simulate` follow the constraint exactly (index reduced to
    accelerations, optional Baumgarte stabilisation ``(alpha, beta)``:
    ``g'' + 2 alpha g' + beta^2 g = 0``) and :meth:`linearize_at` returns the
    linearisation on the constraint manifold (:meth:`linearize` and :meth:`trim`,
    the LFT of the tree, raise).  Start from consistent coordinates
    (:meth:`assemble`).

    Parameters
    ----------
    name : str
    a, b : (body, port)
        The two ends; either body may be ``"ground"``.
    components : str or sequence of "x", "y", "z"
        Components (axes of ``a``'s body) of the relative position held at zero.
    rotations : str or sequence of "x", "y", "z"
        Axes of ``a``'s body about which the relative rotation is held at zero:
        with ``R_rel = R_a^T R_b orientation^T`` the rows ``(R_rel - R_rel^T) / 2``
        (the rotation vector to first order, ``sin(angle) * axis`` exactly).
    orientation : 3x3, optional
        Attitude of ``b``'s body axes in ``a``'s body axes when the closure is at
        rest (``R_b = R_a @ orientation``); default: the identity.
    baumgarte : (alpha, beta)
        Stabilisation gains, two numbers >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism(ground_ports={"B": [1.0, 0, 0]})
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
    >>> mech.forward_dynamics([0.0], [0.0], [1.0])   # a bar pinned at both ends
    array([0.])

    Holding the attitude instead: the bar cannot turn about ``z`` either.

    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1, ports={"P": [0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("lock", ("bar", "P"), ("ground", "O"), components="",
    ...                          rotations="z")
    >>> mech.forward_dynamics([0.0], [0.0], [1.0])
    array([0.])
    """
    for end in (a, b):
        if not (isinstance(end, tuple | list) and len(end) == 2):
            raise SignalError(f"loop constraint {name!r}: ends are (body, port) pairs, got {end!r}")
        self._port(*end)
    axes = {}
    for what, given in (("components", components), ("rotations", rotations)):
        sel = []
        for c in given:
            if c not in ("x", "y", "z") or c in sel:
                raise SignalError(
                    f"loop constraint {name!r}: {what} are distinct axes among "
                    f"'x', 'y', 'z', got {given!r}"
                )
            sel.append(c)
        axes[what] = ["xyz".index(c) for c in sel]
    if not axes["components"] and not axes["rotations"]:
        raise SignalError(
            f"loop constraint {name!r}: give at least one component or rotation to hold"
        )
    rel = (
        np.eye(3)
        if orientation is None
        else check_rotation(orientation, f"loop constraint {name!r}: orientation")
    )
    ab = [float(x) for x in baumgarte]
    if len(ab) != 2 or not all(np.isfinite(ab)) or min(ab) < 0:
        raise SignalError(f"loop constraint {name!r}: baumgarte is (alpha, beta), two numbers >= 0")
    cons = self.__dict__.setdefault("loop_constraints", {})
    if name in cons or name in getattr(self, "loop_closures", {}):
        raise NameConflictError(f"a loop closure named {name!r} already exists")
    cons[name] = (tuple(a), tuple(b), axes["components"], tuple(ab), axes["rotations"], rel)


def assemble(self, q, v=None, *, fixed=(), values=None):
    """Coordinates (and rates) on the loop constraints, found from the guess ``q``.

    Gauss-Newton with minimum-norm steps in the tangent coordinates, each step
    halved until the residual norm decreases; revolute angles are returned
    within ``pi`` of the guess (the same configuration, the nearest turn).  The
    result is a solution near the guess, the nearest one only when the guess
    lies in its Newton basin (give a guess near the intended branch).  The rates
    ``v`` are projected onto the constraints (minimum-norm change).  ``fixed``
    names coordinates held at their given values (e.g. a crank angle; for a
    floating base its tangent names ``{base}_dx ... {base}_rz``).

    Raises
    ------
    IllPosedError
        If the steps stop reducing the residual before the constraints close
        (e.g. links too short to meet), or the closure lands on a flipped branch.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism(ground_ports={"B": [0.0, 1.0, 0]})
    >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
    ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
    >>> bool(np.isclose(mech.assemble([1.2])[0], np.pi / 2))   # the bar points at B
    True
    """
    from .constraints import assemble

    tree = self.rigid_tree(values)
    names = tree.tangent_names()
    idx = []
    for name in [fixed] if isinstance(fixed, str) else fixed:
        if name not in names:
            raise SignalError(f"assemble: unknown coordinate {name!r} (coordinates: {names})")
        idx.append(names.index(name))
    q = tree.check_state(q)
    if v is not None:
        v = tree.check_rates(v)
    return assemble(tree, q, v, fixed=idx)


def add_joint_law(self, joint, law):
    """A nonlinear joint law: effort ``law(q, q_dot)`` on the child, added to spring and damper.

    Used by the nonlinear models (``forward_dynamics``, ``simulate``,
    ``linearize_at`` -- which differentiates it by a complex step when the
    callable accepts complex numbers, by central differences otherwise) and by
    the LFT of :meth:`linearize` as a spring and damper at the equilibrium
    ``(q_eq, 0)`` (:meth:`trim` subtracts ``law(q_eq, 0)`` from the trim effort);
    a law at an uncertain equilibrium coordinate makes them raise.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> mech.add_joint_law("J", lambda q, qd: -3.0 * q**3)     # hardening spring
    >>> mech.forward_dynamics([1.0], [0.0], [0.0])              # -3 / (m l^2)
    array([-1.5])
    """
    if joint not in self.joints or not self.joints[joint].ndof:
        raise SignalError(
            f"add_joint_law: {joint!r} is not a revolute or prismatic joint of this mechanism"
        )
    if not callable(law):
        raise SignalError(f"add_joint_law: the law of joint {joint!r} must be callable")
    self.__dict__.setdefault("joint_laws", {})[joint] = law
