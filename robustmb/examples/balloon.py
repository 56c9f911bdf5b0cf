"""The balloon and gondola of the nonlinear TITOP paper (seed 001)."""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, DimensionError
from ..multibody import Mechanism, RevoluteJoint, RigidBody
from ..multibody._generic import numeric_value, sequence_entries

#: Balloon and gondola of the nonlinear TITOP paper (seed 001, Table 1).
BALLOON_GONDOLA_TABLE1 = {
    "m_balloon": 10.0,
    "J_balloon": [[5.0, 0.0, 0.0], [0.0, 10.0, -7.0], [0.0, -7.0, 10.0]],
    "CB": [0.0, 2.0, 0.0],
    "g": 9.81,
    "m_slider": 1.0,
    "slider_axis": [1.0, 0.0, -1.0],
    "m_p1": 2.0,
    "SP1": [0.0, -1.2, 0.0],
    "m_p2": 3.0,
    "P1P2": [0.0, -1.6, 0.0],
    "theta1_0_deg": 170.0,
    "theta2_0_deg": -170.0,
}


def _number(x, what):
    """``x`` as a finite float, naming ``what``; the balloon is a numeric nonlinear model."""
    why = (
        "the balloon and gondola is a numeric nonlinear model (uncertain parameters are "
        "not supported)"
    )
    v = numeric_value(x, f"balloon_gondola: {what}", why=why)
    if not np.isfinite(v):
        raise ArgumentError(f"balloon_gondola: {what} must be finite, got {x!r}")
    return v


def balloon_gondola(*, k=50.0, damping=(0.0, 0.0, 0.0), world_rotation=None):
    """The 9-dof balloon and gondola of seed 001 as a nonlinear :class:`Mechanism`.

    A balloon (floating base, 6 dof) carries, 2 m below its centre of mass,
    a slider (point mass on a prismatic joint along ``[1, 0, -1]``) that
    holds a double point-mass pendulum (two revolute joints about the
    balloon's ``z`` axis); gravity is 9.81 m/s^2 along ``-y`` and a buoyancy
    force equal to the total weight (16 kg) acts upwards at the balloon's
    centre of mass, fixed in the inertial frame.

    Parameters
    ----------
    k : float
        Slider spring (N/m); the paper gives no value, 50 is the digest's choice.
    damping : 3 floats
        Slider, pendulum 1 and pendulum 2 dampers (the paper gives none; zero
        conserves energy).
    world_rotation : 3x3, optional
        Rotates gravity, buoyancy and the initial attitude together (the
        relative motion must not change).

    Returns
    -------
    (Mechanism, q0, v0)
        The mechanism (its equilibrium is the hanging one,
        ``p = theta1 = theta2 = 0``, :meth:`~Mechanism.equilibrium_coordinates`,
        where :meth:`~Mechanism.linearize` and :meth:`~Mechanism.linearize_at`
        agree), and Table 1's initial state: balloon at
        the origin at rest, ``p = 0``, ``theta1 = 170 deg``, ``theta2 = -170 deg``
        (relative angles; at zero both pendulums hang along ``-y``).
        Coordinates: balloon position and quaternion ``(x, y, z, w)``, then
        ``p, theta1, theta2``.

    Notes
    -----
    Assumptions where Table 1 is silent (digest 001, Sec. 4.2): point masses
    with no rotational inertia, the slider mass at the sliding point, joint
    frames aligned with the balloon at zero coordinates, balloon reference
    point at its centre of mass.  The balloon inertia (principal moments 3, 5,
    17 kg m^2) violates the triangle inequality; it is kept as published.

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> mech, q0, v0 = rmb.examples.balloon_gondola()
    >>> q0.size, v0.size
    (10, 9)
    >>> bool(np.allclose(mech.forward_dynamics(q0, v0, np.zeros(9))[:3], 0.0))
    False
    """
    from ..multibody import PrismaticJoint
    from ..multibody.attitude import quaternion_from_dcm
    from ..multibody.spatial import check_rotation

    p = BALLOON_GONDOLA_TABLE1
    k = _number(k, "k")
    if k < 0:
        raise ArgumentError(f"balloon_gondola: k must be non-negative, got {k}")
    # entry by entry: np.asarray(damping, dtype=object) iterates a 1x1 uncertain
    # expression (it has a length) and fails with a bare TypeError
    shape, entries = sequence_entries(damping, "balloon_gondola: damping")
    if shape != (3,):
        raise DimensionError(
            "balloon_gondola: damping must be 3 numbers (slider, pendulum 1, pendulum 2), "
            f"got shape {shape}"
        )
    damping = [_number(x, f"damping[{i}]") for i, x in enumerate(entries)]
    if min(damping) < 0:
        raise ArgumentError(f"balloon_gondola: damping must be non-negative, got {damping}")
    rot = (
        np.eye(3)
        if world_rotation is None
        else check_rotation(world_rotation, "balloon_gondola: world_rotation")
    )
    g_i = rot @ np.array([0.0, -p["g"], 0.0])
    mech = Mechanism(acceleration=-g_i, floating_base="balloon", base_orientation=rot)
    cb = np.asarray(p["CB"])
    mech.add_body(
        RigidBody(
            "balloon",
            mass=p["m_balloon"],
            inertia=p["J_balloon"],
            ports={"B": [0.0, 0.0, 0.0], "C": list(-cb)},
            allow_nonphysical_inertia=True,  # Table 1's moments 3, 5, 17 (Notes)
        )
    )
    mech.add_body(RigidBody("slider", mass=p["m_slider"], ports={"S": [0.0, 0.0, 0.0]}))
    mech.add_body(
        RigidBody("pendulum1", mass=p["m_p1"], cog=p["SP1"], ports={"S": [0, 0, 0], "P1": p["SP1"]})
    )
    mech.add_body(
        RigidBody(
            "pendulum2", mass=p["m_p2"], cog=p["P1P2"], ports={"P1": [0, 0, 0], "P2": p["P1P2"]}
        )
    )
    d_s, d_1, d_2 = (float(x) for x in damping)
    mech.add_joint(
        PrismaticJoint(
            "slide",
            ("balloon", "C"),
            ("slider", "S"),
            p["slider_axis"],
            stiffness=k,
            damping=d_s,
            input_name="F_slider",
            output_name="p",
        )
    )
    mech.add_joint(
        RevoluteJoint(
            "hinge1",
            ("slider", "S"),
            ("pendulum1", "S"),
            [0.0, 0.0, 1.0],
            damping=d_1,
            input_name="C_m1",
            output_name="theta1",
        )
    )
    mech.add_joint(
        RevoluteJoint(
            "hinge2",
            ("pendulum1", "P1"),
            ("pendulum2", "P1"),
            [0.0, 0.0, 1.0],
            damping=d_2,
            input_name="C_m2",
            output_name="theta2",
        )
    )
    total = p["m_balloon"] + p["m_slider"] + p["m_p1"] + p["m_p2"]
    mech.add_applied_wrench("buoyancy", "balloon", "B", list(-total * g_i) + [0.0, 0.0, 0.0])
    q0 = np.zeros(10)
    q0[3:7] = quaternion_from_dcm(rot, what="world_rotation", tol=1e-9)
    q0[8] = np.radians(p["theta1_0_deg"])
    q0[9] = np.radians(p["theta2_0_deg"])
    return mech, q0, np.zeros(9)
