"""Two-link arms: the LFT-multibody paper's (seed 000, Table 1) and Lin & Yae's (seed 002)."""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError
from ..lft import ureal
from ..lft.arguments import real_number
from ..multibody import Mechanism, RevoluteJoint, RigidBody, WeldJoint, gravity

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
    if not isinstance(uncertain, bool | np.bool_):
        raise ArgumentError(f"two_link_arm: uncertain must be True or False, got {uncertain!r}")
    p = TWO_LINK_ARM_TABLE1
    if uncertain:
        m1 = ureal("m1", p["m1"], percent=20, unit="kg", description="mass of link 1")
        j1 = ureal(
            "J1", p["J1"], percent=20, unit="kg m^2", description="inertia of link 1 about its CoG"
        )
        rho1 = ureal(
            "rho1", p["rho1"], percent=20, unit="-", description="CoG of link 1, fraction of L1"
        )
        l2 = ureal("L2", p["L2"], percent=20, unit="m", description="length of link 2")
        m3 = ureal("m3", p["m3"], percent=20, unit="kg", description="tip payload mass")
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
