"""On-orbit assembly of a flexible structure by a walking robot (seed 003, Rodrigues et al.).

Available as ``robustmb.examples.assembly``.  Data of Tables 2 and 3 (digest
003, Sec. 5); the spacecraft is assembled from TITOP blocks (Fig. 6): the
rigid hub as a 3-port inverse model (Eq. 9), the flexible solar array as a
one-port (its first frequency a ``ureal`` of +-20 %, ``delta I2``), the rigid
tile stack (Eq. 13), the growing structure ``F_n`` as a two-port clamped at P2
and loaded at the docking port ``C_j``, and the robot.

What the paper's data do not give, and what is assumed here (so the paper's
percentages are not reproducible, digest Sec. 7):

- The FE modal data of ``F_n`` exist only for ``F_1`` (port ``C_1``) and
  ``F_26`` (port ``C_25``); every other ``(n, j)`` uses the rigid structure
  (mass and inertia of the tile plates of the inferred 4 x 7 layout).  The
  ``F_1`` data give an indefinite residual mass, which is warned about.
- The arm geometry (link vectors, joint axes) is only in a figure.  The robot
  is either lumped -- one rigid body at the docking port: its 130 kg (+ the
  carried tile) with the centre of mass 0.5 m off the structure and the inertia
  of a uniform sphere of radius 0.5 m (``ROBOT_LUMPED``), docked leg and joint
  angles then change nothing -- or posed (``spacecraft(..., angles=...)``): hub,
  three 5-joint arms with Table 3's masses and CoMs on an assumed geometry
  (``ARM``: link vectors along the CoM offsets, three times as long; roll,
  three pitches, roll), and the carried tile; :func:`align_effector` is the
  inverse kinematics of the "aligned" configuration of an edge and
  :func:`quintic` / :func:`edge_waypoints` its trajectories (digest Sec. 4.2).
- Graph rules, layout and assembly order are the inferred ones of digest Sec. 4.1,
  which reproduce the paper's counts (1624 models, 56 graphs, 8672 edges,
  7 moves on the F27 example path, 98 grid points).

Examples
--------
>>> from robustmb.examples import assembly
>>> assembly.model_count(), assembly.edge_count()
(1624, 8672)
"""

from __future__ import annotations

import itertools
import numbers
import warnings

import numpy as np

from ..errors import ArgumentError, ResidualMassWarning, warn
from ..lft import connect, ureal
from ..lft.model import UncertainSystem
from ..multibody import FlexibleBody, frame_change_block, rigid_nport

HZ = 2.0 * np.pi
N_TILES = 28
ACC = ("ax", "ay", "az", "alphax", "alphay", "alphaz")
WR = ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")

#: Table 2, rigid hub B (frame R_b at its CoM G).  The product of inertia sign
#: cannot be resolved from the paper (digest Sec. 7 item 4); ``+3.84`` is kept as printed.
HUB = {
    "mass": 166.0,
    "inertia": np.array([[21.6256, 3.84, 0.0], [3.84, 15.6256, 0.0], [0.0, 0.0, 30.6738]]),
    "ports": {"P1": [0.0, -0.5, 0.0], "P2": [-0.5, 0.5, 0.7125], "P3": [0.5, 0.0, 0.7125]},
}
#: Table 2, solar array A (frame R_a, origin P1); P_{a/b} = diag(-1, -1, 1).
#: Table 2 prints 6 rows of the participation factors but only the first 2 frequencies
#: (modes 3-6 have none anywhere in the paper, digest Sec. 7), so only the rows of modes
#: 1 and 2 are kept.  The rigid mass at P1 is unchanged: what the 4 dropped modes carried
#: stays in the residual mass D - L^T L, which only grows (stays positive definite).
SOLAR_ARRAY = {
    "mass": 88.93,
    "inertia": np.array([[33.0918, 0, 0], [0, 7.3819, -0.0002], [0, -0.0002, 40.4578]]),
    "com": np.array([0.0, 1.0934, 0.0014]),
    "frequencies_hz": (1.2850, 6.5896),
    "damping": 0.01,
    "participation": np.array(
        [
            [-0.0007, -0.0078, 7.8872, 11.7690, 0.0005, 0.0010],
            [-7.9401, 0, 0.0007, -0.0008, 0.1089, 12.1014],
        ]
    ),
    "dcm": np.diag([-1.0, -1.0, 1.0]),
}
#: Table 3, modular tile: mass and inertia about its centre.
TILE = {"mass": 6.0423, "inertia": np.diag([0.5041, 0.5041, 1.0071])}
#: Table 2, flexible structure data that exist: F1 at C1 and F26 at C25.
STRUCTURE_MODES = {
    (1, 1): {
        "frequencies_hz": (30.7169, 35.1732, 50.2930),
        "participation": np.array(
            [
                [-0.2004, 0.2004, 0, 0, 0, 0.6902],
                [0, 0, -0.3290, -0.5375, 0.5375, 0],
                [0, 0, 0, 0.9139, 0.9139, 0],
            ]
        ),
        "mode_shapes": np.array(
            [
                [-1.2677, 0, 0],
                [1.2677, 0, 0],
                [0, -2.0936, 0],
                [0, -1.3080, 0.5019],
                [0, -0.7856, 0.5019],
                [0.6827, 0, 0],
            ]
        ),
    },
    (26, 25): {
        "frequencies_hz": (0.9120, 2.1, 2.99),
        "participation": np.array(
            [
                [0, 0, -0.1427, -0.0276, 0.0039, 0],
                [0.1289, 0.0112, 0, 0, 0, -0.0203],
                [0, 0, 0.1352, 0.0262, 0.0680, 0],
            ]
        ),
        "mode_shapes": np.array(
            [
                [0, 9.9969, 0],
                [0, -2.7773, 0],
                [-10.3108, 0, -2.9745],
                [-47.2211, 0, 0.0796],
                [-1.0374, 0, 12.7970],
                [0, -48.1478, 0],
            ]
        ),
    },
}
STRUCTURE_DAMPING = 0.005
#: Stack CoM from P3 (frame R_s = R_b).
STACK_COM = np.array([0.5, 0.0, 0.0])
#: Robot mass from Table 3 (hub 10 kg + 3 arms of 40 kg); the rest is an assumption.
ROBOT_LUMPED = {"mass": 130.0, "com_offset": np.array([0.0, 0.0, 0.5]), "radius": 0.5}
#: Attitude PD of Eq. 15: omega_att = 0.01 Hz (in rad/s here), xi_att = 1.
OMEGA_ATT, XI_ATT = 0.01 * HZ, 1.0
#: Trajectory waypoints per edge trajectory (two trajectories per edge).
Z_WAYPOINTS = 7


# ----------------------------------------------------------------- layout and counts
def tile_offsets(n_tiles=N_TILES):
    """Tile centres from P2 (structure frame = hub frame), in assembly order (inferred)."""
    order = [(x, r + 0.5) for r in range(7) for x in (0.5, 1.5, -0.5, -1.5)]
    return np.array([[x, y, 0.0] for x, y in order[:n_tiles]])


def _adjacent(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def model_count(n_tiles=N_TILES):
    """``2 N (N + 1)``: one model per (structure n, docking tile j, docked leg, carrying)."""
    return sum(4 * n for n in range(1, n_tiles + 1))


def planning_graphs(n_tiles=N_TILES):
    """The pick-up and assembly digraphs of every structure ``F_n`` (networkx).

    Nodes ``(j, leg)`` (tile ``j`` 1-based, leg 1 or 2) and ``0`` (the stack,
    pick-up graphs) or ``"*"`` (the next tile's slot, assembly graphs).

    Returns
    -------
    list of (kind, n, networkx.DiGraph)
    """
    import networkx as nx

    pos = [tuple(p[:2]) for p in tile_offsets(n_tiles)]
    stack_neighbours = {0, 1}  # tiles 1 and 2 border the stack (inferred)
    graphs = []
    for n in range(1, n_tiles + 1):
        walk = nx.DiGraph()
        for j in range(n):
            for leg in (1, 2):
                walk.add_node((j + 1, leg))
        for j, k in itertools.permutations(range(n), 2):
            if _adjacent(pos[j], pos[k]):
                for leg in (1, 2):
                    walk.add_edge((j + 1, leg), (k + 1, 3 - leg))
        pick = walk.copy()
        pick.add_node(0)
        for j in range(n):
            if j in stack_neighbours:
                for leg in (1, 2):
                    pick.add_edge((j + 1, leg), 0)
        asm = walk.copy()
        asm.add_node("*")
        if n < n_tiles:
            for j in range(n):
                if _adjacent(pos[j], pos[n]):
                    for leg in (1, 2):
                        asm.add_edge((j + 1, leg), "*")
        graphs += [("pickup", n, pick), ("assembly", n, asm)]
    return graphs


def edge_count(n_tiles=N_TILES):
    """Total number of edges ``M`` of the planning graphs (8672 for N = 28)."""
    return sum(g.number_of_edges() for _, _, g in planning_graphs(n_tiles))


# ----------------------------------------------------------------- mechanics
def structure_rigid_data(n):
    """Mass, inertia at its CoM and CoM from P2 of the rigid structure of ``n`` tiles."""
    c = tile_offsets(n)
    m = TILE["mass"] * n
    com = c.mean(axis=0)
    j = n * TILE["inertia"].copy()
    for r in c - com:
        j += TILE["mass"] * (r @ r * np.eye(3) - np.outer(r, r))
    return m, j, com


def _sphere(mass, radius):
    return 0.4 * mass * radius**2 * np.eye(3)


def _robot_block_data(angles, leg, carrying):
    """Mass, central inertia and CoM from ``C_j`` of the robot: posed arms or lumped."""
    if angles is not None:
        return robot_rigid_data(angles, leg=leg, carrying=carrying)
    rm = ROBOT_LUMPED["mass"] + (TILE["mass"] if carrying else 0.0)
    return rm, _sphere(rm, ROBOT_LUMPED["radius"]), ROBOT_LUMPED["com_offset"]


def spacecraft(n, tile, *, carrying=False, leg=1, uncertain=True, angles=None):
    """Global inverse model at the hub CoM G for structure ``F_n`` docked at ``tile``.

    Parameters
    ----------
    n : int
        Number of assembled tiles (1..28).
    tile : int
        Docking tile ``j`` (1..n).
    carrying : bool
        Whether the robot carries a tile (it then leaves the stack).
    leg : {1, 2}
        Docked leg (with ``angles``: the arm rooted at ``C_j``).
    angles : (3, 5) array, optional
        Joint angles of arms R1, R2, R3: the robot is then the posed hub, arms and
        carried tile (:func:`robot_rigid_data`, frozen: the paper's joint angles
        are scheduling parameters, not degrees of freedom); default: the lumped
        robot ``ROBOT_LUMPED``.
    uncertain : bool
        First solar-array frequency as ``ureal("w_sa1", ..., percent=20)``.

    Returns
    -------
    UncertainSystem
        Inputs ``ext_G_Fx..Tz`` (external wrench at G, hub frame) and
        ``ext_C_Fx..Tz`` (external wrench on the structure at ``C_j``);
        outputs ``G_ax..alphaz`` (acceleration twist at G).

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> H = assembly.spacecraft(3, 2)
    >>> H.shape, H.blocks
    ((6, 12), {'w_sa1': 2})
    """
    n, tile = _structure(n, tile, "spacecraft")
    if leg not in (1, 2):
        raise ArgumentError(f"spacecraft: leg must be 1 or 2, got {leg}")
    sa = SOLAR_ARRAY
    w1 = sa["frequencies_hz"][0] * HZ
    if uncertain:
        w1 = ureal("w_sa1", w1, percent=20)
    blocks = [rigid_nport("hub", HUB["mass"], HUB["inertia"], HUB["ports"])]
    blocks.append(
        FlexibleBody(
            "sa",
            sa["mass"],
            sa["inertia"],
            sa["com"],
            sa["participation"],
            [w1, sa["frequencies_hz"][1] * HZ],
            sa["damping"],
        ).titop()
    )
    blocks.append(
        frame_change_block(
            "sa_down", sa["dcm"].T, [f"hub_P1_{c}" for c in ACC], [f"sa_P_{c}" for c in ACC]
        )
    )
    blocks.append(
        frame_change_block(
            "sa_up", sa["dcm"], [f"sa_P_to_parent_{c}" for c in WR], [f"hub_P1_{c}" for c in WR]
        )
    )
    n_stack = N_TILES - n - int(bool(carrying))
    conns = []
    if n_stack > 0:
        stack = FlexibleBody(
            "stack",
            TILE["mass"] * n_stack,
            TILE["inertia"] * n_stack,
            STACK_COM,
            np.zeros((0, 6)),
            [],
            0.0,
        ).titop()
        blocks.append(stack)
        conns += [[f"stack.stack_P_{c}", f"hub.hub_P3_{c}"] for c in ACC]
        conns += [[f"hub.hub_P3_{c}", f"stack.stack_P_to_parent_{c}"] for c in WR]
    m, jc, com = structure_rigid_data(n)
    pc = tile_offsets(n)[tile - 1]
    modes = STRUCTURE_MODES.get((n, tile))
    if modes is None:
        lmat, freqs, phi = np.zeros((0, 6)), [], np.zeros((6, 0))
    else:
        lmat, phi = modes["participation"], modes["mode_shapes"]
        freqs = [f * HZ for f in modes["frequencies_hz"]]
    with warnings.catch_warnings():
        # F1's tabulated modes are inconsistent (digest Sec. 7 item 3): warned once per call.
        warnings.simplefilter("ignore", ResidualMassWarning)
        fn = FlexibleBody(
            "fn", m, jc, com, lmat, freqs, STRUCTURE_DAMPING, mode_shapes=phi, child=pc
        )
    lam = np.linalg.eigvalsh(fn.residual_mass)[0]
    if lam <= 0:
        warn(
            f"spacecraft: structure F_{n} at C_{tile} has an indefinite residual mass "
            f"(smallest eigenvalue {lam:.3g}); modal data as printed in the paper",
            ResidualMassWarning,
        )
    blocks.append(fn.titop())
    conns += [[f"fn.fn_P_{c}", f"hub.hub_P2_{c}"] for c in ACC]
    conns += [[f"hub.hub_P2_{c}", f"fn.fn_P_to_parent_{c}"] for c in WR]
    rm, rj, rc = _robot_block_data(angles, leg, carrying)
    robot = FlexibleBody("robot", rm, rj, rc, np.zeros((0, 6)), [], 0.0).titop()
    blocks.append(robot)
    conns += [[f"robot.robot_P_{c}", f"fn.fn_C_{c}"] for c in ACC]
    conns += [[f"fn.fn_C_{c}", f"robot.robot_P_to_parent_{c}"] for c in WR]
    conns += [[f"sa_down.hub_P1_{c}", f"hub.hub_P1_{c}"] for c in ACC]
    conns += [[f"sa.sa_P_{c}", f"sa_down.sa_P_{c}"] for c in ACC]
    conns += [[f"sa_up.sa_P_to_parent_{c}", f"sa.sa_P_to_parent_{c}"] for c in WR]
    conns += [[f"hub.hub_P1_{c}", f"sa_up.hub_P1_{c}"] for c in WR]
    sys = connect(
        blocks,
        connections=conns,
        inputs=[f"hub.hub_G_ext_{c}" for c in WR] + [f"fn.fn_C_{c}" for c in WR],
        outputs=[f"hub.hub_G_{c}" for c in ACC],
        check_unused=False,
    )
    sys.input_names = [f"ext_G_{c}" for c in WR] + [f"ext_C_{c}" for c in WR]
    sys.output_names = [f"G_{c}" for c in ACC]
    sys.name = f"F{n}_C{tile}_R{leg}_{'carry' if carrying else 'free'}"
    return sys


def _structure(n, tile, fn):
    """``(n, tile)`` as ints: whole numbers with ``1 <= n <= N_TILES`` and ``1 <= tile <= n``."""
    out = []
    for what, x, hi in (("n", n, N_TILES), ("tile", tile, None)):
        whole = isinstance(x, numbers.Integral) and not isinstance(x, bool)
        if not whole and isinstance(x, numbers.Real) and float(x).is_integer():
            whole = True
        top = hi if hi is not None else out[0]
        if not whole or not 1 <= int(x) <= top:
            raise ArgumentError(f"{fn}: {what} must be a whole number in 1..{top}, got {x!r}")
        out.append(int(x))
    return tuple(out)


def rigid_inertia_at_g(n, tile, *, carrying=False, angles=None, leg=1):
    """``D_G^tot`` (6x6) by direct summation of the rigid bodies (no TITOP algebra)."""
    n, tile = _structure(n, tile, "rigid_inertia_at_g")

    def at_g(m, jc, c):
        s = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
        return np.block([[m * np.eye(3), -m * s], [m * s, jc - m * s @ s]])

    p1, p2, p3 = (np.asarray(HUB["ports"][k]) for k in ("P1", "P2", "P3"))
    sa, r = SOLAR_ARRAY, SOLAR_ARRAY["dcm"]
    d = at_g(HUB["mass"], HUB["inertia"], np.zeros(3))
    d += at_g(sa["mass"], r @ sa["inertia"] @ r.T, p1 + r @ sa["com"])
    n_stack = N_TILES - n - int(bool(carrying))
    if n_stack > 0:
        d += at_g(TILE["mass"] * n_stack, TILE["inertia"] * n_stack, p3 + STACK_COM)
    m, jc, com = structure_rigid_data(n)
    d += at_g(m, jc, p2 + com)
    if angles is None:
        rm = ROBOT_LUMPED["mass"] + (TILE["mass"] if carrying else 0.0)
        pc = p2 + tile_offsets(n)[tile - 1] + ROBOT_LUMPED["com_offset"]
        d += at_g(rm, _sphere(rm, ROBOT_LUMPED["radius"]), pc)
        return d
    for mb, jb, cb in robot_pose(angles, leg=leg, carrying=carrying)["bodies"]:
        d += at_g(mb, jb, p2 + tile_offsets(n)[tile - 1] + cb)  # body by body
    return d


# ----------------------------------------------------------------- robot arms
#: Table 3, per arm (links L0..L5, frame of link i at joint J_i): masses, CoM in the
#: link frame, central inertia (isotropic, so only the CoM positions depend on the pose).
ARM = {
    "masses": np.array([5.0, 5.0, 10.0, 5.0, 10.0, 5.0]),
    "coms": np.array(
        [
            [0.0, 0.0, 0.0625],
            [0.0, 0.0, 0.05],
            [-0.1062, 0.0, 0.0],
            [0.0, 0.0, 0.0810],
            [-0.1031, 0.0, 0.0],
            [0.0, 0.0, 0.0810],
        ]
    ),
    "inertias": np.array([0.2, 0.2, 0.4, 0.2, 0.4, 0.2]),
    #: ASSUMED (Fig. 4a only, digest Sec. 7 item 5): link vectors J_i J_{i+1} in link
    #: frame i, along the CoM offsets and three times as long (1.455 m per arm):
    #: twice (CoM mid-link, 0.97 m) does not reach the diagonal tiles of the
    #: 8-neighbour moves with the end effector normal to the structure, three times does ...
    "links": 3.0
    * np.array(
        [
            [0.0, 0.0, 0.0625],
            [0.0, 0.0, 0.05],
            [-0.1062, 0.0, 0.0],
            [0.0, 0.0, 0.0810],
            [-0.1031, 0.0, 0.0],
            [0.0, 0.0, 0.0810],
        ]
    ),
    #: ... and the axes of joints 1..5 (joint k at J_k, in link frame k - 1):
    #: roll, three pitches, roll -- a 5-dof arm that can both reach and orient.
    "axes": np.array([[0, 0, 1.0], [0, 1.0, 0], [0, 1.0, 0], [0, 1.0, 0], [0, 0, 1.0]]),
}
# printed with 0.866: R_y(+-120 deg) diag(1, -1, -1) exactly (digest Sec. 5.2), so that
# the frames stay orthonormal
_S3 = np.sqrt(3.0) / 2.0
_RY120 = np.array([[-0.5, 0.0, -_S3], [0.0, -1.0, 0.0], [-_S3, 0.0, 0.5]])
#: Table 3, robot hub C (frame R_c, CoM D): arm ports D J6 and P_{l5/c} per arm.
ROBOT_HUB = {
    "mass": 10.0,
    "inertia": 0.6 * np.eye(3),
    "ports": np.array([[0.1, 0.0, 0.0], [-0.05, 0.0, -0.0866], [-0.05, 0.0, 0.0866]]),  # printed
    "l5_in_c": [
        np.eye(3),
        _RY120,
        np.array([[-0.5, 0.0, _S3], [0.0, -1.0, 0.0], [_S3, 0.0, 0.5]]),
    ],
}


def _rot(axis, angle):
    """Rodrigues for a unit axis; complex-step safe."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


def arm_chain_poses(angles):
    """Frames of links L0..L5 and points J0..J6 of one arm, in the frame of L0 at J0.

    Returns ``(rotations (6, 3, 3), points (7, 3))``: ``rotations[i]`` holds the axes
    of link i, ``points[i]`` the joint ``J_i``.  Complex-step safe.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.examples import assembly
    >>> r, p = assembly.arm_chain_poses(np.zeros(5))
    >>> p[-1].round(4)                      # J6 at alpha = 0: the sum of the link vectors
    array([-0.6279,  0.    ,  0.8235])
    """
    a = np.asarray(angles)
    dt = np.result_type(a, float)
    rots = [np.eye(3, dtype=dt)]
    pts = [np.zeros(3, dtype=dt)]
    for k in range(6):
        pts.append(pts[k] + rots[k] @ ARM["links"][k])
        if k < 5:
            rots.append(rots[k] @ _rot(ARM["axes"][k], a[k]))
    return np.array(rots), np.array(pts)


def robot_pose(angles, *, leg=1, carrying=False):
    """Every body of the robot in the frame of the docked leg's end effector (at ``C_j``).

    ``angles`` (3, 5): joint angles of arms R1, R2, R3.  The docked leg's link L0
    is aligned with the structure (``P_{l0/f_n} = I``).

    Returns
    -------
    dict
        ``bodies``: list of ``(mass, central inertia, CoM)`` (hub, 18 links, tile);
        ``effectors``: per arm ``(R, p)`` of its end-effector frame (link L0 at J0).
    """
    ang = np.asarray(angles)
    if ang.shape != (3, 5):
        raise ArgumentError(f"robot_pose: angles must be (3, 5) (arm x joint), got {ang.shape}")
    if leg not in (1, 2):
        raise ArgumentError(f"robot_pose: leg must be 1 or 2, got {leg}")
    d = leg - 1
    r_d, p_d = arm_chain_poses(ang[d])
    # hub frame: R_c = R_l5 P_{c/l5}; D from the docked arm's J6
    rc = r_d[5] @ ROBOT_HUB["l5_in_c"][d].T
    pd = p_d[6] - rc @ ROBOT_HUB["ports"][d]
    bodies = [(ROBOT_HUB["mass"], ROBOT_HUB["inertia"].astype(r_d.dtype), pd)]
    effectors = [None] * 3
    for k in range(3):
        if k == d:
            rk, pk = r_d, p_d
            effectors[k] = (np.eye(3, dtype=r_d.dtype), np.zeros(3, dtype=r_d.dtype))
        else:
            # the chain from its J6 back to its J0: L0 = R_l5 (product of joint rotations)^-1
            r_loc, p_loc = arm_chain_poses(ang[k])
            r5 = rc @ ROBOT_HUB["l5_in_c"][k]
            base = r5 @ r_loc[5].T  # frame of L0 of arm k
            j6 = pd + rc @ ROBOT_HUB["ports"][k]
            org = j6 - base @ p_loc[6]
            rk = np.array([base @ r for r in r_loc])
            pk = np.array([org + base @ p for p in p_loc])
            effectors[k] = (rk[0], pk[0])
        for i in range(6):
            iso = ARM["inertias"][i] * np.eye(3)
            bodies.append((ARM["masses"][i], iso, pk[i] + rk[i] @ ARM["coms"][i]))
    if carrying:  # gripped at its centre by R3's end effector, frame R_t = L0 of R3
        rt, pt = effectors[2]
        bodies.append((TILE["mass"], rt @ TILE["inertia"] @ rt.T, pt))
    return {"bodies": bodies, "effectors": effectors}


def robot_rigid_data(angles, *, leg=1, carrying=False):
    """Mass, central inertia and CoM (from ``C_j``, structure axes) of the posed robot.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.examples import assembly
    >>> m, j, c = assembly.robot_rigid_data(np.zeros((3, 5)))
    >>> round(float(m), 6)
    130.0
    """
    bodies = robot_pose(angles, leg=leg, carrying=carrying)["bodies"]
    m = sum(b[0] for b in bodies)
    com = sum(b[0] * b[2] for b in bodies) / m
    j = 0.0
    for mb, jb, cb in bodies:
        r = cb - com
        j = j + jb + mb * ((r @ r) * np.eye(3) - np.outer(r, r))
    return m, j, com


def _effector_residual(angles, moving, target, leg):
    r, p = robot_pose(angles, leg=leg)["effectors"][moving]
    # aligned: the end-effector frame on the target's, axes those of the structure like
    # the docked leg's (P_{l0/f_n} = I), so the switch of the docked leg keeps the pose
    return np.r_[p - target, (r - np.eye(3)).ravel()]  # rank 6 near the solution


def _gauss_newton(ang, moving, target, leg, free, tol, max_iter):
    for _ in range(max_iter):
        res = _effector_residual(ang, moving, target, leg)
        if np.abs(res).max() <= tol:
            return ang, 0.0
        jac = np.zeros((res.size, len(free)))
        for c, (a_, k) in enumerate(free):  # complex steps: exact Jacobian
            e = ang.astype(complex)
            e[a_, k] += 1e-30j
            jac[:, c] = np.imag(_effector_residual(e, moving, target, leg)) / 1e-30
        step = np.linalg.lstsq(jac, res, rcond=None)[0]  # minimum norm
        step *= min(1.0, 0.3 / max(np.abs(step).max(), 1e-300))  # at most 0.3 rad a joint
        for c, (a_, k) in enumerate(free):
            ang[a_, k] -= step[c]
    return ang, float(np.abs(res).max())


def align_effector(moving, target, *, leg=1, angles=None, tol=1e-10, starts=24):
    """Inverse kinematics: joint angles that align an end effector with a target point.

    The docked leg (``leg``) and the ``moving`` arm (1, 2 or 3) move; the third arm
    keeps its angles.  Aligned means the end-effector frame at ``target`` (structure
    axes, from the docking port ``C_j``) with the axes of the structure, like the
    docked leg's (6 conditions, 10 joints).  Gauss-Newton
    with minimum-norm steps from ``angles`` (default all zero) and, if that start
    does not converge, from ``starts`` seeded random poses; of the solutions, the
    one with the smallest joint angles (wrapped to [-pi, pi]).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.examples import assembly
    >>> ang = assembly.align_effector(2, [1.0, 0.0, 0.0])   # walk to the next tile
    >>> r, p = assembly.robot_pose(ang)["effectors"][1]
    >>> bool(np.allclose(p, [1, 0, 0], atol=1e-9) and np.allclose(r, np.eye(3), atol=1e-9))
    True
    """
    if moving not in (1, 2, 3) or moving == leg:
        raise ArgumentError(
            f"align_effector: moving must be an arm other than the docked leg {leg}, got {moving!r}"
        )
    target = np.asarray(target, dtype=float).reshape(3)
    ang0 = np.zeros((3, 5)) if angles is None else np.array(angles, dtype=float).reshape(3, 5)
    free = [(leg - 1, k) for k in range(5)] + [(moving - 1, k) for k in range(5)]
    rng = np.random.default_rng(0)
    best, worst = None, np.inf
    for attempt in range(starts + 1):
        ang = ang0.copy()
        if attempt:
            for a_, k in free:
                ang[a_, k] = rng.uniform(-np.pi, np.pi)
        ang, res = _gauss_newton(ang, moving - 1, target, leg, free, tol, 150)
        worst = min(worst, res)
        if res == 0.0:
            ang = (ang + np.pi) % (2 * np.pi) - np.pi
            if best is None or np.abs(ang).sum() < np.abs(best).sum():
                best = ang
            if attempt == 0:
                break
    if best is None:
        raise ArgumentError(
            f"align_effector: arm R{moving} cannot reach {target.tolist()} "
            f"(smallest residual {worst:.3g} over {starts + 1} starts)"
        )
    return best


def quintic(start, end, z=None):
    """Rest-to-rest quintic joint trajectory gridded at ``z`` equally spaced waypoints.

    ``alpha(s) = alpha_0 + (alpha_f - alpha_0)(10 s^3 - 15 s^4 + 6 s^5)``, ``s`` in
    [0, 1]: zero rate and acceleration at both ends (digest Sec. 4.2).  Returns an
    array ``(z, *shape)`` (``z`` defaults to ``Z_WAYPOINTS``), first and last
    waypoints the two ends.

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> assembly.quintic(0.0, 1.0, 5).round(4)
    array([0.    , 0.1035, 0.5   , 0.8965, 1.    ])
    """
    z = Z_WAYPOINTS if z is None else int(z)
    if z < 2:
        raise ArgumentError(f"quintic: z must be at least 2 waypoints, got {z}")
    a0, af = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    if a0.shape != af.shape:
        raise ArgumentError(f"quintic: start {a0.shape} and end {af.shape} differ in shape")
    s = np.linspace(0.0, 1.0, z)
    blend = 10 * s**3 - 15 * s**4 + 6 * s**5
    return a0 + (af - a0) * blend.reshape((-1,) + (1,) * a0.ndim)


def edge_waypoints(moving, target, *, leg=1, z=None):
    """Joint angles of the two trajectories of an edge: 0 -> aligned, aligned -> 0.

    Returns ``(2 z, 3, 5)`` waypoints (digest Sec. 4.2: both trajectories start or
    end at ``alpha = 0``, so every edge is weighted alike).
    """
    aligned = align_effector(moving, target, leg=leg)
    zero = np.zeros((3, 5))
    return np.concatenate([quintic(zero, aligned, z), quintic(aligned, zero, z)])


# ----------------------------------------------------------------- control and costs
def attitude_gains(inertia):
    """Eq. 15: ``K_att = [-omega^2 J, -2 xi omega J]`` (u = +K [Theta; omega])."""
    j = np.asarray(inertia, dtype=float)
    return np.hstack([-(OMEGA_ATT**2) * j, -2 * XI_ATT * OMEGA_ATT * j])


def tuning_inertia():
    """``J_G^tot`` of the tuning configuration: F27, docked at tile 22, carrying a tile."""
    return rigid_inertia_at_g(27, 22, carrying=True)[3:, 3:]


def closed_loop(plant, gains=None):
    """Attitude loop of Fig. 10 around a global model (numeric or uncertain).

    Inputs ``ext_C_Fx..Tz`` then ``d_tx, d_ty, d_tz`` (torque disturbance);
    outputs ``G_alphax..z`` (angular acceleration), ``Theta_x..z`` and
    ``e_tx..z = d_t + u`` (input sensitivity channel).

    The Eq. 15 gains use the inertia ``J_G`` about the hub's centre of mass G
    (:func:`tuning_inertia`), while the free-floating plant turns about the
    system's centre of mass (its angular response to a torque at G is the
    angular block of ``D_G^-1``, not ``J_G^-1``), so the slow closed-loop
    poles are not all at ``-omega_att`` (-0.0628 rad/s): for the tuning
    configuration itself (F27, tile 22, carrying) they are near -0.039,
    -0.063 and -0.165 rad/s.

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> cl = assembly.closed_loop(assembly.spacecraft(2, 1, uncertain=False))
    >>> cl.shape
    (9, 9)
    """
    import control

    from ..lft import uss

    k = attitude_gains(tuning_inertia()) if gains is None else np.asarray(gains)
    # Theta = w/s, w = alpha/s: states [Theta; w], input alpha (3).
    z3, i3 = np.zeros((3, 3)), np.eye(3)
    integ = uss(
        control.ss(np.block([[z3, i3], [z3, z3]]), np.vstack([z3, i3]), np.eye(6), np.zeros((6, 3)))
    )
    integ.name = "integ"
    integ.input_names = [f"G_alpha{c}" for c in "xyz"]
    integ.output_names = [f"Theta_{c}" for c in "xyz"] + [f"w_{c}" for c in "xyz"]
    ctrl = uss(control.ss([], [], [], k))
    ctrl.name = "katt"
    ctrl.input_names = integ.output_names
    ctrl.output_names = [f"u_{c}" for c in "xyz"]
    et = uss(control.ss([], [], [], np.hstack([i3, i3])))
    et.name = "sum_et"
    et.input_names = [f"u_{c}" for c in "xyz"] + [f"d_t{c}" for c in "xyz"]
    et.output_names = [f"e_t{c}" for c in "xyz"]
    p = plant if isinstance(plant, UncertainSystem) else uss(plant)
    p.name = "plant"
    conns = [[f"integ.G_alpha{c}", f"plant.G_alpha{c}"] for c in "xyz"]
    conns += [[f"katt.{s}", f"integ.{s}"] for s in integ.output_names]
    conns += [[f"sum_et.u_{c}", f"katt.u_{c}"] for c in "xyz"]
    conns += [[f"plant.ext_G_T{c}", f"sum_et.e_t{c}"] for c in "xyz"]
    return connect(
        [p, integ, ctrl, et],
        connections=conns,
        inputs=[f"plant.ext_C_{c}" for c in WR] + [f"sum_et.d_t{c}" for c in "xyz"],
        outputs=[f"plant.G_alpha{c}" for c in "xyz"]
        + [f"integ.Theta_{c}" for c in "xyz"]
        + [f"sum_et.e_t{c}" for c in "xyz"],
        check_unused=False,
    )


def hinf_cost(n, tile, carrying=False, delta=0.0):
    """Eq. 16 for one frozen model: ``||W_ext,C -> omega'_G||_inf`` of the closed loop.

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> round(assembly.hinf_cost(2, 1), 6) > 0
    True
    """
    from ..analysis import hinfnorm

    w1 = SOLAR_ARRAY["frequencies_hz"][0] * HZ * (1 + 0.2 * delta)
    plant = spacecraft(n, tile, carrying=carrying).usubs({"w_sa1": w1})
    cl = closed_loop(plant).nominal()
    gamma, _ = hinfnorm(cl[0:3, 0:6])
    return float(gamma)


# ----------------------------------------------------------------- planning
def walk_graph(n):
    """The walking digraph of ``F_n`` (the pick-up graph without the stack node)."""
    _, _, g = planning_graphs(n)[2 * (n - 1)]
    g = g.copy()
    g.remove_node(0)
    return g


def example_path(n=27, start=(2, 1), goal=(27, 2)):
    """Unweighted (BFS) path of the paper's example: 7 moves from (tile 2, R1) to (tile 27, R2).

    Examples
    --------
    >>> from robustmb.examples import assembly
    >>> len(assembly.example_path()) - 1        # moves
    7
    >>> (len(assembly.example_path()) - 1) * 2 * assembly.Z_WAYPOINTS   # grid points
    98
    """
    import networkx as nx

    return nx.shortest_path(walk_graph(n), start, goal)


def node_cost_paths(graph, node_cost, start, goal):
    """Dijkstra and BFS paths when an edge costs the sum of its two end-node costs.

    Returns ``(dijkstra_path, dijkstra_cost, bfs_path, bfs_cost)``; the edge
    cost stands for the sum over the frozen models of the two trajectories of
    the edge (start-node model, then end-node model, digest Sec. 4.2).
    """
    import networkx as nx

    def w(u, v, _):
        return node_cost[u] + node_cost[v]

    dpath = nx.dijkstra_path(graph, start, goal, weight=w)
    bpath = nx.shortest_path(graph, start, goal)

    def cost(p):
        return sum(w(u, v, None) for u, v in zip(p[:-1], p[1:], strict=True))

    return dpath, cost(dpath), bpath, cost(bpath)
