"""Canonical models used by the documentation, the case studies and the tests."""

from __future__ import annotations

import numpy as np

from . import examples_assembly as assembly  # noqa: F401, I001  (robustmb.examples.assembly)
from .lft import ureal
from .lft.arguments import real_number
from .multibody import Mechanism, RevoluteJoint, RigidBody, WeldJoint, gravity

#: Table 1 of the LFT-multibody paper (seed 000): nominal values.
TWO_LINK_ARM_TABLE1 = {
    "m1": 3.0,
    "J1": 0.2,
    "L1": 1.0,
    "rho1": 0.3,
    "m2": 2.0,
    "J2": 0.1,
    "L2": 1.0,
    "rho2": 0.5,
    "m3": 5.0,
    "g": 9.81,
    "Kp": 0.1,
    "Kd": 0.1,
}
#: Operating ranges of the joint angles (degrees) used for the scheduling parameters.
TWO_LINK_ARM_ANGLE_RANGES = {"theta1": (45.0, 90.0), "theta2": (45.0, 135.0)}


def _tan_half_parameter(name, degrees):
    lo, hi = np.tan(np.radians(degrees) / 2.0)
    # Nominal at the middle of the t-range keeps the normalisation affine.
    return ureal(name, 0.5 * (lo + hi), range=(lo, hi))


def two_link_arm_mechanism(theta1=None, theta2=None, *, uncertain=True):
    """The two-link arm of :func:`two_link_arm` as a :class:`~robustmb.multibody.Mechanism`.

    Examples
    --------
    >>> from robustmb.examples import two_link_arm_mechanism
    >>> mech = two_link_arm_mechanism(0.5, 0.2, uncertain=False)
    >>> list(mech.joints)
    ['J1', 'J2', 'W3']
    """
    for name, theta in (("theta1", theta1), ("theta2", theta2)):
        if theta is not None:
            real_number(theta, name, "two_link_arm")
    p = TWO_LINK_ARM_TABLE1
    if uncertain:
        m1 = ureal("m1", p["m1"], percent=20)
        j1 = ureal("J1", p["J1"], percent=20)
        rho1 = ureal("rho1", p["rho1"], percent=20)
        l2 = ureal("L2", p["L2"], percent=20)
        m3 = ureal("m3", p["m3"], percent=20)
    else:
        m1, j1, rho1, l2, m3 = p["m1"], p["J1"], p["rho1"], p["L2"], p["m3"]
    l1, m2, j2, rho2 = p["L1"], p["m2"], p["J2"], p["rho2"]
    mech = Mechanism(acceleration=gravity(p["g"], direction=(0.0, 0.0, -1.0)))
    # Links lie along their body z axis; both joints turn about +x.
    mech.add_body(
        RigidBody(
            "B1",
            mass=m1,
            inertia=j1,
            cog=[0.0, 0.0, rho1 * l1],
            ports={"P": [0.0, 0.0, 0.0], "tip": [0.0, 0.0, l1]},
        )
    )
    mech.add_body(
        RigidBody(
            "B2",
            mass=m2,
            inertia=j2,
            cog=[0.0, 0.0, rho2 * l2],
            ports={"P": [0.0, 0.0, 0.0], "tip": [0.0, 0.0, l2]},
        )
    )
    mech.add_body(RigidBody("B3", mass=m3, inertia=0.0, ports={"P": [0.0, 0.0, 0.0]}))
    angles = {}
    for key, value in (("theta1", theta1), ("theta2", theta2)):
        if value is None:
            tname = "t1" if key == "theta1" else "t2"
            angles[key] = {"tan_half": _tan_half_parameter(tname, TWO_LINK_ARM_ANGLE_RANGES[key])}
        else:
            angles[key] = {"angle": float(value)}
    common = {"stiffness": p["Kp"], "damping": p["Kd"], "inertia": 0.0}
    mech.add_joint(
        RevoluteJoint(
            "J1",
            ("ground", "O"),
            ("B1", "P"),
            [1.0, 0.0, 0.0],
            input_name="T1",
            output_name="theta1",
            **angles["theta1"],
            **common,
        )
    )
    mech.add_joint(
        RevoluteJoint(
            "J2",
            ("B1", "tip"),
            ("B2", "P"),
            [1.0, 0.0, 0.0],
            input_name="T2",
            output_name="theta2",
            **angles["theta2"],
            **common,
        )
    )
    mech.add_joint(WeldJoint("W3", ("B2", "tip"), ("B3", "P")))
    return mech


def two_link_arm(theta1=None, theta2=None, *, uncertain=True):
    """The robotic arm of the LFT-multibody paper (seed 000, Table 1) as one uncertain system.

    Parameters
    ----------
    theta1, theta2 : float or None
        Equilibrium angles in radians.  ``None`` makes the angle a scheduling
        element ``t1`` / ``t2`` = tan(theta/2) with range tan([45, 90] deg / 2)
        for theta1 and tan([45, 135] deg / 2) for theta2 (nominal: middle of the
        range).
    uncertain : bool
        ``True``: ``m1, J1, rho1, L2, m3`` are ureals at +-20 % of Table 1;
        ``False``: their nominal values.

    Returns
    -------
    UncertainSystem
        Inputs ``["T1", "T2"]`` (joint torques), outputs ``["theta1", "theta2"]``,
        4 states ``[theta1, theta2, theta1_dot, theta2_dot]``.

    Notes
    -----
    Both joints turn about +x; theta1 is link 1's angle from the upward vertical
    +z and theta2 link 2's angle relative to link 1; gravity is 9.81 m/s^2 along
    -z; each joint has stiffness 0.1 N m/rad, damping 0.1 N m s/rad and no rotor
    inertia.  rho is the centre of gravity's distance from the link's proximal end
    over its length; B3 is a point mass at the distal end of link 2; J is each
    link's moment of inertia about its centre of gravity (``J * I3``).

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> G = rmb.examples.two_link_arm()
    >>> G.input_names, G.output_names
    (['T1', 'T2'], ['theta1', 'theta2'])
    >>> sorted(G.blocks)
    ['J1', 'L2', 'm1', 'm3', 'rho1', 't1', 't2']
    >>> P = rmb.examples.two_link_arm(np.radians(70), np.radians(30), uncertain=False)
    >>> P.nstates
    4
    """
    return two_link_arm_mechanism(theta1, theta2, uncertain=uncertain).linearize()


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
        The mechanism (its linear-model equilibrium is the hanging one,
        ``p = theta1 = theta2 = 0``), and Table 1's initial state: balloon at
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
    from .multibody import PrismaticJoint
    from .multibody.attitude import quaternion_from_dcm

    p = BALLOON_GONDOLA_TABLE1
    rot = np.eye(3) if world_rotation is None else np.asarray(world_rotation, dtype=float)
    g_i = rot @ np.array([0.0, -p["g"], 0.0])
    mech = Mechanism(acceleration=-g_i, floating_base="balloon", base_orientation=rot)
    cb = np.asarray(p["CB"])
    mech.add_body(
        RigidBody(
            "balloon",
            mass=p["m_balloon"],
            inertia=p["J_balloon"],
            ports={"B": [0.0, 0.0, 0.0], "C": list(-cb)},
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
    q0[3:7] = quaternion_from_dcm(rot)
    q0[8] = np.radians(p["theta1_0_deg"])
    q0[9] = np.radians(p["theta2_0_deg"])
    return mech, q0, np.zeros(9)


#: Standard gravity used by the two-link arm of Lin & Yae (seed 002, digest Sec. 4.1).
LIN_YAE_GRAVITY = 9.80665


def lin_yae_two_link():
    """The two-link arm of Lin & Yae (seed 002, Eq. 33) as a nonlinear :class:`Mechanism`.

    A planar arm in the vertical ``(x, y)`` plane hanging along ``-y`` at zero
    angles, both joints about ``z``; each link has mass 10 kg, its centroid
    1 m from its joint and a centroidal inertia of 20 kg m^2; the joints are
    2 m apart; g = 9.80665 m/s^2.  The paper gives no parameters: these are
    the digest's exact fit of the printed Eq. 33 (digest 002, Sec. 4.1).
    Torques ``T1, T2`` act on the child link (the paper's printed input matrix
    is the opposite, ``-M^-1``).

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> lin = rmb.examples.lin_yae_two_link().linearize_at(np.zeros(2), np.zeros(2))
    >>> lin.M                                   # (theta1, theta2) order
    array([[140.,  50.],
           [ 50.,  30.]])
    """
    mech = Mechanism(acceleration=gravity(LIN_YAE_GRAVITY, direction=(0.0, -1.0, 0.0)))
    mech.add_body(
        RigidBody(
            "link1",
            mass=10.0,
            inertia=20.0,
            cog=[0.0, -1.0, 0.0],
            ports={"P": [0.0, 0.0, 0.0], "tip": [0.0, -2.0, 0.0]},
        )
    )
    mech.add_body(
        RigidBody("link2", mass=10.0, inertia=20.0, cog=[0.0, -1.0, 0.0], ports={"P": [0, 0, 0]})
    )
    z = [0.0, 0.0, 1.0]
    for k, parent in ((1, ("ground", "O")), (2, ("link1", "tip"))):
        mech.add_joint(
            RevoluteJoint(
                f"J{k}", parent, (f"link{k}", "P"), z, input_name=f"T{k}", output_name=f"theta{k}"
            )
        )
    return mech


def decoupling_pd_gains(lin, omega, zeta):
    """Decoupling PD gains of Lin & Yae (seed 002, Eqs. 34-38, consistent signs).

    With ``M dq'' = P1 dq' + P2 dq + P3 du`` and ``du = -K_V dq' - K_P dq``,
    ``K_V = P3^-1 (M L1 + P1)`` and ``K_P = P3^-1 (M L2 + P2)`` make the
    closed loop ``dq'' + L1 dq' + L2 dq = 0``, ``L1 = diag(2 zeta omega)``,
    ``L2 = diag(omega^2)``.

    Returns
    -------
    (K_P, K_V)

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> lin = rmb.examples.lin_yae_two_link().linearize_at(np.zeros(2), np.zeros(2))
    >>> kp, kv = rmb.examples.decoupling_pd_gains(lin, [2.0, 3.0], [0.7, 0.7])
    >>> a_cl = lin.A - lin.B[:, :2] @ np.hstack([kp, kv])
    >>> np.sort(np.linalg.eigvals(a_cl).real).round(6)
    array([-2.1, -2.1, -1.4, -1.4])
    """
    n = lin.M.shape[0]
    omega = np.broadcast_to(np.asarray(omega, dtype=float), (n,))
    zeta = np.broadcast_to(np.asarray(zeta, dtype=float), (n,))
    p3 = lin.P3[:, :n]
    kv = np.linalg.solve(p3, lin.M @ np.diag(2.0 * zeta * omega) + lin.P1)
    kp = np.linalg.solve(p3, lin.M @ np.diag(omega**2) + lin.P2)
    return kp, kv


def two_carts_loop():
    """Two carts joined by an uncertain spring, under a high-gain lead controller.

    The 7-state loop of MATLAB's "Getting Reliable Estimates of Robustness Margins"
    example: cart masses ``m1``, ``m2`` and spring stiffness ``k`` (each 1 +- 20 %),
    the spring closed around the two double integrators as an LFT, and the controller
    ``K(s) = 100 ((s + 1) / (0.001 s + 1))^3`` in unit negative feedback.

    Returns
    -------
    UncertainSystem
        The closed loop, with elements ``m1``, ``m2`` and ``k``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> loop = rmb.examples.two_carts_loop()
    >>> sorted(loop.blocks), loop.nstates
    (['k', 'm1', 'm2'], 7)
    """
    import control

    from .lft import feedback, hstack, lft_lower, uss, vstack

    m1 = ureal("m1", 1.0, percent=20)
    m2 = ureal("m2", 1.0, percent=20)
    k = ureal("k", 1.0, percent=20)
    s = control.tf("s")
    g1 = uss(control.ss(1 / (s * s))) / m1
    g2 = uss(control.ss(1 / (s * s))) / m2
    f = vstack(0.0, g1) @ hstack(1.0, -1.0) + vstack(1.0, -1.0) @ hstack(0.0, g2)
    c = uss(100 * control.ss(((s + 1) / (0.001 * s + 1)) ** 3))
    return feedback(lft_lower(f, k) @ c, 1.0)
