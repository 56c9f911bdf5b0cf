"""Signal names of the multibody building blocks.

Every block of :mod:`robustmb.multibody` (bodies, joints, bases) exchanges
three kinds of signals, each named after the body and port it belongs to so
that :func:`robustmb.connect` can wire a mechanism by names alone:

``{body}_{port}_{c}`` -- motion of ``body`` at ``port`` (body axes)
    The linearised motion vector ``dm = [da; dx''; dx'; dx]`` of seed 000
    (eq. 11): ``c`` runs over ``frame_ax, frame_ay, frame_az`` (the
    acceleration of the reference frame, ``[a]_b``), ``ax, ay, az, alphax,
    alphay, alphaz`` (dual acceleration), ``vx ... wz`` (twist) and
    ``dx, dy, dz, rx, ry, rz`` (small displacement and small rotation).  With
    ``full_motion=False`` only the first 9 (accelerations) are exchanged.
``{body}_{port}_Fx ... {body}_{port}_Tz`` -- wrench applied ON ``body`` at ``port``
    By what is attached there (a child joint) or by an external source,
    in body axes, torque about the port.
``{body}_{port}_to_parent_Fx ... _Tz`` -- wrench applied BY ``body`` on its parent
    At its parent port, body axes (the output of an inverse-dynamics body,
    read by the joint above it).

Joint coordinates use the joint's own names: ``output_name`` (``q``),
``output_name + "_dot"`` and ``output_name + "_ddot"``; the effort input is
``input_name``.  A floating body's coordinates are ``{body}_dx ... {body}_rz``
(small displacement and rotation of its origin, equilibrium body axes).

python-control reserves ``.`` in signal specifications, so body, port and
joint names used in blocks must not contain it.
"""

from __future__ import annotations

from ..errors import SignalError

#: Components of the motion vector, in order (the first 9 are the accelerations).
MOTION_COMPONENTS = (
    ("frame_ax", "frame_ay", "frame_az")
    + ("ax", "ay", "az", "alphax", "alphay", "alphaz")
    + ("vx", "vy", "vz", "wx", "wy", "wz")
    + ("dx", "dy", "dz", "rx", "ry", "rz")
)
#: Components of a wrench: force then torque.
WRENCH_COMPONENTS = ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")
#: Coordinates of a floating body (small displacement and rotation of its origin).
POSE_COMPONENTS = ("dx", "dy", "dz", "rx", "ry", "rz")
#: Sizes of the motion vector: accelerations only, or the full vector of seed 000.
MOTION_SIZES = (9, 21)


def check_name(name, what):
    """A non-empty name usable in a signal name (no ``.``); returns it.

    Examples
    --------
    >>> from robustmb.multibody.signals import check_name
    >>> check_name("B1", "body")
    'B1'
    """
    if not isinstance(name, str) or not name:
        raise SignalError(f"{what} must be a non-empty string, got {name!r}")
    if "." in name:
        raise SignalError(
            f"{what} {name!r} contains '.', which signal specifications reserve "
            "('system.signal'); rename it"
        )
    return name


def motion_names(body, port, full_motion=True):
    """Names of the motion signals of ``body`` at ``port`` (21, or 9 accelerations).

    Examples
    --------
    >>> from robustmb.multibody import motion_names
    >>> motion_names("B1", "tip", full_motion=False)[:4]
    ['B1_tip_frame_ax', 'B1_tip_frame_ay', 'B1_tip_frame_az', 'B1_tip_ax']
    """
    n = 21 if full_motion else 9
    return [f"{body}_{port}_{c}" for c in MOTION_COMPONENTS[:n]]


def wrench_names(body, port):
    """Names of the wrench applied on ``body`` at ``port`` (body axes).

    Examples
    --------
    >>> from robustmb.multibody import wrench_names
    >>> wrench_names("B1", "tip")
    ['B1_tip_Fx', 'B1_tip_Fy', 'B1_tip_Fz', 'B1_tip_Tx', 'B1_tip_Ty', 'B1_tip_Tz']
    """
    return [f"{body}_{port}_{c}" for c in WRENCH_COMPONENTS]


def reaction_names(body, port):
    """Names of the wrench applied by ``body`` on its parent at its parent ``port``.

    Examples
    --------
    >>> from robustmb.multibody import reaction_names
    >>> reaction_names("B2", "P")[0]
    'B2_P_to_parent_Fx'
    """
    return [f"{body}_{port}_to_parent_{c}" for c in WRENCH_COMPONENTS]


def coordinate_names(body):
    """Coordinates of a floating body: small displacement and rotation of its origin.

    Examples
    --------
    >>> from robustmb.multibody.signals import coordinate_names
    >>> coordinate_names("sat")[3]
    'sat_rx'
    """
    return [f"{body}_{c}" for c in POSE_COMPONENTS]


def expand(key, n, joint=None):
    """Public scalar names of a structured signal key ``(kind, owner[, port])``.

    Blocks are built on structured keys (the assembler of :class:`Mechanism`
    uses them as internal names); this turns one into the public names above.
    ``joint`` gives the names of a joint's coordinate and effort.

    Examples
    --------
    >>> from robustmb.multibody.signals import expand
    >>> expand(("qdd", "sat"), 6)[0]
    'sat_dx_ddot'
    """
    kind = key[0]
    if kind == "motion":
        return motion_names(key[1], key[2], n == 21)
    if kind == "wrench":
        return wrench_names(key[1], key[2])
    if kind == "reaction":
        return reaction_names(key[1], key[2])
    if kind in _SUFFIX and n == 1:
        if kind == "effort":
            return [joint.input_name]
        return [joint.output_name + _SUFFIX[kind]]
    if kind in _SUFFIX and n == 6:
        return [c + _SUFFIX[kind] for c in coordinate_names(key[1])]
    raise SignalError(f"no public name for the signal {key!r}")  # pragma: no cover


_SUFFIX = {"q": "", "qd": "_dot", "qdd": "_ddot", "effort": ""}
